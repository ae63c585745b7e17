// SPDX-License-Identifier: MIT
/*
 * propagate_from derived in user space (lib/backend-statmount.c) must be
 * exactly what the kernel says: for every setup below, a default capture
 * (derived) is compared record by record with a capture that asks the
 * kernel for every mount (MNTSNAP_CAPTURE_KERNEL_PROPAGATE_FROM), and its
 * mountinfo rendering with /proc/self/mountinfo. A counting syscall seam
 * checks that the kernel is asked once per invisible master group, not
 * once per mount, which is the whole point.
 *
 * Setups build peer groups, slaves, slave+shared groups and masters that
 * live only in another mount namespace, always inside ms_private_ns().
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "mntsnap.h"
#include "sys.h"
#include "sys-seam.h"

#define BASE "/tmp/mntsnap-prop"

static void mnt_ok(const char *src, const char *dst, const char *type, unsigned long flags)
{
	cr_assert_eq(mount(src, dst, type, flags, NULL), 0, "mount %s on %s: %s",
		     src ? src : "(null)", dst, strerror(errno));
}

static void bind_ok(const char *src, const char *dst)
{
	ms_mkdir_p(dst);
	mnt_ok(src, dst, NULL, MS_BIND);
}

static void prop_ok(const char *dst, unsigned long flags)
{
	mnt_ok(NULL, dst, NULL, flags);
}

/* A second namespace that keeps the first one (and its groups) alive. */
static void enter_second_ns(void)
{
	int keep = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);

	cr_assert_geq(keep, 0);
	cr_assert_eq(unshare(CLONE_NEWNS), 0, "unshare: %s", strerror(errno));
	/* keep stays open until the test process exits */
}

/* ---- counting seam --------------------------------------------------------- */

struct counts {
	unsigned statmount, with_pf;
};

static long count_statmount(void *ctx, const struct mntsnap_k_mnt_id_req *req, struct mntsnap_k_statmount *buf,
			    size_t bufsize, unsigned flags)
{
	struct counts *c = ctx;

	c->statmount++;
	if (req->param & MNTSNAP_K_STATMOUNT_PROPAGATE_FROM)
		c->with_pf++;
	return mntsnap__sys_statmount(NULL, req, buf, bufsize, flags);
}

static struct mntsnap_snapshot *capture(uint32_t flags, unsigned threads, uint64_t under,
					struct counts *counts)
{
	struct mntsnap_sysops ops = {.statmount = count_statmount, .ctx = counts};
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = {0};
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_STATMOUNT, .flags = flags,
		     .threads = threads, .under_id = under, .error = &err);
	int r = mntsnap__capture_with(&o, (counts ? &ops : NULL), &s);

	cr_assert_eq(r, 0, "capture: %s (%s)", strerror(-r), err.msg);
	return s;
}

/* ---- oracles ------------------------------------------------------------------ */

static void assert_same_records(const struct mntsnap_snapshot *got,
				const struct mntsnap_snapshot *want)
{
	struct mntsnap_mount g, w;

	cr_assert_eq(mntsnap_snapshot_count(got), mntsnap_snapshot_count(want));
	for (size_t i = 0; i < mntsnap_snapshot_count(got); i++) {
		cr_assert_eq(mntsnap_snapshot_get(got, i, &g), 0);
		cr_assert_eq(mntsnap_snapshot_get(want, i, &w), 0);
		cr_assert_eq(g.id, w.id, "record %zu", i);
		cr_assert(g.mask & MNTSNAP_F_PROPAGATE_FROM, "%s: no propagate_from",
			  g.mount_point);
		cr_assert_eq(g.mask, w.mask, "%s: mask %#x vs kernel %#x", g.mount_point, g.mask,
			     w.mask);
		cr_assert_eq(g.propagation, w.propagation, "%s", g.mount_point);
		cr_assert_eq(g.master, w.master, "%s", g.mount_point);
		cr_assert_eq(g.propagate_from, w.propagate_from,
			     "%s: propagate_from %u, kernel says %u (master %u)", g.mount_point,
			     g.propagate_from, w.propagate_from, g.master);
	}
}

/*
 * Derived capture == kernel capture == /proc/self/mountinfo. Returns the
 * kernel's text so callers can check that the setup did what it meant.
 */
static char *assert_exact(unsigned threads)
{
	struct mntsnap_snapshot *d = capture(0, threads, 0, NULL);
	struct mntsnap_snapshot *k = capture(MNTSNAP_CAPTURE_KERNEL_PROPAGATE_FROM, 0, 0, NULL);
	char *want = ms_read_file("/proc/self/mountinfo", NULL);
	char *got = ms_render(d, MNTSNAP_FORMAT_MOUNTINFO);

	ms_assert_text_eq(got, want, "derived propagate_from vs /proc/self/mountinfo");
	assert_same_records(d, k);
	free(got);
	got = ms_render(k, MNTSNAP_FORMAT_MOUNTINFO);
	ms_assert_text_eq(got, want, "kernel propagate_from vs /proc/self/mountinfo");
	free(got);
	mntsnap_snapshot_free(d);
	mntsnap_snapshot_free(k);
	return want;
}

static void assert_text_has(const char *text, const char *a, const char *b)
{
	for (const char *l = text; *l;) {
		size_t n = strcspn(l, "\n");
		char *line = strndup(l, n);
		bool ok = strstr(line, a) && (!b || strstr(line, b));

		free(line);
		if (ok)
			return;
		l += n + (l[n] ? 1 : 0);
	}
	cr_assert_fail("no mountinfo line with \"%s\"%s%s", a, b ? " and " : "", b ? b : "");
}

/* ---- setups ------------------------------------------------------------------- */

/* A: a shared mount; a peer of it; a slave of it; a slave+shared group. */
static void build_groups(void)
{
	ms_private_ns(BASE);
	bind_ok(BASE "/a", BASE "/a");
	prop_ok(BASE "/a", MS_SHARED);
	bind_ok(BASE "/a", BASE "/peer");
	bind_ok(BASE "/a", BASE "/slave");
	prop_ok(BASE "/slave", MS_SLAVE);
	bind_ok(BASE "/a", BASE "/b");
	prop_ok(BASE "/b", MS_SLAVE);
	prop_ok(BASE "/b", MS_SHARED); /* group B, master A */
	bind_ok(BASE "/b", BASE "/bpeer");
	bind_ok(BASE "/b", BASE "/bslave");
	prop_ok(BASE "/bslave", MS_SLAVE); /* master B; B visible */
	bind_ok(BASE "/a", BASE "/unb");
	prop_ok(BASE "/unb", MS_UNBINDABLE);
}

Test(propagation, visible_masters)
{
	char *text;

	build_groups();
	text = assert_exact(0);
	/* the setup is what it claims: slaves and a slave+shared group */
	assert_text_has(text, BASE "/slave ", " master:");
	assert_text_has(text, BASE "/b ", " master:");
	assert_text_has(text, BASE "/unb ", " unbindable");
	free(text);
}

/*
 * In a second namespace made a recursive slave, every mount is a slave of
 * a group whose members all live in the first one. For the B mounts the
 * master chain reaches A, and A has a member here when A's copy is left
 * shared: the kernel prints propagate_from:A. Rule 2 (one kernel call per
 * invisible group) must reproduce it.
 */
Test(propagation, cross_namespace_master_chain)
{
	char *text;

	build_groups();
	enter_second_ns();
	/* leave /a's copy a member of A; demote the B copies to slaves of B */
	prop_ok(BASE "/b", MS_SLAVE);
	prop_ok(BASE "/bpeer", MS_SLAVE);
	text = assert_exact(0);
	assert_text_has(text, BASE "/b ", " propagate_from:");
	assert_text_has(text, BASE "/bpeer ", " propagate_from:");
	free(text);
}

Test(propagation, cross_namespace_all_slaves)
{
	char *text;

	build_groups();
	enter_second_ns();
	prop_ok("/", MS_REC | MS_SLAVE);
	text = assert_exact(0);
	assert_text_has(text, BASE "/a ", " master:");
	free(text);
}

/* The bench's `peers` setup, small: one kernel call for all the slaves. */
Test(propagation, one_kernel_call_per_invisible_group)
{
	struct counts dc = {0}, kc = {0};
	struct mntsnap_snapshot *d, *k;
	char path[128];
	size_t n;

	ms_private_ns(BASE);
	bind_ok(BASE "/src", BASE "/src");
	prop_ok(BASE "/src", MS_SHARED);
	for (int i = 0; i < 40; i++) {
		snprintf(path, sizeof(path), BASE "/m/%d", i);
		bind_ok(BASE "/src", path);
	}
	enter_second_ns();
	prop_ok("/", MS_REC | MS_SLAVE);
	free(assert_exact(0));
	d = capture(0, 0, 0, &dc);
	k = capture(MNTSNAP_CAPTURE_KERNEL_PROPAGATE_FROM, 0, 0, &kc);
	n = mntsnap_snapshot_count(d);
	assert_same_records(d, k);
	cr_assert_eq(dc.with_pf, 1, "derived capture asked the kernel %u times", dc.with_pf);
	cr_assert_eq(dc.statmount, n + 1);
	cr_assert_eq(kc.with_pf, n);
	mntsnap_snapshot_free(d);
	mntsnap_snapshot_free(k);
}

/* A visible master needs no kernel call at all. */
Test(propagation, no_kernel_call_when_master_visible)
{
	struct counts c = {0};
	struct mntsnap_snapshot *s;

	build_groups();
	s = capture(0, 0, 0, &c);
	cr_assert_eq(c.with_pf, 0, "asked the kernel %u times", c.with_pf);
	mntsnap_snapshot_free(s);
}

/* Subtree captures cannot prove visibility: rule 2 only, still exact. */
Test(propagation, subtree_capture)
{
	struct mntsnap_snapshot *full, *d, *k;
	struct mntsnap_mount m;
	uint64_t base_id = 0;

	build_groups();
	enter_second_ns();
	prop_ok(BASE "/b", MS_SLAVE);
	full = capture(0, 0, 0, NULL);
	for (size_t i = 0; i < mntsnap_snapshot_count(full); i++) {
		cr_assert_eq(mntsnap_snapshot_get(full, i, &m), 0);
		if (!strcmp(m.mount_point, BASE))
			base_id = m.id;
	}
	cr_assert_neq(base_id, 0);
	d = capture(0, 0, base_id, NULL);
	k = capture(MNTSNAP_CAPTURE_KERNEL_PROPAGATE_FROM, 0, base_id, NULL);
	cr_assert_gt(mntsnap_snapshot_count(d), 5);
	assert_same_records(d, k);
	mntsnap_snapshot_free(full);
	mntsnap_snapshot_free(d);
	mntsnap_snapshot_free(k);
}

/* The parallel fetch keeps id order and loses nothing (chunks of 64). */
Test(propagation, parallel_capture_is_identical)
{
	struct mntsnap_snapshot *one, *two, *four;
	char path[128], *a, *b, *c;

	ms_private_ns(BASE);
	bind_ok(BASE "/src", BASE "/src");
	prop_ok(BASE "/src", MS_SHARED);
	for (int i = 0; i < 1500; i++) {
		snprintf(path, sizeof(path), BASE "/m/%d", i);
		bind_ok(BASE "/src", path);
		if (i % 3 == 0)
			prop_ok(path, MS_SLAVE);
	}
	free(assert_exact(2));
	one = capture(0, 1, 0, NULL);
	two = capture(0, 2, 0, NULL);
	four = capture(0, 4, 0, NULL);
	a = ms_render(one, MNTSNAP_FORMAT_MOUNTINFO);
	b = ms_render(two, MNTSNAP_FORMAT_MOUNTINFO);
	c = ms_render(four, MNTSNAP_FORMAT_MOUNTINFO);
	ms_assert_text_eq(b, a, "threads=2 vs threads=1");
	ms_assert_text_eq(c, a, "threads=4 vs threads=1");
	assert_same_records(two, one);
	free(a);
	free(b);
	free(c);
	mntsnap_snapshot_free(one);
	mntsnap_snapshot_free(two);
	mntsnap_snapshot_free(four);
}

/* A foreign namespace (a child's): derived records equal the kernel's. */
Test(propagation, foreign_namespace)
{
	struct mntsnap_snapshot *d = NULL, *k = NULL;
	struct mntsnap_ns *ns = NULL;
	int go[2], r;
	pid_t pid;
	char c;

	build_groups();
	cr_assert_eq(pipe2(go, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		/* a namespace whose B members are slaves of a B we cannot see */
		if (unshare(CLONE_NEWNS) || mount(NULL, BASE "/b", NULL, MS_SLAVE, NULL) ||
		    mount(NULL, BASE "/bpeer", NULL, MS_SLAVE, NULL))
			_exit(1);
		if (write(go[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(go[1]);
	cr_assert_eq(read(go[0], &c, 1), 1, "child setup failed");
	r = mntsnap_ns_open_pid(pid, NULL, &ns);
	cr_assert_eq(r, 0, "ns_open_pid: %s", strerror(-r));
	{
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .ns = ns);
		MNTSNAP_OPTS(mntsnap_capture_opts, ok, .ns = ns,
			     .flags = MNTSNAP_CAPTURE_KERNEL_PROPAGATE_FROM);

		r = mntsnap_capture(&o, &d);
		cr_assert_eq(r, 0, "capture: %s", strerror(-r));
		r = mntsnap_capture(&ok, &k);
		cr_assert_eq(r, 0, "kernel capture: %s", strerror(-r));
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	cr_assert_gt(mntsnap_snapshot_count(d), 5);
	assert_same_records(d, k);
	mntsnap_snapshot_free(d);
	mntsnap_snapshot_free(k);
	mntsnap_ns_free(ns);
}

/* Narrow masks and reverse order: derived still equals the kernel's. */
Test(propagation, narrow_mask_and_reverse)
{
	uint32_t masks[] = {MNTSNAP_F_ID | MNTSNAP_F_PROPAGATE_FROM,
			    MNTSNAP_F_PROPAGATE_FROM | MNTSNAP_F_MOUNT_POINT, MNTSNAP_MASK_FULL};

	build_groups();
	enter_second_ns();
	prop_ok(BASE "/b", MS_SLAVE);
	prop_ok(BASE "/bpeer", MS_SLAVE);
	for (size_t i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
		for (uint32_t rev = 0; rev <= MNTSNAP_CAPTURE_REVERSE;
		     rev += MNTSNAP_CAPTURE_REVERSE) {
			struct mntsnap_snapshot *d = NULL, *k = NULL;
			MNTSNAP_OPTS(mntsnap_capture_opts, od, .backend = MNTSNAP_BACKEND_STATMOUNT,
				     .mask = masks[i], .flags = rev);
			MNTSNAP_OPTS(mntsnap_capture_opts, ok, .backend = MNTSNAP_BACKEND_STATMOUNT,
				     .mask = masks[i],
				     .flags = rev | MNTSNAP_CAPTURE_KERNEL_PROPAGATE_FROM);
			struct mntsnap_mount g, w;
			bool saw_pf = false;

			cr_assert_eq(mntsnap_capture(&od, &d), 0);
			cr_assert_eq(mntsnap_capture(&ok, &k), 0);
			cr_assert_eq(mntsnap_snapshot_count(d), mntsnap_snapshot_count(k));
			for (size_t j = 0; j < mntsnap_snapshot_count(d); j++) {
				cr_assert_eq(mntsnap_snapshot_get(d, j, &g), 0);
				cr_assert_eq(mntsnap_snapshot_get(k, j, &w), 0);
				cr_assert_eq(g.mask, w.mask, "mask %#x: %#x vs kernel %#x",
					     masks[i], g.mask, w.mask);
				cr_assert_eq(g.propagate_from, w.propagate_from,
					     "mask %#x record %zu", masks[i], j);
				saw_pf |= g.propagate_from != 0;
			}
			cr_assert(saw_pf, "the setup has propagate_from lines");
			mntsnap_snapshot_free(d);
			mntsnap_snapshot_free(k);
		}
	}
}

/*
 * Lookups by old id whether or not storage is in old-id order (the old
 * ids are recycled lowest-first, so a mount made after an umount can get
 * a smaller old id than an older mount: the by_old index must exist then).
 */
Test(propagation, find_old_sorted_and_recycled)
{
	struct mntsnap_snapshot *s;
	struct mntsnap_mount m, prev = {0};
	bool unsorted = false;

	ms_private_ns(BASE);
	/*
	 * Mount ids are one system-wide pool: a mount made at the same time
	 * elsewhere (another suite) can take the freed id first, so a round
	 * may leave the table sorted: try again, a few times at most.
	 */
	for (int round = 0; round < 2 || (round < 12 && !unsorted); round++) {
		s = capture(0, 0, 0, NULL);
		for (size_t i = 0; i < mntsnap_snapshot_count(s); i++) {
			cr_assert_eq(mntsnap_snapshot_get(s, i, &m), 0);
			cr_assert_eq(mntsnap_snapshot_find_old(s, m.id_old), (long)i, "old id %u",
				     m.id_old);
			cr_assert_eq(mntsnap_snapshot_find(s, m.id), (long)i);
			if (i && m.id_old < prev.id_old)
				unsorted = true;
			prev = m;
		}
		cr_assert_eq(mntsnap_snapshot_find_old(s, 0x7fffffff), -ENOENT);
		mntsnap_snapshot_free(s);
		/* recycle an old id: the new mount gets the freed, smaller one */
		bind_ok(BASE "/x", BASE "/x");
		bind_ok(BASE "/y", BASE "/y");
		cr_assert_eq(umount2(BASE "/x", 0), 0);
		bind_ok(BASE "/z", BASE "/z");
	}
	cr_assert(unsorted, "the second table had a recycled old id");
}

/* A mount that vanishes before its propagate_from call keeps no value. */
static long vanish_on_pf(void *ctx, const struct mntsnap_k_mnt_id_req *req, struct mntsnap_k_statmount *buf,
			 size_t bufsize, unsigned flags)
{
	(void)ctx;
	if (req->param & MNTSNAP_K_STATMOUNT_PROPAGATE_FROM)
		return -ENOENT;
	return mntsnap__sys_statmount(NULL, req, buf, bufsize, flags);
}

Test(propagation, vanished_before_kernel_call)
{
	struct mntsnap_sysops ops = {.statmount = vanish_on_pf};
	struct mntsnap_snapshot *s = NULL;
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_STATMOUNT);
	struct mntsnap_mount m;
	unsigned without = 0;

	build_groups();
	enter_second_ns();
	/* no member of B left here: only the kernel can tell for its slaves */
	prop_ok(BASE "/b", MS_SLAVE);
	prop_ok(BASE "/bpeer", MS_SLAVE);
	cr_assert_eq(mntsnap__capture_with(&o, &ops, &s), 0);
	for (size_t i = 0; i < mntsnap_snapshot_count(s); i++) {
		cr_assert_eq(mntsnap_snapshot_get(s, i, &m), 0);
		if (!(m.mask & MNTSNAP_F_PROPAGATE_FROM)) {
			without++;
			cr_assert(m.propagation & MNTSNAP_PROP_SLAVE, "%s", m.mount_point);
		}
	}
	cr_assert_gt(without, 0, "the slave of the invisible group has no value");
	cr_assert_lt(without, mntsnap_snapshot_count(s), "the others keep theirs");
	mntsnap_snapshot_free(s);
}
