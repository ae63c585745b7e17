// SPDX-License-Identifier: MIT
/*
 * The mountinfo backend and the automatic backend choice.
 *
 *  - equivalence: for mount setups built in a private namespace, the
 *    statmount and mountinfo backends give equal records on every field
 *    both can give, and both render /proc/self/mountinfo byte for byte;
 *  - blocked syscalls for real: a seccomp filter (raw BPF, no libseccomp)
 *    makes statmount/listmount fail with ENOSYS or EPERM in a forked
 *    child, and AUTO still returns the full table from mountinfo;
 *  - the seam: fake listmount errors steer AUTO, never the process cache;
 *  - parser fixtures (tests/data/mountinfo), malformed input with the
 *    line number in the error, random bytes, a 64 KiB line, 10,000 lines;
 *  - fd hygiene.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "mntsnap.h"
#include "sys.h"
#include "sys-seam.h"

#define BASE "/tmp/mntsnap-test-mi"


#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256
#endif

/* ---- helpers ------------------------------------------------------------ */

static struct mntsnap_snapshot *capture(int backend)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = {0};
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = backend, .error = &err);
	int r = mntsnap_capture(&o, &s);

	cr_assert_eq(r, 0, "capture(%s): %s (%s)", mntsnap_backend_name(backend), strerror(-r),
		     err.msg);
	cr_assert_eq(mntsnap_snapshot_backend(s), backend);
	return s;
}

static struct mntsnap_snapshot *parse_text(const char *text, size_t len)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = {0};
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .error = &err);
	int r = mntsnap_parse_mountinfo(text, len, &o, &s);

	cr_assert_eq(r, 0, "parse: %s (line %u: %s)", strerror(-r), err.line, err.msg);
	cr_assert_eq(mntsnap_snapshot_backend(s), MNTSNAP_BACKEND_MOUNTINFO);
	return s;
}

static void mnt_ok(const char *src, const char *dst, const char *type, unsigned long flags,
		   const char *data)
{
	cr_assert_eq(mount(src, dst, type, flags, data), 0, "mount %s on %s: %s",
		     src ? src : "(null)", dst, strerror(errno));
}

static void bind_ok(const char *src, const char *dst)
{
	mnt_ok(src, dst, NULL, MS_BIND, NULL);
}

static void prop_ok(const char *dst, unsigned long flags)
{
	mnt_ok(NULL, dst, NULL, flags, NULL);
}

#define STR_FIELD(bit, f)                                                              \
	do {                                                                           \
		if (both & (bit))                                                      \
			cr_assert_str_eq(a->f, b->f, "%s: " #f " '%s' vs '%s'",         \
					 a->mount_point, a->f, b->f);                   \
	} while (0)
#define NUM_FIELD(bit, f)                                                              \
	do {                                                                           \
		if (both & (bit))                                                      \
			cr_assert_eq(a->f, b->f, "%s: " #f " %llu vs %llu", a->mount_point,  \
				     (unsigned long long)a->f, (unsigned long long)b->f); \
	} while (0)

/* Every field both records have must be equal (a: statmount, b: mountinfo). */
static void assert_same_record(const struct mntsnap_mount *a, const struct mntsnap_mount *b)
{
	uint32_t both = a->mask & b->mask;
	/* string fields absent from statmount are the kernel's empty strings */
	uint32_t strs = MNTSNAP_F_FS_SUBTYPE | MNTSNAP_F_OPTS | MNTSNAP_F_SOURCE;

	cr_assert_eq(b->mask & ~a->mask & ~strs, 0, "%s: mountinfo has fields statmount lacks: %#x",
		     a->mount_point, b->mask & ~a->mask);
	NUM_FIELD(MNTSNAP_F_ID_OLD, id_old);
	NUM_FIELD(MNTSNAP_F_ID_OLD, parent_id_old);
	NUM_FIELD(MNTSNAP_F_DEV, dev_major);
	NUM_FIELD(MNTSNAP_F_DEV, dev_minor);
	NUM_FIELD(MNTSNAP_F_SB_FLAGS, sb_flags);
	NUM_FIELD(MNTSNAP_F_ATTR, attr);
	NUM_FIELD(MNTSNAP_F_PROPAGATION, propagation);
	NUM_FIELD(MNTSNAP_F_PROPAGATION, peer_group);
	NUM_FIELD(MNTSNAP_F_PROPAGATION, master);
	NUM_FIELD(MNTSNAP_F_PROPAGATE_FROM, propagate_from);
	NUM_FIELD(MNTSNAP_F_NS_ID, ns_id);
	STR_FIELD(MNTSNAP_F_ROOT, root);
	STR_FIELD(MNTSNAP_F_MOUNT_POINT, mount_point);
	STR_FIELD(MNTSNAP_F_FS_TYPE, fs_type);
	/* absent == "" (the accessors return "" for absent strings) */
	both |= strs;
	STR_FIELD(MNTSNAP_F_FS_SUBTYPE, fs_subtype);
	STR_FIELD(MNTSNAP_F_SOURCE, source);
	STR_FIELD(MNTSNAP_F_OPTS, options);
	/* the tree, too */
	cr_assert_eq(a->depth, b->depth, "%s: depth", a->mount_point);
}

static void assert_same_snapshots(const struct mntsnap_snapshot *sm,
				  const struct mntsnap_snapshot *mi)
{
	size_t n = mntsnap_snapshot_count(sm);
	struct mntsnap_mount a, b;

	cr_assert_eq(mntsnap_snapshot_count(mi), n, "record counts differ");
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(mntsnap_snapshot_get(sm, i, &a), 0);
		cr_assert_eq(mntsnap_snapshot_get(mi, i, &b), 0);
		cr_assert_eq(a.id_old, b.id_old, "record %zu: order differs", i);
		assert_same_record(&a, &b);
		cr_assert_eq(mntsnap_snapshot_tree_index(sm, i), mntsnap_snapshot_tree_index(mi, i),
			     "tree order differs at %zu", i);
	}
}

/*
 * The oracle for one setup: both backends, equal records, and both
 * renderings equal to the kernel's text; the parser reproduces the text.
 */
static void assert_equivalent(void)
{
	struct mntsnap_snapshot *sm = capture(MNTSNAP_BACKEND_STATMOUNT);
	struct mntsnap_snapshot *mi = capture(MNTSNAP_BACKEND_MOUNTINFO);
	size_t len;
	char *want = ms_read_file("/proc/self/mountinfo", &len);
	char *got_mi = ms_render(mi, MNTSNAP_FORMAT_MOUNTINFO);
	char *got_sm = ms_render(sm, MNTSNAP_FORMAT_MOUNTINFO);
	struct mntsnap_snapshot *parsed = parse_text(want, len);
	char *got_parsed = ms_render(parsed, MNTSNAP_FORMAT_MOUNTINFO);

	ms_assert_text_eq(got_mi, want, "mountinfo backend rendering vs /proc/self/mountinfo");
	ms_assert_text_eq(got_sm, want, "statmount backend rendering vs /proc/self/mountinfo");
	ms_assert_text_eq(got_parsed, want, "parsed text rendered again");
	assert_same_snapshots(sm, mi);
	cr_assert_neq(mntsnap_snapshot_ns_id(mi), 0, "live mountinfo capture knows its ns id");
	cr_assert_eq(mntsnap_snapshot_ns_id(mi), mntsnap_snapshot_ns_id(sm));
	free(got_parsed);
	free(got_sm);
	free(got_mi);
	free(want);
	mntsnap_snapshot_free(parsed);
	mntsnap_snapshot_free(mi);
	mntsnap_snapshot_free(sm);
}

/* ---- equivalence with statmount, kernel as the oracle ------------------- */

LTest(mountinfo, equiv_plain)
{
	ms_private_ns(BASE);
	assert_equivalent();
}

LTest(mountinfo, equiv_tmpfs_flags)
{
	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/a");
	ms_mkdir_p(BASE "/b");
	ms_mkdir_p(BASE "/c");
	mnt_ok("src", BASE "/a", "tmpfs",
	       MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME |
		       MS_SYNCHRONOUS | MS_DIRSYNC | MS_LAZYTIME,
	       "size=1m,mode=700,uid=1,gid=2");
	mnt_ok("other", BASE "/b", "tmpfs", MS_STRICTATIME | MS_NOSYMFOLLOW,
	       "size=4k,nr_inodes=77,mode=1777");
	mnt_ok("third", BASE "/c", "tmpfs", MS_NODIRATIME, NULL);
	assert_equivalent();
}

LTest(mountinfo, equiv_binds_ro_and_flags)
{
	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/src/sub/deep dir");
	ms_mkdir_p(BASE "/b1");
	ms_mkdir_p(BASE "/b2");
	ms_mkdir_p(BASE "/ro");
	ms_mkdir_p(BASE "/nosym");
	bind_ok(BASE "/src/sub", BASE "/b1");
	bind_ok(BASE "/src/sub/deep dir", BASE "/b2");
	bind_ok(BASE "/src", BASE "/ro");
	mnt_ok(NULL, BASE "/ro", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOEXEC, NULL);
	bind_ok(BASE "/src", BASE "/nosym");
	mnt_ok(NULL, BASE "/nosym", NULL,
	       MS_REMOUNT | MS_BIND | MS_NOSYMFOLLOW | MS_NOSUID | MS_NODEV | MS_NOATIME, NULL);
	/* a rw bind of a read-only superblock: "rw ... - tmpfs x ro" */
	ms_mkdir_p(BASE "/rosb");
	ms_mkdir_p(BASE "/rwbind");
	mnt_ok("rosb", BASE "/rosb", "tmpfs", 0, NULL);
	bind_ok(BASE "/rosb", BASE "/rwbind");
	mnt_ok(NULL, BASE "/rosb", NULL, MS_REMOUNT | MS_RDONLY, NULL);
	mnt_ok(NULL, BASE "/rwbind", NULL, MS_REMOUNT | MS_BIND, NULL);
	assert_equivalent();
}

LTest(mountinfo, equiv_propagation)
{
	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/shared");
	ms_mkdir_p(BASE "/peer");
	ms_mkdir_p(BASE "/slave");
	ms_mkdir_p(BASE "/slave_shared");
	ms_mkdir_p(BASE "/unbind");
	ms_mkdir_p(BASE "/priv");
	mnt_ok("sh", BASE "/shared", "tmpfs", 0, NULL);
	prop_ok(BASE "/shared", MS_SHARED);
	bind_ok(BASE "/shared", BASE "/peer");
	bind_ok(BASE "/shared", BASE "/slave");
	prop_ok(BASE "/slave", MS_SLAVE);
	bind_ok(BASE "/shared", BASE "/slave_shared");
	prop_ok(BASE "/slave_shared", MS_SLAVE);
	prop_ok(BASE "/slave_shared", MS_SHARED);
	mnt_ok("ub", BASE "/unbind", "tmpfs", 0, NULL);
	prop_ok(BASE "/unbind", MS_UNBINDABLE);
	mnt_ok("pr", BASE "/priv", "tmpfs", 0, NULL);
	assert_equivalent();
}

/*
 * propagate_from shows when the master group has no member visible here
 * but a group further up the chain has: z is a slave of G2 (members only
 * in the parent namespace), G2 a slave of G1, and x (G1) is visible.
 */
LTest(mountinfo, equiv_propagate_from)
{
	struct mntsnap_snapshot *mi;
	struct mntsnap_mount m;
	bool seen = false;
	int keep;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/x");
	ms_mkdir_p(BASE "/y");
	ms_mkdir_p(BASE "/z");
	mnt_ok("g1", BASE "/x", "tmpfs", 0, NULL);
	prop_ok(BASE "/x", MS_SHARED);
	bind_ok(BASE "/x", BASE "/y");
	prop_ok(BASE "/y", MS_SLAVE);
	prop_ok(BASE "/y", MS_SHARED);
	bind_ok(BASE "/y", BASE "/z");
	/* keep the parent namespace (and G2's members in it) alive */
	keep = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	cr_assert_geq(keep, 0);
	cr_assert_eq(unshare(CLONE_NEWNS), 0, "%s", strerror(errno));
	prop_ok(BASE "/z", MS_SLAVE);
	prop_ok(BASE "/y", MS_PRIVATE);
	assert_equivalent();

	mi = capture(MNTSNAP_BACKEND_MOUNTINFO);
	for (size_t i = 0; i < mntsnap_snapshot_count(mi); i++) {
		mntsnap_snapshot_get(mi, i, &m);
		if (!strcmp(m.mount_point, BASE "/z")) {
			cr_assert(m.propagation & MNTSNAP_PROP_SLAVE);
			cr_assert_neq(m.propagate_from, 0);
			cr_assert_neq(m.propagate_from, m.master);
			seen = true;
		}
	}
	cr_assert(seen);
	mntsnap_snapshot_free(mi);
	close(keep);
}

LTest(mountinfo, equiv_overmount_and_stack)
{
	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/stack");
	mnt_ok("one", BASE "/stack", "tmpfs", 0, NULL);
	mnt_ok("two", BASE "/stack", "tmpfs", 0, "mode=711");
	mnt_ok("three", BASE "/stack", "tmpfs", MS_RDONLY, NULL);
	/* over the scratch base itself */
	mnt_ok("over", BASE, "tmpfs", 0, NULL);
	assert_equivalent();
}

LTest(mountinfo, equiv_odd_names)
{
	const char *dir = BASE "/a b\tc\nd\\e#f\xc3\xa9g";

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/src/sp ace\\dir");
	ms_mkdir_p(dir);
	ms_mkdir_p(BASE "/bind");
	mnt_ok("src with space\\back#hash\ttab\nnl\xc3\xa9", dir, "tmpfs", 0, NULL);
	bind_ok(BASE "/src/sp ace\\dir", BASE "/bind");
	assert_equivalent();
}

/*
 * An empty source prints as "tmpfs  rw". statmount reports no SB_SOURCE
 * for it (and the renderer then prints "none"), so only the mountinfo
 * side is checked against the kernel here.
 */
LTest(mountinfo, empty_source)
{
	struct mntsnap_snapshot *mi;
	struct mntsnap_mount m;
	char *want, *got;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/empty");
	mnt_ok("", BASE "/empty", "tmpfs", 0, NULL);
	mi = capture(MNTSNAP_BACKEND_MOUNTINFO);
	want = ms_read_file("/proc/self/mountinfo", NULL);
	got = ms_render(mi, MNTSNAP_FORMAT_MOUNTINFO);
	ms_assert_text_eq(got, want, "mountinfo backend rendering vs /proc/self/mountinfo");
	cr_assert(strstr(want, " - tmpfs  rw"));
	cr_assert_eq(mntsnap_snapshot_get(mi, mntsnap_snapshot_count(mi) - 1, &m), 0);
	cr_assert_str_eq(m.mount_point, BASE "/empty");
	cr_assert(m.mask & MNTSNAP_F_SOURCE);
	cr_assert_str_eq(m.source, "");
	free(got);
	free(want);
	mntsnap_snapshot_free(mi);
}

LTest(mountinfo, equiv_long_path)
{
	char path[4200];
	size_t n;

	ms_private_ns(BASE);
	n = (size_t)snprintf(path, sizeof(path), "%s", BASE);
	while (n < 3300) {
		path[n++] = '/';
		memset(path + n, 'p', 200);
		n += 200;
		path[n] = '\0';
	}
	ms_mkdir_p(path);
	mnt_ok("long", path, "tmpfs", 0, NULL);
	assert_equivalent();
}

LTest(mountinfo, equiv_overlayfs)
{
	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/ov/l o");
	ms_mkdir_p(BASE "/ov/l2");
	ms_mkdir_p(BASE "/ov/u");
	ms_mkdir_p(BASE "/ov/w");
	ms_mkdir_p(BASE "/ov/m");
	if (mount("ovl", BASE "/ov/m", "overlay", 0,
		  "lowerdir=" BASE "/ov/l o:" BASE "/ov/l2,upperdir=" BASE "/ov/u,workdir=" BASE
		  "/ov/w"))
		cr_skip_test("overlayfs: %s", strerror(errno));
	assert_equivalent();
}

/*
 * FUSE: "fuse.NAME" splits at the first '.' into type and subtype, also
 * when the subtype itself has dots, '#' or spaces. No daemon is needed:
 * the mount succeeds before FUSE_INIT, and closing /dev/fuse aborts the
 * connection, so nothing waits on it.
 */
LTest(mountinfo, equiv_fuse_subtypes)
{
	struct mntsnap_snapshot *mi;
	struct mntsnap_mount m;
	int seen = 0;

	ms_private_ns(BASE);
	ms_mount_fuse("fsrc", BASE "/fuse1", "fuse.mytype");
	ms_mount_fuse("f src#2", BASE "/fuse2", "fuse.sub#type x");
	ms_mount_fuse("dots", BASE "/fuse3", "fuse.sub.with.dots");
	ms_mount_fuse("plain", BASE "/fuse4", "fuse");
	assert_equivalent();
	mi = capture(MNTSNAP_BACKEND_MOUNTINFO);
	for (size_t i = 0; i < mntsnap_snapshot_count(mi); i++) {
		mntsnap_snapshot_get(mi, i, &m);
		if (!strcmp(m.mount_point, BASE "/fuse3")) {
			cr_assert_str_eq(m.fs_type, "fuse");
			cr_assert_str_eq(m.fs_subtype, "sub.with.dots");
			seen++;
		} else if (!strcmp(m.mount_point, BASE "/fuse2")) {
			cr_assert_str_eq(m.fs_subtype, "sub#type x");
			cr_assert_str_eq(m.source, "f src#2");
			seen++;
		} else if (!strcmp(m.mount_point, BASE "/fuse4")) {
			cr_assert(m.mask & MNTSNAP_F_FS_SUBTYPE, "no subtype: the empty value");
			cr_assert_str_eq(m.fs_subtype, "");
			seen++;
		}
	}
	cr_assert_eq(seen, 3);
	mntsnap_snapshot_free(mi);
}

/* ---- blocked syscalls for real (seccomp, raw BPF) ----------------------- */

#ifdef MS_HAVE_SECCOMP_HELPER
/* Child: exit 0 on success, else a code naming the failed step. */
static int blocked_child(bool statmount, bool listmount, int err)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error e = {0};
	char *want, *got;
	int r;

	if (ms_block_mount_syscalls(statmount, listmount, err))
		return 10;
	/* the filter is real: the raw syscall now fails as told */
	if (listmount && (syscall(458, NULL, NULL, 0, 0) != -1 || errno != err))
		return 11;
	if (statmount && (syscall(457, NULL, NULL, 0, 0) != -1 || errno != err))
		return 11;
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .error = &e);
	if (mntsnap_capture(&o, &s))
		return 12;
	if (mntsnap_snapshot_backend(s) != MNTSNAP_BACKEND_MOUNTINFO)
		return 13;
	want = ms_read_file("/proc/self/mountinfo", NULL);
	got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
	r = strcmp(want, got) ? 14 : 0;
	free(want);
	free(got);
	mntsnap_snapshot_free(s);
	if (r)
		return r;
	/* forcing statmount reports the filter's errno as is */
	MNTSNAP_OPTS(mntsnap_capture_opts, f, .backend = MNTSNAP_BACKEND_STATMOUNT);
	r = mntsnap_capture(&f, &s);
	if (r != -err)
		return 15;
	return 0;
}

static void run_blocked(bool statmount, bool listmount, int err)
{
	int status;
	pid_t pid;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/m");
	mnt_ok("blocked", BASE "/m", "tmpfs", MS_NOSUID, "mode=700");
	/* warm the per-process cache: the child must not trust it blindly */
	cr_assert_eq(mntsnap_have_statmount(), 1);
	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid)
		_exit(blocked_child(statmount, listmount, err));
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status), "child died: status %#x", status);
	cr_assert_eq(WEXITSTATUS(status), 0, "child failed at step %d", WEXITSTATUS(status));
}

LTest(mountinfo, seccomp_enosys)
{
	run_blocked(true, true, ENOSYS);
}

LTest(mountinfo, seccomp_eperm)
{
	run_blocked(true, true, EPERM);
}

LTest(mountinfo, seccomp_eacces_statmount_only)
{
	/* listmount allowed, statmount denied: the probe passes, capture falls back */
	run_blocked(true, false, EACCES);
}

/*
 * A seccomp filter belongs to one thread (installed without TSYNC):
 * one thread's refusal says nothing about its siblings. A thread under a
 * filter asks first; the process's other threads still get statmount,
 * by the kernel's own answer (the raw listmount works there).
 */
struct filtered_probe {
	int err;
	int blocked; /* the filtered thread's answer */
	int setup;
};

static void *filtered_probe_thread(void *arg)
{
	struct filtered_probe *p = arg;

	p->setup = ms_block_mount_syscalls(true, true, p->err);
	if (!p->setup)
		p->blocked = mntsnap_have_statmount();
	return NULL;
}

static void run_thread_filtered(int err)
{
	struct filtered_probe p = { .err = err, .blocked = -1 };
	/* the kernel's mnt_id_req, VER0, written out: LSMT_ROOT, one id */
	struct {
		uint32_t size, spare;
		uint64_t mnt_id, param;
	} req = { .size = 24, .mnt_id = 0xffffffffffffffffULL };
	struct mntsnap_snapshot *s = NULL;
	uint64_t id;
	pthread_t t;

	cr_assert_eq(pthread_create(&t, NULL, filtered_probe_thread, &p), 0);
	cr_assert_eq(pthread_join(t, NULL), 0);
	cr_assert_eq(p.setup, 0, "filter: %s", strerror(-p.setup));
	cr_assert_eq(p.blocked, 0, "the filtered thread was told yes");
	/* the oracle: this thread's own listmount goes through */
	cr_assert_eq(syscall(458, &req, &id, 1, 0), 1, "listmount: %s", strerror(errno));
	cr_assert_eq(mntsnap_have_statmount(), 1, "another thread's filter was taken for this one's");
	cr_assert_eq(mntsnap_capture(NULL, &s), 0);
	cr_expect_eq(mntsnap_snapshot_backend(s), MNTSNAP_BACKEND_STATMOUNT);
	mntsnap_snapshot_free(s);
}

Test(mountinfo, seccomp_one_thread_eperm)
{
	run_thread_filtered(EPERM);
}

Test(mountinfo, seccomp_one_thread_enosys)
{
	run_thread_filtered(ENOSYS);
}
#else
LTest(mountinfo, seccomp_enosys)
{
	cr_skip_test("raw BPF filter written for x86_64 only");
}
#endif

/* ---- the seam ------------------------------------------------------------ */

struct fake {
	long listmount_err;
	unsigned calls;
};

static long fake_listmount(void *ctx, const struct mntsnap_k_mnt_id_req *req, uint64_t *ids, size_t nr,
			   unsigned flags)
{
	struct fake *f = ctx;

	f->calls++;
	if (f->listmount_err)
		return f->listmount_err;
	return mntsnap__sys_listmount(NULL, req, ids, nr, flags);
}

static int capture_with(long err, int backend, struct fake *f, struct mntsnap_snapshot **ret)
{
	struct mntsnap_sysops ops = { .listmount = fake_listmount, .ctx = f };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = backend);

	f->listmount_err = err;
	f->calls = 0;
	return mntsnap__capture_with(&o, &ops, ret);
}

LTest(mountinfo, seam_fallback)
{
	static const long fall[] = { -ENOSYS, -EPERM, -EACCES, -E2BIG, -EINVAL };
	struct mntsnap_snapshot *s;
	struct fake f = {0};

	for (size_t i = 0; i < sizeof(fall) / sizeof(fall[0]); i++) {
		cr_assert_eq(capture_with(fall[i], MNTSNAP_BACKEND_AUTO, &f, &s), 0);
		cr_assert_eq(mntsnap_snapshot_backend(s), MNTSNAP_BACKEND_MOUNTINFO,
			     "AUTO after %s", strerror((int)-fall[i]));
		cr_assert_geq(f.calls, 1, "the seam was asked");
		cr_assert_gt(mntsnap_snapshot_count(s), 0);
		mntsnap_snapshot_free(s);
	}
	/* forcing statmount returns the error as is */
	cr_assert_eq(capture_with(-ENOSYS, MNTSNAP_BACKEND_STATMOUNT, &f, &s), -ENOSYS);
	cr_assert_eq(capture_with(-EPERM, MNTSNAP_BACKEND_STATMOUNT, &f, &s), -EPERM);
	/* other errors are not "unavailable": AUTO reports them */
	cr_assert_eq(capture_with(-ENOENT, MNTSNAP_BACKEND_AUTO, &f, &s), -ENOENT);
	cr_assert_eq(capture_with(-ENOMEM, MNTSNAP_BACKEND_AUTO, &f, &s), -ENOMEM);
	/* the fake errors never reached the per-process cache */
	cr_assert_eq(mntsnap_have_statmount(), 1);
	/* a working seam: AUTO uses statmount */
	cr_assert_eq(capture_with(0, MNTSNAP_BACKEND_AUTO, &f, &s), 0);
	cr_assert_eq(mntsnap_snapshot_backend(s), MNTSNAP_BACKEND_STATMOUNT);
	mntsnap_snapshot_free(s);
}

static long fake_statmount_enosys(void *ctx, const struct mntsnap_k_mnt_id_req *req, struct mntsnap_k_statmount *buf,
				  size_t bufsize, unsigned flags)
{
	(void)ctx, (void)req, (void)buf, (void)bufsize, (void)flags;
	return -ENOSYS;
}

/* listmount works, statmount is gone (a filter naming only one of them). */
LTest(mountinfo, seam_statmount_only_missing)
{
	struct mntsnap_sysops ops = { .statmount = fake_statmount_enosys };
	struct mntsnap_snapshot *s = NULL;

	{
		MNTSNAP_OPTS(mntsnap_capture_opts, o);
		cr_assert_eq(mntsnap__capture_with(&o, &ops, &s), 0);
		cr_assert_eq(mntsnap_snapshot_backend(s), MNTSNAP_BACKEND_MOUNTINFO);
		mntsnap_snapshot_free(s);
	}
	{
		struct mntsnap_error e = {0};
		MNTSNAP_OPTS(mntsnap_capture_opts, o,
			     .backend = MNTSNAP_BACKEND_STATMOUNT, .error = &e);
		cr_assert_eq(mntsnap__capture_with(&o, &ops, &s), -ENOSYS);
		cr_assert_eq(e.err, -ENOSYS);
	}
	cr_assert_eq(mntsnap_have_statmount(), 1);
}

LTest(mountinfo, default_auto_is_statmount)
{
	struct mntsnap_snapshot *s = NULL;

	/* no opts at all: AUTO, and this kernel has statmount */
	cr_assert_eq(mntsnap_capture(NULL, &s), 0);
	cr_assert_eq(mntsnap_snapshot_backend(s), MNTSNAP_BACKEND_STATMOUNT);
	mntsnap_snapshot_free(s);
}

LTest(mountinfo, options_checked)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error e = {0};

	{
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_STATMOUNT,
			     .mountinfo_path = "/proc/self/mountinfo", .error = &e);
		cr_assert_eq(mntsnap_capture(&o, &s), -EINVAL);
	}
	{
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_MOUNTINFO,
			     .under_id = 0x80000001ULL, .error = &e);
		cr_assert_eq(mntsnap_capture(&o, &s), -EOPNOTSUPP);
		cr_assert(strstr(e.msg, "under_id"), "%s", e.msg);
	}
	{
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_MOUNTINFO,
			     .mountinfo_path = "/nonexistent/mountinfo", .error = &e);
		cr_assert_eq(mntsnap_capture(&o, &s), -ENOENT);
		cr_assert(strstr(e.msg, "/nonexistent/mountinfo"), "%s", e.msg);
	}
	cr_assert_eq(mntsnap_parse_mountinfo("", 0, NULL, NULL), -EINVAL);
	cr_assert_eq(mntsnap_parse_mountinfo(NULL, 5, NULL, &s), -EINVAL);
}

/* ---- parser fixtures ------------------------------------------------------ */

#ifndef MI_DATA_DIR
#define MI_DATA_DIR "tests/data/mountinfo"
#endif

static char *fixture(const char *name, size_t *len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", MI_DATA_DIR, name);
	return ms_read_file(path, len);
}

/* Parse a fixture, check it renders back byte for byte (if exact). */
static struct mntsnap_snapshot *load_fixture(const char *name, bool exact)
{
	size_t len;
	char *text = fixture(name, &len);
	struct mntsnap_snapshot *s = parse_text(text, len);

	if (exact) {
		char *got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);

		ms_assert_text_eq(got, text, name);
		free(got);
	}
	free(text);
	return s;
}

struct want {
	uint32_t id, parent, major, minor;
	const char *root, *mp;
	uint32_t attr, prop, peer, master, pfrom;
	const char *type, *subtype, *source, *options;
	uint32_t sb_flags;
};

#define RELATIME MNTSNAP_ATTR_RELATIME
#define PRIV MNTSNAP_PROP_PRIVATE

static void check_rec(const struct mntsnap_snapshot *s, size_t i, const struct want *w)
{
	struct mntsnap_mount m;
	uint32_t must = MNTSNAP_F_ID_OLD | MNTSNAP_F_DEV | MNTSNAP_F_SB_FLAGS | MNTSNAP_F_ATTR |
			MNTSNAP_F_PROPAGATION | MNTSNAP_F_PROPAGATE_FROM | MNTSNAP_F_ROOT |
			MNTSNAP_F_MOUNT_POINT | MNTSNAP_F_FS_TYPE | MNTSNAP_F_SOURCE;

	cr_assert_eq(mntsnap_snapshot_get(s, i, &m), 0, "record %zu", i);
	cr_assert_eq(m.mask & must, must, "record %zu mask %#x", i, m.mask);
	cr_assert_eq(m.mask & (MNTSNAP_F_ID | MNTSNAP_F_SB_MAGIC | MNTSNAP_F_NS_ID), 0,
		     "a file gives no unique ids, magic or namespace id");
	cr_assert_eq(m.id_old, w->id, "record %zu: id", i);
	cr_assert_eq(m.parent_id_old, w->parent, "record %zu: parent", i);
	cr_assert_eq(m.dev_major, w->major, "record %zu: major", i);
	cr_assert_eq(m.dev_minor, w->minor, "record %zu: minor", i);
	cr_assert_str_eq(m.root, w->root, "record %zu: root", i);
	cr_assert_str_eq(m.mount_point, w->mp, "record %zu: mount point", i);
	cr_assert_eq(m.attr, w->attr, "record %zu: attr %#x", i, m.attr);
	cr_assert_eq(m.propagation, w->prop, "record %zu: propagation %#x", i, m.propagation);
	cr_assert_eq(m.peer_group, w->peer, "record %zu: peer group", i);
	cr_assert_eq(m.master, w->master, "record %zu: master", i);
	cr_assert_eq(m.propagate_from, w->pfrom, "record %zu: propagate_from", i);
	cr_assert_str_eq(m.fs_type, w->type, "record %zu: type", i);
	cr_assert_str_eq(m.fs_subtype, w->subtype ? w->subtype : "", "record %zu: subtype", i);
	cr_assert(m.mask & MNTSNAP_F_FS_SUBTYPE, "record %zu: subtype bit (empty is a value)", i);
	cr_assert_str_eq(m.source, w->source, "record %zu: source", i);
	cr_assert_str_eq(m.options, w->options ? w->options : "", "record %zu: options", i);
	cr_assert(m.mask & MNTSNAP_F_OPTS, "record %zu: options bit (empty is a value)", i);
	cr_assert_eq(m.sb_flags, w->sb_flags, "record %zu: sb_flags %#x", i, m.sb_flags);
}

LTest(mountinfo, fixture_overlay)
{
	struct mntsnap_snapshot *s = load_fixture("overlay.txt", true);
	struct mntsnap_mount m;

	cr_assert_eq(mntsnap_snapshot_count(s), 4);
	cr_assert_eq(mntsnap_snapshot_get(s, 0, &m), 0);
	cr_assert_str_eq(m.fs_type, "overlay");
	cr_assert_eq(m.propagation, MNTSNAP_PROP_SLAVE);
	cr_assert_eq(m.master, 293);
	cr_assert(!strncmp(m.options, "lowerdir=/var/lib/docker/overlay2/l/L00", 39));
	cr_assert(strstr(m.options, ":/var/lib/docker/overlay2/l/L39ABCDEFGHIJKLMNOPQRSTUVW,"
				    "upperdir=/var/lib/docker/overlay2/9f1c/diff,"));
	cr_assert_gt(strlen(m.options), 1300);
	check_rec(s, 3,
		  &(struct want){ 1080, 1071, 0, 70, "/", "/merged", RELATIME, PRIV, 0, 0, 0,
				  "overlay", NULL, "ovl",
				  /* options stay escaped, like statmount's mnt_opts */
				  "lowerdir=/tmp/t/ov/l\\040o:/tmp/t/ov/l\\054comma,upperdir=/tmp/t/"
				  "ov/u,workdir=/tmp/t/ov/w,redirect_dir=on,metacopy=on",
				  0 });
	check_rec(s, 1,
		  &(struct want){ 1072, 1071, 0, 64, "/", "/proc",
				  MNTSNAP_ATTR_NOSUID | MNTSNAP_ATTR_NODEV | MNTSNAP_ATTR_NOEXEC,
				  PRIV, 0, 0, 0, "proc", NULL, "proc", NULL, 0 });
	/* the tree: everything hangs off the container's root */
	cr_assert_eq(mntsnap_snapshot_get(s, 3, &m), 0);
	cr_assert_eq(m.parent_index, 0);
	cr_assert_eq(m.depth, 1);
	cr_assert_eq(mntsnap_snapshot_find_old(s, 1073), 2);
	mntsnap_snapshot_free(s);
}

LTest(mountinfo, fixture_autofs)
{
	struct mntsnap_snapshot *s = load_fixture("autofs.txt", true);

	cr_assert_eq(mntsnap_snapshot_count(s), 3);
	check_rec(s, 1,
		  &(struct want){ 32, 24, 0, 29, "/", "/proc/sys/fs/binfmt_misc", RELATIME,
				  MNTSNAP_PROP_SHARED, 12, 0, 0, "autofs", NULL, "systemd-1",
				  "fd=29,pgrp=1,timeout=0,minproto=5,maxproto=5,direct,pipe_ino=15313",
				  0 });
	check_rec(s, 0,
		  &(struct want){ 24, 1, 254, 1, "/", "/", RELATIME, MNTSNAP_PROP_SHARED, 1, 0, 0,
				  "ext4", NULL, "/dev/vda1", "errors=remount-ro", 0 });
	mntsnap_snapshot_free(s);
}

LTest(mountinfo, fixture_nfs_like_sources)
{
	struct mntsnap_snapshot *s = load_fixture("nfs.txt", true);
	struct mntsnap_mount m;

	cr_assert_eq(mntsnap_snapshot_count(s), 5);
	cr_assert_eq(mntsnap_snapshot_get(s, 1, &m), 0);
	cr_assert_str_eq(m.source, "server.example.com:/export/home");
	cr_assert_str_eq(m.fs_type, "nfs4");
	check_rec(s, 2,
		  &(struct want){ 41, 24, 0, 46, "/sub/dir", "/mnt/nfs3",
				  MNTSNAP_ATTR_RDONLY | MNTSNAP_ATTR_NOSUID | MNTSNAP_ATTR_NODEV |
					  MNTSNAP_ATTR_NOEXEC,
				  PRIV, 0, 0, 0, "nfs", NULL, "[fe80::1%eth0]:/srv/share",
				  "vers=3,rsize=65536,wsize=65536,namlen=255,hard,proto=udp6,timeo=11,"
				  "retrans=3,sec=sys,mountaddr=fe80::1%eth0,mountvers=3,mountport=20048,"
				  "mountproto=udp6,local_lock=none,addr=fe80::1%eth0",
				  MNTSNAP_SB_RDONLY });
	check_rec(s, 3,
		  &(struct want){ 42, 24, 0, 47, "/", "/home/u/remote",
				  MNTSNAP_ATTR_NOSUID | MNTSNAP_ATTR_NODEV, PRIV, 0, 0, 0, "fuse",
				  "sshfs", "user@host:/path", "user_id=1000,group_id=1000", 0 });
	cr_assert_eq(mntsnap_snapshot_get(s, 4, &m), 0);
	cr_assert_str_eq(m.source, "//fileserver/share");
	mntsnap_snapshot_free(s);
}

LTest(mountinfo, fixture_optional_fields)
{
	struct mntsnap_snapshot *s = load_fixture("optional.txt", true);
	const uint32_t SH = MNTSNAP_PROP_SHARED, SL = MNTSNAP_PROP_SLAVE,
		       UB = MNTSNAP_PROP_UNBINDABLE;
	const struct want w[] = {
		{ 1, 1, 0, 2, "/", "/", MNTSNAP_ATTR_STRICTATIME, PRIV, 0, 0, 0, "rootfs", NULL,
		  "rootfs", NULL, 0 },
		{ 10, 1, 0, 20, "/", "/none", RELATIME, PRIV, 0, 0, 0, "tmpfs", NULL, "none", NULL,
		  0 },
		{ 11, 1, 0, 21, "/", "/shared", RELATIME, SH, 1, 0, 0, "tmpfs", NULL, "a", NULL, 0 },
		{ 12, 1, 0, 21, "/", "/slave", RELATIME, SL, 0, 1, 0, "tmpfs", NULL, "a", NULL, 0 },
		{ 13, 1, 0, 21, "/", "/both", RELATIME, SH | SL, 2, 1, 0, "tmpfs", NULL, "a", NULL,
		  0 },
		{ 14, 1, 0, 21, "/", "/pfrom", RELATIME, SL, 0, 3, 1, "tmpfs", NULL, "a", NULL, 0 },
		{ 15, 1, 0, 21, "/", "/all", RELATIME, SH | SL, 4, 3, 1, "tmpfs", NULL, "a", NULL,
		  0 },
		{ 16, 1, 0, 22, "/", "/unbind", RELATIME, UB, 0, 0, 0, "tmpfs", NULL, "b", NULL, 0 },
		{ 17, 1, 0, 21, "/", "/slave_unbind", RELATIME, SL | UB, 0, 1, 0, "tmpfs", NULL, "a",
		  NULL, 0 },
		{ 18, 1, 0, 23, "/", "/empty source", RELATIME, PRIV, 0, 0, 0, "tmpfs", NULL, "",
		  "size=4k", 0 },
		{ 19, 18, 0, 24, "/", "/empty source/flags",
		  MNTSNAP_ATTR_RDONLY | MNTSNAP_ATTR_NOSUID | MNTSNAP_ATTR_NODEV |
			  MNTSNAP_ATTR_NOEXEC | MNTSNAP_ATTR_NOATIME | MNTSNAP_ATTR_NODIRATIME |
			  MNTSNAP_ATTR_NOSYMFOLLOW | MNTSNAP_ATTR_IDMAP,
		  PRIV, 0, 0, 0, "tmpfs", NULL, "x", "mode=700",
		  MNTSNAP_SB_RDONLY | MNTSNAP_SB_SYNCHRONOUS | MNTSNAP_SB_DIRSYNC |
			  MNTSNAP_SB_LAZYTIME },
		{ 20, 18, 0, 25, "/", "/strict", MNTSNAP_ATTR_STRICTATIME, PRIV, 0, 0, 0, "tmpfs",
		  NULL, "y", NULL, MNTSNAP_SB_SYNCHRONOUS },
		{ 21, 18, 0, 25, "/", "/dira", MNTSNAP_ATTR_NODIRATIME | RELATIME, PRIV, 0, 0, 0,
		  "tmpfs", NULL, "y", NULL, MNTSNAP_SB_SYNCHRONOUS },
	};

	cr_assert_eq(mntsnap_snapshot_count(s), sizeof(w) / sizeof(w[0]));
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		check_rec(s, i, &w[i]);
	mntsnap_snapshot_free(s);
}

LTest(mountinfo, fixture_escapes)
{
	struct mntsnap_snapshot *s = load_fixture("escapes.txt", true);

	check_rec(s, 1,
		  &(struct want){ 31, 30, 0, 31, "/", "/t/a b\tc\\d\ne#f\xc3\xa9", RELATIME, PRIV, 0,
				  0, 0, "tmpfs", NULL, "src with space\\back#hash\ttab",
				  "mode=700", 0 });
	check_rec(s, 2,
		  &(struct want){ 32, 30, 0, 30, "/deep dir/x\\y", "/t/bind", RELATIME, PRIV, 0, 0,
				  0, "tmpfs", NULL, "t", NULL, 0 });
	/* '#' is escaped in type and source, kept literal in paths */
	check_rec(s, 3,
		  &(struct want){ 33, 30, 0, 32, "/", "/t/hash#type", RELATIME, PRIV, 0, 0, 0,
				  "my#fs", "sub#type", "src#raw", NULL, 0 });
	mntsnap_snapshot_free(s);
}

/*
 * Valid but not kernel-shaped: incomplete escapes stay literal, unknown
 * optional fields are ignored (proc(5)), "mand" is kept, leading zeros.
 */
LTest(mountinfo, fixture_lenient)
{
	struct mntsnap_snapshot *s = load_fixture("lenient.txt", false);

	check_rec(s, 0,
		  &(struct want){ 7, 1, 0, 30, "/", "/a\\12x\\8\\\\", RELATIME, PRIV, 0, 0, 0,
				  "tmpfs", NULL, "t", "opt", MNTSNAP_SB_MANDLOCK });
	{
		char *got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);

		/* kept so the text comes back: "mand,dirsync" is flag + fs option */
		cr_assert(strstr(got, " - tmpfs t rw,mand,opt\n"), "%s", got);
		free(got);
	}
	/*
	 * A filesystem with ->show_devname (nfs, cifs, ...) escapes its source
	 * itself, without '#': the parser takes the '#' as is, and rendering
	 * follows the kernel's per-filesystem escaping, so it comes back.
	 */
	check_rec(s, 1,
		  &(struct want){ 8, 1, 0, 31, "/", "/b", MNTSNAP_ATTR_STRICTATIME, PRIV, 0, 0, 0,
				  "nfs", NULL, "srv:/a#b", NULL, 0 });
	{
		char *got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);

		cr_assert(strstr(got, " - nfs srv:/a#b rw\n"), "%s", got);
		free(got);
	}
	mntsnap_snapshot_free(s);
}

/*
 * A repeated mount id in parsed text (a file, a buffer) is kept: every line
 * becomes a record, the text renders back as it was, and the snapshot says
 * it is inconsistent; saving and loading keep all of that. (A live text
 * with a repeated id is a tear and is read again: test-churn.)
 */
/* s saved to a file and loaded back (the file gone) */
static struct mntsnap_snapshot *saved_and_loaded(const struct mntsnap_snapshot *s)
{
	char tmpl[] = "/tmp/mntsnap-saved-XXXXXX";
	struct mntsnap_snapshot *l = NULL;
	int fd = mkostemp(tmpl, O_CLOEXEC);

	cr_assert_geq(fd, 0);
	unlink(tmpl);
	cr_assert_eq(mntsnap_snapshot_save_fd(s, fd), 0);
	cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
	cr_assert_eq(mntsnap_snapshot_load_fd(fd, NULL, &l), 0);
	close(fd);
	return l;
}

/* s saved and loaded renders back as text, byte for byte */
static void assert_saved_text(const struct mntsnap_snapshot *s, const char *text, const char *what)
{
	struct mntsnap_snapshot *l = saved_and_loaded(s);
	char *got = ms_render(l, MNTSNAP_FORMAT_MOUNTINFO);

	ms_assert_text_eq(got, text, what);
	free(got);
	mntsnap_snapshot_free(l);
}

LTest(mountinfo, duplicate_ids_in_parsed_text)
{
	struct mntsnap_snapshot *s = load_fixture("duplicate-id.txt", true), *l;
	char *a, *b;

	cr_assert_eq(mntsnap_snapshot_count(s), 3);
	cr_assert_eq(mntsnap_snapshot_consistent(s), 0, "a repeated id is not a consistent table");
	l = saved_and_loaded(s);
	cr_assert_eq(mntsnap_snapshot_consistent(l), 0);
	a = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
	b = ms_render(l, MNTSNAP_FORMAT_MOUNTINFO);
	ms_assert_text_eq(b, a, "saved and loaded");
	free(a);
	free(b);
	mntsnap_snapshot_free(l);
	mntsnap_snapshot_free(s);
}

/*
 * Optional fields this library does not know ("foo:bar", a later kernel's
 * tag) are kept with the known ones as the line had them: rendered back
 * byte for byte, carried through save and load, and findmnt reads the
 * same entries from the text.
 */
LTest(mountinfo, unknown_optional_tags_kept)
{
	static const char text[] =
		"1 0 0:2 / / rw shared:1 - ext4 /dev/root rw\n"
		"2 1 0:3 / /a rw foo:bar shared:7 master:3 - tmpfs t rw\n"
		"3 1 0:4 / /b rw master:3 propagate_from:2 baz unbindable - tmpfs u rw\n"
		"4 1 0:5 / /c rw shared:9 - tmpfs v rw\n";
	struct mntsnap_snapshot *s = parse_text(text, sizeof(text) - 1), *l = NULL;
	char tmpl[] = "/tmp/mntsnap-tags-XXXXXX";
	struct mntsnap_mount m;
	char *got;
	int fd;

	got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
	ms_assert_text_eq(got, text, "unknown tags");
	free(got);
	mntsnap_snapshot_get(s, 1, &m);
	cr_assert_str_eq(m.opt_fields, "foo:bar shared:7 master:3");
	cr_assert_eq(m.propagation, MNTSNAP_PROP_SHARED | MNTSNAP_PROP_SLAVE);
	cr_assert_eq(m.peer_group, 7);
	cr_assert_eq(m.master, 3);
	mntsnap_snapshot_get(s, 3, &m);
	cr_assert_str_eq(m.opt_fields, "", "known tags only: nothing kept");
	fd = mkstemp(tmpl);
	cr_assert_geq(fd, 0);
	cr_assert_eq(mntsnap_snapshot_save_fd(s, fd), 0);
	cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
	cr_assert_eq(mntsnap_snapshot_load_fd(fd, NULL, &l), 0);
	close(fd);
	got = ms_render(l, MNTSNAP_FORMAT_MOUNTINFO);
	ms_assert_text_eq(got, text, "unknown tags, saved and loaded");
	free(got);
	mntsnap_snapshot_free(l);
	{
		char cmd[512], *theirs;
		FILE *f;
		int wfd = open(tmpl, O_WRONLY | O_TRUNC | O_CLOEXEC);

		cr_assert_geq(wfd, 0);
		cr_assert_eq(write(wfd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
		close(wfd);
		snprintf(cmd, sizeof(cmd), "findmnt -F %s -r -n -o TARGET,SOURCE,PROPAGATION", tmpl);
		f = popen(cmd, "r");
		cr_assert(f);
		ms_read_fd(fileno(f), &theirs);
		cr_assert_eq(pclose(f), 0);
		cr_assert_str_eq(theirs, "/ /dev/root shared\n/a t shared,slave\n"
					 "/b u private,slave,unbindable\n/c v shared\n");
		free(theirs);
	}
	unlink(tmpl);
	mntsnap_snapshot_free(s);
}

/*
 * Known optional fields the kernel would never write so: propagate_from
 * equal to the master (or on a mount that is no slave), fields out of the
 * kernel's order, a number with a leading zero. The record keeps the
 * kernel's normal form (propagate_from 0 where it equals master, as
 * statmount gives it), the text is kept as the line had it: rendered back
 * byte for byte, through save and load, and OPT-FIELDS shows it (findmnt
 * prints what the file says).
 */
LTest(mountinfo, noncanonical_optional_fields_kept)
{
	static const char text[] =
		"20 1 8:1 / / rw shared:1 - ext4 /dev/sda1 rw\n"
		"24 20 0:8 / /s rw shared:2 master:1 propagate_from:1 - tmpfs t rw\n"
		"25 20 0:9 / /t rw master:1 propagate_from:1 - tmpfs t rw\n"
		"26 20 0:10 / /u rw shared:3 propagate_from:4 - tmpfs t rw\n"
		"27 20 0:11 / /v rw master:1 shared:5 - tmpfs t rw\n"
		"28 20 0:12 / /w rw shared:06 - tmpfs t rw\n"
		"29 20 0:13 / /x rw master:1 propagate_from:2 unbindable - tmpfs t rw\n";
	static const char *const want[] = {
		"", "shared:2 master:1 propagate_from:1", "master:1 propagate_from:1",
		"shared:3 propagate_from:4", "master:1 shared:5", "shared:06", "",
	};
	struct mntsnap_snapshot *s = parse_text(text, sizeof(text) - 1);
	struct mntsnap_mount m;
	char *got;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		mntsnap_snapshot_get(s, i, &m);
		cr_assert_str_eq(m.opt_fields, want[i], "record %zu", i);
	}
	mntsnap_snapshot_get(s, 2, &m);
	cr_assert_eq(m.propagation, MNTSNAP_PROP_SLAVE);
	cr_assert_eq(m.master, 1);
	cr_assert_eq(m.propagate_from, 0, "equal to master: 0, as statmount says");
	mntsnap_snapshot_get(s, 6, &m);
	cr_assert_eq(m.propagate_from, 2);
	got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
	ms_assert_text_eq(got, text, "non-canonical optional fields");
	free(got);
	assert_saved_text(s, text, "saved and loaded");
	mntsnap_snapshot_free(s);
}

/*
 * A known tag whose value is no 32-bit number: a later kernel's wider
 * peer group id ("shared:4294967296"), a hand-made word, an empty value,
 * another field inside the value ("shared:1,master:2"). Never a refused
 * table: the tag still says shared or slave (as libmount's strstr() finds
 * it, so findmnt's PROPAGATION agrees), the number it cannot hold is 0
 * (unknown), and the text is kept as written: rendered back byte for
 * byte, through save and load. A field that starts with ':' has no tag.
 */
/* record i's propagation, peer group, master and propagate_from */
static void assert_prop(const struct mntsnap_mount *m, size_t i, uint32_t prop, uint32_t peer,
			uint32_t master, uint32_t pf)
{
	cr_assert_eq(m->propagation, prop, "record %zu", i);
	cr_assert_eq(m->peer_group, peer, "record %zu", i);
	cr_assert_eq(m->master, master, "record %zu", i);
	cr_assert_eq(m->propagate_from, pf, "record %zu", i);
}

LTest(mountinfo, optional_values_unknown_kept)
{
	static const char text[] =
		"20 1 8:1 / / rw shared:1 - ext4 /dev/sda1 rw\n"
		"21 20 0:8 / /a rw shared:4294967296 - tmpfs t rw\n"
		"22 20 0:9 / /b rw shared:1- - tmpfs t rw\n"
		"23 20 0:10 / /c rw shared:1,master:2 - tmpfs t rw\n"
		"24 20 0:11 / /d rw shared:4294967296 master:3 - tmpfs t rw\n"
		"25 20 0:12 / /e rw shared:x - tmpfs t rw\n"
		"26 20 0:13 / /f rw shared:2 master: unbindable - tmpfs t rw\n"
		"27 20 0:14 / /g rw master:1 propagate_from:x - tmpfs t rw\n"
		"28 20 0:15 / /h rw :5 - tmpfs t rw\n";
	static const struct {
		uint32_t prop, peer, master, pf;
	} want[] = {
		{ MNTSNAP_PROP_SHARED, 1, 0, 0 },
		{ MNTSNAP_PROP_SHARED, 0, 0, 0 },
		{ MNTSNAP_PROP_SHARED, 0, 0, 0 },
		{ MNTSNAP_PROP_SHARED, 0, 0, 0 },
		{ MNTSNAP_PROP_SHARED | MNTSNAP_PROP_SLAVE, 0, 3, 0 },
		{ MNTSNAP_PROP_SHARED, 0, 0, 0 },
		{ MNTSNAP_PROP_SHARED | MNTSNAP_PROP_SLAVE | MNTSNAP_PROP_UNBINDABLE, 2, 0, 0 },
		{ MNTSNAP_PROP_SLAVE, 0, 1, 0 },
		{ MNTSNAP_PROP_PRIVATE, 0, 0, 0 },
	};
	struct mntsnap_snapshot *s = parse_text(text, sizeof(text) - 1);
	const char *line = strchr(text, '\n') + 1;
	struct mntsnap_mount m;
	char *got;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		mntsnap_snapshot_get(s, i, &m);
		assert_prop(&m, i, want[i].prop, want[i].peer, want[i].master, want[i].pf);
		if (!i)
			continue;
		/* the optional fields as the line has them */
		{
			const char *b = strstr(line, " rw ") + 4, *e = strstr(line, " - ");

			cr_assert_eq(strlen(m.opt_fields), (size_t)(e - b), "record %zu", i);
			cr_assert(!memcmp(m.opt_fields, b, (size_t)(e - b)), "record %zu", i);
		}
		line = strchr(line, '\n') + 1;
	}
	got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
	ms_assert_text_eq(got, text, "values that are no 32-bit number");
	free(got);
	assert_saved_text(s, text, "saved and loaded");
	mntsnap_snapshot_free(s);
}

/*
 * A field is read by its own tag, the text before its first ':' (the
 * whole field without one): "unbindable:1", "unbindable:" and a bare
 * "shared" or "master" still say unbindable, shared or slave, whatever
 * the value, as "master:" does; "propagate_from" without its number says
 * nothing, and "unbindable=1" is a tag no kernel writes. The text is kept
 * as written and rendered back.
 */
LTest(mountinfo, optional_tag_before_colon)
{
	static const char text[] =
		"20 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
		"21 20 0:8 / /a rw unbindable:1 - tmpfs t rw\n"
		"22 20 0:9 / /b rw shared:1 unbindable:1 - tmpfs t rw\n"
		"23 20 0:10 / /c rw unbindable: - tmpfs t rw\n"
		"24 20 0:11 / /d rw master:3 unbindable:x:y - tmpfs t rw\n"
		"25 20 0:12 / /e rw shared - tmpfs t rw\n"
		"26 20 0:13 / /f rw master - tmpfs t rw\n"
		"27 20 0:14 / /g rw propagate_from - tmpfs t rw\n"
		"28 20 0:15 / /h rw master:1 propagate_from - tmpfs t rw\n"
		"29 20 0:16 / /i rw unbindable=1 - tmpfs t rw\n";
	static const struct {
		uint32_t prop, peer, master;
	} want[] = {
		{ MNTSNAP_PROP_PRIVATE, 0, 0 },
		{ MNTSNAP_PROP_UNBINDABLE, 0, 0 },
		{ MNTSNAP_PROP_SHARED | MNTSNAP_PROP_UNBINDABLE, 1, 0 },
		{ MNTSNAP_PROP_UNBINDABLE, 0, 0 },
		{ MNTSNAP_PROP_SLAVE | MNTSNAP_PROP_UNBINDABLE, 0, 3 },
		/* bare "shared" and "master": no tag, as libmount reads them */
		{ MNTSNAP_PROP_PRIVATE, 0, 0 },
		{ MNTSNAP_PROP_PRIVATE, 0, 0 },
		{ MNTSNAP_PROP_PRIVATE, 0, 0 },
		{ MNTSNAP_PROP_SLAVE, 0, 1 },
		{ MNTSNAP_PROP_PRIVATE, 0, 0 },
	};
	struct mntsnap_snapshot *s = parse_text(text, sizeof(text) - 1);
	struct mntsnap_mount m;
	char *got;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		mntsnap_snapshot_get(s, i, &m);
		assert_prop(&m, i, want[i].prop, want[i].peer, want[i].master, 0);
		cr_assert_eq(m.opt_fields && *m.opt_fields, i > 0, "record %zu: the text kept", i);
	}
	got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
	ms_assert_text_eq(got, text, "fields read by their tag");
	free(got);
	assert_saved_text(s, text, "saved and loaded");
	mntsnap_snapshot_free(s);
}

/*
 * A newer kernel's text: per-mount options this library does not know
 * ("newflag"), known ones out of the kernel's order, super options it
 * does not know, an empty optional field. Never a refused table: the
 * known options still set attr, the text is kept (mnt_opts_text) and
 * rendered back byte for byte, carried through save and load.
 */
LTest(mountinfo, newer_kernel_text_kept)
{
	static const char text[] =
		"22 1 259:3 / / rw,nosuid,noatime,newflag shared:1 - ext4 /dev/root rw,newsb\n"
		"23 22 0:5 / /a ro,noatime,nosuid - tmpfs t rw,brandnew=1\n"
		"24 22 0:6 / /b rw,nodev,relatime - tmpfs u rw\n";
	struct mntsnap_snapshot *s = parse_text(text, sizeof(text) - 1);
	char opts[256];
	struct mntsnap_mount m;
	char *got;

	got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
	ms_assert_text_eq(got, text, "newer kernel text");
	free(got);
	mntsnap_snapshot_get(s, 0, &m);
	cr_assert_str_eq(m.mnt_opts_text, "rw,nosuid,noatime,newflag");
	cr_assert_eq(m.attr & (MNTSNAP_ATTR_NOSUID | MNTSNAP_ATTR__ATIME),
		     MNTSNAP_ATTR_NOSUID | MNTSNAP_ATTR_NOATIME);
	cr_assert_geq(mntsnap_mount_options(&m, MNTSNAP_OPTIONS_VFS, opts, sizeof(opts)), 0);
	cr_assert_str_eq(opts, "rw,nosuid,noatime,newflag");
	cr_assert_geq(mntsnap_mount_options(&m, MNTSNAP_OPTIONS_ALL, opts, sizeof(opts)), 0);
	cr_assert_str_eq(opts, "rw,nosuid,noatime,newflag,newsb");
	mntsnap_snapshot_get(s, 1, &m);
	cr_assert_str_eq(m.mnt_opts_text, "ro,noatime,nosuid", "out of order: kept");
	cr_assert(m.attr & MNTSNAP_ATTR_RDONLY);
	mntsnap_snapshot_get(s, 2, &m);
	cr_assert_str_eq(m.mnt_opts_text, "", "the kernel's own order: nothing kept");
	assert_saved_text(s, text, "newer kernel text, saved and loaded");
	mntsnap_snapshot_free(s);
	/* two spaces where the optional fields go: no field, as libmount reads it */
	{
		static const char two[] = "1 0 0:2 / / rw  - tmpfs t rw\n";

		s = parse_text(two, sizeof(two) - 1);
	}
	mntsnap_snapshot_get(s, 0, &m);
	cr_assert_eq(m.propagation, MNTSNAP_PROP_PRIVATE);
	mntsnap_snapshot_free(s);
}

/* "rw,a,<fill x>" of exactly n bytes */
static char *long_opts(const char *head, size_t n, char fill)
{
	size_t h = strlen(head);
	char *p = malloc(n + 1);

	cr_assert(p && n > h);
	memcpy(p, head, h);
	memset(p + h, fill, n - h);
	p[n] = '\0';
	return p;
}

/* The text rendered by the diff of a and b, malloc'd. */
static char *diff_text(const struct mntsnap_snapshot *a, const struct mntsnap_snapshot *b)
{
	struct mntsnap_diff *d = NULL;
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	cr_assert(f);
	cr_assert_eq(mntsnap_diff(a, b, &d), 0);
	cr_assert_eq(mntsnap_diff_render(d, MNTSNAP_DIFF_FORMAT_TEXT, f), 0);
	fclose(f);
	mntsnap_diff_free(d);
	return buf;
}

/*
 * Per-mount options of any length: neither the kernel (a later kernel's
 * flags) nor libmount bounds column 6, so a line with 256 or 70000 bytes
 * there is read as any other, its text kept whole: rendered back, saved
 * and loaded, shown whole by VFS-OPTIONS, OPTIONS, the JSON and the diff.
 */
LTest(mountinfo, long_mount_options_read_whole)
{
	static const size_t lens[] = { 255, 256, 400, 4096, 70000 };

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		char *opts = long_opts("rw,nosuid,newflag\\101,", lens[i], 'x');
		char *opts2 = long_opts("rw,nodev,newflag\\101,", lens[i], 'y');
		size_t tl = 2 * lens[i] + 200, vl;
		char *text = malloc(tl), *text2 = malloc(tl), *vfs = malloc(lens[i] + 1), *all;
		struct mntsnap_snapshot *s, *s2;
		struct mntsnap_mount m;
		char *got;
		long n;

		cr_assert(text && text2 && vfs);
		snprintf(text, tl, "20 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
			 "22 20 0:30 / /a %s - tmpfs a rw,size=1k\n", opts);
		snprintf(text2, tl, "20 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
			 "22 20 0:30 / /a %s - tmpfs a rw,size=1k\n", opts2);
		s = parse_text(text, strlen(text));
		s2 = parse_text(text2, strlen(text2));
		got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
		ms_assert_text_eq(got, text, "long per-mount options render back");
		free(got);
		assert_saved_text(s, text, "long per-mount options, saved and loaded");
		mntsnap_snapshot_get(s, 1, &m);
		cr_assert_str_eq(m.mnt_opts_text, opts);
		cr_assert_eq(m.attr & MNTSNAP_ATTR_NOSUID, MNTSNAP_ATTR_NOSUID);
		/* VFS-OPTIONS: the text unmangled ("\101" is "A": 3 bytes less) */
		vl = lens[i] - 3;
		n = mntsnap_mount_options(&m, MNTSNAP_OPTIONS_VFS, NULL, 0);
		cr_assert_eq(n, (long)vl, "%zu bytes: VFS length %ld", lens[i], n);
		cr_assert_eq(mntsnap_mount_options(&m, MNTSNAP_OPTIONS_VFS, vfs, vl + 1), (long)vl);
		cr_assert_eq(strlen(vfs), vl);
		cr_assert(!strncmp(vfs, "rw,nosuid,newflagA,xx", 21), "%.40s", vfs);
		/* OPTIONS: vfs then the super options, one rw */
		n = mntsnap_mount_options(&m, MNTSNAP_OPTIONS_ALL, NULL, 0);
		cr_assert_eq(n, (long)(vl + strlen(",size=1k")), "OPTIONS length %ld", n);
		all = malloc((size_t)n + 1);
		cr_assert_eq(mntsnap_mount_options(&m, MNTSNAP_OPTIONS_ALL, all, (size_t)n + 1), n);
		cr_assert(!strncmp(all, vfs, vl) && !strcmp(all + vl, ",size=1k"), "%.40s", all);
		free(all);
		got = ms_render(s, MNTSNAP_FORMAT_JSON);
		cr_assert(strstr(got, vfs), "the JSON holds the whole VFS options");
		free(got);
		got = diff_text(s, s2);
		cr_assert(strstr(got, vfs), "the diff holds the old VFS options whole");
		free(vfs);
		vfs = long_opts("rw,nodev,newflagA,", lens[i] - 3, 'y');
		cr_assert(strstr(got, vfs), "and the new ones");
		free(got);
		mntsnap_snapshot_free(s);
		mntsnap_snapshot_free(s2);
		free(opts), free(opts2), free(text), free(text2), free(vfs);
	}
}

/*
 * OPTIONS at its longest: no rw or ro in either string, so nothing is cut
 * from "vfs,fs" and libmount's merge is "rw," + vfs + "," + fs, four
 * bytes more than the two strings. A buffer of exactly that many bytes
 * gets the length and the string cut short, NUL-terminated inside it,
 * not one byte after; long strings (the heap buffers of the merge and of
 * the JSON renderer) the same, under ASan too.
 */
LTest(mountinfo, options_merge_at_its_longest)
{
	static const size_t lens[] = { 1, 300, 700 };

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		char *vfs = long_opts("", lens[i], 'a'), *fs = long_opts("", lens[i] + 100, 'b');
		size_t tl = 2 * lens[i] + 200, want = 2 * lens[i] + 104;
		char *text = malloc(tl), *buf = malloc(want + 2), *got;
		struct mntsnap_snapshot *s;
		struct mntsnap_mount m;

		cr_assert(text && buf);
		snprintf(text, tl, "20 1 0:30 / / %s - t s %s\n", vfs, fs);
		s = parse_text(text, strlen(text));
		cr_assert_eq(mntsnap_snapshot_get(s, 0, &m), 0);
		cr_assert_eq(mntsnap_mount_options(&m, MNTSNAP_OPTIONS_ALL, NULL, 0), (long)want);
		memset(buf, 'X', want + 2);
		cr_assert_eq(mntsnap_mount_options(&m, MNTSNAP_OPTIONS_ALL, buf, want), (long)want);
		cr_assert_eq(buf[want - 1], '\0', "%zu: cut short inside the buffer", lens[i]);
		cr_assert_eq(buf[want], 'X', "%zu: nothing written after the buffer", lens[i]);
		cr_assert(!strncmp(buf, "rw,", 3) && !strncmp(buf + 3, vfs, lens[i]) &&
			  buf[3 + lens[i]] == ',' && !strncmp(buf + 4 + lens[i], fs, lens[i] + 99),
			  "%.40s", buf);
		cr_assert_eq(mntsnap_mount_options(&m, MNTSNAP_OPTIONS_ALL, buf, want + 1), (long)want);
		cr_assert_eq(strlen(buf), want);
		got = ms_render(s, MNTSNAP_FORMAT_JSON);
		cr_assert(strstr(got, buf), "%zu: the JSON's options whole", lens[i]);
		free(got);
		mntsnap_snapshot_free(s);
		free(vfs), free(fs), free(text), free(buf);
	}
}

/*
 * \ooo in the per-mount options: no kernel escapes that field, but
 * libmount unmangles it as every other, so VFS-OPTIONS and OPTIONS show
 * the bytes ("\101" is "A", "\401" byte 1, "\000" ends the string as in
 * libmount); the text is kept as written and rendered back so.
 */
LTest(mountinfo, mnt_opts_escapes_shown_unmangled)
{
	static const char text[] =
		"20 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
		"24 20 0:6 / /d rw,a\\101 - tmpfs d rw\n"
		"25 20 0:7 / /e rw,a\\040b - tmpfs e rw\n"
		"26 20 0:8 / /f rw,a\\401 - tmpfs f rw,a\\401\n"
		"27 20 0:9 / /g rw,a\\000b - tmpfs g rw\n";
	struct mntsnap_snapshot *s = parse_text(text, sizeof(text) - 1), *l;
	char opts[256];
	struct mntsnap_mount m;
	char *got;

	got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
	ms_assert_text_eq(got, text, "escaped per-mount options render back");
	free(got);
	mntsnap_snapshot_get(s, 1, &m);
	cr_assert_str_eq(m.mnt_opts_text, "rw,a\\101");
	cr_assert_geq(mntsnap_mount_options(&m, MNTSNAP_OPTIONS_VFS, opts, sizeof(opts)), 0);
	cr_assert_str_eq(opts, "rw,aA");
	mntsnap_snapshot_get(s, 2, &m);
	cr_assert_geq(mntsnap_mount_options(&m, MNTSNAP_OPTIONS_ALL, opts, sizeof(opts)), 0);
	cr_assert_str_eq(opts, "rw,a b");
	mntsnap_snapshot_get(s, 3, &m);
	cr_assert_geq(mntsnap_mount_options(&m, MNTSNAP_OPTIONS_ALL, opts, sizeof(opts)), 0);
	cr_assert_str_eq(opts, "rw,a\001", "vfs and fs the same bytes: one of them");
	mntsnap_snapshot_get(s, 4, &m);
	cr_assert_geq(mntsnap_mount_options(&m, MNTSNAP_OPTIONS_VFS, opts, sizeof(opts)), 0);
	cr_assert_str_eq(opts, "rw,a", "\\000 ends the options, as in libmount");
	l = saved_and_loaded(s);
	got = ms_render(l, MNTSNAP_FORMAT_MOUNTINFO);
	ms_assert_text_eq(got, text, "escaped per-mount options, saved and loaded");
	free(got);
	mntsnap_snapshot_free(l);
	mntsnap_snapshot_free(s);
}

/*
 * An fs type with an empty part around its dot ("tmpfs.", "fuse.", ".x",
 * ".", and with more raw dots after an empty type: "..x", "..", ".a.b"):
 * libmount keeps the field as written, so does the record (type as
 * written, no subtype), and it renders back so. An escaped '.' that
 * would make it read back otherwise is still refused.
 */
LTest(mountinfo, fstype_empty_part_kept_as_written)
{
	static const char text[] =
		"20 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
		"21 20 0:3 / /a rw - tmpfs. a rw\n"
		"22 20 0:4 / /b rw - fuse. b rw\n"
		"23 20 0:5 / /c rw - .x c rw\n"
		"24 20 0:6 / /d rw - . d rw\n"
		"25 20 0:7 / /e rw - ..x e rw\n"
		"26 20 0:8 / /f rw - .. f rw\n"
		"27 20 0:9 / /g rw - ... g rw\n"
		"28 20 0:10 / /h rw - .a.b h rw\n"
		"29 20 0:11 / /i rw - .a. i rw\n"
		"30 20 0:12 / /j rw - ..\\040x j rw\n";
	static const char *const want[] = { "tmpfs.", "fuse.", ".x", ".", "..x", "..",
					    "...", ".a.b", ".a.", "..\040x" };
	struct mntsnap_snapshot *s = parse_text(text, sizeof(text) - 1), *l;
	struct mntsnap_mount m;
	char *got;

	got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
	ms_assert_text_eq(got, text, "empty type parts render back");
	free(got);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		mntsnap_snapshot_get(s, i + 1, &m);
		cr_assert_str_eq(m.fs_type, want[i]);
		cr_assert_str_eq(m.fs_subtype, "");
	}
	l = saved_and_loaded(s);
	got = ms_render(l, MNTSNAP_FORMAT_MOUNTINFO);
	ms_assert_text_eq(got, text, "empty type parts, saved and loaded");
	free(got);
	mntsnap_snapshot_free(l);
	mntsnap_snapshot_free(s);
	{
		static const char esc[] = "1 0 0:2 / / rw - x\\056. s rw\n";
		struct mntsnap_snapshot *r = NULL;

		cr_assert_lt(mntsnap_parse_mountinfo(esc, sizeof(esc) - 1, NULL, &r), 0,
			     "x.. would read back as x + .");
		cr_assert_null(r);
	}
	{
		static const char esc[] = "1 0 0:2 / / rw - .\\056x s rw\n";
		struct mntsnap_snapshot *r = NULL;

		cr_assert_lt(mntsnap_parse_mountinfo(esc, sizeof(esc) - 1, NULL, &r), 0,
			     ".\\056x would render as the raw ..x");
		cr_assert_null(r);
	}
}

/*
 * OPTIONS of per-mount options ending in an empty item: libmount's cut of
 * "ro" from "a,ro," leaves "a,", and its remove drops that last comma.
 */
LTest(mountinfo, options_merge_trailing_empty_item)
{
	static const char text[] =
		"20 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
		"21 20 0:3 / /a a,ro, - tmpfs t rw\n"
		"22 20 0:4 / /b rox,ro, - tmpfs t rw\n"
		"23 20 0:5 / /c a,,ro - tmpfs t rw\n";
	static const char *const want[] = { "ro,a", "ro,rox", "ro,a," };
	struct mntsnap_snapshot *s = parse_text(text, sizeof(text) - 1);
	struct mntsnap_mount m;
	char opts[64];

	for (size_t i = 0; i < 3; i++) {
		mntsnap_snapshot_get(s, i + 1, &m);
		cr_assert_geq(mntsnap_mount_options(&m, MNTSNAP_OPTIONS_ALL, opts, sizeof(opts)), 0);
		cr_assert_str_eq(opts, want[i]);
	}
	mntsnap_snapshot_free(s);
}

/*
 * OPTIONS of super options with a double quote that never closes: libmount's
 * option parser finds no option from the quote on, so an "rw" or "ro"
 * inside it is not one the merge removes (findmnt 2.38.1's values), also
 * when the text is too long for the merge's stack buffers.
 */
LTest(mountinfo, options_merge_unclosed_quote)
{
	static const char text[] =
		"20 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
		"21 20 0:3 / /a rw,relatime - tmpfs a rw=\",b\n"
		"22 20 0:4 / /b rw,relatime - tmpfs b ro=\",b\n"
		"23 20 0:5 / /c rw,relatime - tmpfs c ro,a=\"\n"
		"24 20 0:6 / /d ro - tmpfs d x,rw=\"a,b\n"
		"25 20 0:7 / /e rw,x=\"y - tmpfs e rw\n";
	static const char *const want[] = {
		"rw,relatime,rw=\",b", "rw,relatime,ro=\",b", "ro,relatime,a=\"",
		"ro,x,rw=\"a,b", "rw,x=\"y,rw",
	};
	struct mntsnap_snapshot *s = parse_text(text, sizeof(text) - 1), *l;
	struct mntsnap_mount m;
	char opts[64], line[800], *all, *got;
	int n;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		mntsnap_snapshot_get(s, i + 1, &m);
		cr_assert_geq(mntsnap_mount_options(&m, MNTSNAP_OPTIONS_ALL, opts, sizeof(opts)), 0);
		cr_assert_str_eq(opts, want[i]);
	}
	/* the text renders back as written, also saved and loaded */
	l = saved_and_loaded(s);
	got = ms_render(l, MNTSNAP_FORMAT_MOUNTINFO);
	ms_assert_text_eq(got, text, "unclosed quotes, saved and loaded");
	free(got);
	mntsnap_snapshot_get(l, 1, &m);
	cr_assert_geq(mntsnap_mount_options(&m, MNTSNAP_OPTIONS_ALL, opts, sizeof(opts)), 0);
	cr_assert_str_eq(opts, want[0]);
	mntsnap_snapshot_free(l);
	mntsnap_snapshot_free(s);
	/* 600 bytes in the quote: the merge's general way */
	n = snprintf(line, sizeof(line), "20 1 8:1 / / rw,relatime - tmpfs a rw=\",%0600d\n", 0);
	s = parse_text(line, (size_t)n);
	mntsnap_snapshot_get(s, 0, &m);
	n = (int)mntsnap_mount_options(&m, MNTSNAP_OPTIONS_ALL, NULL, 0);
	cr_assert_eq(n, (int)strlen("rw,relatime,rw=\",") + 600);
	all = malloc((size_t)n + 1);
	cr_assert_not_null(all);
	cr_assert_eq(mntsnap_mount_options(&m, MNTSNAP_OPTIONS_ALL, all, (size_t)n + 1), n);
	cr_assert_eq(strncmp(all, "rw,relatime,rw=\",0", 18), 0, "%.40s", all);
	free(all);
	mntsnap_snapshot_free(s);
}

/* findmnt -r's escaping: \xHH for space, control bytes and backslash. */
static void findmnt_raw(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		cr_assert_lt(c, 0x80, "non-ASCII data: findmnt's escaping would depend on the locale");
		if (c <= 0x20 || c == 0x7f || c == '\\')
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

/*
 * Mountinfo files from other projects' test suites (tests/data/mountinfo-
 * real/README): each parses, renders back byte for byte, and has the
 * entries findmnt sees in it, with the same targets, sources and types.
 */
LTest(mountinfo, real_world_files_and_findmnt)
{
	static const char *const files[] = {
		"moby-fedora.txt", "moby-ubuntu.txt", "moby-gentoo.txt", "moby-spaces.txt",
		"util-linux-mountinfo.txt", "util-linux-mountinfo_btrfs.txt",
		"util-linux-mountinfo_mv.txt", "util-linux-mountinfo_nosrc.txt",
		"util-linux-mountinfo_re.txt", "util-linux-mountinfo_u.txt",
		"systemd-rhbug-1554943.txt",
	};

	if (system("findmnt --version >/dev/null 2>&1"))
		cr_skip_test("findmnt missing (util-linux, installed by .ci/deps)");
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char name[256], cmd[1024], *text, *got, *ours = NULL, *theirs;
		struct mntsnap_snapshot *s;
		size_t len, olen;
		FILE *f;

		snprintf(name, sizeof(name), "../mountinfo-real/%s", files[i]);
		text = fixture(name, &len);
		s = parse_text(text, len);
		got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
		/*
		 * every file byte for byte, util-linux's hand-edited btrfs one
		 * too ("rw,noatime,nosuid,nodev", an order no kernel prints: the
		 * parser keeps a text it could not write back from the flags)
		 */
		ms_assert_text_eq(got, text, files[i]);
		cr_assert_eq(mntsnap_snapshot_consistent(s),
			     strcmp(files[i], "moby-fedora.txt") ? -1 : 0, "%s", files[i]);

		f = open_memstream(&ours, &olen);
		for (size_t k = 0; k < mntsnap_snapshot_count(s); k++) {
			struct mntsnap_mount m;

			mntsnap_snapshot_get(s, k, &m);
			findmnt_raw(f, m.mount_point);
			fputc(' ', f);
			findmnt_raw(f, m.source);
			fputc(' ', f);
			findmnt_raw(f, m.fs_type);
			if ((m.mask & MNTSNAP_F_FS_SUBTYPE) && m.fs_subtype[0]) {
				fputc('.', f);
				findmnt_raw(f, m.fs_subtype);
			}
			fputc('\n', f);
		}
		fclose(f);
		snprintf(cmd, sizeof(cmd),
			 "LC_ALL=C findmnt -F '%s/%s' -r -n --nofsroot -o TARGET,SOURCE,FSTYPE",
			 MI_DATA_DIR, name);
		f = popen(cmd, "r");
		cr_assert(f);
		ms_read_fd(fileno(f), &theirs);
		cr_assert_eq(pclose(f), 0, "%s", cmd);
		ms_assert_text_eq(ours, theirs, files[i]);
		free(theirs);
		free(ours);
		free(got);
		free(text);
		mntsnap_snapshot_free(s);
	}
}

struct bad_case {
	const char *file;
	unsigned line;
	const char *what; /* in the message */
};

LTest(mountinfo, fixture_malformed)
{
	static const struct bad_case cases[] = {
		{ "no-separator.txt", 2, "separator" },
		{ "truncated.txt", 3, "truncated" },
		{ "non-numeric-id.txt", 1, "mount id" },
		{ "bad-dev.txt", 2, "major:minor" },
		{ "overflow.txt", 3, "mount id" },
		{ "missing-fields.txt", 2, "mount point: missing" },
		{ "cycle.txt", 0, "cycle" },
		{ "empty-line.txt", 2, "empty line" },
		{ "no-fstype.txt", 2, "fs type" },
		{ "random.txt", 1, "" },
		/* systemd's test/test-umount/garbled.mountinfo: findmnt drops
		 * the lines it cannot read, a table with mounts left out is no
		 * kernel's table */
		{ "systemd-garbled.txt", 2, "major:minor" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad_case *c = &cases[i];
		struct mntsnap_snapshot *s = (void *)1;
		struct mntsnap_error e = {0};
		char name[128];
		size_t len;
		char *text;
		int r;

		snprintf(name, sizeof(name), "bad/%s", c->file);
		text = fixture(name, &len);
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .error = &e);
		r = mntsnap_parse_mountinfo(text, len, &o, &s);
		cr_assert_eq(r, -EBADMSG, "%s: %d", c->file, r);
		cr_assert_eq(s, (void *)1, "%s: output touched on failure", c->file);
		cr_assert_eq(e.err, -EBADMSG);
		cr_assert_eq(e.line, c->line, "%s: line %u (%s)", c->file, e.line, e.msg);
		cr_assert(strstr(e.msg, c->what), "%s: message '%s'", c->file, e.msg);
		if (c->line) {
			char at[32];

			snprintf(at, sizeof(at), "line %u:", c->line);
			cr_assert(!strncmp(e.msg, at, strlen(at)), "%s: '%s'", c->file, e.msg);
		}
		free(text);
	}
}

static void expect_bad(const char *text, size_t len, unsigned line, const char *what)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error e = {0};
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .error = &e);

	cr_assert_eq(mntsnap_parse_mountinfo(text, len, &o, &s), -EBADMSG, "%.*s", (int)len, text);
	cr_assert_null(s);
	cr_assert_eq(e.line, line, "line %u: %s", e.line, e.msg);
	cr_assert(strstr(e.msg, what), "message '%s'", e.msg);
}

#define EXPECT_BAD(lit, line, what) expect_bad(lit, sizeof(lit) - 1, line, what)

LTest(mountinfo, malformed_inline)
{
	EXPECT_BAD("1 1 0:2 / / rw - t s rw\n2 1 0:2 / /x\0y rw - t s rw\n", 2, "NUL");
	EXPECT_BAD("1 1 0:2 / / rw - t s rw\n\0", 2, "NUL");
	EXPECT_BAD("1 1 0:2 / /a\\000b rw - t s rw\n", 1, "mount point");
	EXPECT_BAD("1 1 0:2 / / rw - t s rw", 1, "truncated");
	EXPECT_BAD("1 1 0:2 / / rw - t s\n", 1, "super options: missing");
	EXPECT_BAD("1 1 0:2 / / rw - t s \n", 1, "super options");
	EXPECT_BAD("1 1 0:2 / / rw - t\n", 1, "source: missing");
	EXPECT_BAD("1 1 0:2 / / rw -\n", 1, "fs type: missing");
	EXPECT_BAD("1 1 0:2 / / rw\n", 1, "separator");
	/* "-" as the options: the separator is then missing */
	EXPECT_BAD("1 1 0:2 / / - t s rw\n", 1, "separator");
	/* escapes that decode to NUL: libmount would end the string there */
	EXPECT_BAD("1 1 0:2 / /a\\400b rw - t s rw\n", 1, "mount point: an escape decodes to NUL");
	EXPECT_BAD("1 1 0:2 / / rw - t s\\400 rw\n", 1, "source: an escape decodes to NUL");
	/* something after a blank */
	EXPECT_BAD("1 1 0:2 / / rw - t s rw \n", 1, "super options: blanks after ro/rw");
	EXPECT_BAD("1 1 -1:-1 / / rw - t s rw\n", 1, "major:minor");
	EXPECT_BAD("1 1 0:2 /  rw - t s rw\n", 1, "mount point: empty");
	EXPECT_BAD("1 1 0:2  / rw - t s rw\n", 1, "root: empty");
	EXPECT_BAD("1 1 0:2 / /\n", 1, "mount options: missing");
	EXPECT_BAD("1 1\n", 1, "major:minor: missing");
	EXPECT_BAD("1 1 0:2 / / rw - \n", 1, "fs type: missing");
	EXPECT_BAD("1 1 :2 / / rw - t s rw\n", 1, "major:minor");
	EXPECT_BAD("1 1 0: / / rw - t s rw\n", 1, "major:minor");
	EXPECT_BAD("1 1 0:2:3 / / rw - t s rw\n", 1, "major:minor");
	EXPECT_BAD("1 1 0:4294967296 / / rw - t s rw\n", 1, "major:minor");
	EXPECT_BAD("-1 1 0:2 / / rw - t s rw\n", 1, "mount id");
	EXPECT_BAD("+1 1 0:2 / / rw - t s rw\n", 1, "mount id");
	EXPECT_BAD("1 0x1 0:2 / / rw - t s rw\n", 1, "parent id");
	/* '.' only separates the subtype; an escaped one is not kernel text */
	EXPECT_BAD("1 1 0:2 / / rw - b\\056 s rw\n", 1, "fs type: escaped '.'");
	EXPECT_BAD("1 1 0:2 / / rw - \\056.x s rw\n", 1, "fs type: escaped '.'");
	EXPECT_BAD("\n", 1, "empty line");
	EXPECT_BAD(" ", 1, "truncated");
	/* a whole number of lines is fine even without any mounts */
	{
		struct mntsnap_snapshot *s = parse_text("", 0);

		cr_assert_eq(mntsnap_snapshot_count(s), 0);
		mntsnap_snapshot_free(s);
	}
}

/*
 * Lines libmount reads without a word though no kernel writes them so,
 * read as findmnt reads them: per-mount options with ro/rw not first or
 * not there (the text kept, "ro" anywhere the read-only flag), escapes
 * above \377 (the low 8 bits), a field after the super options (kept
 * with them, so the line renders back).
 */
LTest(mountinfo, hand_made_lines_read_as_libmount)
{
	static const char text[] =
		"20 1 8:1 / / nosuid,rw - ext4 /dev/sda1 rw\n"
		"21 20 0:3 / /a noexec,ro,nodev - tmpfs a rw extra\n"
		"22 20 0:4 / /b nosuid - tmpfs b ro,size=1k newfield:7\n"
		"23 20 0:5 / /c rw,nosuid,rw - tmpfs c rw\n";
	struct mntsnap_snapshot *s = parse_text(text, sizeof(text) - 1);
	char opts[256];
	struct mntsnap_mount m;
	char *got;

	got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
	ms_assert_text_eq(got, text, "hand-made lines render back");
	free(got);
	mntsnap_snapshot_get(s, 0, &m);
	cr_assert_str_eq(m.mnt_opts_text, "nosuid,rw");
	cr_assert_eq(m.attr & (MNTSNAP_ATTR_RDONLY | MNTSNAP_ATTR_NOSUID), MNTSNAP_ATTR_NOSUID);
	cr_assert_geq(mntsnap_mount_options(&m, MNTSNAP_OPTIONS_ALL, opts, sizeof(opts)), 0);
	cr_assert_str_eq(opts, "rw,nosuid", "libmount's merge of nosuid,rw and rw");
	mntsnap_snapshot_get(s, 1, &m);
	cr_assert_str_eq(m.mnt_opts_text, "noexec,ro,nodev");
	cr_assert_eq(m.attr & (MNTSNAP_ATTR_RDONLY | MNTSNAP_ATTR_NOEXEC | MNTSNAP_ATTR_NODEV),
		     MNTSNAP_ATTR_RDONLY | MNTSNAP_ATTR_NOEXEC | MNTSNAP_ATTR_NODEV);
	cr_assert_eq(m.sb_flags, 0);
	cr_assert_str_eq(m.options, " extra", "the field after rw, its blank kept");
	cr_assert_geq(mntsnap_mount_options(&m, MNTSNAP_OPTIONS_FS, opts, sizeof(opts)), 0);
	cr_assert_str_eq(opts, "rw extra");
	mntsnap_snapshot_get(s, 2, &m);
	cr_assert_str_eq(m.mnt_opts_text, "nosuid");
	cr_assert_eq(m.attr & MNTSNAP_ATTR_RDONLY, 0);
	cr_assert_eq(m.sb_flags, MNTSNAP_SB_RDONLY);
	cr_assert_str_eq(m.options, "size=1k newfield:7");
	mntsnap_snapshot_get(s, 3, &m);
	cr_assert_str_eq(m.mnt_opts_text, "rw,nosuid,rw", "rw twice: kept");
	assert_saved_text(s, text, "hand-made lines, saved and loaded");
	mntsnap_snapshot_free(s);
	{
		static const char esc[] = "1 1 0:2 / /a\\401\\777\\5000\\477 rw - t s\\501 rw\n";

		s = parse_text(esc, sizeof(esc) - 1);
		mntsnap_snapshot_get(s, 0, &m);
		cr_assert_str_eq(m.mount_point, "/a\001\377@0?", "low 8 bits, as unmangle");
		cr_assert_str_eq(m.source, "sA");
		mntsnap_snapshot_free(s);
	}
}

/*
 * Super options that end in an empty option right after the superblock's
 * flags ("rw,", "ro,sync,"): libmount reads the field as text, so findmnt
 * lists the mount with FS-OPTIONS as written. sb_flags and options hold
 * what the text says (no fs option); the text is kept (sb_opts_text) so
 * that the line renders back, also after save and load.
 */
LTest(mountinfo, super_options_trailing_empty_item)
{
	static const char text[] =
		"20 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw,\n"
		"21 20 0:3 / /a ro,nosuid - tmpfs t ro,\n"
		"22 20 0:4 / /b rw - tmpfs u ro,sync,\n"
		"23 20 0:5 / /c rw - tmpfs v rw,lazytime,\n"
		"24 20 0:6 / /d rw - tmpfs w rw,,\n";
	static const struct {
		uint32_t sb_flags;
		const char *kept, *fs, *all, *vfs;
	} want[] = {
		/* libmount's merge drops the comma its cut of "rw" leaves last */
		{ 0, "rw,", "rw,", "rw,relatime", "rw,relatime" },
		{ MNTSNAP_SB_RDONLY, "ro,", "ro,", "ro,nosuid", "ro,nosuid" },
		{ MNTSNAP_SB_RDONLY | MNTSNAP_SB_SYNCHRONOUS, "ro,sync,", "ro,sync,", "ro,sync,",
		  "rw" },
		{ MNTSNAP_SB_LAZYTIME, "rw,lazytime,", "rw,lazytime,", "rw,lazytime,", "rw" },
		{ 0, "", "rw,,", "rw,,", "rw" },
	};
	struct mntsnap_snapshot *s = parse_text(text, sizeof(text) - 1);
	struct mntsnap_mount m;
	char opts[256];
	char *got;

	got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
	ms_assert_text_eq(got, text, "super options with an empty last item");
	free(got);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		mntsnap_snapshot_get(s, i, &m);
		cr_assert_eq(m.sb_flags, want[i].sb_flags, "line %zu", i + 1);
		cr_assert_str_eq(m.sb_opts_text, want[i].kept, "line %zu", i + 1);
		cr_assert_geq(mntsnap_mount_options(&m, MNTSNAP_OPTIONS_FS, opts, sizeof(opts)), 0);
		cr_assert_str_eq(opts, want[i].fs, "line %zu FS-OPTIONS", i + 1);
		cr_assert_geq(mntsnap_mount_options(&m, MNTSNAP_OPTIONS_ALL, opts, sizeof(opts)), 0);
		cr_assert_str_eq(opts, want[i].all, "line %zu OPTIONS", i + 1);
		cr_assert_geq(mntsnap_mount_options(&m, MNTSNAP_OPTIONS_VFS, opts, sizeof(opts)), 0);
		cr_assert_str_eq(opts, want[i].vfs, "line %zu VFS-OPTIONS", i + 1);
	}
	mntsnap_snapshot_get(s, 0, &m);
	cr_assert_str_eq(m.options, "", "no fs option");
	assert_saved_text(s, text, "super options with an empty last item, saved and loaded");
	mntsnap_snapshot_free(s);
}

/*
 * Super options with an empty option after ro/rw and the flags, then text
 * after a blank ("rw, x"): libmount reads them up to the blank ("rw,");
 * kept as written (sb_opts_text), as other text after a blank is, where
 * they once were refused. Rendered back byte for byte, saved and loaded.
 */
LTest(mountinfo, super_options_empty_option_then_blank)
{
	static const char text[] =
		"20 1 8:1 / / rw - ext4 /dev/sda1 rw, x\n"
		"21 20 0:3 / /a ro - tmpfs t ro,sync, y,z\n";
	struct mntsnap_snapshot *s = parse_text(text, sizeof(text) - 1);
	struct mntsnap_mount m;
	char opts[256];
	char *got;

	got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
	ms_assert_text_eq(got, text, "an empty option, then a blank");
	free(got);
	mntsnap_snapshot_get(s, 0, &m);
	cr_assert_eq(m.sb_flags, 0);
	cr_assert_str_eq(m.sb_opts_text, "rw, x");
	cr_assert_geq(mntsnap_mount_options(&m, MNTSNAP_OPTIONS_FS, opts, sizeof(opts)), 0);
	cr_assert_str_eq(opts, "rw, x");
	mntsnap_snapshot_get(s, 1, &m);
	cr_assert_eq(m.sb_flags & MNTSNAP_SB_RDONLY, MNTSNAP_SB_RDONLY);
	cr_assert_geq(mntsnap_mount_options(&m, MNTSNAP_OPTIONS_FS, opts, sizeof(opts)), 0);
	cr_assert_str_eq(opts, "ro,sync, y,z");
	assert_saved_text(s, text, "an empty option, then a blank, saved and loaded");
	mntsnap_snapshot_free(s);
}

/*
 * Super options whose first word is not ro or rw: no kernel writes them,
 * libmount reads them as text (FS-OPTIONS as written, merged into
 * OPTIONS). Kept as written (sb_opts_text); the first option that is
 * exactly ro or rw gives sb_flags (none: rw), options are the others as
 * written. Rendered back byte for byte, also after save and load.
 */
LTest(mountinfo, super_options_not_starting_with_ro_rw)
{
	static const char text[] =
		"20 1 8:1 / / rw - ext4 /dev/sda1 size=1k,rw\n"
		"21 20 0:3 / /a ro,nosuid - tmpfs t size=1k,ro\n"
		"22 20 0:4 / /b rw - tmpfs u rwx\n"
		"23 20 0:5 / /c rw,noatime - tmpfs v size=1k\n"
		"24 20 0:6 / /d rw - tmpfs w a,ro,b,rw\n"
		"25 20 0:7 / /e rw - tmpfs x ,rw\n"
		"26 20 0:8 / /f rw - tmpfs y a\\040b,ro,sync\n";
	static const struct {
		uint32_t sb_flags;
		const char *options, *fs, *all;
	} want[] = {
		{ 0, "size=1k", "size=1k,rw", "rw,size=1k" },
		{ MNTSNAP_SB_RDONLY, "size=1k", "size=1k,ro", "ro,nosuid,size=1k" },
		{ 0, "rwx", "rwx", "rw,rwx" },
		{ 0, "size=1k", "size=1k", "rw,noatime,size=1k" },
		/* libmount cuts both rw (vfs's, fs's) and then no ro */
		{ MNTSNAP_SB_RDONLY, "a,b,rw", "a,ro,b,rw", "rw,a,ro,b" },
		{ 0, "", ",rw", "rw" },
		{ MNTSNAP_SB_RDONLY, "a\\040b,sync", "a b,ro,sync", "ro,a b,sync" },
	};
	struct mntsnap_snapshot *s = parse_text(text, sizeof(text) - 1);
	struct mntsnap_mount m;
	char opts[256];
	char *got;

	got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
	ms_assert_text_eq(got, text, "super options not starting with ro or rw");
	free(got);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		mntsnap_snapshot_get(s, i, &m);
		cr_assert_eq(m.sb_flags, want[i].sb_flags, "line %zu", i + 1);
		cr_assert_str_eq(m.options, want[i].options, "line %zu", i + 1);
		cr_assert_neq(m.sb_opts_text[0], '\0', "line %zu: kept", i + 1);
		cr_assert_geq(mntsnap_mount_options(&m, MNTSNAP_OPTIONS_FS, opts, sizeof(opts)), 0);
		cr_assert_str_eq(opts, want[i].fs, "line %zu FS-OPTIONS", i + 1);
		cr_assert_geq(mntsnap_mount_options(&m, MNTSNAP_OPTIONS_ALL, opts, sizeof(opts)), 0);
		cr_assert_str_eq(opts, want[i].all, "line %zu OPTIONS", i + 1);
	}
	assert_saved_text(s, text, "super options not starting with ro or rw, saved and loaded");
	mntsnap_snapshot_free(s);
}

/*
 * Optional fields apart by white space other than one space: a tab, \v,
 * \f or \r ("shared:1\vmaster:2"), two blanks, one before the first
 * field. libmount keeps the text between the per-mount options' blank
 * and " - " as written and finds the tags in it, so findmnt lists the
 * line (OPT-FIELDS as written, PROPAGATION shared,slave). Read the same:
 * each tag gives its value, the text is kept (opt_fields) and rendered
 * back byte for byte, also after save and load.
 */
LTest(mountinfo, optional_fields_apart_by_white_space)
{
	static const char text[] =
		"20 1 8:1 / / rw shared:1\vmaster:2 - ext4 /dev/sda1 rw\n"
		"21 20 0:3 / /a rw shared:3\fmaster:1 - tmpfs t rw\n"
		"22 20 0:4 / /b rw shared:4\t\vmaster:1\v - tmpfs u rw\n"
		"23 20 0:5 / /c rw \vshared:5 - tmpfs v rw\n"
		"24 20 0:6 / /d rw  shared:6 - tmpfs w rw\n"
		"25 20 0:7 / /e rw shared:7\r - tmpfs x rw\n"
		"26 20 0:8 / /f rw shared:8\v-\vx - tmpfs y rw\n";
	static const struct {
		uint32_t propagation, peer, master;
		const char *kept;
	} want[] = {
		{ MNTSNAP_PROP_SHARED | MNTSNAP_PROP_SLAVE, 1, 2, "shared:1\vmaster:2" },
		{ MNTSNAP_PROP_SHARED | MNTSNAP_PROP_SLAVE, 3, 1, "shared:3\fmaster:1" },
		{ MNTSNAP_PROP_SHARED | MNTSNAP_PROP_SLAVE, 4, 1, "shared:4\t\vmaster:1\v" },
		{ MNTSNAP_PROP_SHARED, 5, 0, "\vshared:5" },
		{ MNTSNAP_PROP_SHARED, 6, 0, " shared:6" },
		{ MNTSNAP_PROP_SHARED, 7, 0, "shared:7\r" },
		/* "-" between \v is a field: the separator is " - " */
		{ MNTSNAP_PROP_SHARED, 8, 0, "shared:8\v-\vx" },
	};
	struct mntsnap_snapshot *s = parse_text(text, sizeof(text) - 1);
	struct mntsnap_mount m;
	char *got;

	got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
	ms_assert_text_eq(got, text, "optional fields apart by white space");
	free(got);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		mntsnap_snapshot_get(s, i, &m);
		cr_assert_eq(m.propagation, want[i].propagation, "line %zu", i + 1);
		cr_assert_eq(m.peer_group, want[i].peer, "line %zu", i + 1);
		cr_assert_eq(m.master, want[i].master, "line %zu", i + 1);
		cr_assert_str_eq(m.opt_fields, want[i].kept, "line %zu", i + 1);
	}
	assert_saved_text(s, text, "optional fields apart by white space, saved and loaded");
	mntsnap_snapshot_free(s);
}

/*
 * The JSON renderer reuses one mount's option strings for the next with
 * the same attr, sb flags and options: text kept as written (per-mount or
 * super options) is the mount's own and must not be taken from another.
 */
LTest(mountinfo, json_options_of_kept_text)
{
	static const char text[] =
		"1 0 0:2 / / rw - tmpfs s rw\n"
		"2 1 0:3 / /a rw - tmpfs s rw,\n"
		"3 1 0:4 / /b rw,newflag - tmpfs s rw\n"
		"4 1 0:5 / /c rw - tmpfs s rw\n";
	struct mntsnap_snapshot *s = parse_text(text, sizeof(text) - 1);
	char *got = ms_render(s, MNTSNAP_FORMAT_JSON);

	cr_assert(strstr(got, "\"vfs-options\":\"rw\",\"fs-options\":\"rw,\""), "%s", got);
	cr_assert(strstr(got, "\"options\":\"rw,newflag\",\"vfs-options\":\"rw,newflag\""),
		  "%s", got);
	free(got);
	mntsnap_snapshot_free(s);
}

/*
 * Old ids at or above 2^31 (a hand-made file's; the kernel's stay below):
 * libmount keeps them in an int, so they sort before the others as
 * siblings and as the root's smallest parent id; lookups by id still
 * find each, refreshes keep the order.
 */
LTest(mountinfo, old_ids_order_as_ints)
{
	static const char text[] = "20 1 8:1 / / rw - ext4 r rw\n"
				   "21 20 0:3 / /a rw - tmpfs a rw\n"
				   "2147483648 20 0:4 / /b rw - tmpfs b rw\n"
				   "4294967295 20 0:5 / /c rw - tmpfs c rw\n"
				   "2147483647 20 0:6 / /d rw - tmpfs d rw\n";
	static const char *const want[] = { "/", "/b", "/c", "/a", "/d" };
	static const char up[] = "30 2147483649 0:3 / /x/y rw - tmpfs a rw\n"
				 "2147483649 20 0:4 / /x rw - tmpfs b rw\n"
				 "20 1 8:1 / / rw - ext4 r rw\n";
	struct mntsnap_snapshot *s = parse_text(text, sizeof(text) - 1);
	struct mntsnap_mount m;

	for (size_t i = 0; i < 5; i++) {
		long k = mntsnap_snapshot_tree_index(s, i);

		cr_assert_geq(k, 0);
		mntsnap_snapshot_get(s, (size_t)k, &m);
		cr_assert_str_eq(m.mount_point, want[i], "tree position %zu", i);
	}
	cr_assert_eq(mntsnap_snapshot_find_old(s, 4294967295U), 3);
	cr_assert_eq(mntsnap_snapshot_find_old(s, 2147483648U), 2);
	cr_assert_eq(mntsnap_snapshot_find_old(s, 2147483647U), 4);
	cr_assert_eq(mntsnap_snapshot_find_old(s, 21), 1);
	cr_assert_eq(mntsnap_snapshot_find_old(s, 7), -ENOENT);
	cr_assert_eq(mntsnap_snapshot_parent(s, 3), 0);
	mntsnap_snapshot_free(s);
	/* the root: smallest parent id as an int (-2147483647), walked up to / */
	s = parse_text(up, sizeof(up) - 1);
	mntsnap_snapshot_get(s, (size_t)mntsnap_snapshot_tree_index(s, 0), &m);
	cr_assert_str_eq(m.mount_point, "/");
	mntsnap_snapshot_get(s, (size_t)mntsnap_snapshot_tree_index(s, 2), &m);
	cr_assert_str_eq(m.mount_point, "/x/y");
	mntsnap_snapshot_free(s);
}

/* Deterministic random bytes and mutated lines: an error or a table, no crash. */
LTest(mountinfo, random_bytes)
{
	const char *good = "26 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard\n"
			   "27 26 0:24 / /a\\040b ro,nosuid master:3 - tmpfs x ro,size=4k\n";
	size_t glen = strlen(good);
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	char buf[512];

	for (int iter = 0; iter < 20000; iter++) {
		struct mntsnap_snapshot *s = NULL;
		size_t len;
		int r;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		if (iter % 2) {
			/* pure noise */
			len = (seed >> 33) % sizeof(buf);
			for (size_t i = 0; i < len; i++) {
				seed = seed * 6364136223846793005ULL + 1;
				buf[i] = (char)(seed >> 56);
			}
		} else {
			/* a good table with a few bytes changed */
			memcpy(buf, good, glen);
			len = glen;
			for (int k = 0; k < 3; k++) {
				seed = seed * 6364136223846793005ULL + 1;
				buf[(seed >> 33) % glen] = " :\\-0\n\0,#"[(seed >> 20) % 9];
			}
		}
		r = mntsnap_parse_mountinfo(buf, len, NULL, &s);
		cr_assert(r == 0 || r == -EBADMSG, "iteration %d: %d", iter, r);
		if (!r) {
			char *text = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);

			cr_assert_not_null(text);
			free(text);
		}
		mntsnap_snapshot_free(s);
	}
}

/* A 64 KiB mount point: from a buffer and through the file reader. */
LTest(mountinfo, long_line)
{
	const size_t n = 64 * 1024;
	char *line = malloc(n + 200), *got;
	char path[] = "/tmp/mntsnap-mi-long-XXXXXX";
	struct mntsnap_snapshot *s;
	struct mntsnap_mount m;
	size_t len;
	int fd;

	cr_assert(line);
	len = (size_t)sprintf(line, "1 1 0:2 / /");
	memset(line + len, 'x', n);
	len += n;
	len += (size_t)sprintf(line + len, " rw,relatime - tmpfs t rw,size=4k\n");
	s = parse_text(line, len);
	cr_assert_eq(mntsnap_snapshot_get(s, 0, &m), 0);
	cr_assert_eq(strlen(m.mount_point), n + 1);
	got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
	cr_assert_eq(strlen(got), len);
	cr_assert(!memcmp(got, line, len));
	free(got);
	mntsnap_snapshot_free(s);

	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, line, len), (ssize_t)len);
	close(fd);
	{
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_MOUNTINFO,
			     .mountinfo_path = path);
		cr_assert_eq(mntsnap_capture(&o, &s), 0);
	}
	got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
	cr_assert(!memcmp(got, line, len));
	free(got);
	mntsnap_snapshot_free(s);
	unlink(path);
	free(line);
}

/* 10,000 generated lines, read through the file reader (many buffers). */
LTest(mountinfo, ten_thousand_lines)
{
	char path[] = "/tmp/mntsnap-mi-10k-XXXXXX";
	struct mntsnap_snapshot *s;
	struct mntsnap_mount m;
	size_t len = 0, cap = 1 << 20;
	char *text = malloc(cap), *got;
	int fd;

	len += (size_t)sprintf(text, "100 1 0:50 / /base rw,relatime shared:1 - tmpfs base rw\n");
	for (unsigned i = 0; i < 9999; i++) {
		if (cap - len < 256)
			text = realloc(text, cap *= 2);
		len += (size_t)sprintf(text + len,
				       "%u 100 0:%u /d%u /base/m%u rw,nosuid,relatime%s - tmpfs "
				       "src%u rw,size=%uk\n",
				       101 + i, 60 + i % 7, i, i, i % 3 ? " master:1" : "", i % 5,
				       i % 11);
	}
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	{
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_MOUNTINFO,
			     .mountinfo_path = path);
		cr_assert_eq(mntsnap_capture(&o, &s), 0);
	}
	unlink(path);
	cr_assert_eq(mntsnap_snapshot_count(s), 10000);
	cr_assert_eq(mntsnap_snapshot_get(s, 9999, &m), 0);
	cr_assert_eq(m.id_old, 10099);
	cr_assert_str_eq(m.mount_point, "/base/m9998");
	cr_assert_str_eq(m.root, "/d9998");
	cr_assert_eq(m.dev_minor, 60 + 9998 % 7);
	cr_assert_eq(m.parent_index, 0);
	cr_assert_eq(m.master, 9998 % 3 ? 1 : 0);
	cr_assert_str_eq(m.options, "size=10k");
	got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
	ms_assert_text_eq(got, text, "10,000 lines rendered again");
	free(got);
	free(text);
	mntsnap_snapshot_free(s);
}

LTest(mountinfo, reverse_flag)
{
	const char *t = "1 1 0:2 / / rw - t a rw\n2 1 0:3 / /x rw - t b rw\n"
			"3 2 0:4 / /x/y rw - t c rw\n";
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_mount m;
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .flags = MNTSNAP_CAPTURE_REVERSE);

	cr_assert_eq(mntsnap_parse_mountinfo(t, strlen(t), &o, &s), 0);
	cr_assert_eq(mntsnap_snapshot_get(s, 0, &m), 0);
	cr_assert_eq(m.id_old, 3);
	cr_assert_eq(m.depth, 2);
	cr_assert_eq(mntsnap_snapshot_get(s, 2, &m), 0);
	cr_assert_eq(m.id_old, 1);
	cr_assert_eq(mntsnap_snapshot_tree_index(s, 0), 2);
	mntsnap_snapshot_free(s);
}

LTest(mountinfo, mask_limits_fields)
{
	const char *t = "1 1 0:2 / / rw shared:4 - t a rw,x=1\n";
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_mount m;
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .mask = MNTSNAP_F_MOUNT_POINT | MNTSNAP_F_ID);

	cr_assert_eq(mntsnap_parse_mountinfo(t, strlen(t), &o, &s), 0);
	cr_assert_eq(mntsnap_snapshot_get(s, 0, &m), 0);
	cr_assert_eq(m.mask, MNTSNAP_F_MOUNT_POINT);
	cr_assert_eq(mntsnap_snapshot_mask(s), MNTSNAP_F_MOUNT_POINT);
	mntsnap_snapshot_free(s);
}

/*
 * A file's last line without '\n' is read (findmnt reads it too); the same
 * text handed over as a buffer, as a short read of /proc would be, is not.
 */
LTest(mountinfo, file_last_line_without_newline)
{
	static const char text[] = "1 0 8:1 / / rw - ext4 /dev/x rw\n"
				   "2 1 0:5 / /proc rw - proc proc rw";
	char path[] = "/tmp/mntsnap-mi-nonl-XXXXXX";
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error e = {0};
	struct mntsnap_mount m;
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	{
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_MOUNTINFO,
			     .mountinfo_path = path, .error = &e);
		cr_assert_eq(mntsnap_capture(&o, &s), 0, "%s", e.msg);
	}
	cr_assert_eq(mntsnap_snapshot_count(s), 2);
	cr_assert_eq(mntsnap_snapshot_get(s, 1, &m), 0);
	cr_assert_str_eq(m.mount_point, "/proc");
	cr_assert_str_eq(m.source, "proc");
	mntsnap_snapshot_free(s);
	s = NULL;
	{
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .error = &e);
		cr_assert_eq(mntsnap_parse_mountinfo(text, sizeof(text) - 1, &o, &s), -EBADMSG);
		cr_assert(strstr(e.msg, "line 2: truncated"), "%s", e.msg);
	}
	/* a last line that is no mountinfo line is still refused, naming it */
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "\n3 1", 4), 4);
	close(fd);
	{
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_MOUNTINFO,
			     .mountinfo_path = path, .error = &e);
		cr_assert_eq(mntsnap_capture(&o, &s), -EBADMSG);
		cr_assert_eq(e.line, 3, "%s", e.msg);
	}
	unlink(path);
}

/* ---- fd hygiene ----------------------------------------------------------- */

LTest(mountinfo, no_fd_leaks)
{
	struct mntsnap_snapshot *s = NULL;
	int before = ms_count_fds();

	for (int i = 0; i < 3; i++) {
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_MOUNTINFO);
		cr_assert_eq(mntsnap_capture(&o, &s), 0);
		mntsnap_snapshot_free(s);
	}
	{
		char path[600];
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_MOUNTINFO,
			     .mountinfo_path = path);

		/* a malformed file: the error path closes too */
		snprintf(path, sizeof(path), "%s/bad/bad-dev.txt", MI_DATA_DIR);
		cr_assert_eq(mntsnap_capture(&o, &s), -EBADMSG);
		snprintf(path, sizeof(path), "%s/nfs.txt", MI_DATA_DIR);
		cr_assert_eq(mntsnap_capture(&o, &s), 0);
		mntsnap_snapshot_free(s);
	}
	{
		struct mntsnap_ns *ns;

		cr_assert_eq(mntsnap_ns_open_pid(getpid(), NULL, &ns), 0);
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_MOUNTINFO, .ns = ns);
		cr_assert_eq(mntsnap_capture(&o, &s), 0);
		mntsnap_snapshot_free(s);
		mntsnap_ns_free(ns);
	}
	{
		struct mntsnap_ns *ns;

		/* no process in the handle: the /proc scan closes what it opens */
		cr_assert_eq(mntsnap_ns_open_path("/proc/self/ns/mnt", NULL, &ns), 0);
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_MOUNTINFO, .ns = ns);
		cr_assert_eq(mntsnap_capture(&o, &s), 0);
		mntsnap_snapshot_free(s);
		mntsnap_ns_free(ns);
	}
	cr_assert_eq(ms_count_fds(), before, "fd leak");
}

/* ---- target namespaces ------------------------------------------------------ */

/* A child in its own namespace, read through a pid handle. */
LTest(mountinfo, target_pid)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error e = {0};
	struct mntsnap_ns *ns;
	int sync_pipe[2], done[2];
	struct mntsnap_mount m;
	bool seen = false;
	pid_t pid;
	char c;

	ms_private_ns(BASE);
	cr_assert_eq(pipe2(sync_pipe, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(done, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		if (unshare(CLONE_NEWNS) || mkdir(BASE "/only-in-child", 0755) ||
		    mount("child", BASE "/only-in-child", "tmpfs", 0, NULL))
			_exit(1);
		(void)!write(sync_pipe[1], "x", 1);
		(void)!read(done[0], &c, 1);
		_exit(0);
	}
	cr_assert_eq(read(sync_pipe[0], &c, 1), 1);
	cr_assert_eq(mntsnap_ns_open_pid(pid, NULL, &ns), 0);
	{
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_MOUNTINFO, .ns = ns,
			     .error = &e);
		cr_assert_eq(mntsnap_capture(&o, &s), 0, "%s", e.msg);
	}
	for (size_t i = 0; i < mntsnap_snapshot_count(s); i++) {
		mntsnap_snapshot_get(s, i, &m);
		seen |= !strcmp(m.mount_point, BASE "/only-in-child");
	}
	cr_assert(seen, "the child's mount is in its table");
	cr_assert_eq(mntsnap_snapshot_ns_id(s), mntsnap_ns_id(ns));
	mntsnap_snapshot_free(s);
	(void)!write(done[1], "x", 1);
	waitpid(pid, NULL, 0);
	/* the process is gone: a clear error, not some other process's table */
	{
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_MOUNTINFO, .ns = ns,
			     .error = &e);
		cr_assert_eq(mntsnap_capture(&o, &s), -ESRCH);
	}
	mntsnap_ns_free(ns);
}

/* Handles without a process: the parser reads a process found in the ns. */
LTest(mountinfo, target_nsfd_and_id)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error e = {0};
	struct mntsnap_ns *ns;
	char *want, *got;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/scan");
	mnt_ok("scan", BASE "/scan", "tmpfs", 0, NULL);
	want = ms_read_file("/proc/self/mountinfo", NULL);

	cr_assert_eq(mntsnap_ns_open_path("/proc/self/ns/mnt", NULL, &ns), 0);
	{
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_MOUNTINFO, .ns = ns,
			     .error = &e);
		cr_assert_eq(mntsnap_capture(&o, &s), 0, "%s", e.msg);
	}
	got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
	/* the only process in this private namespace is this one */
	ms_assert_text_eq(got, want, "nsfs-path handle, mountinfo backend");
	free(got);
	mntsnap_snapshot_free(s);

	if (mntsnap_ns_id(ns)) {
		struct mntsnap_ns *byid;

		cr_assert_eq(mntsnap_ns_open_id(mntsnap_ns_id(ns), NULL, &byid), 0);
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_MOUNTINFO,
			     .ns = byid, .error = &e);
		cr_assert_eq(mntsnap_capture(&o, &s), 0, "%s", e.msg);
		got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
		ms_assert_text_eq(got, want, "id handle, mountinfo backend");
		cr_assert_eq(mntsnap_snapshot_ns_id(s), mntsnap_ns_id(ns));
		free(got);
		mntsnap_snapshot_free(s);
		mntsnap_ns_free(byid);
	}
	mntsnap_ns_free(ns);
	free(want);
}

/* A namespace kept alive only by an fd has no process: a clear error. */
LTest(mountinfo, target_without_process)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error e = {0};
	struct mntsnap_ns *ns;
	int p[2], status;
	char path[64], c;
	pid_t pid;

	ms_private_ns(BASE);
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		if (unshare(CLONE_NEWNS))
			_exit(1);
		(void)!write(p[1], "x", 1);
		pause();
		_exit(0);
	}
	close(p[1]);
	cr_assert_eq(read(p[0], &c, 1), 1);
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	cr_assert_eq(mntsnap_ns_open_path(path, NULL, &ns), 0);
	kill(pid, SIGKILL);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	{
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_MOUNTINFO, .ns = ns,
			     .error = &e);
		cr_assert_eq(mntsnap_capture(&o, &s), -ESRCH, "%s", e.msg);
		cr_assert(strstr(e.msg, "no process"), "%s", e.msg);
	}
	mntsnap_ns_free(ns);
}

LTest(mountinfo, duplicate_id_reverse_line)
{
	const char *t = "1 1 0:2 / / rw - t a rw\n2 1 0:3 / /x rw - t b rw\n"
			"3 1 0:4 / /y rw - t c rw\n2 1 0:5 / /z rw - t d rw\n";
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error e = {0};
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .flags = MNTSNAP_CAPTURE_REVERSE, .error = &e);

	/* parsed text keeps a repeated id, in either order, and says so */
	cr_assert_eq(mntsnap_parse_mountinfo(t, strlen(t), &o, &s), 0, "%s", e.msg);
	cr_assert_eq(mntsnap_snapshot_count(s), 4);
	cr_assert_eq(mntsnap_snapshot_consistent(s), 0);
	cr_assert_eq(e.err, 0, "no error written on success");
	mntsnap_snapshot_free(s);
}

/*
 * A live read is checked (consistent 1 when quiet); STRICT needs a second
 * read with the same text, so a quiet table takes two.
 */
Test(mi_live, quiet_read_is_consistent_and_strict_reads_twice)
{
	struct mntsnap_snapshot *s = NULL;
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_MOUNTINFO);

	ms_private_ns(BASE);
	cr_assert_eq(mntsnap_capture(&o, &s), 0);
	cr_assert_eq(mntsnap_snapshot_consistent(s), 1);
	cr_assert_eq(mntsnap_snapshot_attempts(s), 1);
	mntsnap_snapshot_free(s);
	o.flags = MNTSNAP_CAPTURE_STRICT | MNTSNAP_CAPTURE_CONSISTENT;
	cr_assert_eq(mntsnap_capture(&o, &s), 0);
	cr_assert_eq(mntsnap_snapshot_consistent(s), 1);
	cr_assert_eq(mntsnap_snapshot_attempts(s), 2);
	mntsnap_snapshot_free(s);
	/* a file is parsed once and not checked */
	o.flags = 0;
	o.mountinfo_path = "/proc/self/mountinfo";
	cr_assert_eq(mntsnap_capture(&o, &s), 0);
	cr_assert_eq(mntsnap_snapshot_consistent(s), -1);
	mntsnap_snapshot_free(s);
}

/*
 * A change of propagation type moves no event counter (POLLPRI stays
 * quiet): only STRICT's second read sees it. A child flips one mount
 * between shared and private while we capture.
 */
Test(mi_live, strict_sees_propagation_flips, .timeout = 60)
{
	unsigned long plain = 0, plain_flagged = 0, strict = 0, flagged = 0, eagain = 0;
	int st;
	pid_t kid;
	time_t end;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/p");
	cr_assert_eq(mount("p", BASE "/p", "tmpfs", 0, NULL), 0);
	/* a text of several pages: a flip lands between two reads more often */
	for (int i = 0; i < 300; i++) {
		char d[64];

		snprintf(d, sizeof(d), BASE "/b/%03d", i);
		ms_mkdir_p(d);
		cr_assert_eq(mount(BASE "/p", d, NULL, MS_BIND, NULL), 0);
	}
	kid = fork();
	cr_assert_geq(kid, 0);
	if (!kid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (unsigned long i = 0;; i++)
			mount(NULL, BASE "/p", NULL, i % 2 ? MS_PRIVATE : MS_SHARED, NULL);
	}
	/* 3 s, or until STRICT saw a flip (at most 20 s) */
	end = time(NULL) + 3;
	while (time(NULL) < end || (!flagged && time(NULL) < end + 17)) {
		struct mntsnap_snapshot *s = NULL;
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_MOUNTINFO,
			     .max_retries = 1);
		int r = mntsnap_capture(&o, &s);

		cr_assert_eq(r, 0, "%s", strerror(-r));
		plain++;
		plain_flagged += mntsnap_snapshot_consistent(s) != 1;
		mntsnap_snapshot_free(s);
		o.flags = MNTSNAP_CAPTURE_STRICT;
		r = mntsnap_capture(&o, &s);
		cr_assert_eq(r, 0, "STRICT alone: %s", strerror(-r));
		strict++;
		flagged += mntsnap_snapshot_consistent(s) == 0;
		mntsnap_snapshot_free(s);
		o.flags |= MNTSNAP_CAPTURE_CONSISTENT;
		r = mntsnap_capture(&o, &s);
		cr_assert(r == 0 || r == -EAGAIN, "%s", strerror(-r));
		eagain += r == -EAGAIN;
		if (!r) {
			cr_assert_eq(mntsnap_snapshot_consistent(s), 1);
			mntsnap_snapshot_free(s);
		}
	}
	kill(kid, SIGKILL);
	cr_assert_eq(waitpid(kid, &st, 0), kid);
	fprintf(stderr,
		"mountinfo strict: %lu plain captures, %lu flagged; %lu STRICT, %lu flagged; "
		"%lu EAGAIN with CONSISTENT\n",
		plain, plain_flagged, strict, flagged, eagain);
	cr_assert_gt(flagged, 0, "STRICT never saw a flip");
}
