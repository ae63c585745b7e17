// SPDX-License-Identifier: MIT
/*
 * Core: statmount capture rendered as mountinfo must equal the kernel's
 * /proc/self/mountinfo byte for byte, for every mount setup below (each
 * built inside a private mount namespace). Then the snapshot's own
 * invariants (tree, indexes, single-mount queries) and resource hygiene.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "mntsnap.h"
#include "snapshot.h"
#include "sys.h"
#include "uapi.h"
#include "sys-seam.h"

#define BASE "/tmp/mntsnap-test"

/*
 * The oracle needs what 6.15 returns (mount options, sb source, subtype,
 * id maps); older kernels skip rather than fail. supported_mask itself is
 * 6.15+, so a kernel that cannot tell counts as older.
 */
static void need_kernel(void)
{
	uint64_t need = MNTSNAP_K_STATMOUNT_MNT_OPTS | MNTSNAP_K_STATMOUNT_SB_SOURCE | MNTSNAP_K_STATMOUNT_FS_SUBTYPE |
			MNTSNAP_K_STATMOUNT_MNT_UIDMAP | MNTSNAP_K_STATMOUNT_MNT_GIDMAP;

	if (!mntsnap_have_statmount())
		cr_skip_test("no statmount/listmount here (Linux < 6.8 or blocked)");
	if ((mntsnap_kernel_supported_mask() & need) != need)
		cr_skip_test("kernel statmount lacks fields the oracle needs (Linux < 6.15)");
}

TestSuite(core, .init = need_kernel);


#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256
#endif

/* mount_setattr(2) argument (include/uapi/linux/mount.h, MOUNT_ATTR_SIZE_VER0) */
struct t_mount_attr {
	uint64_t attr_set;
	uint64_t attr_clr;
	uint64_t propagation;
	uint64_t userns_fd;
};

#define T_AT_EMPTY_PATH 0x1000
#define T_AT_RECURSIVE 0x8000
#define T_OPEN_TREE_CLONE 1
#define T_MOVE_MOUNT_F_EMPTY_PATH 0x4

static int t_mount_setattr(const char *path, unsigned flags, uint64_t set, uint64_t clr,
			   uint64_t prop, int userns_fd)
{
	struct t_mount_attr a = { .attr_set = set, .attr_clr = clr, .propagation = prop,
				  .userns_fd = userns_fd < 0 ? 0 : (uint64_t)userns_fd };

	return (int)syscall(MNTSNAP_NR_mount_setattr, AT_FDCWD, path, flags, &a, sizeof(a));
}

static struct mntsnap_snapshot *capture_opts(uint32_t mask, uint32_t flags, unsigned threads)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = {0};
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_STATMOUNT, .mask = mask,
		     .flags = flags, .threads = threads, .error = &err);
	int r = mntsnap_capture(&o, &s);

	cr_assert_eq(r, 0, "capture: %s (%s)", strerror(-r), err.msg);
	return s;
}

static struct mntsnap_snapshot *capture(int backend)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = {0};
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = backend, .error = &err);
	int r = mntsnap_capture(&o, &s);

	cr_assert_eq(r, 0, "capture: %s (%s)", strerror(-r), err.msg);
	return s;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* The oracle: our rendering vs the kernel's text, read right after. */
static void assert_oracle_snap(struct mntsnap_snapshot *s, char **ret_want)
{
	char *want = ms_read_file("/proc/self/mountinfo", NULL);
	char *got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);

	ms_assert_text_eq(got, want, "statmount rendering vs /proc/self/mountinfo");
	cr_assert_eq(count_lines(want), mntsnap_snapshot_count(s));
	free(got);
	if (ret_want)
		*ret_want = want;
	else
		free(want);
}

/* Returns the kernel's text for extra checks by the caller (free it). */
static char *assert_oracle(void)
{
	struct mntsnap_snapshot *s = capture(MNTSNAP_BACKEND_STATMOUNT);
	char *want;

	assert_oracle_snap(s, &want);
	mntsnap_snapshot_free(s);
	/* the full mask (opt arrays, id maps) must not change the text */
	s = capture_opts(MNTSNAP_MASK_FULL, 0, 0);
	assert_oracle_snap(s, NULL);
	mntsnap_snapshot_free(s);
	return want;
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

/* Index of the record whose mount point is mp (last one: the top of a stack). */
static long find_mp(const struct mntsnap_snapshot *s, const char *mp, struct mntsnap_mount *ret)
{
	struct mntsnap_mount m;
	long found = -ENOENT;

	for (size_t i = 0; i < mntsnap_snapshot_count(s); i++) {
		cr_assert_eq(mntsnap_snapshot_get(s, i, &m), 0);
		if (!strcmp(m.mount_point, mp)) {
			found = (long)i;
			if (ret)
				*ret = m;
		}
	}
	return found;
}

static bool has_line_with(const char *text, const char *a, const char *b)
{
	for (const char *l = text; *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);
		char *line = strndup(l, n);
		bool ok = strstr(line, a) && (!b || strstr(line, b));

		free(line);
		if (ok)
			return true;
		l += n + (e ? 1 : 0);
	}
	return false;
}

/* ---- oracle tests --------------------------------------------------------- */

LTest(core, plain_table)
{
	ms_private_ns(BASE);
	free(assert_oracle());
}

LTest(core, tmpfs_options_and_flags)
{
	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/a");
	ms_mkdir_p(BASE "/b");
	mnt_ok("src", BASE "/a", "tmpfs",
	       MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME |
		       MS_SYNCHRONOUS | MS_DIRSYNC | MS_LAZYTIME,
	       "size=1m,mode=700,uid=1,gid=2");
	mnt_ok("other", BASE "/b", "tmpfs", 0, "size=4k,nr_inodes=77,mode=1777,huge=never");
	free(assert_oracle());
}

LTest(core, bind_subdirectories)
{
	struct mntsnap_snapshot *s;
	struct mntsnap_mount m;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/src/sub/deep dir");
	ms_mkdir_p(BASE "/b1");
	ms_mkdir_p(BASE "/b2");
	ms_mkdir_p(BASE "/b3");
	bind_ok(BASE "/src/sub", BASE "/b1");
	bind_ok(BASE "/src/sub/deep dir", BASE "/b2");
	/* a bind of a bind: root stays relative to the filesystem */
	bind_ok(BASE "/b1/deep dir", BASE "/b3");
	free(assert_oracle());
	s = capture(MNTSNAP_BACKEND_STATMOUNT);
	cr_assert_geq(find_mp(s, BASE "/b1", &m), 0);
	cr_assert_str_eq(m.root, "/src/sub");
	cr_assert_geq(find_mp(s, BASE "/b3", &m), 0);
	cr_assert_str_eq(m.root, "/src/sub/deep dir");
	mntsnap_snapshot_free(s);
}

LTest(core, readonly_mount_and_superblock)
{
	struct mntsnap_snapshot *s;
	struct mntsnap_mount m;
	char *want;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/rw-sb");
	ms_mkdir_p(BASE "/ro-bind");
	ms_mkdir_p(BASE "/ro-sb");
	ms_mkdir_p(BASE "/rw-view");
	/* ro mount over a rw superblock */
	mnt_ok("rwsb", BASE "/rw-sb", "tmpfs", 0, NULL);
	bind_ok(BASE "/rw-sb", BASE "/ro-bind");
	mnt_ok(NULL, BASE "/ro-bind", NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL);
	/* rw mount over a ro superblock: bind first, then make the sb ro */
	mnt_ok("rosb", BASE "/ro-sb", "tmpfs", 0, NULL);
	bind_ok(BASE "/ro-sb", BASE "/rw-view");
	mnt_ok(NULL, BASE "/ro-sb", NULL, MS_REMOUNT | MS_RDONLY, NULL);

	want = assert_oracle();
	s = capture(MNTSNAP_BACKEND_STATMOUNT);
	/* prove both corner cases were really built */
	cr_assert_geq(find_mp(s, BASE "/ro-bind", &m), 0);
	cr_assert(m.attr & MNTSNAP_ATTR_RDONLY);
	cr_assert_not(m.sb_flags & MNTSNAP_SB_RDONLY);
	cr_assert(has_line_with(want, " " BASE "/ro-bind ro", " rw"));
	cr_assert_geq(find_mp(s, BASE "/rw-view", &m), 0);
	cr_assert_not(m.attr & MNTSNAP_ATTR_RDONLY, "attr %#x", m.attr);
	cr_assert(m.sb_flags & MNTSNAP_SB_RDONLY);
	cr_assert(has_line_with(want, " " BASE "/rw-view ", " - tmpfs rosb ro"));
	mntsnap_snapshot_free(s);
	free(want);
}

LTest(core, per_mount_flags)
{
	static const struct {
		const char *name;
		unsigned long ms;
	} cases[] = {
		{ "nosuid", MS_NOSUID },
		{ "nodev", MS_NODEV },
		{ "noexec", MS_NOEXEC },
		{ "noatime", MS_NOATIME },
		{ "nodiratime", MS_NODIRATIME },
		{ "strictatime", MS_STRICTATIME },
		{ "relatime", MS_RELATIME },
		{ "nosymfollow", MS_NOSYMFOLLOW },
		{ "all", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME |
				 MS_NOSYMFOLLOW | MS_RDONLY },
		{ "strict-nodir", MS_STRICTATIME | MS_NODIRATIME },
		{ "rel-nodir", MS_RELATIME | MS_NODIRATIME },
	};
	char path[256];
	char *want;

	ms_private_ns(BASE);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(path, sizeof(path), BASE "/%s", cases[i].name);
		ms_mkdir_p(path);
		mnt_ok(cases[i].name, path, "tmpfs", cases[i].ms, NULL);
	}
	/* the same combinations reached via mount_setattr on binds */
	ms_mkdir_p(BASE "/sa-noatime-nodir");
	ms_mkdir_p(BASE "/sa-strict");
	ms_mkdir_p(BASE "/sa-sym");
	bind_ok(BASE "/relatime", BASE "/sa-noatime-nodir");
	bind_ok(BASE "/relatime", BASE "/sa-strict");
	bind_ok(BASE "/relatime", BASE "/sa-sym");
	cr_assert_eq(t_mount_setattr(BASE "/sa-noatime-nodir", 0,
				     MNTSNAP_K_MOUNT_ATTR_NOATIME | MNTSNAP_K_MOUNT_ATTR_NODIRATIME,
				     MNTSNAP_K_MOUNT_ATTR__ATIME, 0, -1),
		     0, "mount_setattr: %s", strerror(errno));
	cr_assert_eq(t_mount_setattr(BASE "/sa-strict", 0, MNTSNAP_K_MOUNT_ATTR_STRICTATIME,
				     MNTSNAP_K_MOUNT_ATTR__ATIME, 0, -1),
		     0, "mount_setattr: %s", strerror(errno));
	cr_assert_eq(t_mount_setattr(BASE "/sa-sym", 0, MNTSNAP_K_MOUNT_ATTR_NOSYMFOLLOW | MNTSNAP_K_MOUNT_ATTR_NOEXEC,
				     0, 0, -1),
		     0, "mount_setattr: %s", strerror(errno));
	want = assert_oracle();
	cr_assert(has_line_with(want, BASE "/nosymfollow rw,relatime,nosymfollow", NULL));
	cr_assert(has_line_with(want, BASE "/sa-noatime-nodir rw,noatime,nodiratime", NULL));
	cr_assert(has_line_with(want, BASE "/rel-nodir rw,nodiratime,relatime", NULL));
	free(want);
}

/* shared, peer, slave, shared+slave, unbindable, private, and a propagated mount */
static void build_propagation(void)
{
	for (const char *const *d = (const char *const[]){ "sh", "peer", "sl", "shsl", "unb",
							   "priv", NULL };
	     *d; d++) {
		char p[256];

		snprintf(p, sizeof(p), BASE "/%s", *d);
		ms_mkdir_p(p);
	}
	mnt_ok("shared-src", BASE "/sh", "tmpfs", 0, NULL);
	mnt_ok(NULL, BASE "/sh", NULL, MS_SHARED, NULL);
	bind_ok(BASE "/sh", BASE "/peer");        /* peer of sh */
	bind_ok(BASE "/sh", BASE "/sl");
	mnt_ok(NULL, BASE "/sl", NULL, MS_SLAVE, NULL);    /* slave of sh's group */
	bind_ok(BASE "/sh", BASE "/shsl");
	mnt_ok(NULL, BASE "/shsl", NULL, MS_SLAVE, NULL);
	mnt_ok(NULL, BASE "/shsl", NULL, MS_SHARED, NULL); /* shared and slave */
	mnt_ok("u", BASE "/unb", "tmpfs", 0, NULL);
	mnt_ok(NULL, BASE "/unb", NULL, MS_UNBINDABLE, NULL);
	mnt_ok("p", BASE "/priv", "tmpfs", 0, NULL);
	/* a mount propagated into the slave and the peer */
	ms_mkdir_p(BASE "/sh/inner");
	mnt_ok("inner", BASE "/sh/inner", "tmpfs", 0, NULL);
}

LTest(core, propagation_kinds)
{
	char *want;

	ms_private_ns(BASE);
	build_propagation();
	want = assert_oracle();
	cr_assert(has_line_with(want, BASE "/peer ", " shared:"));
	cr_assert(has_line_with(want, BASE "/sl ", " master:"));
	cr_assert(has_line_with(want, BASE "/shsl ", " master:"));
	cr_assert(has_line_with(want, BASE "/unb ", " unbindable "));
	cr_assert(has_line_with(want, BASE "/sl/inner ", " master:"));
	free(want);
}

/*
 * propagate_from:N appears only where the reader's root hides every peer
 * of a slave's master group but not a group further up the master chain
 * (get_dominating_id()). Shared A (group X) is visible, B (bound from A,
 * made slave then shared again: group Y, master X) is hidden, and C (a
 * slave of Y) is visible: read from inside the chroot, C shows master:Y
 * propagate_from:X. The chroot runs in a child so the test runner's own
 * process never changes root.
 */
LTest(core, propagate_from_in_chroot)
{
	char *got, *want;
	pid_t pid;
	int st;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/r");
	ms_mkdir_p(BASE "/hidden/b");
	bind_ok(BASE "/r", BASE "/r"); /* the chroot is a mount root, like the selftests */
	ms_mkdir_p(BASE "/r/a");
	ms_mkdir_p(BASE "/r/c");
	ms_mkdir_p(BASE "/r/proc");
	mnt_ok("proc", BASE "/r/proc", "proc", 0, NULL);
	mnt_ok("A", BASE "/r/a", "tmpfs", 0, NULL);
	mnt_ok(NULL, BASE "/r/a", NULL, MS_SHARED, NULL);
	bind_ok(BASE "/r/a", BASE "/hidden/b");
	mnt_ok(NULL, BASE "/hidden/b", NULL, MS_SLAVE, NULL);
	mnt_ok(NULL, BASE "/hidden/b", NULL, MS_SHARED, NULL);
	bind_ok(BASE "/hidden/b", BASE "/r/c");
	mnt_ok(NULL, BASE "/r/c", NULL, MS_SLAVE, NULL);

	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct mntsnap_snapshot *s = NULL;
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_STATMOUNT);
		FILE *g, *w, *in;
		char buf[4096];
		size_t n;

		if (chroot(BASE "/r") || chdir("/"))
			_exit(10);
		if (mntsnap_capture(&o, &s))
			_exit(11);
		g = fopen("/got", "we");
		w = fopen("/want", "we");
		in = fopen("/proc/self/mountinfo", "re");
		if (!g || !w || !in)
			_exit(12);
		if (mntsnap_render(s, MNTSNAP_FORMAT_MOUNTINFO, g))
			_exit(13);
		while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
			fwrite(buf, 1, n, w);
		fclose(in);
		if (fclose(g) || fclose(w))
			_exit(14);
		/* the kernel's own propagate_from, asked for every mount */
		o.flags = MNTSNAP_CAPTURE_KERNEL_PROPAGATE_FROM;
		mntsnap_snapshot_free(s);
		if (mntsnap_capture(&o, &s))
			_exit(15);
		g = fopen("/got-kernel-pf", "we");
		if (!g || mntsnap_render(s, MNTSNAP_FORMAT_MOUNTINFO, g) || fclose(g))
			_exit(16);
		/* and single-mount queries, which always ask the kernel */
		g = fopen("/got-stat", "we");
		for (size_t i = 0; g && i < mntsnap_snapshot_count(s); i++) {
			struct mntsnap_snapshot *one;
			struct mntsnap_mount m;

			mntsnap_snapshot_get(s, i, &m);
			if (mntsnap_stat_id(NULL, m.id, 0, &one))
				_exit(17);
			mntsnap_render(one, MNTSNAP_FORMAT_MOUNTINFO, g);
			mntsnap_snapshot_free(one);
		}
		if (!g || fclose(g))
			_exit(18);
		mntsnap_snapshot_free(s);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);
	got = ms_read_file(BASE "/r/got", NULL);
	want = ms_read_file(BASE "/r/want", NULL);
	ms_assert_text_eq(got, want, "statmount rendering vs mountinfo inside a chroot");
	cr_assert(has_line_with(want, " /c ", " propagate_from:"),
		  "setup did not produce propagate_from:\n%s", want);
	free(got);
	got = ms_read_file(BASE "/r/got-kernel-pf", NULL);
	ms_assert_text_eq(got, want, "KERNEL_PROPAGATE_FROM capture inside a chroot");
	free(got);
	got = ms_read_file(BASE "/r/got-stat", NULL);
	ms_assert_text_eq(got, want, "mntsnap_stat_id of each mount inside a chroot");
	free(got);
	free(want);
}

/*
 * Oracle from inside a new user + mount namespace, as an unprivileged
 * container sees it: the copied mounts are locked, and shared mounts of
 * the parent namespace arrive as slaves (propagation cannot flow back
 * across the user namespace). The child reports over a pipe: it may not
 * write to the parent's files.
 */
static int child_oracle(int wfd)
{
	struct mntsnap_snapshot *s = NULL;
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_STATMOUNT);
	char *got = NULL, *want;
	size_t glen = 0;
	FILE *f;
	int fd;
	ssize_t n;
	size_t cap = 1 << 20, len = 0;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return dprintf(wfd, "unshare: %s", strerror(errno)), 1;
	/* a mount of its own, with an option that needs escaping in the source */
	if (mount("user ns\\src", BASE "/userns", "tmpfs", MS_NOSUID, "mode=711"))
		return dprintf(wfd, "tmpfs: %s", strerror(errno)), 1;
	if (mntsnap_capture(&o, &s))
		return dprintf(wfd, "capture failed"), 1;
	f = open_memstream(&got, &glen);
	if (!f || mntsnap_render(s, MNTSNAP_FORMAT_MOUNTINFO, f) || fclose(f))
		return dprintf(wfd, "render failed"), 1;
	want = malloc(cap);
	fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (!want || fd < 0)
		return dprintf(wfd, "mountinfo: %s", strerror(errno)), 1;
	while ((n = read(fd, want + len, cap - len - 1)) > 0)
		len += (size_t)n;
	want[len] = '\0';
	if (strcmp(got, want))
		return dprintf(wfd, "DIFF\n got:\n%s\nwant:\n%s", got, want), 1;
	if (!strstr(want, " master:") || !strstr(want, "user\\040ns\\134src"))
		return dprintf(wfd, "setup not as expected:\n%s", want), 1;
	return dprintf(wfd, "OK %zu", mntsnap_snapshot_count(s)) < 0;
}

LTest(core, oracle_in_user_namespace)
{
	char buf[65536];
	int p[2], st;
	ssize_t n, len = 0;
	pid_t pid;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/userns");
	ms_mkdir_p(BASE "/shared");
	mnt_ok("shared", BASE "/shared", "tmpfs", 0, NULL);
	mnt_ok(NULL, BASE "/shared", NULL, MS_SHARED, NULL);
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(p[0]);
		_exit(child_oracle(p[1]));
	}
	close(p[1]);
	while (len < (ssize_t)sizeof(buf) - 1 &&
	       (n = read(p[0], buf + len, sizeof(buf) - 1 - (size_t)len)) > 0)
		len += n;
	buf[len] = '\0';
	close(p[0]);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	if (strstr(buf, "unshare: ") == buf)
		cr_skip_test("%s", buf);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child: %s", buf);
	cr_assert_eq(strncmp(buf, "OK ", 3), 0, "%s", buf);
}

LTest(core, overmounted_mount_points)
{
	struct mntsnap_snapshot *s;
	int n = 0;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/stack");
	ms_mkdir_p(BASE "/other");
	mnt_ok("first", BASE "/stack", "tmpfs", 0, NULL);
	mnt_ok("second", BASE "/stack", "tmpfs", MS_NOEXEC, NULL);
	mnt_ok("other", BASE "/other", "tmpfs", 0, NULL);
	bind_ok(BASE "/other", BASE "/stack");
	free(assert_oracle());
	s = capture(MNTSNAP_BACKEND_STATMOUNT);
	for (size_t i = 0; i < mntsnap_snapshot_count(s); i++) {
		struct mntsnap_mount m;

		mntsnap_snapshot_get(s, i, &m);
		n += !strcmp(m.mount_point, BASE "/stack");
	}
	cr_assert_eq(n, 3, "three mounts stacked on one directory");
	mntsnap_snapshot_free(s);
}

/* Moves keep a mount's ids; clones attached later get new, larger ones. */
LTest(core, moved_and_attached_mounts)
{
	int tfd;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/mv-from");
	ms_mkdir_p(BASE "/late");
	ms_mkdir_p(BASE "/z-to");
	mnt_ok("moved", BASE "/mv-from", "tmpfs", 0, NULL);
	ms_mkdir_p(BASE "/mv-from/child");
	mnt_ok("child", BASE "/mv-from/child", "tmpfs", 0, NULL);
	/* a detached recursive clone, attached after the move below */
	tfd = (int)syscall(MNTSNAP_NR_open_tree, AT_FDCWD, BASE "/mv-from",
			   T_OPEN_TREE_CLONE | T_AT_RECURSIVE | O_CLOEXEC);
	cr_assert_geq(tfd, 0, "open_tree: %s", strerror(errno));
	mnt_ok(BASE "/mv-from", BASE "/z-to", NULL, MS_MOVE, NULL);
	cr_assert_eq(syscall(MNTSNAP_NR_move_mount, tfd, "", AT_FDCWD, BASE "/late",
			     T_MOVE_MOUNT_F_EMPTY_PATH),
		     0, "move_mount: %s", strerror(errno));
	close(tfd);
	free(assert_oracle());
}

#define WEIRD "a b\tc\\d\ne#f\xc3\xa9g\xff"
/* a literal backslash before octal digits must not be read as an escape */
#define FAKE_ESC "x\\040y\\134z"

LTest(core, names_needing_escapes)
{
	char *want;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/" WEIRD);
	ms_mkdir_p(BASE "/src " WEIRD "/sub" WEIRD);
	ms_mkdir_p(BASE "/bind" WEIRD);
	mnt_ok("src with space\\back#hash\ttab\nnl\xc3\xa9\xff", BASE "/" WEIRD, "tmpfs", 0,
	       "mode=700");
	/* a root with escapes (bind of an oddly named subdir) */
	bind_ok(BASE "/src " WEIRD "/sub" WEIRD, BASE "/bind" WEIRD);
	ms_mkdir_p(BASE "/" FAKE_ESC "/r" FAKE_ESC);
	ms_mkdir_p(BASE "/m" FAKE_ESC);
	bind_ok(BASE "/" FAKE_ESC "/r" FAKE_ESC, BASE "/m" FAKE_ESC);
	mnt_ok("s" FAKE_ESC, BASE "/" FAKE_ESC, "tmpfs", 0, NULL);
	want = assert_oracle();
	cr_assert(strstr(want, "x\\134040y\\134134z"), "%s", want);
	cr_assert(strstr(want, "src\\040with\\040space\\134back\\043hash\\011tab\\012nl"));
	cr_assert(strstr(want, "a\\040b\\011c\\134d\\012e#f"));
	free(want);
}

/*
 * Fields the kernel can print empty. statmount sets a string bit only for a
 * non-empty string, so an empty source ("mount -t tmpfs '' /x") comes back
 * with SB_SOURCE unset although requested and supported, while /proc
 * prints an empty field; an fsmount without a source is "none" in both.
 * No fs options (mqueue, sysfs) and no subtype (all but FUSE) leave their
 * bits unset too and must print as the kernel prints them.
 */
LTest(core, empty_source_and_options)
{
	struct mntsnap_snapshot *s, *t;
	struct mntsnap_mount m;
	char *want;
	int fsfd, mfd;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/empty");
	ms_mkdir_p(BASE "/nosrc");
	ms_mkdir_p(BASE "/mq");
	ms_mkdir_p(BASE "/sys");
	mnt_ok("", BASE "/empty", "tmpfs", 0, NULL);
	mnt_ok("", BASE "/mq", "mqueue", 0, NULL);
	mnt_ok("sysfs", BASE "/sys", "sysfs", 0, NULL);
	fsfd = (int)syscall(MNTSNAP_NR_fsopen, "tmpfs", 1 /* FSOPEN_CLOEXEC */);
	cr_assert_geq(fsfd, 0, "fsopen: %s", strerror(errno));
	cr_assert_eq(syscall(MNTSNAP_NR_fsconfig, fsfd, 6 /* FSCONFIG_CMD_CREATE */, NULL, NULL, 0),
		     0, "fsconfig: %s", strerror(errno));
	mfd = (int)syscall(MNTSNAP_NR_fsmount, fsfd, 1 /* FSMOUNT_CLOEXEC */, 0);
	cr_assert_geq(mfd, 0, "fsmount: %s", strerror(errno));
	cr_assert_eq(syscall(MNTSNAP_NR_move_mount, mfd, "", AT_FDCWD, BASE "/nosrc",
			     T_MOVE_MOUNT_F_EMPTY_PATH),
		     0, "move_mount: %s", strerror(errno));
	close(mfd);
	close(fsfd);

	want = assert_oracle();
	cr_assert(has_line_with(want, " " BASE "/empty ", " - tmpfs  rw"), "%s", want);
	cr_assert(has_line_with(want, " " BASE "/nosrc ", " - tmpfs none rw"), "%s", want);
	cr_assert(has_line_with(want, " " BASE "/mq ", " - mqueue  rw"), "%s", want);
	free(want);

	/* the record says "empty", and both backends agree */
	s = capture(MNTSNAP_BACKEND_STATMOUNT);
	t = capture(MNTSNAP_BACKEND_MOUNTINFO);
	find_mp(s, BASE "/empty", &m);
	cr_assert(m.mask & MNTSNAP_F_SOURCE, "an empty source is a source");
	cr_assert_str_eq(m.source, "");
	find_mp(t, BASE "/empty", &m);
	cr_assert(m.mask & MNTSNAP_F_SOURCE);
	cr_assert_str_eq(m.source, "");
	find_mp(s, BASE "/nosrc", &m);
	cr_assert_str_eq(m.source, "none");
	/* no fs options, no subtype: the empty value, present in both */
	find_mp(s, BASE "/mq", &m);
	cr_assert(m.mask & MNTSNAP_F_OPTS, "no fs options: the empty value");
	cr_assert_str_eq(m.options, "");
	cr_assert(m.mask & MNTSNAP_F_FS_SUBTYPE);
	cr_assert_str_eq(m.fs_subtype, "");
	find_mp(t, BASE "/mq", &m);
	cr_assert(m.mask & MNTSNAP_F_OPTS);
	cr_assert_str_eq(m.options, "");
	cr_assert(m.mask & MNTSNAP_F_FS_SUBTYPE);
	mntsnap_snapshot_free(t);
	mntsnap_snapshot_free(s);

	/* the empty option arrays of the full mask render the same text */
	s = capture_opts(MNTSNAP_MASK_FULL, 0, 0);
	find_mp(s, BASE "/mq", &m);
	cr_assert_eq(m.opt_num, 0);
	find_mp(s, BASE "/empty", &m);
	cr_assert_str_eq(m.source, "");
	mntsnap_snapshot_free(s);
}

/* A loop device on file, detached by the kernel once its last user goes. */
static int loop_attach(const char *file, dev_t *ret_dev)
{
	struct loop_info64 info = { .lo_flags = LO_FLAGS_AUTOCLEAR };
	char path[64];
	int ctl, n, lfd, ffd;
	struct stat st;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	cr_assert_geq(ctl, 0, "/dev/loop-control: %s", strerror(errno));
	n = ioctl(ctl, LOOP_CTL_GET_FREE);
	close(ctl);
	cr_assert_geq(n, 0, "LOOP_CTL_GET_FREE: %s", strerror(errno));
	snprintf(path, sizeof(path), "/dev/loop%d", n);
	lfd = open(path, O_RDWR | O_CLOEXEC);
	ffd = open(file, O_RDWR | O_CLOEXEC);
	cr_assert(lfd >= 0 && ffd >= 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(ioctl(lfd, LOOP_SET_FD, ffd), 0, "LOOP_SET_FD: %s", strerror(errno));
	close(ffd);
	cr_assert_eq(ioctl(lfd, LOOP_SET_STATUS64, &info), 0, "%s", strerror(errno));
	cr_assert_eq(fstat(lfd, &st), 0);
	*ret_dev = st.st_rdev;
	return lfd;
}

/*
 * A filesystem with its own ->show_devname escapes its source itself and
 * leaves '#' alone (btrfs: seq_escape(" \t\n\\")), where mangle() of
 * every other source gives \043. btrfs shows the device path it was
 * mounted from, so a device node named with '#' and a space is the case.
 */
LTest(core, show_devname_source_escaping)
{
	char *want;
	dev_t dev;
	int lfd;

	if (access("/usr/sbin/mkfs.btrfs", X_OK) && access("/sbin/mkfs.btrfs", X_OK))
		cr_skip_test("mkfs.btrfs missing (btrfs-progs, installed by .ci/deps)");
	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/bt");
	ms_mkdir_p(BASE "/tm");
	lfd = open(BASE "/img", O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	cr_assert_geq(lfd, 0);
	cr_assert_eq(ftruncate(lfd, 160 << 20), 0);
	close(lfd);
	cr_assert_eq(system("mkfs.btrfs -q " BASE "/img >/dev/null 2>&1"), 0, "mkfs.btrfs");
	lfd = loop_attach(BASE "/img", &dev);
	cr_assert_eq(mknod(BASE "/dev#1 x", S_IFBLK | 0600, dev), 0, "%s", strerror(errno));
	mnt_ok(BASE "/dev#1 x", BASE "/bt", "btrfs", 0, NULL);
	close(lfd);
	mnt_ok("tm#1 x", BASE "/tm", "tmpfs", 0, NULL);
	want = assert_oracle();
	cr_assert(has_line_with(want, " - btrfs " BASE "/dev#1\\040x ", NULL), "%s", want);
	cr_assert(has_line_with(want, " - tmpfs tm\\0431\\040x ", NULL), "%s", want);
	free(want);
	/* the text backend reads the '#' back as it is, and renders it again */
	{
		struct mntsnap_snapshot *t = capture(MNTSNAP_BACKEND_MOUNTINFO);

		assert_oracle_snap(t, NULL);
		mntsnap_snapshot_free(t);
	}
	cr_assert_eq(umount2(BASE "/bt", 0), 0, "%s", strerror(errno));
}

/* Bind mounts of files, and of a directory and a file deleted afterwards
 * (the kernel shows their root as "/name//deleted"). */
LTest(core, file_binds_and_deleted_roots)
{
	char *want;
	int fd;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/gone dir");
	ms_mkdir_p(BASE "/m1");
	for (const char *const *f = (const char *const[]){ BASE "/file", BASE "/target",
							   BASE "/gone file", BASE "/t2", NULL };
	     *f; f++) {
		fd = open(*f, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		cr_assert_geq(fd, 0);
		close(fd);
	}
	bind_ok(BASE "/file", BASE "/target");
	bind_ok(BASE "/gone dir", BASE "/m1");
	bind_ok(BASE "/gone file", BASE "/t2");
	cr_assert_eq(rmdir(BASE "/gone dir"), 0, "%s", strerror(errno));
	cr_assert_eq(unlink(BASE "/gone file"), 0, "%s", strerror(errno));
	want = assert_oracle();
	cr_assert(has_line_with(want, " /gone\\040dir//deleted ", NULL), "%s", want);
	cr_assert(has_line_with(want, " /file " BASE "/target ", NULL), "%s", want);
	free(want);
}

/* mkdir and chdir one component at a time: the path may exceed PATH_MAX. */
static size_t descend(int levels, size_t comp_len)
{
	char comp[256];

	memset(comp, 'd', comp_len);
	comp[comp_len] = '\0';
	for (int i = 0; i < levels; i++) {
		comp[0] = (char)('a' + i % 26);
		if (mkdir(comp, 0755) && errno != EEXIST)
			cr_assert_fail("mkdir: %s", strerror(errno));
		cr_assert_eq(chdir(comp), 0, "chdir: %s", strerror(errno));
	}
	return (size_t)levels * (comp_len + 1);
}

static long count_eoverflow(void *ctx, const struct mntsnap_k_mnt_id_req *req, struct mntsnap_k_statmount *buf,
			    size_t bufsize, unsigned flags)
{
	long r = mntsnap__sys_statmount(NULL, req, buf, bufsize, flags);

	*(unsigned *)ctx += r == -EOVERFLOW;
	return r;
}

LTest(core, long_paths)
{
	struct mntsnap_snapshot *s;
	struct mntsnap_mount m;
	size_t longest = 0;
	unsigned eoverflows = 0;

	ms_private_ns(BASE);
	cr_assert_eq(chdir(BASE), 0);
	/* > 3000 bytes, still < PATH_MAX: reachable by absolute path too */
	descend(15, 200);
	mkdir("m1", 0755);
	mnt_ok("long1", "m1", "tmpfs", 0, NULL);
	/* > 16 KiB: beyond PATH_MAX and beyond the first statmount buffer */
	descend(70, 250);
	mkdir("m2", 0755);
	mnt_ok("long2", "m2", "tmpfs", 0, NULL);
	cr_assert_eq(chdir("/"), 0);
	free(assert_oracle());
	{
		/* the kernel itself asks for a bigger buffer here */
		struct mntsnap_sysops ops = { .statmount = count_eoverflow, .ctx = &eoverflows };
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_STATMOUNT);

		cr_assert_eq(mntsnap__capture_with(&o, &ops, &s), 0);
		cr_assert_gt(eoverflows, 0, "no EOVERFLOW from the kernel");
		assert_oracle_snap(s, NULL);
		mntsnap_snapshot_free(s);
	}
	s = capture(MNTSNAP_BACKEND_STATMOUNT);
	for (size_t i = 0; i < mntsnap_snapshot_count(s); i++) {
		mntsnap_snapshot_get(s, i, &m);
		if (strlen(m.mount_point) > longest)
			longest = strlen(m.mount_point);
	}
	cr_assert_gt(longest, 16 * 1024, "longest mount point %zu", longest);
	mntsnap_snapshot_free(s);
}

LTest(core, overlayfs_escaped_options)
{
	struct mntsnap_snapshot *s;
	struct mntsnap_mount m;
	char *want;
	int r;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/ov/l o");
	ms_mkdir_p(BASE "/ov/l2");
	ms_mkdir_p(BASE "/ov/u");
	ms_mkdir_p(BASE "/ov/w");
	ms_mkdir_p(BASE "/ov/m");
	r = mount("ovl", BASE "/ov/m", "overlay", 0,
		  "lowerdir=" BASE "/ov/l o:" BASE "/ov/l2,upperdir=" BASE "/ov/u,workdir=" BASE
		  "/ov/w");
	if (r && (errno == ENODEV || errno == EINVAL))
		cr_skip_test("overlayfs unavailable: %s", strerror(errno));
	cr_assert_eq(r, 0, "overlay: %s", strerror(errno));
	want = assert_oracle();
	cr_assert(strstr(want, "l\\040o"), "lowerdir escaping not exercised:\n%s", want);
	s = capture_opts(MNTSNAP_MASK_FULL, 0, 0);
	cr_assert_geq(find_mp(s, BASE "/ov/m", &m), 0);
	cr_assert_str_eq(m.fs_type, "overlay");
	cr_assert(m.mask & MNTSNAP_F_OPT_ARRAY);
	/* the array is unescaped, the option string is not */
	cr_assert(strstr(m.options, "l\\040o"));
	cr_assert_str_eq(m.opt_array, "lowerdir=" BASE "/ov/l o:" BASE "/ov/l2");
	mntsnap_snapshot_free(s);
	free(want);
}

LTest(core, proc_with_hidepid)
{
	char *want;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/proc");
	mnt_ok("proc", BASE "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2,gid=5");
	want = assert_oracle();
	cr_assert(has_line_with(want, BASE "/proc ", "hidepid="));
	free(want);
}

/* A user namespace fd with the given maps, from a child that waits in it. */
static int userns_fd(const char *uid_map, const char *gid_map)
{
	char path[64];
	int sync[2], fd, wfd;
	pid_t pid;
	char c;

	cr_assert_eq(pipe2(sync, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(sync[0]);
		if (unshare(CLONE_NEWUSER))
			_exit(1);
		c = 1;
		if (write(sync[1], &c, 1) != 1)
			_exit(2);
		pause();
		_exit(0);
	}
	close(sync[1]);
	cr_assert_eq(read(sync[0], &c, 1), 1, "child could not unshare a user namespace");
	close(sync[0]);
	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	wfd = open(path, O_WRONLY | O_CLOEXEC);
	cr_assert(wfd >= 0 && write(wfd, uid_map, strlen(uid_map)) == (ssize_t)strlen(uid_map),
		  "uid_map: %s", strerror(errno));
	close(wfd);
	snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
	wfd = open(path, O_WRONLY | O_CLOEXEC);
	cr_assert(wfd >= 0 && write(wfd, gid_map, strlen(gid_map)) == (ssize_t)strlen(gid_map),
		  "gid_map: %s", strerror(errno));
	close(wfd);
	snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return fd;
}

LTest(core, idmapped_mount)
{
	struct t_mount_attr a = { .attr_set = MNTSNAP_K_MOUNT_ATTR_IDMAP };
	struct mntsnap_snapshot *s;
	struct mntsnap_mount m;
	char *want;
	int tfd, ufd;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/idsrc");
	ms_mkdir_p(BASE "/idm");
	mnt_ok("idsrc", BASE "/idsrc", "tmpfs", 0, NULL);
	ufd = userns_fd("0 100000 65536\n", "0 200000 1000\n1000 300000 10\n");
	tfd = (int)syscall(MNTSNAP_NR_open_tree, AT_FDCWD, BASE "/idsrc",
			   T_OPEN_TREE_CLONE | O_CLOEXEC);
	cr_assert_geq(tfd, 0, "open_tree: %s", strerror(errno));
	a.userns_fd = (uint64_t)ufd;
	if (syscall(MNTSNAP_NR_mount_setattr, tfd, "", T_AT_EMPTY_PATH, &a, sizeof(a)))
		cr_skip_test("idmapped tmpfs mounts unsupported: %s", strerror(errno));
	cr_assert_eq(syscall(MNTSNAP_NR_move_mount, tfd, "", AT_FDCWD, BASE "/idm",
			     T_MOVE_MOUNT_F_EMPTY_PATH),
		     0, "move_mount: %s", strerror(errno));
	close(tfd);
	close(ufd);
	want = assert_oracle();
	cr_assert(has_line_with(want, BASE "/idm rw,relatime,idmapped", NULL), "%s", want);
	s = capture_opts(MNTSNAP_MASK_FULL, 0, 0);
	cr_assert_geq(find_mp(s, BASE "/idm", &m), 0);
	cr_assert(m.attr & MNTSNAP_ATTR_IDMAP);
	cr_assert(m.mask & MNTSNAP_F_UIDMAP);
	cr_assert(m.mask & MNTSNAP_F_GIDMAP);
	cr_assert_eq(m.uidmap_num, 1);
	cr_assert_str_eq(m.uidmap, "0 100000 65536");
	cr_assert_eq(m.gidmap_num, 2);
	cr_assert_str_eq(m.gidmap, "0 200000 1000");
	cr_assert_str_eq(m.gidmap + strlen(m.gidmap) + 1, "1000 300000 10");
	/* a plain mount has empty maps: a value, so a diff sees maps come */
	cr_assert_geq(find_mp(s, BASE "/idsrc", &m), 0);
	cr_assert_eq(m.mask & (MNTSNAP_F_UIDMAP | MNTSNAP_F_GIDMAP),
		     MNTSNAP_F_UIDMAP | MNTSNAP_F_GIDMAP);
	cr_assert_eq(m.uidmap_num, 0);
	cr_assert_eq(m.gidmap_num, 0);
	mntsnap_snapshot_free(s);
	free(want);
}

/*
 * FUSE is the filesystem with a subtype ("fuse.NAME" in mountinfo). The
 * mount succeeds before any daemon answers FUSE_INIT; closing /dev/fuse
 * then aborts the connection, so nothing can hang on it, and neither
 * statmount nor /proc/self/mountinfo ever asks the (absent) daemon.
 */
LTest(core, fuse_subtype)
{
	struct mntsnap_snapshot *s;
	struct mntsnap_mount m;
	char *want;

	ms_private_ns(BASE);
	ms_mount_fuse("fsrc", BASE "/fuse1", "fuse.mytype");
	ms_mount_fuse("f src#2", BASE "/fuse2", "fuse.sub#type x");
	ms_mount_fuse("plain", BASE "/fuse3", "fuse");
	want = assert_oracle();
	cr_assert(has_line_with(want, BASE "/fuse1 ", " - fuse.mytype fsrc "), "%s", want);
	s = capture(MNTSNAP_BACKEND_STATMOUNT);
	cr_assert_geq(find_mp(s, BASE "/fuse1", &m), 0);
	cr_assert(m.mask & MNTSNAP_F_FS_SUBTYPE);
	cr_assert_str_eq(m.fs_type, "fuse");
	cr_assert_str_eq(m.fs_subtype, "mytype");
	cr_assert_geq(find_mp(s, BASE "/fuse3", &m), 0);
	cr_assert(m.mask & MNTSNAP_F_FS_SUBTYPE, "no subtype: the empty value");
	cr_assert_str_eq(m.fs_subtype, "");
	mntsnap_snapshot_free(s);
	free(want);
}

static size_t bind_many(const char *dir, size_t n)
{
	char p[256];

	ms_mkdir_p(BASE "/many-src");
	ms_mkdir_p(dir);
	for (size_t i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/%zu", dir, i);
		cr_assert(!mkdir(p, 0755) || errno == EEXIST);
		cr_assert_eq(mount(BASE "/many-src", p, NULL, MS_BIND, NULL), 0,
			     "bind #%zu: %s", i, strerror(errno));
	}
	return n;
}

LTest(core, ten_thousand_binds, .timeout = 300)
{
	struct mntsnap_snapshot *s, *s2;
	size_t before;
	char *a, *b;

	ms_private_ns(BASE);
	s = capture(MNTSNAP_BACKEND_STATMOUNT);
	before = mntsnap_snapshot_count(s);
	mntsnap_snapshot_free(s);
	bind_many(BASE "/many", 10000);
	s = capture(MNTSNAP_BACKEND_STATMOUNT);
	cr_assert_eq(mntsnap_snapshot_count(s), before + 10000);
	assert_oracle_snap(s, NULL);
	/* several statmount threads give the same snapshot */
	s2 = capture_opts(0, 0, 4);
	a = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
	b = ms_render(s2, MNTSNAP_FORMAT_MOUNTINFO);
	ms_assert_text_eq(b, a, "4 threads vs 1");
	free(a);
	free(b);
	mntsnap_snapshot_free(s2);
	mntsnap_snapshot_free(s);
}

/* The listing loop pages by 4096 ids: make the table exactly 2 pages. */
LTest(core, exact_multiple_of_list_page, .timeout = 300)
{
	struct mntsnap_snapshot *s;
	size_t before;

	ms_private_ns(BASE);
	s = capture(MNTSNAP_BACKEND_STATMOUNT);
	before = mntsnap_snapshot_count(s);
	mntsnap_snapshot_free(s);
	cr_assert_lt(before, 8192);
	bind_many(BASE "/many", 8192 - before);
	s = capture(MNTSNAP_BACKEND_STATMOUNT);
	cr_assert_eq(mntsnap_snapshot_count(s), 8192);
	assert_oracle_snap(s, NULL);
	mntsnap_snapshot_free(s);
	s = capture_opts(0, MNTSNAP_CAPTURE_REVERSE, 0);
	cr_assert_eq(mntsnap_snapshot_count(s), 8192);
	mntsnap_snapshot_free(s);
}

/* ---- other renderers ------------------------------------------------------ */

static int pipe_to(const char *cmd, const char *text)
{
	FILE *p = popen(cmd, "we");
	int st;

	cr_assert(p, "popen: %s", strerror(errno));
	fputs(text, p);
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

LTest(core, json_parses)
{
	struct mntsnap_snapshot *s;
	char cmd[1024], *json;
	int r;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/" WEIRD);
	mnt_ok("src\"quote\\" WEIRD, BASE "/" WEIRD, "tmpfs", 0, NULL);
	if (system("python3 -c 'import json' >/dev/null 2>&1"))
		cr_skip_test("python3 unavailable");
	s = capture_opts(MNTSNAP_MASK_FULL, 0, 0);
	json = ms_render(s, MNTSNAP_FORMAT_JSON);
	/* bytes that are not UTF-8 come back as U+DCXX (surrogateescape), the rest verbatim */
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys\n"
		 "d=json.loads(sys.stdin.buffer.read())\n"
		 "fs=d[\"filesystems\"]\n"
		 "assert d[\"count\"]==len(fs)==%zu, len(fs)\n"
		 "t=[f[\"target\"] for f in fs]\n"
		 "w=\"%s/a b\\tc\\\\d\\ne#f\\u00e9g\\udcff\"\n"
		 "assert w in t, t\n"
		 "assert w.encode(\"utf-8\",\"surrogateescape\").endswith(b\"\\xc3\\xa9g\\xff\")\n"
		 "assert all(f[\"uniq-id\"].isdigit() for f in fs)\n"
		 "assert d[\"time-ns\"].isdigit() and int(d[\"time-ns\"]) > 2**53\n'",
		 mntsnap_snapshot_count(s), BASE);
	r = pipe_to(cmd, json);
	cr_assert_eq(r, 0, "python json check failed (%d) on:\n%s", r, json);
	free(json);
	mntsnap_snapshot_free(s);
}

LTest(core, tree_visits_every_mount_once)
{
	struct mntsnap_snapshot *s;
	char *tree, *line;
	size_t n;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/t1/t2/t3");
	ms_mkdir_p(BASE "/u1");
	mnt_ok("t1", BASE "/t1", "tmpfs", 0, NULL);
	ms_mkdir_p(BASE "/t1/t2/t3");
	mnt_ok("t2", BASE "/t1/t2", "tmpfs", 0, NULL);
	ms_mkdir_p(BASE "/t1/t2/t3");
	mnt_ok("t3", BASE "/t1/t2/t3", "tmpfs", 0, NULL);
	mnt_ok("u1", BASE "/u1", "tmpfs", 0, NULL);
	s = capture(MNTSNAP_BACKEND_STATMOUNT);
	n = mntsnap_snapshot_count(s);
	tree = ms_render(s, MNTSNAP_FORMAT_TREE);
	/* findmnt's header, then one line a mount */
	cr_assert_eq(count_lines(tree), n + 1, "%s", tree);
	cr_assert(!strncmp(tree, "TARGET ", 7) && strstr(tree, " SOURCE ") &&
		  strstr(tree, " FSTYPE ") && strstr(tree, " OPTIONS\n"), "%s", tree);
	line = strchr(tree, '\n') + 1;
	for (size_t k = 0; k < n; k++) {
		long i = mntsnap_snapshot_tree_index(s, k);
		struct mntsnap_mount m;
		char *end = strchr(line, '\n');
		char *want;

		cr_assert_geq(i, 0);
		mntsnap_snapshot_get(s, (size_t)i, &m);
		*end = '\0';
		cr_assert_eq(asprintf(&want, "%s ", m.mount_point) > 0, 1);
		cr_assert(strstr(line, want), "tree line %zu '%s' is not mount %s", k, line,
			  m.mount_point);
		free(want);
		line = end + 1;
	}
	free(tree);
	tree = ms_render(s, MNTSNAP_FORMAT_TABLE);
	cr_assert_eq(count_lines(tree), n + 1); /* + header */
	free(tree);
	mntsnap_snapshot_free(s);
}

/* ---- snapshot invariants ---------------------------------------------------- */

static void check_invariants(const struct mntsnap_snapshot *s)
{
	size_t n = mntsnap_snapshot_count(s);
	long *pos = calloc(n + 1, sizeof(*pos));
	struct mntsnap_mount m, p;

	cr_assert(pos);
	for (size_t i = 0; i < n; i++)
		pos[i] = -1;
	/* tree order is a permutation with every parent before its children */
	for (size_t k = 0; k < n; k++) {
		long i = mntsnap_snapshot_tree_index(s, k);

		cr_assert(i >= 0 && (size_t)i < n);
		cr_assert_eq(pos[i], -1, "record %ld visited twice", i);
		pos[i] = (long)k;
	}
	cr_assert_eq(mntsnap_snapshot_tree_index(s, n), -ERANGE);
	for (size_t i = 0; i < n; i++) {
		size_t nchild = 0;

		cr_assert_eq(mntsnap_snapshot_get(s, i, &m), 0);
		cr_assert_eq(m.index, i);
		cr_assert_lt(m.parent_index, n);
		cr_assert_eq(mntsnap_snapshot_find(s, m.id), (long)i);
		cr_assert_eq(mntsnap_snapshot_find_old(s, m.id_old), (long)i);
		if (m.parent_index == i) {
			cr_assert_eq(m.depth, 0);
			/* a root: its parent is itself or not in the snapshot */
			cr_assert(m.parent_id == m.id ||
				  mntsnap_snapshot_find(s, m.parent_id) == -ENOENT);
		} else {
			mntsnap_snapshot_get(s, m.parent_index, &p);
			cr_assert_eq(p.id, m.parent_id);
			cr_assert_eq(p.id_old, m.parent_id_old);
			cr_assert_eq(m.depth, p.depth + 1);
			cr_assert_lt(pos[m.parent_index], pos[i]);
		}
		/* children lists hold exactly the records naming i as parent,
		 * in findmnt's order: ascending old id, storage order among equals */
		long prev = -1;
		uint32_t prev_old = 0;

		for (long c = mntsnap_snapshot_first_child(s, i); c >= 0;
		     c = mntsnap_snapshot_next_sibling(s, (size_t)c)) {
			struct mntsnap_mount cm;

			mntsnap_snapshot_get(s, (size_t)c, &cm);
			cr_assert_eq(cm.parent_index, i);
			cr_assert_neq((size_t)c, i);
			if (prev >= 0)
				cr_assert(cm.id_old > prev_old || (cm.id_old == prev_old && c > prev),
					  "children of %zu out of old-id order", i);
			prev = c;
			prev_old = cm.id_old;
			nchild++;
		}
		for (size_t j = 0; j < n; j++) {
			mntsnap_snapshot_get(s, j, &p);
			if (j != i && p.parent_index == i)
				nchild--;
		}
		cr_assert_eq(nchild, 0, "children of %zu do not match parent links", i);
	}
	cr_assert_eq(mntsnap_snapshot_find(s, 0x7fffffffffffffffULL), -ENOENT);
	cr_assert_eq(mntsnap_snapshot_find_old(s, 0x7fffffff), -ENOENT);
	free(pos);
}

static void build_some_tree(void)
{
	ms_mkdir_p(BASE "/x/y");
	ms_mkdir_p(BASE "/b");
	mnt_ok("x", BASE "/x", "tmpfs", 0, NULL);
	ms_mkdir_p(BASE "/x/y/z");
	mnt_ok("y", BASE "/x/y", "tmpfs", 0, NULL);
	ms_mkdir_p(BASE "/x/y/z");
	mnt_ok("z", BASE "/x/y/z", "tmpfs", 0, NULL);
	ms_mkdir_p(BASE "/x/y/z/sub");
	bind_ok(BASE "/x/y/z/sub", BASE "/b");
	mnt_ok("over", BASE "/x", "tmpfs", 0, NULL); /* hides x's subtree */
}

static bool drop_id(const struct mntsnap_mount *m, void *data)
{
	return m->id != *(const uint64_t *)data;
}

LTest(core, snapshot_invariants)
{
	struct mntsnap_snapshot *s, *r;
	struct mntsnap_mount a, b;
	size_t n;

	ms_private_ns(BASE);
	build_some_tree();
	s = capture(MNTSNAP_BACKEND_STATMOUNT);
	check_invariants(s);
	/* reverse listing: storage is descending, the id index must cope */
	r = capture_opts(0, MNTSNAP_CAPTURE_REVERSE, 0);
	check_invariants(r);
	n = mntsnap_snapshot_count(s);
	cr_assert_eq(mntsnap_snapshot_count(r), n);
	for (size_t i = 0; i < n; i++) {
		mntsnap_snapshot_get(s, i, &a);
		mntsnap_snapshot_get(r, n - 1 - i, &b);
		cr_assert_eq(a.id, b.id);
		cr_assert_str_eq(a.mount_point, b.mount_point);
	}
	cr_assert_eq(mntsnap_snapshot_get(s, n, &a), -ERANGE);
	mntsnap_snapshot_free(r);

	/* drop a middle mount: its child becomes a root of the filtered tree */
	cr_assert_geq(find_mp(s, BASE "/x/y", &a), 0);
	cr_assert_eq(mntsnap_snapshot_filter(s, drop_id, &a.id, &r), 0);
	check_invariants(r);
	cr_assert_eq(mntsnap_snapshot_count(r), n - 1);
	cr_assert_eq(mntsnap_snapshot_find(r, a.id), -ENOENT);
	cr_assert_geq(find_mp(r, BASE "/x/y/z", &b), 0);
	cr_assert_eq(b.parent_index, b.index);
	cr_assert_eq(b.depth, 0);
	cr_assert_eq(b.parent_id, a.id, "the record keeps its kernel parent id");
	mntsnap_snapshot_free(r);
	mntsnap_snapshot_free(s);
}

LTest(core, subtree_capture)
{
	struct mntsnap_snapshot *s, *sub;
	struct mntsnap_mount m;
	long x;

	ms_private_ns(BASE);
	build_some_tree();
	s = capture(MNTSNAP_BACKEND_STATMOUNT);
	x = find_mp(s, BASE, &m);
	cr_assert_geq(x, 0);
	{
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_STATMOUNT,
			     .under_id = m.id);
		cr_assert_eq(mntsnap_capture(&o, &sub), 0);
	}
	{
		struct mntsnap_snapshot *none = (void *)0x1;
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_STATMOUNT,
			     .under_id = 0x80000001ULL + 0x7ffffff0ULL);
		cr_assert_eq(mntsnap_capture(&o, &none), -ENOENT);
		cr_assert_eq(none, (void *)0x1);
	}
	check_invariants(sub);
	/* BASE, x, y, z, over, b: the subtree and nothing else */
	cr_assert_eq(mntsnap_snapshot_count(sub), 6);
	mntsnap_snapshot_get(sub, (size_t)mntsnap_snapshot_tree_index(sub, 0), &m);
	cr_assert_str_eq(m.mount_point, BASE);
	cr_assert_eq(m.depth, 0);
	mntsnap_snapshot_free(sub);
	mntsnap_snapshot_free(s);
}

/* Internal store: parent cycles are rejected; odd but valid input is not. */
LTest(core, snapshot_store_rejects_corrupt_input)
{
	struct mntsnap_mount m = { .mask = MNTSNAP_F_ID | MNTSNAP_F_MOUNT_POINT,
				   .mount_point = "/a" };
	struct mntsnap_snapshot *s;

	/* b (id 3) and c (id 2) name each other as parent; a is a root */
	s = mntsnap__snap_new(MNTSNAP_BACKEND_FILE, m.mask);
	cr_assert(s);
	m.id = 0x80000001ULL, m.parent_id = m.id;
	cr_assert_geq(mntsnap__snap_add(s, &m), 0);
	m.id = 0x80000003ULL, m.parent_id = 0x80000002ULL;
	cr_assert_geq(mntsnap__snap_add(s, &m), 0);
	m.id = 0x80000002ULL, m.parent_id = 0x80000003ULL;
	cr_assert_geq(mntsnap__snap_add(s, &m), 0);
	cr_assert_eq(mntsnap__snap_finish(s), -EBADMSG);
	mntsnap_snapshot_free(s);

	/* (duplicate ids are refused by their producers: the statmount
	 * backend checks each record's id, the wire loader checks its own) */

	/* unsorted storage, parent missing = root */
	s = mntsnap__snap_new(MNTSNAP_BACKEND_FILE, m.mask);
	m.parent_id = 0x80000001ULL;
	m.mask |= MNTSNAP_F_ID_OLD;
	m.id = 0x80000005ULL, m.id_old = 5, m.parent_id_old = 1;
	cr_assert_geq(mntsnap__snap_add(s, &m), 0);
	m.id = 0x80000004ULL, m.id_old = 4;
	cr_assert_geq(mntsnap__snap_add(s, &m), 0);
	cr_assert_eq(mntsnap__snap_finish(s), 0);
	check_invariants(s);
	cr_assert_eq(mntsnap_snapshot_find(s, 0x80000004ULL), 1);
	mntsnap_snapshot_free(s);
	/* an empty store is a valid, empty snapshot */
	s = mntsnap__snap_new(MNTSNAP_BACKEND_FILE, m.mask);
	cr_assert_eq(mntsnap__snap_finish(s), 0);
	cr_assert_eq(mntsnap_snapshot_count(s), 0);
	mntsnap_snapshot_free(s);
}

static void assert_same_record(const struct mntsnap_snapshot *one,
			       const struct mntsnap_snapshot *all, const char *what)
{
	struct mntsnap_mount a, b;
	char la[8192], lb[8192];
	long i;

	cr_assert_eq(mntsnap_snapshot_count(one), 1, "%s", what);
	mntsnap_snapshot_get(one, 0, &a);
	i = mntsnap_snapshot_find(all, a.id);
	cr_assert_geq(i, 0, "%s: id %#llx not in the capture", what, (unsigned long long)a.id);
	mntsnap_snapshot_get(all, (size_t)i, &b);
	cr_assert_eq(a.mask, b.mask, "%s", what);
	cr_assert_eq(a.parent_id, b.parent_id);
	cr_assert_eq(a.ns_id, b.ns_id);
	cr_assert_eq(a.sb_magic, b.sb_magic);
	mntsnap_render_mountinfo_line(&a, la, sizeof(la));
	mntsnap_render_mountinfo_line(&b, lb, sizeof(lb));
	cr_assert_str_eq(la, lb, "%s", what);
}

static struct mntsnap_snapshot *stat_path_ok(const char *path)
{
	struct mntsnap_snapshot *s = NULL;
	int r = mntsnap_stat_path(path, 0, &s);

	cr_assert_eq(r, 0, "stat_path %s: %s", path, strerror(-r));
	return s;
}

LTest(core, stat_id_and_path)
{
	struct mntsnap_snapshot *all, *one;
	struct mntsnap_mount m;
	int fd;

	ms_private_ns(BASE);
	build_some_tree();
	ms_mkdir_p(BASE "/real");
	mnt_ok("real", BASE "/real", "tmpfs", 0, NULL);
	ms_mkdir_p(BASE "/real/dir");
	fd = open(BASE "/real/dir/file", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(symlink(BASE "/real/dir", BASE "/link"), 0);
	all = capture(MNTSNAP_BACKEND_STATMOUNT);

	for (size_t i = 0; i < mntsnap_snapshot_count(all); i++) {
		mntsnap_snapshot_get(all, i, &m);
		cr_assert_eq(mntsnap_stat_id(NULL, m.id, 0, &one), 0);
		assert_same_record(one, all, m.mount_point);
		mntsnap_snapshot_free(one);
	}
	{
		struct mntsnap_ns *ns;

		cr_assert_eq(mntsnap_ns_open_self(NULL, &ns), 0);
		find_mp(all, BASE "/b", &m);
		cr_assert_eq(mntsnap_stat_id(ns, m.id, 0, &one), 0);
		assert_same_record(one, all, "stat_id through an ns handle");
		mntsnap_snapshot_free(one);
		mntsnap_ns_free(ns);
	}
	/* a path inside a bind mount, a file, a symlink (followed), a mount root */
	one = stat_path_ok(BASE "/b");
	find_mp(all, BASE "/b", &m);
	assert_same_record(one, all, "bind mount root");
	mntsnap_snapshot_free(one);
	one = stat_path_ok(BASE "/real/dir/file");
	mntsnap_snapshot_get(one, 0, &m);
	cr_assert_str_eq(m.mount_point, BASE "/real");
	assert_same_record(one, all, "file inside a mount");
	mntsnap_snapshot_free(one);
	one = stat_path_ok(BASE "/link");
	mntsnap_snapshot_get(one, 0, &m);
	cr_assert_str_eq(m.mount_point, BASE "/real", "symlink on " BASE " into real");
	mntsnap_snapshot_free(one);
	one = stat_path_ok(BASE "/x");
	mntsnap_snapshot_get(one, 0, &m);
	cr_assert_eq(m.mask & MNTSNAP_F_SOURCE, MNTSNAP_F_SOURCE);
	cr_assert_str_eq(m.source, "over", "the top of a stack");
	mntsnap_snapshot_free(one);

	one = (void *)0x1;
	cr_assert_eq(mntsnap_stat_path(BASE "/does/not/exist", 0, &one), -ENOENT);
	cr_assert_eq(one, (void *)0x1, "ret_snap untouched on failure");
	cr_assert_eq(mntsnap_stat_path("", 0, &one), -EINVAL);
	cr_assert_eq(mntsnap_stat_path(NULL, 0, &one), -EINVAL);
	cr_assert_eq(mntsnap_stat_id(NULL, 0x80000000ULL, 0, &one), -EINVAL);
	cr_assert_eq(mntsnap_stat_id(NULL, 5, 0, &one), -EINVAL);
	cr_assert_eq(mntsnap_stat_id(NULL, 0, 0, &one), -EINVAL);

	/* a mount that is gone */
	find_mp(all, BASE "/real", &m);
	cr_assert_eq(umount2(BASE "/real", MNT_DETACH), 0);
	cr_assert_eq(mntsnap_stat_id(NULL, m.id, 0, &one), -ENOENT);
	cr_assert_eq(one, (void *)0x1);
	mntsnap_snapshot_free(all);
}

/* Single-mount queries ask the kernel for propagate_from; captures derive it. */
LTest(core, stat_id_matches_capture_with_propagation)
{
	struct mntsnap_snapshot *all, *one;
	struct mntsnap_mount m;

	ms_private_ns(BASE);
	build_propagation();
	all = capture(MNTSNAP_BACKEND_STATMOUNT);
	for (size_t i = 0; i < mntsnap_snapshot_count(all); i++) {
		mntsnap_snapshot_get(all, i, &m);
		cr_assert_eq(mntsnap_stat_id(NULL, m.id, 0, &one), 0);
		assert_same_record(one, all, m.mount_point);
		mntsnap_snapshot_free(one);
	}
	mntsnap_snapshot_free(all);
}

/* ---- resource hygiene ------------------------------------------------------- */

LTest(core, no_fd_leaks)
{
	struct mntsnap_snapshot *s, *one;
	struct mntsnap_ns *ns;
	struct mntsnap_mount m;
	FILE *devnull;
	int before;

	ms_private_ns(BASE);
	build_some_tree();
	devnull = fopen("/dev/null", "we");
	cr_assert(devnull);
	before = ms_count_fds();
	for (int round = 0; round < 3; round++) {
		s = capture(MNTSNAP_BACKEND_STATMOUNT);
		cr_assert_gt(mntsnap_snapshot_count(s), 1);
		for (int f = MNTSNAP_FORMAT_MOUNTINFO; f <= MNTSNAP_FORMAT_TREE; f++)
			cr_assert_eq(mntsnap_render(s, f, devnull), 0);
		mntsnap_snapshot_get(s, 0, &m);
		cr_assert_eq(mntsnap_stat_id(NULL, m.id, MNTSNAP_MASK_FULL, &one), 0);
		mntsnap_snapshot_free(one);
		one = stat_path_ok(BASE "/b");
		mntsnap_snapshot_free(one);
		cr_assert_eq(mntsnap_stat_path(BASE "/nope", 0, &one), -ENOENT);
		mntsnap_snapshot_free(s);
		s = capture_opts(0, 0, 4);
		mntsnap_snapshot_free(s);
		cr_assert_eq(mntsnap_ns_open_self(NULL, &ns), 0);
		{
			MNTSNAP_OPTS(mntsnap_capture_opts, o,
				     .backend = MNTSNAP_BACKEND_STATMOUNT, .ns = ns);
			cr_assert_eq(mntsnap_capture(&o, &s), 0);
		}
		mntsnap_snapshot_free(s);
		mntsnap_ns_free(ns);
	}
	cr_assert_eq(ms_count_fds(), before, "fd leak");
	fclose(devnull);
}

/* ---- incremental index upkeep (mntsnap__snap_update) ------------------------ */

/* A synthetic mount: unique id, old id and parent (== id for a root). */
struct fake {
	uint64_t id, parent;
	uint32_t old;
};

static long fake_add(struct mntsnap_snapshot *s, const struct fake *f)
{
	struct mntsnap_mount m = { .mask = MNTSNAP_F_ID | MNTSNAP_F_ID_OLD,
				   .id = f->id, .parent_id = f->parent, .id_old = f->old,
				   .parent_id_old = f->old };

	/* the parent's old id, as the kernel would report it */
	for (uint32_t i = 0; i < s->nrecs; i++)
		if (s->recs[i].id == f->parent)
			m.parent_id_old = s->recs[i].id_old;
	return mntsnap__snap_add(s, &m);
}

static struct mntsnap_snapshot *fake_snap(const struct fake *f, size_t n)
{
	struct mntsnap_snapshot *s = mntsnap__snap_new(MNTSNAP_BACKEND_FILE, 0);

	cr_assert(s);
	for (size_t i = 0; i < n; i++)
		cr_assert_geq(fake_add(s, &f[i]), 0);
	cr_assert_eq(mntsnap__snap_finish(s), 0);
	return s;
}

/*
 * The incremental result against a finish of the same final records built
 * from scratch: the same storage, links, depths, tree order and indexes
 * (by_id and by_old absent exactly where a finish leaves them absent).
 */
static void assert_same_index(const struct mntsnap_snapshot *inc,
			      const struct mntsnap_snapshot *full)
{
	cr_assert_eq(inc->nrecs, full->nrecs);
	cr_assert_eq(!inc->by_id, !full->by_id);
	cr_assert_eq(!inc->by_old, !full->by_old, "by_old %p vs %p", (void *)inc->by_old,
		     (void *)full->by_old);
	for (uint32_t i = 0; i < full->nrecs; i++) {
		const struct mntsnap_rec *a = &inc->recs[i], *b = &full->recs[i];

		cr_assert_eq(a->id, b->id, "record %u", i);
		cr_assert_eq(a->parent, b->parent, "parent of %u", i);
		cr_assert_eq(a->first_child, b->first_child, "first child of %u", i);
		cr_assert_eq(a->next_sibling, b->next_sibling, "next sibling of %u", i);
		cr_assert_eq(a->depth, b->depth, "depth of %u", i);
		cr_assert_eq(inc->tree[i], full->tree[i], "tree position %u", i);
		if (full->by_old)
			cr_assert_eq(inc->by_old[i], full->by_old[i], "by_old %u", i);
		cr_assert_eq(mntsnap_snapshot_find(inc, b->id), (long)i);
		cr_assert_eq(mntsnap_snapshot_find_old(inc, b->id_old),
			     mntsnap_snapshot_find_old(full, b->id_old));
		cr_assert_eq(mntsnap_snapshot_first_child(inc, i),
			     mntsnap_snapshot_first_child(full, i));
		cr_assert_eq(mntsnap_snapshot_next_sibling(inc, i),
			     mntsnap_snapshot_next_sibling(full, i));
	}
	check_invariants(inc);
}

/*
 * Start from before[], drop the listed storage indices, add after[]; the
 * update must return want, and where it applied (1), equal a finish of
 * final[] (the kept records, then the added ones) built from scratch.
 */
static void check_update(const struct fake *before, size_t nb, const uint32_t *drops,
			 size_t nd, const struct fake *add, size_t na, int want)
{
	struct mntsnap_snapshot *s = fake_snap(before, nb), *full;
	struct fake final[64];
	uint8_t drop[64] = { 0 };
	size_t nf = 0;

	cr_assert_leq(nb + na, 64);
	for (size_t i = 0; i < nd; i++)
		drop[drops[i]] = 1;
	for (size_t i = 0; i < nb; i++)
		if (!drop[i])
			final[nf++] = before[i];
	for (size_t i = 0; i < na; i++) {
		cr_assert_geq(fake_add(s, &add[i]), 0);
		final[nf++] = add[i];
	}
	cr_assert_eq(mntsnap__snap_update(s, (uint32_t)nb, drop), want,
		     "%zu records, %zu removed, %zu added (first id %#llx): not %d", nb, nd, na,
		     na ? (unsigned long long)add[0].id : 0ULL, want);
	if (want == 1) {
		full = fake_snap(final, nf);
		assert_same_index(s, full);
		mntsnap_snapshot_free(full);
	} else {
		/* untouched: the caller can still compact and finish */
		cr_assert_eq(s->nrecs, nb + na);
		for (size_t i = 0; i < nb + na; i++)
			cr_assert_eq(s->recs[i].id, i < nb ? before[i].id : add[i - nb].id);
	}
	mntsnap_snapshot_free(s);
}

#define ID(n) (0x80000000ULL + (n))

/*
 *  10 - 11 - 12        (ids; old ids in brackets below)
 *     |    \ 13
 *     - 14 - 15
 *     - 16
 */
static const struct fake tree7[] = {
	{ ID(10), ID(10), 21 }, { ID(11), ID(10), 22 }, { ID(12), ID(11), 23 },
	{ ID(13), ID(11), 24 }, { ID(14), ID(10), 25 }, { ID(15), ID(14), 26 },
	{ ID(16), ID(10), 27 },
};

LTest(core, snap_update_equals_rebuild)
{
	/* a leaf added under a parent with children, its child in the same
	 * round, a last child */
	static const struct fake add1[] = {
		{ ID(17), ID(11), 28 }, { ID(18), ID(17), 29 }, { ID(20), ID(10), 31 },
	};
	/* old ids reused from below (the kernel hands out the lowest free):
	 * storage leaves old-id order, so by_old must appear */
	static const struct fake add2[] = { { ID(21), ID(15), 3 }, { ID(22), ID(12), 2 } };
	static const struct fake add3[] = { { ID(23), ID(16), 40 } };
	static const struct fake unsorted_old[] = {
		{ ID(10), ID(10), 21 }, { ID(11), ID(10), 5 }, { ID(12), ID(11), 23 },
	};
	static const struct fake mend_old[] = { { ID(13), ID(10), 24 } };
	static const uint32_t leaf[] = { 3 }, subtree[] = { 4, 5 }, first_leaf[] = { 2 },
			      two[] = { 2, 6 }, mid[] = { 1 }, all[] = { 0, 1, 2, 3, 4, 5, 6 };

	check_update(tree7, 7, NULL, 0, add1, 3, 1);
	check_update(tree7, 7, leaf, 1, NULL, 0, 1);
	check_update(tree7, 7, subtree, 2, add1, 3, 1);
	check_update(tree7, 7, NULL, 0, add2, 2, 1);
	check_update(tree7, 7, leaf, 1, add2, 2, 1);
	check_update(tree7, 7, two, 2, add1, 3, 1);
	/* storage already out of old-id order: by_old kept up, then gone
	 * once the record out of order is removed */
	check_update(unsorted_old, 3, NULL, 0, mend_old, 1, 1);
	{
		static const struct fake leaf_out_of_order[] = {
			{ ID(10), ID(10), 21 }, { ID(11), ID(10), 22 }, { ID(12), ID(10), 5 },
		};
		static const uint32_t last[] = { 2 };

		check_update(leaf_out_of_order, 3, last, 1, NULL, 0, 1);
		check_update(leaf_out_of_order, 3, last, 1, mend_old, 1, 1);
	}
	/* old ids reused: each added mount goes among its siblings by old id,
	 * before kept ones (findmnt's order), its subtree's place in tree
	 * order with it */
	{
		static const struct fake reused[] = {
			{ ID(30), ID(10), 2 }, { ID(31), ID(11), 1 }, { ID(32), ID(30), 4 },
			{ ID(33), ID(16), 20 },
		};

		check_update(tree7, 7, NULL, 0, reused, 4, 1);
		check_update(tree7, 7, subtree, 2, reused, 4, 1);
		check_update(tree7, 7, first_leaf, 1, reused, 4, 1);
	}
	{
		static const uint32_t one[] = { 1 };
		static const struct fake child_of_10[] = { { ID(30), ID(10), 1 } };

		/* 11 goes, its child 12 stays: not incremental */
		check_update(unsorted_old, 3, one, 1, child_of_10, 1, 0);
	}
	/* a removed mount whose children stay: a finish decides */
	check_update(tree7, 7, mid, 1, NULL, 0, 0);
	/* roots come and go only with a finish: which root findmnt draws
	 * first may change. Everything gone and replaced (the new one's
	 * parent went too); a mount whose parent is outside the table; a
	 * table of two roots */
	check_update(tree7, 7, all, 7, add3, 1, 0);
	check_update(tree7, 7, first_leaf, 1, add2, 2, 0);
	check_update(tree7, 7, two, 2, add3, 1, 0);
	check_update(tree7, 7, subtree, 2, add2, 2, 0);
	check_update(unsorted_old, 3, NULL, 0, add2, 1, 0);
	{
		static const struct fake two_roots[] = {
			{ ID(10), ID(10), 21 }, { ID(11), ID(90), 22 },
		};
		static const struct fake under_second[] = { { ID(12), ID(11), 23 } };

		check_update(two_roots, 2, NULL, 0, under_second, 1, 0);
	}
}

/*
 * findmnt's tree order: a mount's children by ascending 32-bit mount id
 * (libmount's mnt_table_next_child_fs), whatever the unique ids say (the
 * kernel reuses the lowest free old id); the root findmnt draws (smallest
 * parent id) first, other roots after it in old-id order.
 */
LTest(core, tree_order_is_findmnts)
{
	/*
	 * 10(21) - 11(30) - 14(3)
	 *        - 12(5)  - 15(40)
	 *        |        - 16(7)
	 *        - 13(22)
	 * 17(2), parent 99 (old 1): a second root, findmnt's (parent id 1)
	 *        - 18(50)
	 */
	static const struct fake f[] = {
		{ ID(10), ID(10), 21 }, { ID(11), ID(10), 30 }, { ID(12), ID(10), 5 },
		{ ID(13), ID(10), 22 }, { ID(14), ID(11), 3 },  { ID(15), ID(12), 40 },
		{ ID(16), ID(12), 7 },  { ID(17), ID(99), 2 },  { ID(18), ID(17), 50 },
	};
	/* storage index per tree position */
	static const long want[] = { 7, 8, 0, 2, 6, 5, 3, 1, 4 };
	struct mntsnap_snapshot *s = fake_snap(f, 9);

	/* the second root's parent old id: 1, smaller than 10's own */
	s->recs[7].parent_id_old = 1;
	s->recs[0].parent_id_old = 20;
	cr_assert_eq(mntsnap__snap_finish(s), 0);
	for (size_t k = 0; k < 9; k++)
		cr_assert_eq(mntsnap_snapshot_tree_index(s, k), want[k], "tree position %zu: %ld", k,
			     mntsnap_snapshot_tree_index(s, k));
	cr_assert_eq(mntsnap_snapshot_first_child(s, 0), 2);
	cr_assert_eq(mntsnap_snapshot_next_sibling(s, 2), 3);
	cr_assert_eq(mntsnap_snapshot_next_sibling(s, 3), 1);
	cr_assert_eq(mntsnap_snapshot_next_sibling(s, 1), -ENOENT);
	cr_assert_eq(mntsnap_snapshot_first_child(s, 2), 6);
	check_invariants(s);
	mntsnap_snapshot_free(s);
}

LTest(core, snap_update_declines_what_it_cannot_match)
{
	/* an added id below a kept one: storage order would need a sort */
	static const struct fake low[] = { { ID(9), ID(10), 40 } };
	/* a child added before its parent */
	static const struct fake backwards[] = { { ID(30), ID(31), 40 }, { ID(31), ID(10), 41 } };
	/* a kept root waiting for a parent that arrives now */
	static const struct fake orphan[] = { { ID(10), ID(10), 1 }, { ID(11), ID(40), 2 } };
	static const struct fake its_parent[] = { { ID(40), ID(10), 3 } };
	struct fake many[20];

	check_update(tree7, 7, NULL, 0, low, 1, 0);
	check_update(tree7, 7, NULL, 0, backwards, 2, 0);
	check_update(orphan, 2, NULL, 0, its_parent, 1, 0);
	for (int i = 0; i < 20; i++)
		many[i] = (struct fake){ ID(100 + i), ID(10), (uint32_t)(100 + i) };
	check_update(tree7, 7, NULL, 0, many, 20, 0);
	/* nothing removed or added: applied, nothing moves */
	check_update(tree7, 7, NULL, 0, NULL, 0, 1);
}

/* ---- cleanup helpers --------------------------------------------------------- */

#include <malloc.h>

/* Everything the block allocates is released when it ends, on the early
 * return path too. */
static int cleanup_block(bool early)
{
	MNTSNAP_CLEANUP(mntsnap_snapshot_freep) struct mntsnap_snapshot *a = NULL;
	MNTSNAP_CLEANUP(mntsnap_snapshot_freep) struct mntsnap_snapshot *b = NULL;
	MNTSNAP_CLEANUP(mntsnap_diff_freep) struct mntsnap_diff *d = NULL;
	MNTSNAP_CLEANUP(mntsnap_order_freep) struct mntsnap_order *o = NULL;
	MNTSNAP_CLEANUP(mntsnap_ns_freep) struct mntsnap_ns *ns = NULL;
	MNTSNAP_OPTS(mntsnap_capture_opts, opts, .backend = MNTSNAP_BACKEND_MOUNTINFO);

	if (mntsnap_capture(&opts, &a) || mntsnap_capture(&opts, &b))
		return -1;
	if (mntsnap_diff(a, b, &d) || mntsnap_restore_order(a, &o))
		return -2;
	if (early)
		return 1;
	return mntsnap_ns_open_self(NULL, &ns);
}

LTest(core, cleanup_helpers_release_everything)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_ns *ns = NULL;
	size_t warm, after;

	/*
	 * mallinfo2() counts what malloc's per-thread caches hold as in use,
	 * so no exact balance: a leak grows with the runs (each snapshot is
	 * kilobytes), caches do not. ASan builds also run LeakSanitizer.
	 */
	for (int i = 0; i < 20; i++)
		cr_assert_eq(cleanup_block(i & 1), i & 1);
	warm = mallinfo2().uordblks;
	for (int i = 0; i < 200; i++)
		cr_assert_eq(cleanup_block(i & 1), i & 1);
	after = mallinfo2().uordblks;
	cr_assert_lt(after, warm + 4096, "%zu bytes more after 200 runs",
		     after > warm ? after - warm : 0);
	/* *p is NULL afterwards; NULL and a pointer to NULL are fine */
	cr_assert_eq(mntsnap_ns_open_self(NULL, &ns), 0);
	mntsnap_ns_freep(&ns);
	cr_assert_null(ns);
	mntsnap_ns_freep(&ns);
	mntsnap_ns_freep(NULL);
	MNTSNAP_OPTS(mntsnap_capture_opts, opts, .backend = MNTSNAP_BACKEND_MOUNTINFO);
	cr_assert_eq(mntsnap_capture(&opts, &s), 0);
	mntsnap_snapshot_freep(&s);
	cr_assert_null(s);
	mntsnap_snapshot_freep(NULL);
	mntsnap_diff_freep(NULL);
	mntsnap_order_freep(NULL);
	mntsnap_watch_freep(NULL);
}

Test(core, watch_freep)
{
	struct mntsnap_watch *w = NULL;
	int r = mntsnap_watch_new(NULL, &w);

	cr_assert_eq(r, 0, "watch_new: %s", strerror(-r));
	mntsnap_watch_freep(&w);
	cr_assert_null(w);
}
