// SPDX-License-Identifier: MIT
/*
 * Where the supervisor's mounts are made: a new filesystem instance takes
 * its namespaces (pid for proc, net for sysfs, ipc for mqueue, cgroup for
 * cgroup2) and its owner user namespace from the task that creates it,
 * not from the mount namespace it is attached in. A mount made for a
 * container must show the container's world, never the supervisor's.
 *
 * The stand-in "host": this test process in throw-away net, ipc, cgroup
 * and uts namespaces (a veth pair svhost0/svhost1, an mqueue queue
 * svhostq, its own sysfs and mqueue mounts), with a marker process as
 * pid 1 of a throw-away pid namespace that every container is created
 * below. This process is the supervisor. A container is a forked child
 * with its own mount, pid, cgroup and uts namespaces and, depending on
 * the case, net and ipc namespaces and a user namespace of its own; it
 * pivots into its own root, installs a seccomp filter turning the mount
 * calls into notifications, drops every capability and asks for mounts.
 * The oracles: what the container reads through the mounts it got, the
 * errno of its calls, and this namespace's mount table (unchanged).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "mntsnap-supervisor.h"
#include "mntsnap.h"
#include "uapi.h"

#define BASE "/tmp/mntsnap-sv-ns"
#define ROOT BASE "/root"
#define HOSTSYS BASE "/hostsys"
#define HOSTMQ BASE "/hostmq"
#define CG BASE "/cg"
#define NRES 32
#define NR_pidfd_getfd_ (MNTSNAP_NR_BASE + 438)

enum ctr_mode {
	CTR_OWN,      /* own net and ipc namespaces, no user namespace */
	CTR_SHARED,   /* the stand-in host's net and ipc namespaces */
	CTR_ROOTLESS, /* own user namespace (0 -> 1000) owning all the rest */
	CTR_OWN_TIME, /* CTR_OWN and a time namespace of its own */
	CTR_ROOTLESS_UNPRIV, /* CTR_ROOTLESS, served by a supervisor of uid 1000 */
};

typedef void (*script_fn)(int *res);

static char cgdir[128]; /* CG "/mntsnap-svns-PID" */

/* ---- the container's side ----------------------------------------------- */

static void die(const char *what)
{
	fprintf(stderr, "container setup: %s: %s\n", what, strerror(errno));
	_exit(100);
}

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die(path);
	close(fd);
}

static int filter(void)
{
	static const unsigned nrs[] = { SYS_mount, SYS_umount2, MNTSNAP_NR_fsopen,
					MNTSNAP_NR_fsconfig, MNTSNAP_NR_fsmount,
					MNTSNAP_NR_move_mount, MNTSNAP_NR_open_tree,
					MNTSNAP_NR_mount_setattr, MNTSNAP_NR_fspick };
	int fd = ms_notify_filter(nrs, sizeof(nrs) / sizeof(nrs[0]));

	if (fd < 0)
		die("seccomp");
	return fd;
}

static void drop_caps(void)
{
	if (ms_drop_caps())
		die("capset");
}

/* The container's init: its root, the filter, no capabilities, the script. */
static void ctr_init(script_fn script, int *res, int ready_w, int done_w, int go_r)
{
	int cfd;
	char c;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		die("private /");
	if (mount(ROOT, ROOT, NULL, MS_BIND | MS_REC, NULL) || chdir(ROOT))
		die("bind root");
	if (syscall(SYS_pivot_root, ".", "old") || umount2("/old", MNT_DETACH) || chdir("/"))
		die("pivot_root");
	cfd = filter();
	if (write(ready_w, &cfd, sizeof(cfd)) != sizeof(cfd))
		_exit(101);
	drop_caps();
	script(res);
	if (write(done_w, "x", 1) != 1)
		_exit(102);
	while (read(go_r, &c, 1) > 0)
		;
	_exit(0);
}

/* Between us and the container: enters its cgroup, unshares, forks init. */
static void ctr_parent(enum ctr_mode mode, script_fn script, int *res, int ready_w, int fd_w,
		       int done_w, int go_r)
{
	int flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWCGROUP | CLONE_NEWUTS;
	char path[192];
	pid_t init;
	int st;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	snprintf(path, sizeof(path), "%s/ctr/cgroup.procs", cgdir);
	put(path, "0");
	if (mode != CTR_SHARED)
		flags |= CLONE_NEWNET | CLONE_NEWIPC;
	if (mode == CTR_OWN_TIME)
		flags |= CLONE_NEWTIME;
	if (mode == CTR_ROOTLESS || mode == CTR_ROOTLESS_UNPRIV) {
		if (setgroups(0, NULL) || setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
			die("uid 1000");
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		if (unshare(CLONE_NEWUSER))
			die("unshare(CLONE_NEWUSER)");
		put("/proc/self/setgroups", "deny");
		put("/proc/self/uid_map", "0 1000 1");
		put("/proc/self/gid_map", "0 1000 1");
	}
	if (unshare(flags))
		die("unshare");
	init = fork();
	if (init < 0)
		die("fork");
	if (init == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		ctr_init(script, res, fd_w, done_w, go_r);
	}
	/* the init's pid as we see it, for pidfd_getfd */
	if (write(ready_w, &init, sizeof(init)) != sizeof(init))
		_exit(103);
	if (waitpid(init, &st, 0) != init)
		_exit(104);
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 105);
}

/* ---- the stand-in host and its supervisor ------------------------------- */

/*
 * What the stand-in host's supervisor process reports to the test: it
 * runs in namespaces of its own (pid 1 of a throw-away pid namespace, so
 * its /proc is its own) and may not use Criterion's assertions, so it
 * writes everything here and the test process judges.
 */
struct report {
	int res[NRES];       /* the container's script results */
	int box_status;      /* the container's parent's exit status */
	int host_sys_err;    /* a write to the host's sysfs after the run */
	int host_mq_err;     /* a new queue in the host's mqueue after the run */
	int mounts_changed;  /* the host's mount table differs after the run */
	char err[512];       /* a setup failure, "" if none */
	size_t audit_len;
	char audit[65536];
};

static struct report *rep;

static void sfail(const char *what)
{
	snprintf(rep->err, sizeof(rep->err), "%s: %s", what, strerror(errno));
	_exit(1);
}

static char *slurp(const char *path)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (!buf || fd < 0)
		sfail(path);
	while ((r = read(fd, buf + n, cap - n - 1)) > 0)
		n += (size_t)r;
	close(fd);
	buf[n] = '\0';
	return buf;
}

/* The host's own net devices, queue, sysfs and mqueue mounts, a marker. */
static void host_setup(void)
{
	int fd;

	if (unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWCGROUP | CLONE_NEWUTS))
		sfail("unshare");
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		sfail("the host's /proc");
	if (fork() == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	if (system("ip link add svhost0 type veth peer name svhost1"))
		sfail("ip link add");
	if (mkdir(HOSTSYS, 0755) || mount("sysfs", HOSTSYS, "sysfs", 0, NULL))
		sfail("the host's sysfs");
	if (mkdir(HOSTMQ, 0755) || mount("mqueue", HOSTMQ, "mqueue", 0, NULL))
		sfail("the host's mqueue");
	fd = open(HOSTMQ "/svhostq", O_CREAT | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		sfail("the host's queue");
	close(fd);
}

/* The stand-in host's sysfs and mqueue still take writes. */
static void host_check(void)
{
	int fd = open(HOSTSYS "/class/net/svhost0/ifalias", O_WRONLY | O_CLOEXEC);

	rep->host_sys_err = fd < 0 ? errno : 0;
	if (fd >= 0) {
		if (write(fd, "x\n", 2) != 2)
			rep->host_sys_err = errno;
		close(fd);
	}
	fd = open(HOSTMQ "/svhostq2", O_CREAT | O_RDWR | O_CLOEXEC, 0600);
	rep->host_mq_err = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	unlink(HOSTMQ "/svhostq2");
}

static void on_audit(const struct mntsnap_sv_event *ev, void *data)
{
	char line[8192];
	int n = mntsnap_sv_event_json(ev, line, sizeof(line));

	(void)data;
	if (n > 0 && rep->audit_len + (size_t)n < sizeof(rep->audit)) {
		memcpy(rep->audit + rep->audit_len, line, (size_t)n + 1);
		rep->audit_len += (size_t)n;
	}
}

/* Serve the notify fd until the container's script is done. */
static void serve(const struct mntsnap_policy *pol, int nfd, int done_r)
{
	MNTSNAP_OPTS(mntsnap_supervisor_opts, o, .audit = on_audit);
	struct mntsnap_supervisor *sv;

	if (mntsnap_supervisor_new(pol, &o, &sv) || mntsnap_supervisor_add(sv, nfd, "box"))
		sfail("supervisor");
	for (;;) {
		struct pollfd p[2] = { { mntsnap_supervisor_fd(sv), POLLIN, 0 },
				       { done_r, POLLIN, 0 } };

		if (poll(p, 2, 30000) < 1)
			sfail("the container hangs");
		if (p[0].revents && mntsnap_supervisor_dispatch(sv, 0) < 0)
			sfail("dispatch");
		if (p[1].revents)
			break;
	}
	mntsnap_supervisor_free(sv);
}

/*
 * The same by a supervisor that is the rootless container's owner, uid
 * 1000 without capabilities: it has CAP_SYS_ADMIN over the container's
 * namespaces only inside its user namespace, so it joins that first.
 */
static void serve_unprivileged(const struct mntsnap_policy *pol, int nfd, int done_r)
{
	pid_t z = fork();
	int st;

	if (z < 0)
		sfail("fork");
	if (z == 0) {
		if (setgroups(0, NULL) || setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
			sfail("uid 1000");
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		serve(pol, nfd, done_r);
		_exit(0);
	}
	if (waitpid(z, &st, 0) != z || !WIFEXITED(st) || WEXITSTATUS(st))
		_exit(1); /* its sfail() said why */
	close(nfd);
}

/* Start the container, serve it until its script is done, let it go. */
static void serve_box(const struct mntsnap_policy *pol, script_fn script, enum ctr_mode mode)
{
	int ready[2], fdp[2], done[2], go[2], cfd, pidfd, nfd, st;
	pid_t mid, init;

	if (pipe2(ready, O_CLOEXEC) | pipe2(done, O_CLOEXEC) | pipe2(go, O_CLOEXEC) |
	    pipe2(fdp, O_CLOEXEC))
		sfail("pipe");
	mid = fork();
	if (mid < 0)
		sfail("fork");
	if (mid == 0) {
		close(ready[0]);
		close(fdp[0]);
		close(done[0]);
		close(go[1]);
		ctr_parent(mode, script, rep->res, ready[1], fdp[1], done[1], go[0]);
	}
	close(ready[1]);
	close(fdp[1]);
	close(done[1]);
	close(go[0]);
	if (read(ready[0], &init, sizeof(init)) != sizeof(init) ||
	    read(fdp[0], &cfd, sizeof(cfd)) != sizeof(cfd))
		sfail("the container failed to start");
	pidfd = (int)syscall(MNTSNAP_NR_pidfd_open, init, 0);
	nfd = pidfd < 0 ? -1 : (int)syscall(NR_pidfd_getfd_, pidfd, cfd, 0);
	if (nfd < 0)
		sfail("pidfd_getfd");
	close(pidfd);
	if (mode == CTR_ROOTLESS_UNPRIV)
		serve_unprivileged(pol, nfd, done[0]);
	else
		serve(pol, nfd, done[0]);
	close(go[1]);
	close(done[0]);
	close(ready[0]);
	close(fdp[0]);
	if (waitpid(mid, &st, 0) != mid)
		sfail("waitpid");
	rep->box_status = st;
}

/* The supervisor's process: pid 1 of the stand-in host's pid namespace. */
static void host_main(const struct mntsnap_policy *pol, script_fn script, enum ctr_mode mode)
{
	char *before, *after;

	host_setup();
	before = slurp("/proc/self/mountinfo");
	serve_box(pol, script, mode);
	after = slurp("/proc/self/mountinfo");
	rep->mounts_changed = strcmp(before, after) != 0;
	host_check();
	_exit(0);
}

/*
 * One case: the container's tree and cgroups here, then the stand-in
 * host (whose pid 1 is the supervisor) runs it; its report comes back.
 */
static struct report *run_case(struct mntsnap_policy *pol, script_fn script, enum ctr_mode mode)
{
	static const char *const dirs[] = { "/mnt/p", "/mnt/s", "/mnt/q", "/mnt/cg", "/mnt/t",
					    "/mnt/b", "/old" };
	char p[256];
	pid_t host;
	int st;

	ms_private_ns(BASE);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), ROOT "%s", dirs[i]);
		ms_mkdir_p(p);
	}
	rep = mmap(NULL, sizeof(*rep), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert(rep != MAP_FAILED);
	memset(rep, 0, sizeof(*rep));
	for (int i = 0; i < NRES; i++)
		rep->res[i] = -1;
	/*
	 * The container's cgroup and a sibling it must never see, in the real
	 * hierarchy (removed below; no assertion between here and there, so
	 * a failure cannot leave them behind).
	 */
	ms_mkdir_p(CG);
	cr_assert_eq(mount("cgroup2", CG, "cgroup2", 0, NULL), 0, "cgroup2: %s", strerror(errno));
	snprintf(cgdir, sizeof(cgdir), CG "/mntsnap-svns-%d", (int)getpid());
	host = mkdir(cgdir, 0755) ? -1 : 0;
	snprintf(p, sizeof(p), "%s/ctr", cgdir);
	if (!host && mkdir(p, 0755))
		host = -1;
	snprintf(p, sizeof(p), "%s/sibling", cgdir);
	if (!host && mkdir(p, 0755))
		host = -1;
	/*
	 * The stand-in host is pid 1 of a new pid namespace: made by clone(),
	 * not by unshare(CLONE_NEWPID) here, which would leave this test
	 * process unable to create another task once the host exits (its pid
	 * namespace's init gone: clone fails with ENOMEM), and LeakSanitizer's
	 * check at the end creates one.
	 */
	if (!host)
		host = (pid_t)syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, NULL, NULL, NULL, NULL);
	if (host == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		host_main(pol, script, mode);
	}
	st = -1;
	if (host > 0 && waitpid(host, &st, 0) != host)
		st = -1;
	mntsnap_policy_free(pol);
	snprintf(p, sizeof(p), "%s/ctr", cgdir);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/sibling", cgdir);
	rmdir(p);
	rmdir(cgdir);
	cr_assert_gt(host, 0, "cgroups or fork: %s", strerror(errno));
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "stand-in host: status %d: %s", st,
		  rep->err);
	cr_expect(WIFEXITED(rep->box_status) && WEXITSTATUS(rep->box_status) == 0,
		  "container status %d", rep->box_status);
	if (getenv("MS_SV_DUMP"))
		fprintf(stderr, "%s", rep->audit);
	cr_expect_not(rep->mounts_changed, "the stand-in host's mount table changed");
	cr_expect_eq(rep->host_sys_err, 0, "the host's /sys after the run: %s",
		     strerror(rep->host_sys_err));
	cr_expect_eq(rep->host_mq_err, 0, "the host's /dev/mqueue after the run: %s",
		     strerror(rep->host_mq_err));
	return rep;
}

/*
 * proc, sysfs, mqueue, cgroup2, binfmt_misc and tmpfs on /mnt/ and below,
 * with force; grant: one MNTSNAP_POLICY_GRANT_* set per type, or NULL.
 */
static struct mntsnap_policy *ns_policy(const unsigned *grant)
{
	static const char *const types[] = { "proc", "sysfs", "mqueue", "cgroup2", "binfmt_misc",
					     "tmpfs" };
	static const char *const force[] = { "nosuid", "nodev", "noexec", NULL };
	struct mntsnap_policy *p;

	cr_assert_eq(mntsnap_policy_new(false, EPERM, &p), 0);
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		MNTSNAP_OPTS(mntsnap_policy_rule, r, .fstype = types[i], .target = "/mnt/*",
			     .force = force, .grant = grant ? grant[i] : 0);

		cr_assert_eq(mntsnap_policy_add(p, &r, NULL), 0);
	}
	return p;
}

/* ---- what the container reads ------------------------------------------- */

static int try_mount(const char *src, const char *tgt, const char *type, unsigned long fl,
		     const char *data)
{
	return mount(src, tgt, type, fl, data) ? errno : 0;
}

/* Entries of dir other than except (NULL: all); -errno if unreadable. */
static int count_entries(const char *dir, const char *except, bool numeric, bool dirs_only)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (except && !strcmp(e->d_name, except))
			continue;
		if (numeric && (e->d_name[0] < '0' || e->d_name[0] > '9'))
			continue;
		if (dirs_only && e->d_type != DT_DIR)
			continue;
		n++;
	}
	closedir(d);
	return n;
}

/* 0 if a write of text to path worked, else its errno. */
static int try_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return errno;
	if (write(fd, text, strlen(text)) < 0)
		r = errno;
	close(fd);
	return r;
}

static void script_views(int *res)
{
	res[0] = try_mount("proc", "/mnt/p", "proc", 0, NULL);
	/* the container's own processes: its init, pid 1, alone */
	res[1] = count_entries("/mnt/p", "1", true, false);
	/* a throw-away uts namespace: harmless if it works, but it must not */
	res[2] = try_write("/mnt/p/sys/kernel/domainname", "svns\n");
	res[3] = try_mount("sysfs", "/mnt/s", "sysfs", 0, NULL);
	res[4] = access("/mnt/s/class/net/svhost0", F_OK) ? 0 : 1;
	res[5] = count_entries("/mnt/s/class/net", "lo", false, false);
	res[6] = open("/mnt/s/class/net/lo/ifalias", O_WRONLY | O_CLOEXEC) < 0 ? errno : 0;
	res[7] = try_mount("mqueue", "/mnt/q", "mqueue", 0, NULL);
	res[8] = access("/mnt/q/svhostq", F_OK) ? 0 : 1;
	res[9] = try_mount("cgroup2", "/mnt/cg", "cgroup2", 0, NULL);
	res[10] = count_entries("/mnt/cg", NULL, false, true);
	res[11] = try_mount("none", "/mnt/t", "tmpfs", 0, NULL);
	{
		struct stat st;

		res[12] = stat("/mnt/t", &st) ? -errno : (int)st.st_uid;
	}
	/* binfmt_misc: one instance per user namespace (6.7+) */
	res[13] = try_mount("binfmt_misc", "/mnt/b", "binfmt_misc", 0, NULL);
	/* the cgroup2 made for it: read-only, like the runtime's own */
	res[14] = mkdir("/mnt/cg/sub", 0755) ? errno : 0;
	if (!res[14])
		rmdir("/mnt/cg/sub");
	res[15] = try_write("/mnt/cg/cgroup.max.descendants", "max");
}

static void expect_views(const int *r, bool rootless)
{
	/* proc: the container's pid namespace, or refused */
	if (!r[0]) {
		cr_expect_eq(r[1], 0, "proc shows %d processes beside the container's init", r[1]);
		cr_expect_neq(r[2], 0, "a write to kernel.domainname through the new proc worked");
	} else {
		cr_expect(rootless, "proc refused: %s", strerror(r[0]));
	}
	/* sysfs: the container's net devices (lo), never the host's veth */
	if (!r[3]) {
		cr_expect_eq(r[4], 0, "sysfs shows the host's svhost0");
		cr_expect_eq(r[5], 0, "sysfs shows %d net devices beside lo", r[5]);
		cr_expect_eq(r[6], EROFS, "sysfs is not read-only: %s", strerror(r[6]));
	} else {
		cr_expect(rootless, "sysfs refused: %s", strerror(r[3]));
	}
	cr_expect_eq(r[7], 0, "mqueue: %s", strerror(r[7]));
	cr_expect_eq(r[8], 0, "mqueue shows the host's queue");
	/* cgroup2: rooted at the container's cgroup, which has no children */
	if (!r[9]) {
		cr_expect_eq(r[10], 0, "cgroup2 shows %d cgroups below the container's root", r[10]);
		cr_expect_eq(r[14], EROFS, "a cgroup made in the new cgroup2: %s", strerror(r[14]));
		/* the permission check comes first; the kernel refuses with EACCES */
		cr_expect(r[15] == EROFS || r[15] == EACCES,
			  "the container's cgroup.max.descendants written: %s", strerror(r[15]));
	} else
		cr_expect(rootless, "cgroup2 refused: %s", strerror(r[9]));
	cr_expect_eq(r[11], 0, "tmpfs: %s", strerror(r[11]));
	/* the container's root owns a tmpfs made for it */
	cr_expect_eq(r[12], 0, "tmpfs root owned by uid %d in the container", r[12]);
	/*
	 * binfmt_misc without a user namespace of its own would be the host's
	 * (an interpreter registered there runs for every host exec): refused.
	 * In its own user namespace, its own instance or refused by a kernel
	 * before 6.7.
	 */
	if (!rootless)
		cr_expect_eq(r[13], EPERM, "binfmt_misc of the host's user namespace: %s",
			     strerror(r[13]));
}

LTest(supervisor_ns, views_of_a_container_without_user_namespace, .timeout = 60)
{
	struct report *r = run_case(ns_policy(NULL), script_views, CTR_OWN);

	expect_views(r->res, false);
}

/* The worker that joins a time namespace is a fork(), not a CLONE_VM child. */
LTest(supervisor_ns, views_of_a_container_with_its_own_time_namespace, .timeout = 60)
{
	struct report *r = run_case(ns_policy(NULL), script_views, CTR_OWN_TIME);

	expect_views(r->res, false);
}

LTest(supervisor_ns, views_of_a_rootless_container_unprivileged_supervisor, .timeout = 60)
{
	struct report *r = run_case(ns_policy(NULL), script_views, CTR_ROOTLESS_UNPRIV);

	expect_views(r->res, true);
}

LTest(supervisor_ns, views_of_a_rootless_container, .timeout = 60)
{
	struct report *r = run_case(ns_policy(NULL), script_views, CTR_ROOTLESS);

	expect_views(r->res, true);
}

static void script_remounts(int *res)
{
	res[0] = try_mount("sysfs", "/mnt/s", "sysfs", 0, NULL);
	res[1] = try_mount(NULL, "/mnt/s", NULL, MS_REMOUNT | MS_RDONLY, NULL);
	res[2] = try_mount("mqueue", "/mnt/q", "mqueue", 0, NULL);
	res[3] = try_mount(NULL, "/mnt/q", NULL, MS_REMOUNT | MS_RDONLY, NULL);
	/* a superblock of its own: its remount works */
	res[4] = try_mount("none", "/mnt/t", "tmpfs", 0, NULL);
	res[5] = try_mount(NULL, "/mnt/t", NULL, MS_REMOUNT | MS_RDONLY, NULL);
	{
		int fd = open("/mnt/t/f", O_CREAT | O_WRONLY | O_CLOEXEC, 0600);

		res[6] = fd < 0 ? errno : 0;
		if (fd >= 0)
			close(fd);
	}
	/* its own proc superblock: remountable, but "subset=" never clears
	 * subset=pid, nor does a bind remount make a sysfs writable */
	res[7] = try_mount("proc", "/mnt/p", "proc", 0, NULL);
	res[8] = try_mount(NULL, "/mnt/p", NULL, MS_REMOUNT, "subset=");
	res[9] = access("/mnt/p/sys", F_OK) ? errno : 0;
	res[10] = try_mount(NULL, "/mnt/s", NULL, MS_REMOUNT | MS_BIND, NULL);
	res[11] = open("/mnt/s/class/net/lo/ifalias", O_WRONLY | O_CLOEXEC) < 0 ? errno : 0;
}

LTest(supervisor_ns, remount_of_a_shared_superblock_refused, .timeout = 60)
{
	struct report *r = run_case(ns_policy(NULL), script_remounts, CTR_SHARED);

	cr_expect_eq(r->res[0], 0, "sysfs: %s", strerror(r->res[0]));
	cr_expect_eq(r->res[1], EPERM, "remount of the host's sysfs superblock: %s",
		     strerror(r->res[1]));
	cr_expect_eq(r->res[2], 0, "mqueue: %s", strerror(r->res[2]));
	cr_expect_eq(r->res[3], EPERM, "remount of the host's mqueue superblock: %s",
		     strerror(r->res[3]));
	cr_expect_eq(r->res[4], 0, "tmpfs: %s", strerror(r->res[4]));
	cr_expect_eq(r->res[5], 0, "remount of its own tmpfs: %s", strerror(r->res[5]));
	cr_expect_eq(r->res[6], EROFS, "its tmpfs after remount,ro: %s", strerror(r->res[6]));
	cr_expect(strstr(r->audit, "\"reason\":\"shared superblock\""), "audit:\n%s", r->audit);
	cr_expect_eq(r->res[7], 0, "proc: %s", strerror(r->res[7]));
	cr_expect_eq(r->res[8], 0, "remount of its own proc: %s", strerror(r->res[8]));
	cr_expect_eq(r->res[9], ENOENT, "/proc/sys after remount with subset=: %s",
		     strerror(r->res[9]));
	cr_expect_eq(r->res[10], 0, "bind remount of its sysfs: %s", strerror(r->res[10]));
	cr_expect_eq(r->res[11], EROFS, "its sysfs after a bind remount: %s", strerror(r->res[11]));
}

/* What the grants lift, and that the audit names them. */
static void script_granted(int *res)
{
	struct stat st;

	res[0] = try_mount("proc", "/mnt/p", "proc", 0, NULL);
	res[1] = count_entries("/mnt/p", "1", true, false);
	res[2] = access("/mnt/p/sys/kernel", F_OK) ? errno : 0;
	res[3] = try_mount("sysfs", "/mnt/s", "sysfs", 0, NULL);
	res[4] = count_entries("/mnt/s/class/net", "lo", false, false);
	res[5] = open("/mnt/s/class/net/lo/ifalias", O_WRONLY | O_CLOEXEC) < 0 ? errno : 0;
	res[6] = try_mount("none", "/mnt/t", "tmpfs", 0, NULL);
	res[7] = stat("/mnt/t", &st) ? -errno : (int)st.st_uid;
	res[8] = try_mount("cgroup2", "/mnt/cg", "cgroup2", 0, NULL);
	res[9] = mkdir("/mnt/cg/sub", 0755) ? errno : 0;
	if (!res[9])
		rmdir("/mnt/cg/sub");
}

LTest(supervisor_ns, grants_full_proc_writable_sysfs_and_cgroup, .timeout = 60)
{
	static const unsigned grant[] = { MNTSNAP_POLICY_GRANT_FULL_PROC,
					  MNTSNAP_POLICY_GRANT_WRITABLE_SYSFS, 0,
					  MNTSNAP_POLICY_GRANT_WRITABLE_CGROUP, 0, 0 };
	struct report *r = run_case(ns_policy(grant), script_granted, CTR_OWN);

	cr_expect_eq(r->res[0], 0, "proc: %s", strerror(r->res[0]));
	/* still the container's pid namespace, now with its non-process files */
	cr_expect_eq(r->res[1], 0, "proc shows %d processes beside the init", r->res[1]);
	cr_expect_eq(r->res[2], 0, "a full proc has /proc/sys: %s", strerror(r->res[2]));
	cr_expect_eq(r->res[3], 0, "sysfs: %s", strerror(r->res[3]));
	cr_expect_eq(r->res[4], 0, "sysfs shows %d devices beside lo", r->res[4]);
	cr_expect_eq(r->res[5], 0, "a writable sysfs: %s", strerror(r->res[5]));
	cr_expect(strstr(r->audit, "\"options_applied\":\"nosuid,nodev,noexec\",\"rule\":0,") &&
		  strstr(r->audit, "\"grant\":\"full-proc\""), "audit:\n%s", r->audit);
	cr_expect(strstr(r->audit, "\"grant\":\"writable-sysfs\""), "audit:\n%s", r->audit);
	cr_expect_eq(r->res[8], 0, "cgroup2: %s", strerror(r->res[8]));
	cr_expect_eq(r->res[9], 0, "a cgroup made in a writable cgroup2: %s", strerror(r->res[9]));
	cr_expect(strstr(r->audit, "\"grant\":\"writable-cgroup\""), "audit:\n%s", r->audit);
}

/*
 * host-credentials: a tmpfs made with the supervisor's credentials is
 * owned by them (the container sees the overflow uid), the proof that
 * without the grant the worker really takes the container's.
 */
LTest(supervisor_ns, grant_host_credentials, .timeout = 60)
{
	static const unsigned grant[] = { 0, 0, 0, 0, 0, MNTSNAP_POLICY_GRANT_HOST_CREDENTIALS };
	struct report *r = run_case(ns_policy(grant), script_granted, CTR_ROOTLESS);

	cr_expect_eq(r->res[6], 0, "tmpfs: %s", strerror(r->res[6]));
	cr_expect_eq(r->res[7], 65534, "tmpfs root owned by uid %d in the container", r->res[7]);
	cr_expect(strstr(r->audit, "\"grant\":\"host-credentials\""), "audit:\n%s", r->audit);
}
