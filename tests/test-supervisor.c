// SPDX-License-Identifier: MIT
/*
 * The mount supervisor against the real kernel: a forked child ("the
 * container") pivots into its own root in its own mount namespace,
 * installs a seccomp filter that turns mount(2) into a user
 * notification, drops every capability, and asks for mounts. This
 * process serves the notify fd with a mntsnap_supervisor. The oracles are
 * the kernel's: the errno the child's mount(2) returns, the child's
 * /proc/PID/mountinfo, and this process's own mountinfo (which must never
 * change: it stands for the host). Every test runs inside ms_private_ns().
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "mntsnap-supervisor.h"
#include "mntsnap.h"
#include "supervisor.h"
#include "sys.h"
#include "uapi.h"
#include "sys-seam.h"

#ifdef MS_HAVE_JSON
#include <json-c/json.h>
#endif

#define BASE "/tmp/mntsnap-sv-test"
#define ROOT BASE "/root"
#define NRES 64
#define NR_pidfd_getfd_ (MNTSNAP_NR_BASE + 438)

typedef void (*script_fn)(int *res);

struct box {
	pid_t pid;
	int done_r;  /* the child writes one byte when its script is done */
	int go_w;    /* closing it lets the child exit */
	int *res;    /* shared with the child: one errno (0 = success) per step */
	struct mntsnap_policy *pol;
	struct mntsnap_supervisor *sv;
	char *audit; /* every audit line */
	size_t audit_len;
	int audit_lines;
};

/* ---- the container's side ----------------------------------------------- */

static void child_die(const char *what)
{
	fprintf(stderr, "container setup: %s: %s\n", what, strerror(errno));
	_exit(100);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		child_die(path);
	close(fd);
}

/*
 * Rootless: become uid/gid ROOTLESS_ID for good, then a user namespace of
 * our own where that id is root, as podman/crun rootless containers do.
 */
#define ROOTLESS_ID 1000
#define ROOTLESS_MAP "0 1000 1"

static void child_rootless(void)
{
	if (setgroups(0, NULL) || setresgid(ROOTLESS_ID, ROOTLESS_ID, ROOTLESS_ID) ||
	    setresuid(ROOTLESS_ID, ROOTLESS_ID, ROOTLESS_ID))
		child_die("drop to uid 1000");
	/* the uid change made us non-dumpable: /proc/self would stay root's */
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	if (unshare(CLONE_NEWUSER))
		child_die("unshare(CLONE_NEWUSER)");
	write_file("/proc/self/setgroups", "deny");
	write_file("/proc/self/uid_map", ROOTLESS_MAP);
	write_file("/proc/self/gid_map", ROOTLESS_MAP);
}

/* BOX_USER: rootful, its script runs as uid/gid USER_ID with group USER_GROUP */
enum box_mode { BOX_ROOTFUL, BOX_ROOTLESS, BOX_SAME_NS, BOX_ROOTLESS_UNPRIV, BOX_USER };

#define USER_ID 1000
#define USER_GROUP 2000

/* A container process that is no root: process.user of an OCI config. */
static void child_user(void)
{
	gid_t g = USER_GROUP;

	if (setgroups(1, &g) || setresgid(USER_ID, USER_ID, USER_ID) ||
	    setresuid(USER_ID, USER_ID, USER_ID))
		child_die("drop to uid 1000");
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

static void child_enter_root(enum box_mode mode)
{
	if (mode == BOX_SAME_NS)
		return; /* stays in the supervisor's namespace and root */
	if (mode == BOX_ROOTLESS || mode == BOX_ROOTLESS_UNPRIV)
		child_rootless();
	if (unshare(CLONE_NEWNS))
		child_die("unshare");
	if (mount(ROOT, ROOT, NULL, MS_BIND | MS_REC, NULL) || chdir(ROOT))
		child_die("bind root");
	if (syscall(SYS_pivot_root, ".", "old") || umount2("/old", MNT_DETACH) || chdir("/"))
		child_die("pivot_root");
}

/*
 * mount(2), umount2(2) and the new mount API -> user notification;
 * everything else of the native ABI allowed, nothing of another.
 */
static int child_filter(void)
{
	static const unsigned nrs[] = { SYS_mount, SYS_umount2, MNTSNAP_NR_fsopen,
					MNTSNAP_NR_fsconfig, MNTSNAP_NR_fsmount,
					MNTSNAP_NR_move_mount, MNTSNAP_NR_open_tree,
					MNTSNAP_NR_mount_setattr };
	int fd = ms_notify_filter(nrs, sizeof(nrs) / sizeof(nrs[0]));

	if (fd < 0)
		child_die("seccomp");
	return fd;
}

/* No capability left: whatever gets mounted, the supervisor mounted. */
static void child_drop_caps(void)
{
	if (ms_drop_caps())
		child_die("capset");
}

/* Create the file path (a write to its mount): 0 or its errno. */
static int try_create(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* One mount(2): 0 or its errno. */
static int try_mount(const char *src, const char *tgt, const char *type, unsigned long fl,
		     const char *data)
{
	return mount(src, tgt, type, fl, data) ? errno : 0;
}

/* ---- the supervisor's side ---------------------------------------------- */

static void on_audit(const struct mntsnap_sv_event *ev, void *data)
{
	struct box *b = data;
	/* the audit callbacks are never called concurrently */
	static char line[MNTSNAP_SV_AUDIT_LINE_MAX];
	int n = mntsnap_sv_event_json(ev, line, sizeof(line));

	cr_assert_gt(n, 0, "audit line: %s", strerror(-n));
	b->audit = realloc(b->audit, b->audit_len + (size_t)n + 1);
	memcpy(b->audit + b->audit_len, line, (size_t)n + 1);
	b->audit_len += (size_t)n;
	b->audit_lines++;
}

/* What the audit sink says before each request (0: room for a line). */
static int audit_ready_err;

static int on_audit_ready(void *data)
{
	(void)data;
	return -audit_ready_err;
}

/* A private mount namespace with the container's tree under ROOT. */
static void make_tree(void)
{
	static const char *dirs[] = { "/mnt/a", "/mnt/b", "/mnt/c", "/mnt/d", "/mnt/p",
				      "/mnt/e", "/mnt/s", "/data/x", "/etc", "/tmp", "/old" };
	char p[256];
	int fd;

	ms_private_ns(BASE);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), ROOT "%s", dirs[i]);
		ms_mkdir_p(p);
	}
	fd = open(ROOT "/data/x/hello", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(symlink("/../../../../tmp", ROOT "/mnt/l"), 0);
	cr_assert_eq(symlink("/data/x", ROOT "/mnt/tox"), 0);
}

/* doc/supervisor.md's example policy (its tmpfs and bind rules), built through the API. */
static struct mntsnap_policy *example_policy(void)
{
	static const char *const force[] = { "nosuid", "nodev", "noexec", NULL };
	static const char *const forbid[] = { "uid", "gid", NULL };
	MNTSNAP_OPTS(mntsnap_policy_rule, tmpfs, .fstype = "tmpfs", .target = "/mnt/*",
		     .force = force, .forbid = forbid);
	MNTSNAP_OPTS(mntsnap_policy_rule, bind, .fstype = "bind", .source = "/data/*",
		     .target = "/mnt/*");
	struct mntsnap_policy *p;

	cr_assert_eq(mntsnap_policy_new(false, EPERM, &p), 0);
	cr_assert_eq(mntsnap_policy_add(p, &tmpfs, NULL), 0);
	cr_assert_eq(mntsnap_policy_add(p, &bind, NULL), 0);
	return p;
}

/* Serve until the script is done. */
static void box_serve(struct box *b)
{
	for (;;) {
		struct pollfd p[2] = { { mntsnap_supervisor_fd(b->sv), POLLIN, 0 },
				       { b->done_r, POLLIN, 0 } };

		cr_assert_geq(poll(p, 2, 30000), 1, "the container hangs");
		if (p[0].revents)
			cr_assert_geq(mntsnap_supervisor_dispatch(b->sv, 0), 0);
		if (p[1].revents)
			return;
	}
}

/* Fork the container running script; its notify fd, ours now. */
static int box_spawn(struct box *b, struct mntsnap_policy *pol, script_fn script,
		     enum box_mode mode)
{
	int ready[2], done[2], go[2], cfd, pidfd, nfd;

	memset(b, 0, sizeof(*b));
	b->pol = pol;
	b->res = mmap(NULL, NRES * sizeof(int), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert(b->res != MAP_FAILED);
	for (int i = 0; i < NRES; i++)
		b->res[i] = -1;
	cr_assert_eq(pipe2(ready, O_CLOEXEC) | pipe2(done, O_CLOEXEC) | pipe2(go, O_CLOEXEC), 0);
	b->pid = fork();
	cr_assert_geq(b->pid, 0);
	if (b->pid == 0) {
		char c;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		child_enter_root(mode);
		cfd = child_filter();
		if (write(ready[1], &cfd, sizeof(cfd)) != sizeof(cfd))
			_exit(101);
		if (mode == BOX_USER)
			child_user();
		child_drop_caps();
		script(b->res);
		if (write(done[1], "x", 1) != 1)
			_exit(102);
		close(go[1]);
		while (read(go[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(ready[1]);
	close(done[1]);
	close(go[0]);
	b->done_r = done[0];
	b->go_w = go[1];
	cr_assert_eq(read(ready[0], &cfd, sizeof(cfd)), (ssize_t)sizeof(cfd),
		     "the container failed to start");
	close(ready[0]);
	pidfd = (int)syscall(MNTSNAP_NR_pidfd_open, b->pid, 0);
	cr_assert_geq(pidfd, 0);
	nfd = (int)syscall(NR_pidfd_getfd_, pidfd, cfd, 0);
	cr_assert_geq(nfd, 0, "pidfd_getfd: %s", strerror(errno));
	close(pidfd);
	return nfd;
}

/* Start the container running script and serve it until the script is done. */
static void box_start_as(struct box *b, struct mntsnap_policy *pol,
			 const struct mntsnap_sysops *sys, script_fn script, enum box_mode mode)
{
	MNTSNAP_OPTS(mntsnap_supervisor_opts, o, .audit = on_audit, .audit_data = b,
		     .audit_ready = on_audit_ready);
	int nfd = box_spawn(b, pol, script, mode);
	if (mode == BOX_ROOTLESS_UNPRIV) {
		/* the supervisor itself becomes the container's owner, uid 1000 */
		cr_assert_eq(setgroups(0, NULL), 0);
		cr_assert_eq(setresgid(ROOTLESS_ID, ROOTLESS_ID, ROOTLESS_ID), 0);
		cr_assert_eq(setresuid(ROOTLESS_ID, ROOTLESS_ID, ROOTLESS_ID), 0);
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	}
	cr_assert_eq(mntsnap__supervisor_new_with(pol, &o, sys, &b->sv), 0);
	cr_assert_eq(mntsnap_supervisor_add(b->sv, nfd, "box"), 0);
	box_serve(b);
}

static void box_start(struct box *b, struct mntsnap_policy *pol,
		      const struct mntsnap_sysops *sys, script_fn script)
{
	box_start_as(b, pol, sys, script, BOX_ROOTFUL);
}

static void box_end(struct box *b)
{
	int st;

	close(b->go_w);
	close(b->done_r);
	cr_assert_eq(waitpid(b->pid, &st, 0), b->pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "container exit status %d", st);
	mntsnap_supervisor_free(b->sv);
	mntsnap_policy_free(b->pol);
	munmap(b->res, NRES * sizeof(int));
	free(b->audit);
}

/* The child's mountinfo: the topmost mount at mp, its options and type. */
static bool mi_find(pid_t pid, const char *mp, char *opts, char *fstype)
{
	char path[64], *mi;
	bool found;

	snprintf(path, sizeof(path), "/proc/%d/mountinfo", pid);
	mi = ms_read_file(path, NULL);
	found = ms_mi_find(mi, mp, opts, fstype);
	free(mi);
	return found;
}

/* ---- the required cases -------------------------------------------------- */

static void script_example(int *res)
{
	res[0] = try_mount("none", "/mnt/a", "tmpfs", 0, NULL);
	res[1] = try_mount("none", "/mnt/b", "tmpfs", 0, "uid=0");
	res[2] = try_mount("proc", "/mnt/p", "proc", 0, NULL);
	res[3] = try_mount("/data/x", "/mnt/c", NULL, MS_BIND, NULL);
	res[4] = access("/mnt/c/hello", F_OK) ? errno : 0;
	res[5] = try_mount("/etc", "/mnt/d", NULL, MS_BIND, NULL);
	res[6] = try_mount("none", "/etc", "tmpfs", 0, NULL);
	res[7] = try_mount("none", "/mnt/l", "tmpfs", 0, NULL);
	res[8] = try_mount("none", "/mnt/b", "tmpfs", MS_NOSUID, "gid=5,size=1m");
	/* a symlink to an allowed source is matched by where it leads */
	res[9] = try_mount("/mnt/tox", "/mnt/e", NULL, MS_BIND, NULL);
}

LTest(supervisor, example_policy_end_to_end)
{
	char *host_before, *host_after, opts[512], type[128];
	struct box b;

	make_tree();
	host_before = ms_read_file("/proc/self/mountinfo", NULL);
	box_start(&b, example_policy(), NULL, script_example);

	cr_expect_eq(b.res[0], 0, "tmpfs on /mnt/a: %s", strerror(b.res[0]));
	cr_assert(mi_find(b.pid, "/mnt/a", opts, type), "no /mnt/a in the container");
	cr_expect_str_eq(type, "tmpfs");
	cr_expect(ms_has_opt(opts, "nosuid") && ms_has_opt(opts, "nodev") && ms_has_opt(opts, "noexec"),
		  "forced options missing: %s", opts);
	cr_expect_eq(b.res[1], EPERM, "uid=0: %s", strerror(b.res[1]));
	cr_expect_not(mi_find(b.pid, "/mnt/b", NULL, NULL));
	cr_expect_eq(b.res[2], EPERM, "proc: %s", strerror(b.res[2]));
	cr_expect_not(mi_find(b.pid, "/mnt/p", NULL, NULL));
	cr_expect_eq(b.res[3], 0, "bind /data/x: %s", strerror(b.res[3]));
	cr_expect_eq(b.res[4], 0, "/mnt/c/hello after the bind: %s", strerror(b.res[4]));
	cr_expect(mi_find(b.pid, "/mnt/c", NULL, NULL));
	cr_expect_eq(b.res[5], EPERM, "bind /etc: %s", strerror(b.res[5]));
	cr_expect_not(mi_find(b.pid, "/mnt/d", NULL, NULL));
	cr_expect_eq(b.res[6], EPERM, "tmpfs on /etc: %s", strerror(b.res[6]));
	cr_expect_not(mi_find(b.pid, "/etc", NULL, NULL));
	cr_expect_eq(b.res[7], EPERM, "tmpfs on /mnt/l -> /tmp: %s", strerror(b.res[7]));
	cr_expect_not(mi_find(b.pid, "/tmp", NULL, NULL));
	cr_expect_not(mi_find(b.pid, "/mnt/l", NULL, NULL));
	cr_expect_eq(b.res[8], EPERM, "gid=5: %s", strerror(b.res[8]));
	cr_expect_eq(b.res[9], 0, "bind via a symlink to /data/x: %s", strerror(b.res[9]));

	/* the audit: one line per request, resolved paths, rule, mount id */
	cr_expect_eq(b.audit_lines, 9, "%d audit lines:\n%s", b.audit_lines, b.audit);
	cr_expect(strstr(b.audit, "\"target_resolved\":\"/tmp\""), "%s", b.audit);
	cr_expect(strstr(b.audit, "\"options_applied\":\"nosuid,nodev,noexec\""), "%s",
		  b.audit);
	cr_expect(strstr(b.audit, "\"source_resolved\":\"/data/x\",\"target_resolved\":\"/mnt/e\""),
		  "%s", b.audit);
	if (getenv("MS_SV_DUMP"))
		fputs(b.audit, stderr);
	box_end(&b);

	host_after = ms_read_file("/proc/self/mountinfo", NULL);
	ms_assert_text_eq(host_after, host_before, "this namespace's mounts");
	free(host_before);
	free(host_after);
}

/* The same in a rootless container: its own user namespace, uid 1000 outside. */
LTest(supervisor, rootless_container)
{
	char opts[512], type[128];
	struct box b;

	make_tree();
	box_start_as(&b, example_policy(), NULL, script_example, BOX_ROOTLESS);
	cr_expect_eq(b.res[0], 0, "tmpfs on /mnt/a: %s", strerror(b.res[0]));
	cr_assert(mi_find(b.pid, "/mnt/a", opts, type), "no /mnt/a in the container");
	cr_expect(ms_has_opt(opts, "nosuid") && ms_has_opt(opts, "nodev") && ms_has_opt(opts, "noexec"),
		  "forced options missing: %s", opts);
	cr_expect_eq(b.res[1], EPERM);
	cr_expect_eq(b.res[2], EPERM);
	cr_expect_eq(b.res[3], 0, "bind /data/x: %s", strerror(b.res[3]));
	cr_expect_eq(b.res[4], 0);
	cr_expect_eq(b.res[5], EPERM);
	cr_expect_eq(b.res[6], EPERM);
	cr_expect_eq(b.res[7], EPERM);
	cr_expect_not(mi_find(b.pid, "/tmp", NULL, NULL));
	cr_expect_eq(b.res[9], 0);
	cr_expect_eq(b.audit_lines, 9, "%s", b.audit);
	box_end(&b);
}

/*
 * Rootless all the way: the supervisor runs as the container's owner (uid
 * 1000, no capabilities); its helper joins the container's user namespace
 * to mount there.
 */
LTest(supervisor, rootless_container_unprivileged_supervisor)
{
	char opts[512], type[128];
	struct box b;

	make_tree();
	box_start_as(&b, example_policy(), NULL, script_example, BOX_ROOTLESS_UNPRIV);
	cr_expect_eq(b.res[0], 0, "tmpfs on /mnt/a: %s", strerror(b.res[0]));
	cr_assert(mi_find(b.pid, "/mnt/a", opts, type), "no /mnt/a in the container:\n%s",
		  b.audit);
	cr_expect(ms_has_opt(opts, "nosuid") && ms_has_opt(opts, "nodev") && ms_has_opt(opts, "noexec"),
		  "forced options missing: %s", opts);
	cr_expect_eq(b.res[1], EPERM);
	cr_expect_eq(b.res[3], 0, "bind /data/x: %s", strerror(b.res[3]));
	cr_expect_eq(b.res[5], EPERM);
	cr_expect_eq(b.res[6], EPERM);
	cr_expect_eq(b.res[7], EPERM);
	cr_expect_not(mi_find(b.pid, "/tmp", NULL, NULL));
	cr_expect_eq(b.audit_lines, 9, "%s", b.audit);
	box_end(&b);
}

/* A caller in the supervisor's own namespace gets nothing: "/mnt/a" is ours. */
static void script_same_ns(int *res)
{
	res[0] = try_mount("none", ROOT "/mnt/a", "tmpfs", 0, NULL);
}

LTest(supervisor, caller_in_supervisor_namespace_refused)
{
	char *before, *after;
	struct box b;

	make_tree();
	before = ms_read_file("/proc/self/mountinfo", NULL);
	box_start_as(&b, example_policy(), NULL, script_same_ns, BOX_SAME_NS);
	cr_expect_eq(b.res[0], EPERM, "%s", strerror(b.res[0]));
	cr_expect(strstr(b.audit, "\"reason\":\"supervisor's own namespace\""), "%s", b.audit);
	box_end(&b);
	after = ms_read_file("/proc/self/mountinfo", NULL);
	ms_assert_text_eq(after, before, "this namespace's mounts");
	free(before);
	free(after);
}

/* ---- arguments the supervisor must not trust ---------------------------- */

static void script_garbage(int *res)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *two = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *end, longp[5000];

	munmap(two + pg, (size_t)pg); /* an unmapped page right after the first */
	res[0] = try_mount("none", (const char *)1, "tmpfs", 0, NULL);
	res[1] = try_mount("none", "/mnt/a", (const char *)0x10, 0, NULL);
	res[2] = try_mount((const char *)-4096L, "/mnt/c", NULL, MS_BIND, NULL);
	res[3] = try_mount("none", "/mnt/a", "tmpfs", 0, (const char *)8);
	/* "/mnt/a" ending exactly at the end of the mapped page: readable */
	end = two + pg - sizeof("/mnt/a");
	memcpy(end, "/mnt/a", sizeof("/mnt/a"));
	res[4] = try_mount("none", end, "tmpfs", 0, NULL);
	/* no NUL before the unmapped page */
	memset(two, 'a', (size_t)pg);
	res[5] = try_mount("none", two + pg - 8, "tmpfs", 0, NULL);
	memset(longp, 'a', sizeof(longp));
	longp[0] = '/';
	longp[sizeof(longp) - 1] = '\0';
	res[6] = try_mount("none", longp, "tmpfs", 0, NULL);
	res[7] = try_mount("/", "/mnt/b", NULL, MS_MOVE, NULL);
	res[8] = try_mount(NULL, "/mnt/a", NULL, MS_SHARED | MS_PRIVATE, NULL);
	res[9] = try_mount("none", "/mnt/b", NULL, 0, NULL);
	res[10] = try_mount("none", "mnt/b", "tmpfs", 0, NULL);
	res[11] = try_mount("none", "/mnt/b", "tmpfs", 1UL << 40, NULL);
}

LTest(supervisor, garbage_arguments)
{
	struct box b;

	make_tree();
	box_start(&b, example_policy(), NULL, script_garbage);
	cr_expect_eq(b.res[0], EFAULT, "target (char *)1: %s", strerror(b.res[0]));
	cr_expect_eq(b.res[1], EFAULT, "fstype 0x10: %s", strerror(b.res[1]));
	cr_expect_eq(b.res[2], EFAULT, "source -4096: %s", strerror(b.res[2]));
	cr_expect_eq(b.res[3], EFAULT, "data 8: %s", strerror(b.res[3]));
	cr_expect_eq(b.res[4], 0, "target at a page end: %s", strerror(b.res[4]));
	cr_expect_eq(b.res[5], EFAULT, "unterminated target: %s", strerror(b.res[5]));
	cr_expect_eq(b.res[6], ENAMETOOLONG, "5000-byte target: %s", strerror(b.res[6]));
	cr_expect_eq(b.res[7], EPERM, "MS_MOVE of /: %s", strerror(b.res[7]));
	cr_expect_eq(b.res[8], EINVAL, "MS_SHARED|MS_PRIVATE: %s", strerror(b.res[8]));
	cr_expect_eq(b.res[9], EINVAL, "no fstype: %s", strerror(b.res[9]));
	cr_expect_eq(b.res[10], EPERM, "relative target: %s", strerror(b.res[10]));
	cr_expect_eq(b.res[11], EINVAL, "flags above 32 bits: %s", strerror(b.res[11]));
	cr_expect(mi_find(b.pid, "/mnt/a", NULL, NULL));
	cr_expect_not(mi_find(b.pid, "/mnt/b", NULL, NULL));
	cr_expect_eq(b.audit_lines, 12, "%s", b.audit);
	box_end(&b);
}

/* ---- MS_MOVE (own mounts only) and propagation changes ------------------- */

static void script_move(int *res)
{
	res[0] = try_mount("none", "/mnt/a", "tmpfs", 0, NULL);
	res[1] = try_mount("/mnt/a", "/mnt/b", NULL, MS_MOVE, NULL);
	res[2] = try_mount("/mnt/b", "/etc", NULL, MS_MOVE, NULL);
	res[3] = try_mount("/", "/mnt/c", NULL, MS_MOVE, NULL);
	res[4] = try_mount(NULL, "/mnt/b", NULL, MS_PRIVATE, NULL);
	res[5] = try_mount(NULL, "/mnt/b", NULL, MS_SHARED, NULL);
	res[6] = try_mount(NULL, "/", NULL, MS_SHARED | MS_REC, NULL);
	res[7] = try_mount(NULL, "/mnt/b", NULL, MS_SHARED | MS_SLAVE, NULL);
	res[8] = try_mount(NULL, "/mnt/c", NULL, MS_PRIVATE, NULL);
}

/* The mountinfo line of the topmost mount at mp, or NULL (malloc'd). */
static char *mi_line(pid_t pid, const char *mp)
{
	char path[64], m[512], *mi, *save = NULL, *found = NULL;

	snprintf(path, sizeof(path), "/proc/%d/mountinfo", pid);
	mi = ms_read_file(path, NULL);
	for (char *l = strtok_r(mi, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (sscanf(l, "%*s %*s %*s %*s %511s", m) == 1 && !strcmp(m, mp)) {
			free(found);
			found = strdup(l);
		}
	free(mi);
	return found;
}

LTest(supervisor, move_and_propagation)
{
	struct box b;
	char *l;

	make_tree();
	box_start(&b, example_policy(), NULL, script_move);
	cr_expect_eq(b.res[0], 0);
	cr_expect_eq(b.res[1], 0, "move /mnt/a -> /mnt/b: %s", strerror(b.res[1]));
	cr_expect_not(mi_find(b.pid, "/mnt/a", NULL, NULL));
	cr_expect(mi_find(b.pid, "/mnt/b", NULL, NULL));
	cr_expect_eq(b.res[2], EPERM, "move onto /etc: %s", strerror(b.res[2]));
	cr_expect_eq(b.res[3], EPERM, "move of the root: %s", strerror(b.res[3]));
	cr_expect_eq(b.res[4], 0, "make-private: %s", strerror(b.res[4]));
	cr_expect_eq(b.res[5], 0, "make-shared: %s", strerror(b.res[5]));
	l = mi_line(b.pid, "/mnt/b");
	cr_expect(l && strstr(l, " shared:"), "not shared: %s", l ? l : "(none)");
	free(l);
	cr_expect_eq(b.res[6], EPERM, "rshared /: %s", strerror(b.res[6]));
	l = mi_line(b.pid, "/");
	cr_expect(l && !strstr(l, " shared:"), "/ became shared: %s", l ? l : "(none)");
	free(l);
	cr_expect_eq(b.res[7], EINVAL, "two types: %s", strerror(b.res[7]));
	cr_expect_eq(b.res[8], EINVAL, "not a mount: %s", strerror(b.res[8]));
	box_end(&b);
}

/* ---- remounts keep what the policy forces -------------------------------- */

static void script_remount(int *res)
{
	res[0] = try_mount("none", "/mnt/a", "tmpfs", 0, "size=1m");
	/* mount(2) would clear nosuid/nodev/noexec here: they come back */
	res[1] = try_mount(NULL, "/mnt/a", NULL, MS_REMOUNT | MS_BIND, NULL);
	res[2] = try_mount(NULL, "/mnt/a", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
	res[3] = try_mount(NULL, "/mnt/b", NULL, MS_REMOUNT | MS_BIND, NULL);
	res[4] = try_mount(NULL, "/mnt/a", NULL, MS_REMOUNT | MS_RDONLY, "size=2m");
	res[5] = try_mount(NULL, "/mnt/a", NULL, MS_REMOUNT, "uid=0");
	res[6] = try_mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
}

LTest(supervisor, remount_keeps_forced_options)
{
	char opts[512], type[128], *mi, path[64];
	struct box b;

	make_tree();
	box_start(&b, example_policy(), NULL, script_remount);
	for (int i = 0; i < 3; i++)
		cr_expect_eq(b.res[i], 0, "step %d: %s", i, strerror(b.res[i]));
	cr_expect_eq(b.res[3], EINVAL, "remount of a non-mount: %s", strerror(b.res[3]));
	cr_expect_eq(b.res[4], 0, "size=2m: %s", strerror(b.res[4]));
	cr_assert(mi_find(b.pid, "/mnt/a", opts, type));
	cr_expect(ms_has_opt(opts, "ro") && ms_has_opt(opts, "nosuid") && ms_has_opt(opts, "nodev") &&
		  ms_has_opt(opts, "noexec"), "after remounts: %s", opts);
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", b.pid);
	mi = ms_read_file(path, NULL);
	cr_expect(strstr(mi, "size=2048k"), "superblock not reconfigured:\n%s", mi);
	free(mi);
	cr_expect_eq(b.res[5], EPERM, "remount with uid=0: %s", strerror(b.res[5]));
	cr_expect_eq(b.res[6], EPERM, "remount of /: %s", strerror(b.res[6]));
	box_end(&b);
}

/*
 * A remount acts on what the supervisor did not make: the superblock under
 * a bind is its source's (here the "host" tmpfs at BASE), and a runtime's
 * read-only volume is not the container's to make writable.
 */
static void script_remount_others(int *res)
{
	res[0] = try_mount("/data/x", "/mnt/c", NULL, MS_BIND, NULL);
	/* the bind rule forces ro; a remount,bind must not lose it */
	res[1] = try_mount(NULL, "/mnt/c", NULL, MS_REMOUNT | MS_BIND, NULL);
	res[2] = try_create("/mnt/c/new");
	/* the source's superblock, shared with the host */
	res[3] = try_mount(NULL, "/mnt/c", NULL, MS_REMOUNT | MS_RDONLY, NULL);
	/* the runtime's read-only tmpfs volume */
	res[4] = try_mount(NULL, "/mnt/s", NULL, MS_REMOUNT | MS_BIND, NULL);
	res[5] = try_create("/mnt/s/new");
	res[6] = try_mount(NULL, "/mnt/s", NULL, MS_REMOUNT | MS_RDONLY, "size=4k");
	/* its own bind, remounted read-only again: the bind rule still decides */
	res[7] = try_mount(NULL, "/mnt/c", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
}

LTest(supervisor, remount_only_what_it_made)
{
	static const char *const force_ro[] = { "ro", NULL };
	static const char *const force[] = { "nosuid", "nodev", "noexec", NULL };
	MNTSNAP_OPTS(mntsnap_policy_rule, tmpfs, .fstype = "tmpfs", .target = "/mnt/*",
		     .force = force);
	MNTSNAP_OPTS(mntsnap_policy_rule, bind, .fstype = "bind", .source = "/data/*",
		     .target = "/mnt/*", .force = force_ro);
	struct mntsnap_policy *p;
	char opts[512], *mi;
	struct box b;
	int fd;

	make_tree();
	cr_assert_eq(mount("vol", ROOT "/mnt/s", "tmpfs", MS_RDONLY, "size=1m"), 0);
	cr_assert_eq(mntsnap_policy_new(false, EPERM, &p), 0);
	cr_assert_eq(mntsnap_policy_add(p, &tmpfs, NULL), 0);
	cr_assert_eq(mntsnap_policy_add(p, &bind, NULL), 0);
	box_start(&b, p, NULL, script_remount_others);
	cr_expect_eq(b.res[0], 0, "bind: %s", strerror(b.res[0]));
	cr_expect(b.res[1] == 0 || b.res[1] == EPERM, "remount,bind: %s", strerror(b.res[1]));
	cr_expect_eq(b.res[2], EROFS, "write through the ro bind: %s", strerror(b.res[2]));
	cr_assert(mi_find(b.pid, "/mnt/c", opts, NULL));
	cr_expect(ms_has_opt(opts, "ro"), "the bind lost ro: %s", opts);
	cr_expect_eq(b.res[3], EPERM, "superblock remount through a bind: %s",
		     strerror(b.res[3]));
	/* the "host" still writes its tmpfs: its superblock was not touched */
	fd = open(ROOT "/data/x/host", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	cr_expect_geq(fd, 0, "the host's tmpfs: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	mi = ms_read_file("/proc/self/mountinfo", NULL);
	cr_expect(!strstr(mi, " mstest ro"), "the host's superblock went ro:\n%s", mi);
	free(mi);
	cr_expect_eq(b.res[4], EPERM, "remount,bind of the runtime's volume: %s",
		     strerror(b.res[4]));
	cr_expect_eq(b.res[5], EROFS, "write in the runtime's ro volume: %s", strerror(b.res[5]));
	cr_expect_eq(b.res[6], EPERM, "superblock remount of the runtime's volume: %s",
		     strerror(b.res[6]));
	mi = ms_read_file("/proc/self/mountinfo", NULL);
	cr_expect(strstr(mi, "size=1024k"), "the volume was reconfigured:\n%s", mi);
	free(mi);
	cr_expect_eq(b.res[7], 0, "remount,bind,ro of its own bind: %s", strerror(b.res[7]));
	box_end(&b);
}

/*
 * A bind moves under the bind rules: here binds may go to /mnt/c only,
 * and the tmpfs rule (the type of the bind's source) must not let it
 * elsewhere.
 */
static void script_move_bind(int *res)
{
	res[0] = try_mount("/data/x", "/mnt/c", NULL, MS_BIND, NULL);
	res[1] = try_mount("/mnt/c", "/mnt/d", NULL, MS_MOVE, NULL);
	res[2] = try_mount("none", "/mnt/a", "tmpfs", 0, NULL);
	res[3] = try_mount("/mnt/a", "/mnt/b", NULL, MS_MOVE, NULL);
}

/*
 * A bind keeps what its source mount locks (read-only here, as a
 * read-only rootfs or volume would be): a remount,bind without "ro" of
 * the supervisor's bind must not make it writable.
 */
static void script_bind_of_ro(int *res)
{
	res[0] = try_mount("/data/x", "/mnt/c", NULL, MS_BIND, NULL);
	res[1] = try_mount(NULL, "/mnt/c", NULL, MS_REMOUNT | MS_BIND, NULL);
	res[2] = try_create("/mnt/c/new");
	res[3] = try_mount(NULL, "/mnt/c", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
	res[4] = try_mount(NULL, "/mnt/c", NULL,
			   MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NOATIME, NULL);
	res[5] = try_mount(NULL, "/mnt/c", NULL,
			   MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NOEXEC, NULL);
}

LTest(supervisor, bind_of_read_only_stays_read_only)
{
	char opts[512];
	struct box b;

	make_tree();
	cr_assert_eq(mount(ROOT "/data/x", ROOT "/data/x", NULL, MS_BIND, NULL), 0);
	cr_assert_eq(mount(NULL, ROOT "/data/x", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID,
			   NULL), 0);
	box_start(&b, example_policy(), NULL, script_bind_of_ro);
	cr_expect_eq(b.res[0], 0, "bind: %s", strerror(b.res[0]));
	/* as the kernel answers a remount that would clear a locked flag or
	 * change a locked atime mode: EPERM, not success with other flags */
	cr_expect_eq(b.res[1], EPERM, "remount,bind clearing ro: %s", strerror(b.res[1]));
	cr_expect_eq(b.res[4], EPERM, "remount,bind,noatime of a relatime-locked bind: %s",
		     strerror(b.res[4]));
	cr_expect_eq(b.res[5], 0, "remount,bind adding noexec: %s", strerror(b.res[5]));
	cr_expect(strstr(b.audit, "\"reason\":\"locked flags\""), "audit:\n%s", b.audit);
	cr_expect_eq(b.res[2], EROFS, "write through the bind of a ro mount: %s",
		     strerror(b.res[2]));
	cr_assert(mi_find(b.pid, "/mnt/c", opts, NULL));
	cr_expect(ms_has_opt(opts, "ro") && ms_has_opt(opts, "nosuid") && ms_has_opt(opts, "noexec")
		  && !ms_has_opt(opts, "noatime"), "the bind's flags: %s", opts);
	/* no atime mode named: the locked one is kept, as mount(2) does */
	cr_expect_eq(b.res[3], EPERM, "remount,bind,ro without nosuid: %s", strerror(b.res[3]));
	box_end(&b);
}

/*
 * A new mount keeps its rule's forced flags even when moved where another
 * rule, forcing less, decides its remounts.
 */
static void script_moved_new_mount(int *res)
{
	res[0] = try_mount("none", "/mnt/a", "tmpfs", 0, "size=1m");
	res[1] = try_mount("/mnt/a", "/mnt/b", NULL, MS_MOVE, NULL);
	res[2] = try_mount(NULL, "/mnt/b", NULL, MS_REMOUNT | MS_BIND, NULL);
}

LTest(supervisor, new_mount_keeps_its_forced_flags)
{
	static const char *const force[] = { "ro", "noexec", NULL };
	MNTSNAP_OPTS(mntsnap_policy_rule, strict, .fstype = "tmpfs", .target = "/mnt/a",
		     .force = force);
	MNTSNAP_OPTS(mntsnap_policy_rule, loose, .fstype = "tmpfs", .target = "/mnt/*");
	struct mntsnap_policy *p;
	char opts[512];
	struct box b;

	make_tree();
	cr_assert_eq(mntsnap_policy_new(false, EPERM, &p), 0);
	cr_assert_eq(mntsnap_policy_add(p, &strict, NULL), 0);
	cr_assert_eq(mntsnap_policy_add(p, &loose, NULL), 0);
	box_start(&b, p, NULL, script_moved_new_mount);
	for (int i = 0; i < 2; i++)
		cr_expect_eq(b.res[i], 0, "step %d: %s", i, strerror(b.res[i]));
	/* its forced flags are locked: a remount clearing them is refused */
	cr_expect_eq(b.res[2], EPERM, "remount clearing forced flags: %s", strerror(b.res[2]));
	cr_assert(mi_find(b.pid, "/mnt/b", opts, NULL));
	cr_expect(ms_has_opt(opts, "ro") && ms_has_opt(opts, "noexec"), "lost its forced flags: %s",
		  opts);
	box_end(&b);
}

/*
 * Binds must not go around what proc and sysfs get by default: a bind of
 * a kernel interface (proc, sysfs, ...) needs the rule's grant, and a
 * non-recursive bind of a tree with mounts below would uncover what they
 * cover (a runtime's /dev/null over /proc/keys).
 */
static void script_bind_kernel(int *res)
{
	res[0] = try_mount("/data/p", "/mnt/a", NULL, MS_BIND, NULL);
	res[1] = try_mount("/data/p/sys", "/mnt/b", NULL, MS_BIND, NULL);
	res[2] = try_mount("/data/y", "/mnt/c", NULL, MS_BIND, NULL);
	res[3] = try_mount("/data/y", "/mnt/c", NULL, MS_BIND | MS_REC, NULL);
	res[4] = try_mount("/data/y/sub", "/mnt/d", NULL, MS_BIND, NULL);
	res[5] = try_mount("/data/s", "/mnt/e", NULL, MS_BIND | MS_REC, NULL);
}

LTest(supervisor, bind_of_kernel_interfaces_and_covered_trees)
{
	static const char *const d[] = { ROOT "/data/p", ROOT "/data/y/sub", ROOT "/data/s" };
	MNTSNAP_OPTS(mntsnap_policy_rule, bind, .fstype = "bind", .target = "/mnt/*");
	struct mntsnap_policy *p;
	struct box b;

	make_tree();
	for (size_t i = 0; i < 3; i++)
		ms_mkdir_p(d[i]);
	cr_assert_eq(mount("proc", ROOT "/data/p", "proc", 0, NULL), 0);
	cr_assert_eq(mount("sysfs", ROOT "/data/s", "sysfs", MS_RDONLY, NULL), 0);
	cr_assert_eq(mount("cover", ROOT "/data/y/sub", "tmpfs", 0, "size=1m"), 0);
	cr_assert_eq(mntsnap_policy_new(false, EPERM, &p), 0);
	cr_assert_eq(mntsnap_policy_add(p, &bind, NULL), 0);
	box_start(&b, p, NULL, script_bind_kernel);
	cr_expect_eq(b.res[0], EPERM, "bind of a proc: %s", strerror(b.res[0]));
	cr_expect_eq(b.res[1], EPERM, "bind of proc's sys: %s", strerror(b.res[1]));
	cr_expect_eq(b.res[2], EPERM, "non-recursive bind over a submount: %s",
		     strerror(b.res[2]));
	cr_expect_eq(b.res[3], 0, "recursive bind: %s", strerror(b.res[3]));
	cr_expect_eq(b.res[4], 0, "bind of the submount itself: %s", strerror(b.res[4]));
	cr_expect_eq(b.res[5], EPERM, "bind of a sysfs: %s", strerror(b.res[5]));
	box_end(&b);
}

LTest(supervisor, bind_moves_under_the_bind_rules)
{
	MNTSNAP_OPTS(mntsnap_policy_rule, tmpfs, .fstype = "tmpfs", .target = "/mnt/*");
	MNTSNAP_OPTS(mntsnap_policy_rule, bind, .fstype = "bind", .source = "/data/*",
		     .target = "/mnt/c");
	struct mntsnap_policy *p;
	struct box b;

	make_tree();
	cr_assert_eq(mntsnap_policy_new(false, EPERM, &p), 0);
	cr_assert_eq(mntsnap_policy_add(p, &tmpfs, NULL), 0);
	cr_assert_eq(mntsnap_policy_add(p, &bind, NULL), 0);
	box_start(&b, p, NULL, script_move_bind);
	cr_expect_eq(b.res[0], 0, "bind onto /mnt/c: %s", strerror(b.res[0]));
	cr_expect_eq(b.res[1], EPERM, "bind moved to /mnt/d: %s", strerror(b.res[1]));
	cr_expect(mi_find(b.pid, "/mnt/c", NULL, NULL));
	cr_expect_not(mi_find(b.pid, "/mnt/d", NULL, NULL));
	cr_expect_eq(b.res[2], 0);
	cr_expect_eq(b.res[3], 0, "tmpfs moved: %s", strerror(b.res[3]));
	box_end(&b);
}

/* ---- the new mount API: decided at move_mount with every option ---------- */

static int sfsopen(const char *type)
{
	return (int)syscall(MNTSNAP_NR_fsopen, type, MNTSNAP_K_FSOPEN_CLOEXEC);
}

static int sfsconfig(int fd, unsigned cmd, const char *key, const char *val)
{
	return syscall(MNTSNAP_NR_fsconfig, fd, cmd, key, val, 0) ? errno : 0;
}

static int sfsmount(int fd, unsigned attr)
{
	return (int)syscall(MNTSNAP_NR_fsmount, fd, MNTSNAP_K_FSMOUNT_CLOEXEC, attr);
}

static int smove(int mfd, const char *to)
{
	return syscall(MNTSNAP_NR_move_mount, mfd, "", AT_FDCWD, to,
		       MNTSNAP_K_MOVE_MOUNT_F_EMPTY_PATH) ? errno : 0;
}

/* fsopen + options + create + fsmount(attr), then move_mount onto to */
static int new_api_mount(const char *type, const char *key, const char *val, unsigned attr,
			 const char *to)
{
	int fs = sfsopen(type), m, r;

	if (fs < 0)
		return errno;
	r = key ? sfsconfig(fs, MNTSNAP_K_FSCONFIG_SET_STRING, key, val) : 0;
	if (!r)
		r = sfsconfig(fs, MNTSNAP_K_FSCONFIG_CMD_CREATE, NULL, NULL);
	m = r ? -1 : sfsmount(fs, attr);
	if (!r && m < 0)
		r = errno;
	if (!r)
		r = smove(m, to);
	close(fs);
	if (m >= 0)
		close(m);
	return r;
}

static void script_new_api(int *res)
{
	int fs, m, dir;

	fs = sfsopen("tmpfs");
	res[0] = fs < 0 ? errno : 0;
	res[1] = sfsconfig(fs, MNTSNAP_K_FSCONFIG_SET_STRING, "size", "1m");
	res[2] = sfsconfig(fs, MNTSNAP_K_FSCONFIG_SET_STRING, "source", "none");
	res[3] = sfsconfig(fs, MNTSNAP_K_FSCONFIG_CMD_CREATE, NULL, NULL);
	m = sfsmount(fs, MNTSNAP_K_MOUNT_ATTR_NODEV);
	res[4] = m < 0 ? errno : 0;
	res[5] = smove(m, "/mnt/a");
	close(m);
	close(fs);
	res[6] = new_api_mount("tmpfs", "uid", "0", 0, "/mnt/b");
	res[7] = new_api_mount("tmpfs", NULL, NULL, 0, "/etc");
	res[8] = sfsopen("proc") < 0 ? errno : 0;
	res[9] = new_api_mount("tmpfs", NULL, NULL, 0, "/mnt/l");
	/* a real fd that is no context of ours */
	dir = open("/", O_PATH | O_CLOEXEC);
	res[10] = sfsconfig(dir, MNTSNAP_K_FSCONFIG_SET_FLAG, "ro", NULL);
	close(dir);
	fs = sfsopen("tmpfs");
	res[11] = sfsmount(fs, 0) < 0 ? errno : 0; /* not created yet */
	res[12] = sfsconfig(fs, MNTSNAP_K_FSCONFIG_SET_STRING, "size", (const char *)8);
	close(fs);
	res[13] = new_api_mount("tmpfs", "gid", "5", 0, "/mnt/d");
}

LTest(supervisor, new_mount_api)
{
	char opts[512], type[128], path[64], *mi;
	struct box b;

	make_tree();
	box_start(&b, example_policy(), NULL, script_new_api);
	for (int i = 0; i < 6; i++)
		cr_expect_eq(b.res[i], 0, "step %d: %s", i, strerror(b.res[i]));
	cr_assert(mi_find(b.pid, "/mnt/a", opts, type), "no /mnt/a");
	cr_expect_str_eq(type, "tmpfs");
	cr_expect(ms_has_opt(opts, "nosuid") && ms_has_opt(opts, "nodev") && ms_has_opt(opts, "noexec"),
		  "forced options: %s", opts);
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", b.pid);
	mi = ms_read_file(path, NULL);
	cr_expect(strstr(mi, "/mnt/a") && strstr(mi, "size=1024k"), "size not applied:\n%s", mi);
	free(mi);
	cr_expect_eq(b.res[6], EPERM, "uid=0 at move_mount: %s", strerror(b.res[6]));
	cr_expect_eq(b.res[7], EPERM, "onto /etc: %s", strerror(b.res[7]));
	cr_expect_eq(b.res[8], EPERM, "fsopen proc: %s", strerror(b.res[8]));
	cr_expect_eq(b.res[9], EPERM, "onto /mnt/l -> /tmp: %s", strerror(b.res[9]));
	cr_expect_eq(b.res[10], EINVAL, "fsconfig on a directory fd: %s", strerror(b.res[10]));
	cr_expect_eq(b.res[11], EINVAL, "fsmount before create: %s", strerror(b.res[11]));
	cr_expect_eq(b.res[12], EFAULT, "bad value pointer: %s", strerror(b.res[12]));
	cr_expect_eq(b.res[13], EPERM, "gid=5: %s", strerror(b.res[13]));
	cr_expect_not(mi_find(b.pid, "/mnt/b", NULL, NULL));
	cr_expect_not(mi_find(b.pid, "/mnt/d", NULL, NULL));
	cr_expect_not(mi_find(b.pid, "/etc", NULL, NULL));
	cr_expect_not(mi_find(b.pid, "/tmp", NULL, NULL));
	cr_expect(strstr(b.audit, "\"syscall\":\"move_mount\""), "%s", b.audit);
	cr_expect(strstr(b.audit, "\"options_applied\":\"size=1m,nosuid,nodev,noexec\""), "%s",
		  b.audit);
	if (getenv("MS_SV_DUMP"))
		fputs(b.audit, stderr);
	box_end(&b);
}

/* open_tree clones are binds; mount_setattr on a placeholder before the move */
static void script_open_tree(int *res)
{
	struct mntsnap_k_mount_attr ro = { .attr_set = MNTSNAP_K_MOUNT_ATTR_RDONLY };
	int t, fs, m;

	t = (int)syscall(MNTSNAP_NR_open_tree, AT_FDCWD, "/data/x",
			 MNTSNAP_OPEN_TREE_CLONE | MNTSNAP_OPEN_TREE_CLOEXEC);
	res[0] = t < 0 ? errno : 0;
	res[1] = smove(t, "/mnt/c");
	close(t);
	res[2] = access("/mnt/c/hello", F_OK) ? errno : 0;
	t = (int)syscall(MNTSNAP_NR_open_tree, AT_FDCWD, "/etc",
			 MNTSNAP_OPEN_TREE_CLONE | MNTSNAP_OPEN_TREE_CLOEXEC);
	res[3] = t < 0 ? errno : smove(t, "/mnt/d");
	close(t);
	/* without OPEN_TREE_CLONE: an attached mount, refused */
	res[4] = syscall(MNTSNAP_NR_open_tree, AT_FDCWD, "/mnt/c", MNTSNAP_OPEN_TREE_CLOEXEC) < 0
			 ? errno
			 : 0;
	fs = sfsopen("tmpfs");
	sfsconfig(fs, MNTSNAP_K_FSCONFIG_CMD_CREATE, NULL, NULL);
	m = sfsmount(fs, 0);
	res[5] = syscall(MNTSNAP_NR_mount_setattr, m, "", AT_EMPTY_PATH, &ro, sizeof(ro)) ? errno
											   : 0;
	res[6] = smove(m, "/mnt/a");
	close(m);
	close(fs);
	/* on an attached mount: refused */
	res[7] = syscall(MNTSNAP_NR_mount_setattr, AT_FDCWD, "/mnt/a", 0, &ro, sizeof(ro)) ? errno
											     : 0;
}

LTest(supervisor, open_tree_and_mount_setattr)
{
	char opts[512], type[128];
	struct box b;

	make_tree();
	box_start(&b, example_policy(), NULL, script_open_tree);
	cr_expect_eq(b.res[0], 0, "open_tree /data/x: %s", strerror(b.res[0]));
	cr_expect_eq(b.res[1], 0, "move onto /mnt/c: %s", strerror(b.res[1]));
	cr_expect_eq(b.res[2], 0, "/mnt/c/hello: %s", strerror(b.res[2]));
	cr_expect(mi_find(b.pid, "/mnt/c", NULL, NULL));
	cr_expect_eq(b.res[3], EPERM, "bind of /etc: %s", strerror(b.res[3]));
	cr_expect_not(mi_find(b.pid, "/mnt/d", NULL, NULL));
	cr_expect_eq(b.res[4], EPERM, "open_tree without clone: %s", strerror(b.res[4]));
	cr_expect_eq(b.res[5], 0, "mount_setattr on the placeholder: %s", strerror(b.res[5]));
	cr_expect_eq(b.res[6], 0, "move: %s", strerror(b.res[6]));
	cr_assert(mi_find(b.pid, "/mnt/a", opts, type));
	cr_expect(ms_has_opt(opts, "ro") && ms_has_opt(opts, "noexec"), "%s", opts);
	cr_expect_eq(b.res[7], EPERM, "mount_setattr on /mnt/a: %s", strerror(b.res[7]));
	cr_expect(strstr(b.audit, "\"syscall\":\"open_tree\""), "%s", b.audit);
	box_end(&b);
}

/*
 * Placeholders the container dropped are forgotten: 10,000 fsopen()s and
 * open_tree()s closed at once, and 100 mounts made and removed, leave the
 * new mount API working (the supervisor's memory stays bounded meanwhile).
 */
static void script_many_contexts(int *res)
{
	res[0] = res[1] = res[2] = 0;
	for (int i = 0; i < 10000; i++) {
		int fd = i % 2 ? sfsopen("tmpfs")
			       : (int)syscall(MNTSNAP_NR_open_tree, AT_FDCWD, "/data/x",
					      MNTSNAP_OPEN_TREE_CLONE | MNTSNAP_OPEN_TREE_CLOEXEC);

		if (fd < 0)
			res[0]++;
		else
			close(fd);
	}
	for (int i = 0; i < 100; i++) {
		if (new_api_mount("tmpfs", "size", "1m", 0, "/mnt/a"))
			res[1]++;
		else if (umount2("/mnt/a", 0))
			res[2]++;
	}
	res[3] = new_api_mount("tmpfs", NULL, NULL, 0, "/mnt/a");
}

LTest(supervisor, dropped_placeholders_are_forgotten)
{
	struct box b;

	make_tree();
	box_start(&b, example_policy(), NULL, script_many_contexts);
	cr_expect_eq(b.res[0], 0, "%d of 10,000 fsopen/open_tree refused", b.res[0]);
	cr_expect_eq(b.res[1], 0, "%d of 100 new-API mounts refused", b.res[1]);
	cr_expect_eq(b.res[2], 0);
	cr_expect_eq(b.res[3], 0, "a new-API mount after all that: %s", strerror(b.res[3]));
	cr_expect(mi_find(b.pid, "/mnt/a", NULL, NULL));
	cr_expect_leq(b.sv->c[0]->nctx, SV_MAX_CTX);
	box_end(&b);
}

/* ---- another ABI ------------------------------------------------------------- */

#if defined(__x86_64__)
/* An i386 system call from this 64-bit process (int 0x80): -errno or the result. */
static long int80(long nr, const void *b, const void *c, const void *d, long si, const void *di)
{
	long r;

	__asm__ volatile("int $0x80"
			 : "=a"(r)
			 : "a"(nr), "b"(b), "c"(c), "d"(d), "S"(si), "D"(di)
			 : "memory", "r8", "r9", "r10", "r11");
	return r;
}

/*
 * Numbers mean other calls in another ABI: i386 21 is mount (x86_64
 * access), i386 165 is getresuid (x86_64 mount). A supervisor that read
 * the number without the arch would mount for getresuid(ptr, ptr, ptr)
 * pointing at "none", "/mnt/a", "tmpfs". Both must be refused.
 */
static void script_i386(int *res)
{
	char *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
		       -1, 0);

	if (m == MAP_FAILED)
		_exit(104);
	strcpy(m, "none");
	strcpy(m + 64, "/mnt/a");
	strcpy(m + 128, "tmpfs");
	res[0] = (int)-int80(21, m, m + 64, m + 128, 0, NULL);
	res[1] = (int)-int80(165, m, m + 64, m + 128, 0, NULL);
	res[2] = (int)-int80(52, m + 64, 0, NULL, 0, NULL); /* umount2 */
}

/* ia32 emulation may be off (this kernel's int 0x80 is then a SIGSEGV):
 * getpid through it in a throwaway child. */
static bool int80_works(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL);
		_exit(int80(20, NULL, NULL, NULL, 0, NULL) == getpid() ? 0 : 1);
	}
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

LTest(supervisor, other_abi_refused)
{
	struct box b;

	if (!int80_works())
		cr_skip_test("int 0x80 does not work here (no ia32 emulation)");
	make_tree();
	box_start(&b, example_policy(), NULL, script_i386);
	cr_expect_eq(b.res[0], EPERM, "i386 mount: %s", strerror(b.res[0]));
	cr_expect_eq(b.res[1], EPERM, "i386 getresuid (x86_64's mount number): %s",
		     strerror(b.res[1]));
	cr_expect_eq(b.res[2], EPERM, "i386 umount2: %s", strerror(b.res[2]));
	cr_expect_not(mi_find(b.pid, "/mnt/a", NULL, NULL), "mounted for an i386 call");
	cr_expect_eq(b.audit_lines, 3);
	cr_expect(b.audit && strstr(b.audit, "\"syscall\":\"nr:165,arch:0x40000003\"") &&
		  strstr(b.audit, "syscall not handled"), "%s", b.audit ? b.audit : "");
	box_end(&b);
}
#endif

/* ---- arguments rewritten while the supervisor decides -------------------- */

#define FLIPS 300

/*
 * Another process of the container (a thread would do the same: the page
 * is shared) rewrites the target and type in a loop while the mounts are
 * asked for: "/mnt/a" tmpfs and "/etc" proc. The supervisor reads each
 * argument once and acts on its copy, so whatever it mounts is one of the
 * two requests whole: a tmpfs on /mnt/a, never a proc or anything on /etc.
 */
static void script_flip(int *res)
{
	char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	volatile char *tgt = page, *type = page + 64;
	pid_t flipper;
	int st;

	if (page == MAP_FAILED)
		_exit(103);
	strcpy(page, "/mnt/a");
	strcpy(page + 64, "tmpfs");
	flipper = fork();
	if (flipper == 0) {
		for (unsigned long i = 0;; i++) {
			memcpy((char *)tgt, i & 1 ? "/etc\0\0\0" : "/mnt/a\0", 7);
			memcpy((char *)type, i & 2 ? "proc\0\0" : "tmpfs\0", 6);
			/* mostly whole states, but some change mid-read */
			if (i % 63 == 0) /* 63: each of the 4 states in turn */
				usleep(20);
		}
	}
	res[0] = res[1] = res[2] = 0;
	for (int i = 0; i < FLIPS; i++) {
		int r = try_mount("none", (const char *)tgt, (const char *)type, 0, NULL);

		if (!r) {
			res[0]++;
			/* whatever was mounted is ours to remove */
			if (umount2("/mnt/a", 0) && umount2("/etc", 0))
				res[2]++;
		} else {
			res[1]++;
		}
	}
	kill(flipper, SIGKILL);
	waitpid(flipper, &st, 0);
}

LTest(supervisor, arguments_rewritten_during_the_decision)
{
	char *before, *after, *lines, *save = NULL, opts[512], type[128];
	int found = 0;
	struct box b;

	make_tree();
	before = ms_read_file("/proc/self/mountinfo", NULL);
	box_start(&b, example_policy(), NULL, script_flip);
	cr_expect_eq(b.res[0] + b.res[1], FLIPS);
	cr_expect_gt(b.res[0], 0, "nothing was mounted: the test proves nothing");
	cr_log_info("flip: %d mounted, %d refused", b.res[0], b.res[1]);
	cr_expect_eq(b.res[2], 0, "a mount the supervisor made was left behind");
	/* audit: every mount(2) that succeeded put a tmpfs with the forced flags on /mnt/a */
	lines = strdup(b.audit ? b.audit : "");
	for (char *l = strtok_r(lines, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (!strstr(l, "\"syscall\":\"mount\"") || !strstr(l, "\"result\":0,"))
			continue;
		found++;
		cr_expect(strstr(l, "\"fstype\":\"tmpfs\""), "%s", l);
		cr_expect(strstr(l, "\"target_resolved\":\"/mnt/a\""), "%s", l);
		cr_expect(strstr(l, "nosuid,nodev,noexec"), "%s", l);
	}
	free(lines);
	cr_expect_eq(found, b.res[0], "successful mounts in the audit");
	cr_expect_not(mi_find(b.pid, "/etc", opts, type), "something is on /etc: %s", type);
	after = ms_read_file("/proc/self/mountinfo", NULL);
	cr_expect_str_eq(before, after, "the host's mount table changed");
	free(before);
	free(after);
	box_end(&b);
}

/* ---- umount2: only what the supervisor mounted for this container -------- */

static void script_umount(int *res)
{
	res[0] = try_mount("none", "/mnt/a", "tmpfs", 0, NULL);
	res[1] = try_mount("/data/x", "/mnt/c", NULL, MS_BIND, NULL);
	res[2] = umount2("/mnt/a", 0) ? errno : 0;
	res[3] = umount2("/mnt/c", MNT_DETACH) ? errno : 0;
	res[4] = umount2("/", MNT_DETACH) ? errno : 0;      /* not ours */
	res[5] = umount2("/mnt/b", 0) ? errno : 0;          /* not a mount */
	res[6] = try_mount("none", "/mnt/a", "tmpfs", 0, NULL);
	res[7] = umount2("/mnt/a", MNT_FORCE) ? errno : 0;  /* refused flag */
	res[8] = umount2((const char *)16, 0) ? errno : 0;
	/* busy: the kernel's own EBUSY comes back */
	res[9] = chdir("/mnt/a") ? errno : 0;
	res[10] = umount2("/mnt/a", 0) ? errno : 0;
	res[11] = chdir("/") ? errno : 0;
	res[12] = umount2("/mnt/a", 0) ? errno : 0;
}

LTest(supervisor, umount_only_own_mounts)
{
	struct box b;

	make_tree();
	box_start(&b, example_policy(), NULL, script_umount);
	cr_expect_eq(b.res[0], 0);
	cr_expect_eq(b.res[1], 0);
	cr_expect_eq(b.res[2], 0, "umount /mnt/a: %s", strerror(b.res[2]));
	cr_expect_eq(b.res[3], 0, "umount -l /mnt/c: %s", strerror(b.res[3]));
	cr_expect_eq(b.res[4], EPERM, "umount /: %s", strerror(b.res[4]));
	cr_expect_eq(b.res[5], EINVAL, "umount of a non-mount: %s", strerror(b.res[5]));
	cr_expect_eq(b.res[6], 0);
	cr_expect_eq(b.res[7], EPERM, "MNT_FORCE: %s", strerror(b.res[7]));
	cr_expect_eq(b.res[8], EFAULT, "bad pointer: %s", strerror(b.res[8]));
	cr_expect_eq(b.res[10], EBUSY, "busy mount: %s", strerror(b.res[10]));
	cr_expect_eq(b.res[12], 0, "umount after chdir /: %s", strerror(b.res[12]));
	cr_expect_not(mi_find(b.pid, "/mnt/a", NULL, NULL));
	cr_expect_not(mi_find(b.pid, "/mnt/c", NULL, NULL));
	cr_expect(strstr(b.audit, "\"syscall\":\"umount2\""), "%s", b.audit);
	box_end(&b);
}

/* ---- a caller that is no root: its paths are checked with its ids ------- */

/* Binds of any source and tmpfs, both onto any /mnt/NAME, nothing forced. */
static struct mntsnap_policy *any_bind_policy(void)
{
	MNTSNAP_OPTS(mntsnap_policy_rule, tmpfs, .fstype = "tmpfs", .target = "/mnt/*");
	MNTSNAP_OPTS(mntsnap_policy_rule, bind, .fstype = "bind", .target = "/mnt/*");
	struct mntsnap_policy *p;

	cr_assert_eq(mntsnap_policy_new(false, EPERM, &p), 0);
	cr_assert_eq(mntsnap_policy_add(p, &tmpfs, NULL), 0);
	cr_assert_eq(mntsnap_policy_add(p, &bind, NULL), 0);
	return p;
}

/*
 * root/x/secret below a 0700 /root of uid 0; data/grp (0710, group
 * USER_GROUP) and data/own (0070, group USER_ID) each with a y inside;
 * mnt/priv (0700) with a t inside.
 */
static void make_private_dirs(void)
{
	static const struct {
		const char *dir;
		mode_t mode;
		gid_t gid;
	} d[] = { { ROOT "/root", 0700, 0 },	      { ROOT "/data/grp", 0710, USER_GROUP },
		  { ROOT "/data/own", 0070, USER_ID }, { ROOT "/mnt/priv", 0700, 0 } };
	static const char *const inner[] = { ROOT "/root/x", ROOT "/data/grp/y", ROOT "/data/own/y",
					     ROOT "/mnt/priv/t" };

	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		ms_mkdir_p(inner[i]);
		cr_assert_eq(chown(d[i].dir, 0, d[i].gid), 0);
		cr_assert_eq(chmod(d[i].dir, d[i].mode), 0);
	}
	ms_write_text(ROOT "/root/x/secret", "root only\n");
}

static void script_user(int *res)
{
	int fd = open("/root/x/secret", O_RDONLY | O_CLOEXEC);

	res[0] = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	res[1] = try_mount("/root/x", "/mnt/a", NULL, MS_BIND, NULL);
	res[2] = try_mount("/data/grp/y", "/mnt/b", NULL, MS_BIND, NULL);
	res[3] = try_mount("/data/own/y", "/mnt/c", NULL, MS_BIND, NULL);
	res[4] = try_mount("none", "/mnt/priv/t", "tmpfs", 0, NULL);
	res[5] = try_mount("none", "/mnt/d", "tmpfs", 0, NULL);
	res[6] = umount2("/mnt/d", 0) ? errno : 0;
	res[7] = try_mount("none", "/mnt/e", "tmpfs", 0, NULL);
}

/*
 * A container process running as uid 1000 asks for what the policy
 * allows: the paths are resolved with its fsuid, fsgid and groups, so
 * what it cannot search is EACCES as the kernel would say (before, the
 * bind of /root/x succeeded and uid 1000 read the secret through it);
 * what its group or supplementary group may search works; the mounts
 * themselves are still made as the container's root (the tmpfs root is
 * uid 0's, as for any other caller).
 */
LTest(supervisor, caller_credentials)
{
	char p[128];
	struct stat st;
	struct box b;

	make_tree();
	make_private_dirs();
	box_start_as(&b, any_bind_policy(), NULL, script_user, BOX_USER);
	cr_expect_eq(b.res[0], EACCES, "uid 1000 opened the secret itself: %s",
		     strerror(b.res[0]));
	cr_expect_eq(b.res[1], EACCES, "bind of /root/x: %s", strerror(b.res[1]));
	cr_expect_not(mi_find(b.pid, "/mnt/a", NULL, NULL));
	cr_expect_eq(b.res[2], 0, "bind through a dir of a supplementary group: %s",
		     strerror(b.res[2]));
	cr_expect_eq(b.res[3], 0, "bind through a dir of its gid: %s", strerror(b.res[3]));
	cr_expect_eq(b.res[4], EACCES, "tmpfs below a 0700 dir: %s", strerror(b.res[4]));
	cr_expect_eq(b.res[5], 0, "tmpfs: %s", strerror(b.res[5]));
	cr_expect_eq(b.res[6], 0, "umount2 of its tmpfs: %s", strerror(b.res[6]));
	cr_expect_eq(b.res[7], 0, "tmpfs: %s", strerror(b.res[7]));
	snprintf(p, sizeof(p), "/proc/%d/root/mnt/e", b.pid);
	cr_assert_eq(stat(p, &st), 0, "%s: %s", p, strerror(errno));
	cr_expect(st.st_uid == 0 && st.st_gid == 0, "tmpfs root %u:%u, not the container's root",
		  (unsigned)st.st_uid, (unsigned)st.st_gid);
	cr_expect(strstr(b.audit, "\"source\":\"/root/x\""), "%s", b.audit);
	cr_expect(strstr(b.audit, "\"result\":-13,\"error\":\"EACCES\""), "%s", b.audit);
	box_end(&b);
}

/* ---- a caller that dies while the supervisor works on its request -------- */

struct killer {
	pid_t victim;
	bool done;
};

/* The seam: RECV notes the caller; the first ID_VALID kills it first. */
static long killer_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
	struct killer *k = ctx;
	long r = mntsnap__sys_ioctl(NULL, fd, req, arg);

	if (req == MNTSNAP_K_SECCOMP_IOCTL_NOTIF_RECV && r >= 0)
		k->victim = (pid_t)((struct mntsnap_k_seccomp_notif *)arg)->pid;
	if (req == MNTSNAP_K_SECCOMP_IOCTL_NOTIF_ID_VALID && k->victim > 0 && !k->done) {
		k->done = true;
		kill(k->victim, SIGKILL);
		/* generous: the kernel drops the notification when it wakes */
		for (int i = 0; i < 1000 && !mntsnap__sys_ioctl(NULL, fd, req, arg); i++)
			usleep(1000);
		r = mntsnap__sys_ioctl(NULL, fd, req, arg);
	}
	return r;
}

static void script_victim(int *res)
{
	pid_t p = fork();
	int st = 0;

	if (p == 0)
		_exit(try_mount("none", "/mnt/a", "tmpfs", 0, NULL) ? 1 : 0);
	waitpid(p, &st, 0);
	res[0] = WIFSIGNALED(st) ? WTERMSIG(st) : -1;
	/* the supervisor goes on serving the others */
	res[1] = try_mount("none", "/mnt/b", "tmpfs", 0, NULL);
}

LTest(supervisor, caller_dies_mid_request)
{
	struct killer k = { 0 };
	struct mntsnap_sysops sys = { .ioctl = killer_ioctl, .ctx = &k };
	struct box b;

	make_tree();
	box_start(&b, example_policy(), &sys, script_victim);
	cr_expect_eq(b.res[0], SIGKILL, "the requester was not killed");
	cr_expect_not(mi_find(b.pid, "/mnt/a", NULL, NULL),
		      "mounted for a caller that had gone");
	cr_expect(strstr(b.audit, "\"reason\":\"caller gone\""), "%s", b.audit);
	cr_expect_eq(b.res[1], 0, "the next request: %s", strerror(b.res[1]));
	cr_expect(mi_find(b.pid, "/mnt/b", NULL, NULL));
	cr_expect_eq(b.audit_lines, 2, "%s", b.audit);
	box_end(&b);
}

/* ---- a worker killed around the attach of the mount ---------------------- */

/*
 * The seam for the worker's move_mount: the n-th call (counted in memory
 * the CLONE_VM worker shares) ends the worker with SIGKILL right after
 * the real attach when after[n] is 1, right before it when 0, as the
 * container's root can kill a worker of its pid namespace; -1 leaves it
 * alone.
 */
struct attach_killer {
	int n;
	int after[8];
};

static long kill_at_attach(void *ctx, int from_dfd, const char *from, int to_dfd, const char *to,
			   unsigned flags)
{
	struct attach_killer *k = ctx;
	int when = k->n < 8 ? k->after[k->n] : -1;
	long r;

	k->n++;
	if (when == 0)
		syscall(SYS_kill, syscall(SYS_getpid), SIGKILL);
	r = mntsnap__sys_move_mount(from_dfd, from, to_dfd, to, flags);
	if (when == 1)
		syscall(SYS_kill, syscall(SYS_getpid), SIGKILL);
	return r;
}

static void script_killed_worker(int *res)
{
	res[0] = try_mount("none", "/mnt/a", "tmpfs", 0, NULL);	/* killed after */
	res[1] = umount2("/mnt/a", 0) ? errno : 0;
	res[2] = try_mount("/data/x", "/mnt/b", NULL, MS_BIND, NULL); /* killed after */
	res[3] = umount2("/mnt/b", 0) ? errno : 0;
	res[4] = try_mount("none", "/mnt/c", "tmpfs", 0, NULL);	/* killed before */
	res[5] = try_mount("/data/x", "/mnt/d", NULL, MS_BIND, NULL); /* killed before */
	res[6] = try_mount("none", "/mnt/e", "tmpfs", 0, NULL);
}

/* The audit line of the request on target, in a static buffer. */
static const char *audit_line(const struct box *b, const char *syscall_name, const char *target)
{
	static char line[4096];
	char key[256];
	const char *p = b->audit;

	snprintf(key, sizeof(key), "\"syscall\":\"%s\"", syscall_name);
	while (p && *p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char t[256];

		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		snprintf(t, sizeof(t), "\"target\":\"%s\"", target);
		if (strstr(line, key) && strstr(line, t))
			return line;
		p = e ? e + 1 : NULL;
	}
	return "";
}

/*
 * A worker killed after it attached the mount: the request happened, so
 * mount(2) returns 0, the audit says so with the mount's id, and the
 * mount is the container's (its umount2 works). Before: ECHILD, "worker
 * died", no mnt_id, and umount2 refused with EPERM. Killed before the
 * attach: ECHILD and nothing mounted, as before.
 */
LTest(supervisor, worker_killed_at_attach)
{
	struct attach_killer *k = mmap(NULL, sizeof(*k), PROT_READ | PROT_WRITE,
				       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct mntsnap_sysops sys = { .move_mount = kill_at_attach };
	struct box b;

	cr_assert(k != MAP_FAILED);
#if defined(__SANITIZE_ADDRESS__)
	/*
	 * The worker shares the test's memory (CLONE_VM), AddressSanitizer's
	 * state included: SIGKILLed inside instrumented code it leaves that
	 * state half-changed, and the next worker dies in it (ECHILD). The
	 * plain build runs this test; the released code has no sanitizer.
	 */
	munmap(k, sizeof(*k));
	cr_skip_test("a SIGKILLed CLONE_VM worker leaves AddressSanitizer's shared state broken");
#endif
	*k = (struct attach_killer){ 0, { 1, 1, 0, 0, -1, -1, -1, -1 } };
	sys.ctx = k;
	make_tree();
	box_start(&b, example_policy(), &sys, script_killed_worker);
	cr_expect_eq(k->n, 5, "move_mount calls: %d", k->n);
	cr_expect_eq(b.res[0], 0, "tmpfs, worker killed after the attach: %s", strerror(b.res[0]));
	cr_expect_eq(b.res[1], 0, "its umount2: %s", strerror(b.res[1]));
	cr_expect(strstr(audit_line(&b, "mount", "/mnt/a"), "\"result\":0,"), "%s", b.audit);
	cr_expect_not(strstr(audit_line(&b, "mount", "/mnt/a"), "\"mnt_id\":null"), "%s", b.audit);
	cr_expect(strstr(audit_line(&b, "mount", "/mnt/a"), "\"options_applied\":\"nosuid,nodev,noexec\""),
		  "%s", b.audit);
	cr_expect_eq(b.res[2], 0, "bind, worker killed after the attach: %s", strerror(b.res[2]));
	cr_expect_eq(b.res[3], 0, "its umount2: %s", strerror(b.res[3]));
	cr_expect(strstr(audit_line(&b, "mount", "/mnt/b"), "\"source_resolved\":\"/data/x\""),
		  "%s", b.audit);
	cr_expect_eq(b.res[4], ECHILD, "tmpfs, killed before: %s", strerror(b.res[4]));
	cr_expect_not(mi_find(b.pid, "/mnt/c", NULL, NULL));
	cr_expect(strstr(audit_line(&b, "mount", "/mnt/c"), "\"reason\":\"worker died\""), "%s",
		  b.audit);
	cr_expect_eq(b.res[5], ECHILD, "bind, killed before: %s", strerror(b.res[5]));
	cr_expect_not(mi_find(b.pid, "/mnt/d", NULL, NULL));
	cr_expect_eq(b.res[6], 0, "the next request: %s", strerror(b.res[6]));
	cr_expect(mi_find(b.pid, "/mnt/e", NULL, NULL));
	box_end(&b);
	munmap(k, sizeof(*k));
}

/* ---- 1,000 requests from 8 processes at once ----------------------------- */

#define STRESS_PROCS 8
#define STRESS_EACH 125
#define STRESS_ALLOWED (STRESS_PROCS * ((STRESS_EACH + 1) / 2)) /* the even j */

static void script_stress(int *res)
{
	pid_t p[STRESS_PROCS];

	for (int i = 0; i < STRESS_PROCS; i++) {
		p[i] = fork();
		if (p[i] == 0) {
			int bad = 0;

			/* even: allowed (stacked on /mnt/s); odd: forbidden uid= */
			for (int j = 0; j < STRESS_EACH; j++) {
				int e = try_mount("none", "/mnt/s", "tmpfs", 0,
						  j % 2 ? "uid=0" : NULL);

				bad += j % 2 ? e != EPERM : e != 0;
			}
			_exit(bad ? 1 : 0);
		}
	}
	for (int i = 0; i < STRESS_PROCS; i++) {
		int st = -1;

		waitpid(p[i], &st, 0);
		res[i] = st;
	}
}

static int count_mounts(pid_t pid, const char *mp)
{
	char path[64], *mi, *save = NULL, pat[256];
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/mountinfo", pid);
	snprintf(pat, sizeof(pat), " %s ", mp);
	mi = ms_read_file(path, NULL);
	for (char *l = strtok_r(mi, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		n += strstr(l, pat) != NULL;
	free(mi);
	return n;
}

LTest(supervisor, thousand_requests_from_eight_processes)
{
	int ok = 0, lines = 0;
	struct box b;

	make_tree();
	box_start(&b, example_policy(), NULL, script_stress);
	for (int i = 0; i < STRESS_PROCS; i++)
		cr_expect_eq(b.res[i], 0, "process %d: status %d", i, b.res[i]);
	cr_expect_eq(count_mounts(b.pid, "/mnt/s"), STRESS_ALLOWED);
	cr_expect_eq(b.audit_lines, STRESS_PROCS * STRESS_EACH);
	/* every line is one JSON object (parsed by json-c where built) */
	for (char *l = b.audit, *nl; *l; l = nl + 1) {
		nl = strchr(l, '\n');
		cr_assert(nl, "audit line without newline");
		*nl = '\0';
		lines++;
		ok += strstr(l, "\"result\":0,") != NULL;
#ifdef MS_HAVE_JSON
		json_object *o = json_tokener_parse(l);

		cr_assert(o && json_object_is_type(o, json_type_object), "not JSON: %s", l);
		json_object_put(o);
#endif
	}
	cr_expect_eq(lines, STRESS_PROCS * STRESS_EACH);
	cr_expect_eq(ok, STRESS_ALLOWED);
	box_end(&b);
}

/*
 * Requests from a thread that is not the thread-group leader: the
 * notification names the thread's id, which pidfd_open() refuses without
 * PIDFD_THREAD. Every call of the new mount API and mount(2), from a
 * pthread.
 */
static void *thread_new_api(void *arg)
{
	struct mntsnap_k_mount_attr ro = { .attr_set = MNTSNAP_K_MOUNT_ATTR_RDONLY };
	int *res = arg, fs, m, t;

	fs = sfsopen("tmpfs");
	res[0] = fs < 0 ? errno : 0;
	res[1] = sfsconfig(fs, MNTSNAP_K_FSCONFIG_SET_STRING, "size", "1m");
	res[2] = sfsconfig(fs, MNTSNAP_K_FSCONFIG_CMD_CREATE, NULL, NULL);
	m = sfsmount(fs, MNTSNAP_K_MOUNT_ATTR_NODEV);
	res[3] = m < 0 ? errno : 0;
	res[4] = syscall(MNTSNAP_NR_mount_setattr, m, "", AT_EMPTY_PATH, &ro, sizeof(ro)) ? errno
											   : 0;
	res[5] = smove(m, "/mnt/a");
	close(m);
	close(fs);
	t = (int)syscall(MNTSNAP_NR_open_tree, AT_FDCWD, "/data/x",
			 MNTSNAP_OPEN_TREE_CLONE | MNTSNAP_OPEN_TREE_CLOEXEC);
	res[6] = t < 0 ? errno : 0;
	res[7] = smove(t, "/mnt/c");
	close(t);
	res[8] = try_mount("none", "/mnt/b", "tmpfs", 0, NULL);
	res[9] = umount2("/mnt/b", 0) ? errno : 0;
	res[10] = syscall(SYS_gettid) != getpid() ? 0 : -2; /* really another thread */
	return NULL;
}

static void script_thread(int *res)
{
	pthread_t th;

	if (pthread_create(&th, NULL, thread_new_api, res) || pthread_join(th, NULL))
		res[11] = -3;
	else
		res[11] = 0;
}

LTest(supervisor, requests_from_a_thread)
{
	static const char *const what[] = { "fsopen", "fsconfig size", "fsconfig create",
					    "fsmount", "mount_setattr", "move_mount",
					    "open_tree", "move_mount bind", "mount(2)",
					    "umount2", "another thread", "pthread" };
	char opts[512], type[128];
	struct box b;

	make_tree();
	box_start(&b, example_policy(), NULL, script_thread);
	for (int i = 0; i < 12; i++)
		cr_expect_eq(b.res[i], 0, "%s from a thread: %s", what[i],
			     b.res[i] > 0 ? strerror(b.res[i]) : "setup");
	cr_expect(mi_find(b.pid, "/mnt/a", opts, type), "no /mnt/a");
	cr_expect(ms_has_opt(opts, "ro") && ms_has_opt(opts, "nodev"), "%s", opts);
	cr_expect(mi_find(b.pid, "/mnt/c", NULL, NULL), "no /mnt/c");
	box_end(&b);
}

/* ---- bounds: what the kernel refuses, memory, the audit ---------------- */

#define FLOOD 2500

static void script_bounds(int *res)
{
	static char big[4097], key[257], val[257];
	int fs, m;

	memset(big, 'v', sizeof(big) - 1);
	memset(key, 'k', sizeof(key) - 1);
	memset(val, 's', sizeof(val) - 1);
	fs = sfsopen("tmpfs");
	res[0] = fs < 0 ? errno : 0;
	/* the kernel's limits: 255 bytes for a key and for a string value (256 with the NUL) */
	res[1] = sfsconfig(fs, MNTSNAP_K_FSCONFIG_SET_FLAG, key, NULL);
	res[2] = sfsconfig(fs, MNTSNAP_K_FSCONFIG_SET_STRING, "source", val);
	res[3] = sfsconfig(fs, MNTSNAP_K_FSCONFIG_SET_STRING, "source", val + 1);
	/* the flood: 4 KB values, then values within the limit */
	res[4] = res[5] = 0;
	for (int i = 0; i < FLOOD; i++)
		if (!sfsconfig(fs, MNTSNAP_K_FSCONFIG_SET_STRING, "x", big))
			res[4]++;
	for (int i = 0; i < FLOOD; i++)
		if (!sfsconfig(fs, MNTSNAP_K_FSCONFIG_SET_STRING, "x", val + 5))
			res[5]++;
	res[6] = sfsconfig(fs, MNTSNAP_K_FSCONFIG_CMD_CREATE, NULL, NULL);
	m = sfsmount(fs, 0);
	res[7] = m < 0 ? errno : 0;
	close(m);
	/* a context is mounted once */
	m = sfsmount(fs, 0);
	res[8] = m < 0 ? errno : 0;
	if (m >= 0)
		close(m);
	close(fs);
	/* still usable afterwards */
	res[9] = new_api_mount("tmpfs", "size", "1m", 0, "/mnt/a");
}

static long own_rss_kib(void)
{
	char *st = ms_read_file("/proc/self/status", NULL), *p = strstr(st, "VmRSS:");
	long v = p ? strtol(p + 6, NULL, 10) : -1;

	free(st);
	return v;
}

LTest(supervisor, bounds_of_the_new_mount_api)
{
	struct box b;
	long rss;

	make_tree();
	box_start(&b, example_policy(), NULL, script_bounds);
	rss = own_rss_kib();
	cr_expect_eq(b.res[0], 0, "fsopen: %s", strerror(b.res[0]));
	cr_expect_eq(b.res[1], EINVAL, "a 256-byte key: %s", strerror(b.res[1]));
	cr_expect_eq(b.res[2], EINVAL, "a 256-byte value: %s", strerror(b.res[2]));
	cr_expect_eq(b.res[3], 0, "a 255-byte value: %s", strerror(b.res[3]));
	cr_expect_eq(b.res[4], 0, "%d 4 KB values taken", b.res[4]);
	cr_expect(b.res[5] > 0 && b.res[5] < 20, "%d of %d values recorded", b.res[5], FLOOD);
	cr_expect_eq(b.res[6], 0, "create: %s", strerror(b.res[6]));
	cr_expect_eq(b.res[7], 0, "fsmount: %s", strerror(b.res[7]));
	cr_expect_eq(b.res[8], EBUSY, "a second fsmount: %s", strerror(b.res[8]));
	cr_expect_eq(b.res[9], 0, "a mount after the flood: %s", strerror(b.res[9]));
	/*
	 * The bound is the supervisor's own memory: AddressSanitizer's shadow
	 * and its 256 MiB quarantine of freed blocks are not (the ASan build
	 * measured 310 MiB for the same flood); there only "bounded at all".
	 */
#if defined(__SANITIZE_ADDRESS__)
	cr_expect(rss > 0 && rss < 1024 * 1024, "supervisor RSS %ld KiB (AddressSanitizer)", rss);
#else
	cr_expect(rss > 0 && rss < 64 * 1024, "supervisor RSS %ld KiB", rss);
#endif
	/* one bounded line per call: no line repeats everything recorded so far */
	cr_expect_lt(b.audit_len, (size_t)2 * FLOOD * 6 * 1024, "audit %zu bytes", b.audit_len);
	cr_expect(strstr(b.audit, "\"reason\":\"options too long\""), "no reason given");
	/*
	 * the flood spent the container's audit budget for refusals: the
	 * second fsmount's line is there, or counted in the "not logged"
	 * line before the next performed mount's, depending on how fast the
	 * budget refilled
	 */
	cr_expect(strstr(b.audit, "\"reason\":\"already mounted\"") ||
		  strstr(b.audit, "\"reason\":\"not logged\""), "no reason given");
	box_end(&b);
}

static void script_audit_down(int *res)
{
	res[0] = try_mount("none", "/mnt/a", "tmpfs", 0, NULL);
	res[1] = sfsopen("tmpfs") < 0 ? errno : 0;
	res[2] = (int)syscall(MNTSNAP_NR_open_tree, AT_FDCWD, "/data/x",
			      MNTSNAP_OPEN_TREE_CLONE | MNTSNAP_OPEN_TREE_CLOEXEC) < 0 ? errno : 0;
}

/* An audit sink that cannot take a line: every request is refused, none performed. */
LTest(supervisor, audit_unavailable_denies)
{
	struct box b;

	make_tree();
	audit_ready_err = ENOSPC;
	box_start(&b, example_policy(), NULL, script_audit_down);
	audit_ready_err = 0;
	cr_expect_eq(b.res[0], EPERM, "mount(2): %s", strerror(b.res[0]));
	cr_expect_eq(b.res[1], EPERM, "fsopen: %s", strerror(b.res[1]));
	cr_expect_eq(b.res[2], EPERM, "open_tree: %s", strerror(b.res[2]));
	cr_expect_not(mi_find(b.pid, "/mnt/a", NULL, NULL), "performed unaudited");
	cr_expect(strstr(b.audit, "\"reason\":\"audit unavailable\""), "%s", b.audit);
	box_end(&b);
}

/* ---- what one container can cost the supervisor -------------------------- */

#define FLOOD_REFUSALS 1000

/*
 * Refused mount(2) calls with every string as long as the kernel takes,
 * of bytes >= 0x80 (each one \u00XX in the line): 68 KB lines, at disk
 * speed, until the audit filesystem is full and every container is
 * refused. Then a mount the policy allows.
 */
static void script_audit_flood(int *res)
{
	static char src[4096], tgt[4096], type[256], data[4096];

	memset(src, 0x80, sizeof(src) - 1);
	memset(tgt, 0x81, sizeof(tgt) - 1);
	tgt[0] = '/';
	memset(type, 0x82, sizeof(type) - 1);
	memset(data, 0x83, sizeof(data) - 1);
	res[0] = 0;
	for (int i = 0; i < FLOOD_REFUSALS; i++)
		res[0] += try_mount(src, tgt, type, 0, data) != EPERM;
	res[1] = try_mount("none", "/mnt/a", "tmpfs", 0, NULL);
}

/*
 * The longest line of an audit, the sum of its "unlogged" counts, its
 * lines and those of them that are such sums.
 */
static size_t audit_scan(const char *audit, long *ret_unlogged, int *ret_lines, int *ret_sums)
{
	size_t longest = 0;

	*ret_unlogged = 0;
	*ret_lines = 0;
	*ret_sums = 0;
	for (const char *l = audit, *nl; l && *l; l = nl + 1) {
		const char *u;

		nl = strchr(l, '\n');
		cr_assert(nl, "audit line without newline");
		if ((size_t)(nl - l) > longest)
			longest = (size_t)(nl - l);
		u = strstr(l, "\"unlogged\":");
		if (u && u < nl) {
			*ret_unlogged += strtol(u + 11, NULL, 10);
			(*ret_sums)++;
		}
		(*ret_lines)++;
	}
	return longest;
}

LTest(supervisor, audit_volume_of_refusals_is_bounded)
{
	long unlogged;
	size_t longest;
	struct box b;
	int lines, sums;

	make_tree();
	box_start(&b, example_policy(), NULL, script_audit_flood);
	cr_expect_eq(b.res[0], 0, "%d refusals answered otherwise than EPERM", b.res[0]);
	cr_expect_eq(b.res[1], 0, "the allowed mount: %s", strerror(b.res[1]));
	longest = audit_scan(b.audit, &unlogged, &lines, &sums);
	/* 7 fields of at most 1 KiB, the rest short */
	cr_expect_leq(longest, 8 * MNTSNAP_SV_AUDIT_FIELD_MAX + 1024, "a line of %zu bytes", longest);
	cr_expect(strstr(b.audit, "\"truncated\":{\"fstype\":255,\"source\":4095,\"target\":4095,"
				  "\"options_asked\":4095}"),
		  "no truncation marker: %.300s", b.audit);
	/* the budget: 1 MiB at once, 16 KiB a second (the flood takes seconds at most) */
	cr_expect_lt(b.audit_len, (size_t)1536 * 1024, "audit %zu bytes", b.audit_len);
	cr_expect_gt(unlogged, 0, "nothing left out: %zu bytes", b.audit_len);
	/* every refusal either has its line or is counted; the mount has its line */
	cr_expect_eq(lines - sums - 1 + unlogged, FLOOD_REFUSALS, "%d lines, %d sums, %ld unlogged",
		     lines, sums, unlogged);
	cr_expect(strstr(b.audit, "\"target\":\"/mnt/a\",\"source_resolved\":null,"
				  "\"target_resolved\":\"/mnt/a\""),
		  "the performed mount has no line");
	cr_expect(strstr(b.audit, "\"syscall\":null") && strstr(b.audit, "\"reason\":\"not logged\""),
		  "no summary line");
	box_end(&b);
}

#define HOLD 40

/* HOLD placeholders held at once, then a mount(2). */
static void script_hold_placeholders(int *res)
{
	int fd[HOLD];

	res[0] = 0;
	res[1] = 0;
	for (int i = 0; i < HOLD; i++) {
		fd[i] = sfsopen("tmpfs");
		if (fd[i] >= 0)
			res[0]++;
		else if (!res[1])
			res[1] = errno;
	}
	res[2] = try_mount("none", "/mnt/a", "tmpfs", 0, NULL);
	for (int i = 0; i < HOLD; i++)
		if (fd[i] >= 0)
			close(fd[i]);
}

/*
 * Each pending placeholder costs the supervisor an fd: all containers
 * together hold at most half its soft fd limit less 32 (here 128: 32),
 * so they never take the fds other containers' requests need.
 */
LTest(supervisor, placeholders_are_bounded_by_the_fd_limit)
{
	struct rlimit rl, low;
	struct box b;

	make_tree();
	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	low = rl;
	low.rlim_cur = 128;
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	box_start(&b, example_policy(), NULL, script_hold_placeholders);
	cr_expect_eq(b.res[0], 128 / 2 - 32, "%d placeholders held", b.res[0]);
	cr_expect_eq(b.res[1], ENFILE, "beyond the bound: %s", strerror(b.res[1]));
	cr_expect_eq(b.res[2], 0, "a mount meanwhile: %s", strerror(b.res[2]));
	cr_expect(strstr(b.audit, "\"error\":\"ENFILE\",\"mnt_id\":null,"
				  "\"reason\":\"placeholder limit\""),
		  "%.2000s", b.audit);
	box_end(&b);
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
}

/* Waits until the supervisor has used up its fds, then asks for a mount. */
static void script_after_fds_gone(int *res)
{
	for (int i = 0; i < 10000 && __atomic_load_n(&res[NRES - 1], __ATOMIC_SEQ_CST) != 1; i++)
		usleep(1000);
	res[0] = try_mount("none", "/mnt/a", "tmpfs", 0, NULL);
}

/* A supervisor out of fds says so: EMFILE, not "caller gone". */
LTest(supervisor, supervisor_out_of_fds_is_audited_as_such)
{
	MNTSNAP_OPTS(mntsnap_supervisor_opts, o, .audit = on_audit, .audit_data = NULL);
	struct rlimit rl, low;
	int fill[256], nfill = 0, nfd;
	struct box b;

	make_tree();
	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	low = rl;
	low.rlim_cur = 256;
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	nfd = box_spawn(&b, example_policy(), script_after_fds_gone, BOX_ROOTFUL);
	o.audit_data = &b;
	cr_assert_eq(mntsnap_supervisor_new(b.pol, &o, &b.sv), 0);
	cr_assert_eq(mntsnap_supervisor_add(b.sv, nfd, "box"), 0);
	while (nfill < 256 && (fill[nfill] = dup(0)) >= 0)
		nfill++;
	cr_assert_eq(errno, EMFILE);
	__atomic_store_n(&b.res[NRES - 1], 1, __ATOMIC_SEQ_CST);
	box_serve(&b);
	while (nfill > 0)
		close(fill[--nfill]);
	cr_expect_eq(b.res[0], EMFILE, "the mount: %s", strerror(b.res[0]));
	cr_expect(strstr(b.audit, "\"error\":\"EMFILE\",\"mnt_id\":null,"
				  "\"reason\":\"supervisor's fd limit\""),
		  "%s", b.audit);
	box_end(&b);
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
}

#define VANISH_ROUNDS 300

/*
 * Mounts that vanish without a umount2 the supervisor sees: a helper in
 * a user and mount namespace of its own (made before the mounts, so
 * /mnt/d is a plain directory there) removes /mnt/d, and the kernel
 * detaches the bind on it in the container's namespace too.
 */
static void script_vanishing_mounts(int *res)
{
	int p2c[2], c2p[2];
	char r = 0;
	pid_t h;

	res[0] = res[1] = 0;
	if (pipe2(p2c, O_CLOEXEC) || pipe2(c2p, O_CLOEXEC))
		return;
	h = fork();
	if (h == 0) {
		close(p2c[1]); /* else its reads never end */
		close(c2p[0]);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) || write(c2p[1], "k", 1) != 1)
			_exit(1);
		while (read(p2c[0], &r, 1) == 1) {
			r = rmdir("/mnt/d") ? 'E' : 'k';
			if (write(c2p[1], &r, 1) != 1)
				break;
		}
		_exit(0);
	}
	close(p2c[0]);
	close(c2p[1]);
	if (h < 0 || read(c2p[0], &r, 1) != 1 || r != 'k') {
		res[1] = -1;
		return;
	}
	for (int i = 0; i < VANISH_ROUNDS; i++) {
		mkdir("/mnt/d", 0755);
		if (try_mount("/data/x", "/mnt/d", NULL, MS_BIND, NULL) ||
		    write(p2c[1], "r", 1) != 1 || read(c2p[0], &r, 1) != 1 || r != 'k') {
			res[1] = i + 1;
			break;
		}
		res[0]++;
	}
	close(p2c[1]);
	waitpid(h, NULL, 0);
}

LTest(supervisor, record_of_vanished_mounts_is_pruned)
{
	struct box b;

	make_tree();
	box_start(&b, example_policy(), NULL, script_vanishing_mounts);
	cr_expect_eq(b.res[1], 0, "round %d failed", b.res[1]);
	cr_expect_eq(b.res[0], VANISH_ROUNDS);
	cr_expect_not(mi_find(b.pid, "/mnt/d", NULL, NULL), "a bind on /mnt/d left");
	cr_expect_leq(b.sv->c[0]->nmounted, SV_PRUNE_MIN, "%zu mounts recorded, none left",
		      b.sv->c[0]->nmounted);
	box_end(&b);
}

/* ---- one container cannot stall another ------------------------------- */

#define ATTACK_SECONDS 4

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/*
 * The victim: tmpfs mounts and unmounts on /mnt/a for ATTACK_SECONDS,
 * res[0] how many, res[1] the slowest in ms, res[2] failures.
 */
static void script_victim_mounts(int *res)
{
	uint64_t end = now_us() + ATTACK_SECONDS * 1000000ULL;

	res[0] = res[1] = res[2] = 0;
	while (now_us() < end) {
		uint64_t t = now_us();
		int e = try_mount("none", "/mnt/a", "tmpfs", 0, NULL);

		if (e || umount2("/mnt/a", 0))
			res[2]++;
		t = (now_us() - t) / 1000;
		if ((int)t > res[1])
			res[1] = (int)t;
		res[0]++;
		usleep(2000);
	}
}

static void *closer(void *arg)
{
	usleep((useconds_t)(rand() % 150));
	close((int)(intptr_t)arg);
	return NULL;
}

/*
 * The lingering socket: a TCP connection whose peer never reads, its send
 * queue full and SO_LINGER set, handed to fsconfig while another thread
 * closes it. A supervisor that fetched the file (pidfd_getfd) and closed
 * it made the last close and blocked for the linger time.
 */
static void script_linger(int *res)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct linger lg = { .l_onoff = 1, .l_linger = 3 };
	uint64_t end = now_us() + ATTACK_SECONDS * 1000000ULL;
	socklen_t sl = sizeof(sa);
	int l, small = 4096;
	static char junk[65536];

	res[0] = 0;
	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&sa, sizeof(sa)) || listen(l, 1024) ||
	    getsockname(l, (struct sockaddr *)&sa, &sl)) {
		res[1] = errno;
		return;
	}
	res[1] = 0;
	while (now_us() < end) {
		int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), p;
		pthread_t th;

		setsockopt(c, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
		if (connect(c, (struct sockaddr *)&sa, sizeof(sa)) && errno != EINPROGRESS)
			break;
		p = accept4(l, NULL, NULL, SOCK_CLOEXEC);
		if (p < 0)
			break;
		setsockopt(p, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
		while (write(c, junk, sizeof(junk)) > 0)
			;
		setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		if (pthread_create(&th, NULL, closer, (void *)(intptr_t)c))
			break;
		pthread_detach(th);
		sfsconfig(c, MNTSNAP_K_FSCONFIG_SET_FLAG, "ro", NULL);
		res[0]++;
		/* the peer stays open and unread until the end */
		if (res[0] > 2000)
			break;
	}
}

/* Two containers, one supervisor, served until both scripts are done. */
static void boxes_run(struct box *b, script_fn s0, script_fn s1)
{
	MNTSNAP_OPTS(mntsnap_supervisor_opts, o, .audit = on_audit, .audit_data = &b[0],
		     .audit_ready = on_audit_ready);
	struct mntsnap_supervisor *sv;
	int nfd[2], done = 0;

	nfd[0] = box_spawn(&b[0], example_policy(), s0, BOX_ROOTFUL);
	nfd[1] = box_spawn(&b[1], example_policy(), s1, BOX_ROOTFUL);
	cr_assert_eq(mntsnap_supervisor_new(b[0].pol, &o, &sv), 0);
	cr_assert_eq(mntsnap_supervisor_add(sv, nfd[0], "attacker"), 0);
	cr_assert_eq(mntsnap_supervisor_add(sv, nfd[1], "victim"), 0);
	while (done != 3) {
		struct pollfd p[3] = { { mntsnap_supervisor_fd(sv), POLLIN, 0 },
				       { done & 1 ? -1 : b[0].done_r, POLLIN, 0 },
				       { done & 2 ? -1 : b[1].done_r, POLLIN, 0 } };

		cr_assert_geq(poll(p, 3, 30000), 1, "the containers hang");
		if (p[0].revents)
			cr_assert_geq(mntsnap_supervisor_dispatch(sv, 0), 0);
		if (p[1].revents)
			done |= 1;
		if (p[2].revents)
			done |= 2;
	}
	b[0].sv = sv;
}

static void boxes_end(struct box *b)
{
	/* the second container holds copies of the first one's pipes: close all first */
	for (int i = 0; i < 2; i++) {
		close(b[i].go_w);
		close(b[i].done_r);
	}
	for (int i = 0; i < 2; i++) {
		int st;

		cr_assert_eq(waitpid(b[i].pid, &st, 0), b[i].pid);
		mntsnap_policy_free(b[i].pol);
		munmap(b[i].res, NRES * sizeof(int));
	}
	mntsnap_supervisor_free(b[0].sv);
	free(b[0].audit);
}

LTest(supervisor, lingering_socket_stalls_no_other_container, .timeout = 60)
{
	struct box b[2];

	make_tree();
	memset(b, 0, sizeof(b));
	boxes_run(b, script_linger, script_victim_mounts);
	cr_expect_eq(b[0].res[1], 0, "attacker setup: %s", strerror(b[0].res[1]));
	cr_expect_gt(b[0].res[0], 50, "only %d attacks", b[0].res[0]);
	cr_expect_gt(b[1].res[0], 10, "only %d victim mounts", b[1].res[0]);
	cr_expect_eq(b[1].res[2], 0, "%d victim mounts failed", b[1].res[2]);
	cr_expect_lt(b[1].res[1], 1000, "the victim waited %d ms for a mount (%d attacks)",
		     b[1].res[1], b[0].res[0]);
	boxes_end(b);
}

/*
 * A FUSE mount that never answers (not even its INIT): the supervisor's
 * helper resolving a target below it waits until its timeout. The server
 * is this test holding /dev/fuse and reading nothing.
 */
static void script_fuse_stall(int *res)
{
	uint64_t t = now_us();

	res[0] = try_mount("none", "/mnt/s/x", "tmpfs", 0, NULL);
	res[1] = (int)((now_us() - t) / 1000);
}

LTest(supervisor, fuse_stall_stalls_no_other_container, .timeout = 60)
{
	char opts[128];
	struct box b[2];
	int fuse;

	make_tree();
	fuse = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fuse < 0)
		cr_skip_test("no /dev/fuse");
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", fuse);
	cr_assert_eq(mount("stall", ROOT "/mnt/s", "fuse", 0, opts), 0, "fuse: %s",
		     strerror(errno));
	memset(b, 0, sizeof(b));
	boxes_run(b, script_fuse_stall, script_victim_mounts);
	cr_expect_neq(b[0].res[0], 0, "a mount below the stalled FUSE mount succeeded");
	cr_expect_gt(b[1].res[0], 10, "only %d victim mounts", b[1].res[0]);
	cr_expect_eq(b[1].res[2], 0, "%d victim mounts failed", b[1].res[2]);
	cr_expect_lt(b[1].res[1], 1000, "the victim waited %d ms for a mount (the attacker %d ms)",
		     b[1].res[1], b[0].res[1]);
	boxes_end(b);
	close(fuse);
}

/* A flood of fsconfig calls from one container for ATTACK_SECONDS. */
static void script_flood(int *res)
{
	uint64_t end = now_us() + ATTACK_SECONDS * 1000000ULL;
	static char val[250];
	int fs = sfsopen("tmpfs");

	memset(val, 'f', sizeof(val) - 1);
	res[0] = 0;
	while (now_us() < end) {
		sfsconfig(fs, MNTSNAP_K_FSCONFIG_SET_STRING, "x", val);
		res[0]++;
	}
	close(fs);
}

LTest(supervisor, option_flood_stalls_no_other_container, .timeout = 60)
{
	struct box b[2];

	make_tree();
	memset(b, 0, sizeof(b));
	boxes_run(b, script_flood, script_victim_mounts);
	cr_expect_gt(b[0].res[0], 100, "only %d flood calls", b[0].res[0]);
	cr_expect_gt(b[1].res[0], 10, "only %d victim mounts", b[1].res[0]);
	cr_expect_eq(b[1].res[2], 0, "%d victim mounts failed", b[1].res[2]);
	cr_expect_lt(b[1].res[1], 1000, "the victim waited %d ms for a mount (%d flood calls)",
		     b[1].res[1], b[0].res[0]);
	boxes_end(b);
}

/* What an agent peer might pass instead of a notify fd is refused. */
LTest(supervisor, add_refuses_what_is_no_notify_fd)
{
	struct mntsnap_supervisor *sv;
	struct mntsnap_policy *p;
	int pfd[2], fd;

	cr_assert_eq(mntsnap_policy_new(false, EPERM, &p), 0);
	cr_assert_eq(mntsnap_supervisor_new(p, NULL, &sv), 0);
	cr_assert_eq(pipe2(pfd, O_CLOEXEC), 0);
	cr_assert_eq(write(pfd[1], "x", 1), 1); /* readable, as a waiting request would be */
	cr_expect_eq(mntsnap_supervisor_add(sv, pfd[0], "pipe"), -ENOTTY);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	cr_expect_eq(mntsnap_supervisor_add(sv, fd, "null"), -ENOTTY);
	cr_expect_eq(mntsnap_supervisor_add(sv, 9999, "closed"), -EBADF);
	cr_expect_eq(mntsnap_supervisor_count(sv), 0);
	/* the caller keeps what was refused */
	cr_expect_eq(fcntl(pfd[0], F_GETFD), FD_CLOEXEC);
	close(fd);
	close(pfd[0]);
	close(pfd[1]);
	mntsnap_supervisor_free(sv);
	mntsnap_policy_free(p);
}

/* ---- the policy alone ---------------------------------------------------- */

LTest(supervisor, policy_rules_and_errors)
{
	static const char *const forbid[] = { "uid", NULL };
	static const char *const force[] = { "noexec", "size=1m", "strictatime", NULL };
	static const char *const bad_list[] = { "a,b", NULL };
	MNTSNAP_OPTS(mntsnap_policy_rule, deny_proc, .fstype = "proc", .deny = true,
		     .err = ENODEV);
	MNTSNAP_OPTS(mntsnap_policy_rule, tmpfs, .fstype = "tmpfs", .target = "/mnt/*",
		     .forbid = forbid, .force = force, .err = EACCES);
	MNTSNAP_OPTS(mntsnap_policy_rule, bad, .target = "/mnt/[ab");
	MNTSNAP_OPTS(mntsnap_policy_rule, rel, .target = "mnt/*");
	MNTSNAP_OPTS(mntsnap_policy_rule, comma, .forbid = bad_list);
	struct mntsnap_error e = { 0 };
	struct mntsnap_policy *p;
	int rule = 7;
	char *applied;

	cr_assert_eq(mntsnap_policy_new(true, 0, &p), 0);
	cr_assert_eq(mntsnap_policy_add(p, &deny_proc, NULL), 0);
	cr_assert_eq(mntsnap_policy_add(p, &tmpfs, NULL), 0);
	cr_expect_eq(mntsnap_policy_add(p, &bad, &e), -EINVAL);
	cr_expect(strstr(e.msg, "unclosed '['"), "%s", e.msg);
	cr_expect_eq(mntsnap_policy_add(p, &rel, &e), -EINVAL);
	cr_expect(strstr(e.msg, "must start with '/'"), "%s", e.msg);
	cr_expect_eq(mntsnap_policy_add(p, &comma, &e), -EINVAL);
	cr_expect_eq(mntsnap_policy_count(p), 2);

	cr_expect_eq(mntsnap_policy_check(p, "proc", "proc", "/mnt/p", NULL, &rule), -ENODEV);
	cr_expect_eq(rule, 0);
	cr_expect_eq(mntsnap_policy_check(p, "tmpfs", "none", "/mnt/a", "uid=0", &rule), -EACCES);
	cr_expect_eq(rule, 1);
	/* "uid" forbids uid and uid=..., not a longer key */
	cr_expect_eq(mntsnap_policy_check(p, "tmpfs", "none", "/mnt/a", "uidx=1,uid", &rule),
		     -EACCES);
	cr_expect_eq(mntsnap_policy_check(p, "tmpfs", "none", "/mnt/a", "uidx=1", &rule), 0);
	/* '*' never crosses '/': /mnt/a/b falls to the default (allow) */
	cr_expect_eq(mntsnap_policy_check(p, "tmpfs", "none", "/mnt/a/b", "uid=0", &rule), 0);
	cr_expect_eq(rule, -1);

	/* force: flags override their opposite, keys replace, atime modes exclude */
	applied = mntsnap__policy_apply(p, 1, "exec,size=5m,noatime,mode=755,ro");
	cr_expect_str_eq(applied, "mode=755,ro,noexec,size=1m,strictatime");
	free(applied);
	mntsnap_policy_free(p);

	cr_assert_eq(mntsnap_policy_new(false, 0, &p), 0);
	cr_expect_eq(mntsnap_policy_check(p, "tmpfs", NULL, "/x", NULL, &rule), -EPERM);
	cr_expect_eq(mntsnap_policy_new(false, -1, &p), -EINVAL);
	mntsnap_policy_free(p);
}

/* The cleanup helpers: *p freed and NULL afterwards, NULL fine. */
LTest(supervisor, freep_helpers)
{
	struct mntsnap_policy *p = NULL;
	struct mntsnap_supervisor *sv = NULL;

	cr_assert_eq(mntsnap_policy_new(false, EPERM, &p), 0);
	cr_assert_eq(mntsnap_supervisor_new(p, NULL, &sv), 0);
	mntsnap_supervisor_freep(&sv);
	cr_assert_null(sv);
	mntsnap_policy_freep(&p);
	cr_assert_null(p);
	mntsnap_policy_freep(&p);
	mntsnap_policy_freep(NULL);
	mntsnap_supervisor_freep(NULL);
	{
		MNTSNAP_CLEANUP(mntsnap_policy_freep) struct mntsnap_policy *q = NULL;

		cr_assert_eq(mntsnap_policy_new(true, EPERM, &q), 0);
	}
}
