// SPDX-License-Identifier: MIT
/*
 * The perform stage: a request is resolved, decided and performed
 * (sv-mount.c) by a worker process that is inside every namespace of the
 * caller, never only its mount namespace. A new filesystem instance takes
 * its namespaces from the task that creates it, not from the mount
 * namespace it is attached in: proc shows the creator's active pid
 * namespace, sysfs its net namespace's devices, mqueue its ipc
 * namespace's queues, cgroup2 is rooted at its cgroup namespace root, and
 * the superblock's owner user namespace comes from its credentials. A
 * worker that joined only the mount namespace gave a container the host's
 * /proc (and /proc/sys), /sys and queues.
 *
 * How (the user namespace first when its capabilities are needed to enter
 * the rest, as nsenter and Incus's forksyscall helpers do; Incus's
 * intercepted mount(2) enters only the mount namespace, with the caller's
 * own ids and capabilities, and is meant for block device types, whose
 * superblocks take nothing from the creator's namespaces):
 *  1. the supervisor opens the caller's /proc/PID/ns/{user,mnt,cgroup,
 *     ipc,net,pid,time} below its own procfs root (never across a mount),
 *     keeps those that differ from its own, and only then checks
 *     NOTIF_ID_VALID: if the pid was reused meanwhile the request is
 *     dropped, so the fds are the caller's;
 *  2. a CLONE_VM|CLONE_VFORK child (no copy of the supervisor's memory, no
 *     SIGCHLD, the calling thread suspended, its own ITIMER_REAL as the
 *     deadline, the mm non-dumpable meanwhile) cuts its fds and
 *     capabilities and setns()es into mnt, cgroup, ipc, net and pid
 *     (first into the user namespace when the supervisor has no
 *     CAP_SYS_ADMIN of its own: a rootless owner);
 *  3. setns(CLONE_NEWPID) never changes the caller's own pid namespace,
 *     only its children's: so for a new filesystem instance that child
 *     starts the worker, born in the container's pid namespace: another
 *     CLONE_VM|CLONE_VFORK child, or, when the container has a time
 *     namespace of its own, a fork() (a task sharing its mm may not join
 *     one: EUSERS). Copying the supervisor's page tables costs ~1.7 ms a
 *     request on the 2-core test VM, against ~0.1 ms for the CLONE_VM
 *     child, and no filesystem instance depends on the time namespace,
 *     so the copy is paid only then. Binds, remounts, moves and umounts
 *     create no superblock: the first child does them itself;
 *  4. the worker resolves the paths with the caller's fsuid, fsgid and
 *     supplementary groups (as_caller(); the supervisor read them from
 *     its procfs before NOTIF_ID_VALID) and decides, then, before
 *     mounting anything, puts its own back and takes the container's
 *     (become()): when the container has a user namespace of its own it
 *     joins it and becomes its root, so what it creates is owned by that
 *     user namespace and the kernel's own limits for it apply
 *     (FS_USERNS_MOUNT types only, locked mounts, "too revealing"
 *     proc/sysfs); only a rule granting MNTSNAP_POLICY_GRANT_HOST_CREDENTIALS
 *     keeps the supervisor's. Its capabilities meanwhile: CAP_SYS_ADMIN
 *     (mounts, setns), CAP_SYS_CHROOT (setns into a mount namespace),
 *     CAP_SETUID/CAP_SETGID until become(); never CAP_DAC_OVERRIDE or
 *     CAP_DAC_READ_SEARCH, which would let a lookup pass where the
 *     caller's could not;
 *  5. its results come back through a shared mapping (a forked worker has
 *     its own copy of everything else), and its mm is non-dumpable: a
 *     container that sees the worker in its pid namespace cannot ptrace
 *     it or read the supervisor's memory through its /proc/PID/mem. It
 *     can kill it (the worker is uid 0 there, like the container's root):
 *     the request then fails, unless the worker had attached the mount,
 *     which it announces with the mount's id in that mapping first
 *     (worker_lost()).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mntsnap.h"
#include "ns.h"
#include "proc.h"
#include "snapshot.h"
#include "supervisor.h"
#include "sys-seam.h"
#include "sys.h"
#include "uapi.h"

#define CAP_SETGID_ 6
#define CAP_SETUID_ 7
#define CAP_SYS_CHROOT_ 18
#define CAP_SYS_ADMIN_ 21
#define CLONE_NEWTIME_ 0x00000080
#define DEFAULT_TIMEOUT_MS 10000
#define WORKER_STACK (512 * 1024) /* each of the two children's */
#define APPLIED_MAX (3 * SV_DATA_MAX)
#define GROUPS_CMP_MAX 4096 /* compared one by one: beyond, taken as different */
#ifndef __WALL
#define __WALL 0x40000000
#endif

enum { NS_USER, NS_MNT, NS_CGROUP, NS_IPC, NS_NET, NS_PID, NS_TIME, NS_N };

static const struct {
	const char *name;
	int flag;
	bool optional; /* a kernel may lack it */
} kinds[NS_N] = {
	[NS_USER] = { "user", CLONE_NEWUSER, false },
	[NS_MNT] = { "mnt", CLONE_NEWNS, false },
	[NS_CGROUP] = { "cgroup", CLONE_NEWCGROUP, true },
	[NS_IPC] = { "ipc", CLONE_NEWIPC, false },
	[NS_NET] = { "net", CLONE_NEWNET, false },
	[NS_PID] = { "pid", CLONE_NEWPID, false },
	[NS_TIME] = { "time", CLONE_NEWTIME_, true },
};

/* What the worker hands back, in memory shared with the supervisor. */
struct outcome {
	bool done;
	bool worked;        /* the work ran: the fields below are its */
	uint64_t attaching; /* the mount about to be attached (see attaching()) */
	int status;
	int rule;
	bool own_sb;
	bool has_applied;
	uint64_t locked;
	uint64_t mnt_id;
	const char *reason; /* a string literal: same address in every copy */
	char grant[64];
	char rsource[SV_PATH_MAX], rtarget[SV_PATH_MAX], mfstype[SV_FSTYPE_MAX];
	char applied[APPLIED_MAX];
};

struct worker {
	struct sv_work w;
	int fd[NS_N];       /* -1: the supervisor's own, not joined */
	struct outcome *out;
	pid_t ppid;
	pid_t entered;      /* the entering child's pid (in its own pid namespace) */
	unsigned timeout_ms;
	char *stack2;       /* top of the worker's stack (a CLONE_VM worker) */
	bool need_child;    /* a new superblock in another pid or time namespace */
	bool forked;        /* the worker has its own mm (joins a time namespace) */
	bool joined_user;   /* entered the user namespace before the others */
	uint32_t caps[6];   /* capget/capset v3: effective, permitted, inheritable x2 */
	/* the caller's credentials, ids of the namespace the worker is in
	 * when it takes them (see as_caller()) */
	struct sv_creds creds;
	/* the worker's own, put back by as_self() */
	uint32_t *saved;    /* supplementary groups: room for nsaved */
	size_t nsaved;
	uint32_t saved_fsuid, saved_fsgid;
	bool as_caller;
	bool groups_set;
};

/* ---- the caller's namespaces ------------------------------------------- */

static void ns_close(int *fd)
{
	for (int i = 0; i < NS_N; i++) {
		if (fd[i] >= 0)
			close(fd[i]);
		fd[i] = -1;
	}
}

static bool same_file(int a, int b)
{
	struct stat x, y;

	return !fstat(a, &x) && !fstat(b, &y) && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/*
 * The caller's namespace files, through the supervisor's procfs root and
 * never across a mount; those it shares with the supervisor are left
 * out (-1). -ESRCH: the caller is gone; -EPERM: it is in the
 * supervisor's own mount namespace (the policy speaks of containers, and
 * a "/mnt" glob there would mean the host's /mnt).
 */
static int open_caller_ns(const struct sv_req *q, int *fd)
{
	int proc, dir, self = -1, r = 0;
	char rel[32];

	for (int i = 0; i < NS_N; i++)
		fd[i] = -1;
	proc = mntsnap__procfs_root();
	if (proc < 0)
		return proc;
	snprintf(rel, sizeof(rel), "%u/ns", q->n.pid);
	dir = mntsnap__proc_openat(proc, rel, O_PATH | O_DIRECTORY, 0);
	if (dir < 0)
		r = dir == -ENOENT ? -ESRCH : dir;
	else
		self = mntsnap__proc_openat(proc, "thread-self/ns", O_PATH | O_DIRECTORY, 0);
	if (!r && self < 0)
		r = self;
	for (int i = 0; !r && i < NS_N; i++) {
		int f = mntsnap__proc_ns_open(dir, kinds[i].name), own;

		if (f == -ENOENT && kinds[i].optional)
			continue;
		if (f < 0) {
			r = f == -ENOENT ? -ESRCH : f;
			break;
		}
		own = mntsnap__proc_ns_open(self, kinds[i].name);
		if (own >= 0 && same_file(f, own)) {
			close(f);
			f = -1;
			if (i == NS_MNT)
				r = -EPERM;
		}
		if (own >= 0)
			close(own);
		fd[i] = f;
	}
	if (self >= 0)
		close(self);
	if (dir >= 0)
		close(dir);
	close(proc);
	if (r)
		ns_close(fd);
	return r;
}

/* ---- inside: the worker's side ------------------------------------------ */

/* Effective and permitted cut to keep, inheritable (and so ambient) empty. */
static int caps_limit(struct worker *k, uint64_t keep)
{
	struct {
		uint32_t version;
		int pid;
	} hdr = { 0x20080522, 0 };
	long r = mntsnap__sys_capget(&hdr, k->caps);

	if (r)
		return (int)r;
	for (int i = 0; i < 2; i++) {
		uint32_t m = (uint32_t)(keep >> (32 * i));

		k->caps[3 * i] &= m;
		k->caps[3 * i + 1] &= m;
		k->caps[3 * i + 2] = 0;
	}
	return (int)mntsnap__sys_capset(&hdr, k->caps);
}

/* Close every fd but the namespace fds (0-2 included: nothing is printed). */
static int close_all_but(const int *keep)
{
	unsigned lo = 0;

	for (;;) {
		unsigned next = ~0U;
		long r;

		for (int i = 0; i < NS_N; i++)
			if (keep[i] >= 0 && (unsigned)keep[i] >= lo && (unsigned)keep[i] < next)
				next = (unsigned)keep[i];
		if (next > lo) {
			r = mntsnap__sys_close_range(lo, next - 1, 0);
			if (r)
				return (int)r;
		}
		if (next == ~0U)
			return 0;
		lo = next + 1;
	}
}

static int set_fsuid(uint32_t id)
{
	mntsnap__sys_setfsuid(id);
	return (uint32_t)mntsnap__sys_setfsuid(~0U) == id ? 0 : -EPERM;
}

static int set_fsgid(uint32_t id)
{
	mntsnap__sys_setfsgid(id);
	return (uint32_t)mntsnap__sys_setfsgid(~0U) == id ? 0 : -EPERM;
}

static bool same_groups(const struct sv_creds *c, const uint32_t *g, size_t n)
{
	if (c->ngroups != n || n > GROUPS_CMP_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;

		while (j < n && g[j] != c->groups[i])
			j++;
		if (j == n)
			return false;
	}
	return true;
}

/*
 * The caller's fsuid, fsgid and supplementary groups, taken after the
 * namespaces are entered and before any path of the request is looked
 * up: the lookups (RESOLVE_IN_ROOT, sv-mount.c) are then checked as the
 * kernel checks the caller's own, so a directory it may not search is
 * EACCES, never crossed with the supervisor's uid 0 (a uid 1000 process
 * bound /root/x, below a 0700 /root, and read it through the bind).
 * The kernel drops the filesystem capabilities (CAP_DAC_OVERRIDE,
 * CAP_DAC_READ_SEARCH, CAP_FOWNER, ...) from the effective set when
 * fsuid leaves 0; the worker holds none of them anyway. Raw syscalls:
 * they change this task only, never the supervisor's threads (libc's
 * setgroups is broadcast to every thread of the process). In a user
 * namespace whose setgroups is "deny" the groups cannot change: the
 * caller's must then be the worker's already, else -EPERM.
 */
static int as_caller(struct worker *k)
{
	const struct sv_creds *c = &k->creds;
	long n = mntsnap__sys_getgroups(k->nsaved, k->saved);
	int r;

	if (n < 0)
		return (int)n;
	k->nsaved = (size_t)n;
	k->saved_fsuid = (uint32_t)mntsnap__sys_setfsuid(~0U);
	k->saved_fsgid = (uint32_t)mntsnap__sys_setfsgid(~0U);
	k->as_caller = true;
	r = (int)mntsnap__sys_setgroups(c->ngroups, c->groups);
	k->groups_set = !r;
	if (r == -EPERM && same_groups(c, k->saved, k->nsaved))
		r = 0;
	if (!r)
		r = set_fsgid(c->fsgid);
	if (!r)
		r = set_fsuid(c->fsuid);
	return r;
}

/* The worker's own credentials back, for the mount itself. */
static int as_self(struct worker *k)
{
	int r = 0;

	if (!k->as_caller)
		return 0;
	if (k->groups_set)
		r = (int)mntsnap__sys_setgroups(k->nsaved, k->saved);
	if (!r)
		r = set_fsgid(k->saved_fsgid);
	if (!r)
		r = set_fsuid(k->saved_fsuid);
	k->as_caller = false;
	return r;
}

/*
 * The credentials a decided request is performed with (struct sv_work):
 * the worker's own back from the caller's (as_self()); then, in a
 * container with a user namespace of its own, its root there, with
 * CAP_SYS_ADMIN over that namespace only. Supplementary groups go first
 * (the host's groups mean nothing in there). Joining is for good: the
 * worker exits after this one request. Else the supervisor's ids with
 * CAP_SYS_ADMIN only.
 */
static int become(const struct sv_work *w, bool host)
{
	struct worker *k = w->ctx;
	int r = as_self(k);

	if (r)
		return r;
	/* CAP_SETUID/CAP_SETGID served as_caller() and as_self() only */
	if (k->fd[NS_USER] < 0 || k->joined_user || host)
		return caps_limit(k, 1ULL << CAP_SYS_ADMIN_);
	r = (int)mntsnap__sys_setgroups0();
	if (r && r != -EPERM)
		return r;
	r = (int)mntsnap__sys_setns(k->fd[NS_USER], CLONE_NEWUSER);
	if (r)
		return r;
	/* a user namespace without a root keeps the overflow ids, still
	 * owner of nothing outside it */
	if (!mntsnap__sys_setresgid(0, 0, 0))
		(void)mntsnap__sys_setresuid(0, 0, 0);
	return caps_limit(k, 1ULL << CAP_SYS_ADMIN_);
}

/* The work's results into the shared outcome (done not yet set). */
static void fill_out(struct worker *k, int r)
{
	struct outcome *o = k->out;
	struct sv_req *q = k->w.q;

	o->status = r;
	o->worked = true;
	o->rule = q->rule;
	o->own_sb = q->own_sb;
	o->locked = q->locked;
	o->mnt_id = q->mnt_id;
	o->reason = q->reason;
	memcpy(o->grant, q->grant, sizeof(o->grant));
	memcpy(o->rsource, q->rsource, sizeof(o->rsource));
	memcpy(o->rtarget, q->rtarget, sizeof(o->rtarget));
	memcpy(o->mfstype, q->mfstype, sizeof(o->mfstype));
	if (q->applied && strlen(q->applied) < sizeof(o->applied)) {
		strcpy(o->applied, q->applied);
		o->has_applied = true;
	} else if (q->applied && !r) {
		o->status = -E2BIG; /* performed but unreportable: cannot happen, 3 pages */
	}
}

static void copy_out(struct worker *k, int r)
{
	fill_out(k, r);
	__atomic_store_n(&k->out->done, true, __ATOMIC_RELEASE);
}

/*
 * Right before the new mount is attached: the request as it will stand
 * once the attach succeeds, and the mount's id, where the supervisor
 * reads them (shared memory) should the worker die before it reports
 * back: the container's root can SIGKILL a worker of its pid namespace
 * between the attach and the report (see run_worker()).
 */
static void attaching(const struct sv_work *w, uint64_t mnt_id)
{
	struct worker *k = w->ctx;

	fill_out(k, 0);
	__atomic_store_n(&k->out->attaching, mnt_id, __ATOMIC_RELEASE);
}

static void work(struct worker *k)
{
	void *buf = NULL;
	size_t len = 0;
	int r;

	r = k->w.q->kind == SV_UMOUNT ? mntsnap__sv_work_umount(&k->w, &buf, &len)
				      : mntsnap__sv_work_mount(&k->w, &buf, &len);
	copy_out(k, r);
}

/* The worker: in the container's pid namespace since its birth. */
static int worker_main(void *arg)
{
	struct worker *k = arg;
	int r = 0;

	if (k->forked)
		mntsnap__sys_prctl(PR_SET_DUMPABLE, 0); /* its own mm now */
	mntsnap__sys_prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* the parent's pid, 0 when it lives outside this pid namespace: else
	 * it died and the worker was reparented to someone inside */
	if (getppid() != (k->fd[NS_PID] >= 0 ? 0 : k->entered))
		_exit(127);
	if (k->forked && k->fd[NS_TIME] >= 0) {
		k->w.q->reason = "time namespace";
		r = (int)mntsnap__sys_setns(k->fd[NS_TIME], CLONE_NEWTIME_);
	}
	if (r)
		copy_out(k, r);
	else
		work(k);
	_exit(0);
}

static void fail_out(struct worker *k, int r)
{
	k->out->status = r;
	__atomic_store_n(&k->out->done, true, __ATOMIC_RELEASE);
	_exit(0);
}

/* The first child (CLONE_VM): cut, enter, start the worker or work. */
static int enter_main(void *arg)
{
	struct worker *k = arg;
	struct sigaction sa = { .sa_handler = SIG_DFL };
	struct itimerval it = { { 0, 0 }, { 0, 0 } };
	siginfo_t si;
	sigset_t mask;
	pid_t pid;
	int r = 0;

	k->w.q->reason = "namespaces";
	mntsnap__sys_prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != k->ppid)
		_exit(127);
	/* the shared mm: the supervisor's too, put back by dumpable_release */
	mntsnap__sys_prctl(PR_SET_DUMPABLE, 0);
	sigaction(SIGALRM, &sa, NULL);
	sigfillset(&mask);
	sigdelset(&mask, SIGALRM);
	sigprocmask(SIG_SETMASK, &mask, NULL);
	it.it_value.tv_sec = k->timeout_ms / 1000;
	it.it_value.tv_usec = (long)(k->timeout_ms % 1000) * 1000;
	if (setitimer(ITIMER_REAL, &it, NULL) || close_all_but(k->fd))
		_exit(126);
	/* a rootless owner has CAP_SYS_ADMIN over the rest only in there */
	if (k->fd[NS_USER] >= 0 && !mntsnap__cap_effective(CAP_SYS_ADMIN_)) {
		r = (int)mntsnap__sys_setns(k->fd[NS_USER], CLONE_NEWUSER);
		k->joined_user = !r;
	}
	if (!r)
		r = caps_limit(k, 1ULL << CAP_SYS_ADMIN_ | 1ULL << CAP_SYS_CHROOT_ |
					  1ULL << CAP_SETUID_ | 1ULL << CAP_SETGID_);
	for (int i = NS_MNT; !r && i <= NS_PID; i++)
		if (k->fd[i] >= 0)
			r = (int)mntsnap__sys_setns(k->fd[i], kinds[i].flag);
	if (!r) {
		k->w.q->reason = "credentials";
		r = as_caller(k); /* inherited by the worker it starts */
	}
	if (r)
		fail_out(k, r);
	if (!k->need_child) {
		work(k);
		_exit(0);
	}
	k->entered = getpid();
	k->forked = k->fd[NS_TIME] >= 0;
	if (k->forked) {
		pid = fork();
		if (pid == 0)
			worker_main(k);
	} else {
		pid = (pid_t)mntsnap__sys_clone(worker_main, k->stack2, CLONE_VM | CLONE_VFORK, k);
	}
	if (pid < 0)
		fail_out(k, pid == -1 ? -errno : pid);
	while (mntsnap__sys_waitid(P_PID, (unsigned)pid, &si, WEXITED | __WALL) == -EINTR)
		;
	_exit(0);
}

/* ---- the supervisor's side ---------------------------------------------- */

static void take_outcome(struct sv_req *q, const struct outcome *o)
{
	q->rule = o->rule;
	q->own_sb = o->own_sb;
	q->locked = o->locked;
	q->mnt_id = o->mnt_id;
	if (o->reason)
		q->reason = o->reason;
	memcpy(q->grant, o->grant, sizeof(q->grant));
	memcpy(q->rsource, o->rsource, sizeof(q->rsource));
	memcpy(q->rtarget, o->rtarget, sizeof(q->rtarget));
	memcpy(q->mfstype, o->mfstype, sizeof(q->mfstype));
	q->rsource[sizeof(q->rsource) - 1] = q->rtarget[sizeof(q->rtarget) - 1] = '\0';
	q->mfstype[sizeof(q->mfstype) - 1] = q->grant[sizeof(q->grant) - 1] = '\0';
	free(q->applied);
	q->applied = NULL;
	if (o->has_applied)
		q->applied = strndup(o->applied, sizeof(o->applied) - 1);
}

/*
 * Is the mount id attached in the caller's mount namespace (nsfd)? Asked
 * with statmount in that namespace (by its fd, its id, or a helper inside
 * it, lib/route.c): a mount that was never moved is in no namespace or an
 * anonymous one, and unknown there.
 */
static bool attached(struct mntsnap_supervisor *sv, int nsfd, uint64_t id)
{
	struct mntsnap_snapshot *snap = NULL;
	struct mntsnap_ns *ns;
	int r;

	if (mntsnap__ns_open_fd(nsfd, &ns))
		return false;
	/* not propagate_from: from outside it would cost a helper's text */
	r = mntsnap__stat_id_sys(&sv->sys, ns, id,
				 MNTSNAP_MASK_DEFAULT & ~(uint32_t)MNTSNAP_F_PROPAGATE_FROM, &snap);
	mntsnap__snapshot_free(snap);
	mntsnap__ns_free(ns);
	return !r;
}

/*
 * The worker ended without reporting back: killed (the container's root
 * may SIGKILL a worker of its pid namespace) or out of time. If it was
 * past announcing the attach of a new mount and that mount is in the
 * caller's namespace, the request happened: 0, and q as the work left it
 * (the mount is then recorded as the container's and audited with its
 * id). Else the error.
 */
static int worker_lost(struct mntsnap_supervisor *sv, struct sv_req *q, const int *fd,
		       const struct outcome *o, const siginfo_t *si)
{
	uint64_t id = __atomic_load_n(&o->attaching, __ATOMIC_ACQUIRE);

	if (id && attached(sv, fd[NS_MNT], id)) {
		take_outcome(q, o);
		q->mnt_id = id;
		q->reason = NULL;
		return 0;
	}
	if (si->si_code == CLD_KILLED && si->si_status == SIGALRM) {
		q->reason = "worker timeout";
		return -ETIMEDOUT;
	}
	q->reason = "worker died";
	return -ECHILD;
}

/*
 * Run the request's work in a worker inside the namespaces fd names,
 * resolving its paths with the caller's credentials c (taken over).
 */
static int run_worker(struct mntsnap_supervisor *sv, struct sv_req *q, int *fd,
		      struct sv_creds *c)
{
	struct worker k = { .w = { .q = q, .policy = sv->policy, .become = become,
				   .attaching = attaching, .sys = &sv->sys },
			    .out = NULL, .ppid = getpid(), .creds = *c,
			    .timeout_ms = sv->o.timeout_ms ? sv->o.timeout_ms : DEFAULT_TIMEOUT_MS };
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	long ngroups = mntsnap__sys_getgroups(0, NULL);
	siginfo_t si;
	char *stack;
	pid_t pid;
	int r;

	c->groups = NULL;
	k.w.ctx = &k;
	k.w.own_userns = fd[NS_USER] >= 0;
	memcpy(k.fd, fd, sizeof(k.fd));
	/* room for the worker's own groups: the same as this thread's */
	k.nsaved = ngroups > 0 ? (size_t)ngroups : 0;
	k.saved = calloc(k.nsaved + 1, sizeof(*k.saved));
	if (ngroups < 0 || !k.saved) {
		free(k.saved);
		free(k.creds.groups);
		return ngroups < 0 ? (int)ngroups : -ENOMEM;
	}
	k.out = mmap(NULL, sizeof(*k.out), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	if (k.out == MAP_FAILED) {
		r = -errno;
		free(k.saved);
		free(k.creds.groups);
		return r;
	}
	/* [guard][first child's stack][guard][worker's stack] */
	stack = mmap(NULL, 2 * (WORKER_STACK + page), PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED) {
		r = -errno;
		munmap(k.out, sizeof(*k.out));
		free(k.saved);
		free(k.creds.groups);
		return r;
	}
	mprotect(stack, page, PROT_NONE);
	mprotect(stack + WORKER_STACK + page, page, PROT_NONE);
	k.stack2 = stack + 2 * (WORKER_STACK + page);
	k.need_child = q->kind == SV_NEW && (fd[NS_PID] >= 0 || fd[NS_TIME] >= 0);
	mntsnap__dumpable_hold();
	/* exit signal 0: no SIGCHLD, and a caller's waitpid(-1) never sees it */
	pid = (pid_t)mntsnap__sys_clone(enter_main, stack + WORKER_STACK + page,
					CLONE_VM | CLONE_VFORK, &k);
	mntsnap__dumpable_release();
	r = pid < 0 ? pid : 0;
	if (!r) {
		memset(&si, 0, sizeof(si));
		while (mntsnap__sys_waitid(P_PID, (unsigned)pid, &si, WEXITED | __WALL) == -EINTR)
			;
		if (__atomic_load_n(&k.out->done, __ATOMIC_ACQUIRE)) {
			r = k.out->status;
			if (k.out->worked)
				take_outcome(q, k.out);
		} else {
			r = worker_lost(sv, q, fd, k.out, &si);
		}
	}
	munmap(stack, 2 * (WORKER_STACK + page));
	munmap(k.out, sizeof(*k.out));
	free(k.saved);
	free(k.creds.groups);
	return r;
}

static int root_identity(struct sv_req *q)
{
	struct mntsnap_statx st = { 0 };
	char path[64];

	snprintf(path, sizeof(path), "/proc/%u/root", q->n.pid);
	if (mntsnap__sv_statx(AT_FDCWD, path, 0, MNTSNAP_STATX_MNT_ID_UNIQUE, &st))
		return errno == ENOENT ? -ESRCH : -errno;
	if (!(st.stx_mask & MNTSNAP_STATX_MNT_ID_UNIQUE))
		return -EOPNOTSUPP;
	q->root_mnt = st.stx_mnt_id;
	q->root_ino = st.stx_ino;
	q->root_dev = makedev(st.stx_dev_major, st.stx_dev_minor);
	return 0;
}

/*
 * The caller's credentials (before NOTIF_ID_VALID, like everything read
 * about it), as ids of the user namespace the worker takes them in: the
 * supervisor's, unless the worker joins the caller's user namespace
 * first (a supervisor without CAP_SYS_ADMIN, see enter_main()).
 */
static int read_creds(struct sv_req *q, const int *fd, struct sv_creds *c)
{
	int r = mntsnap__sv_read_creds(q, c);

	if (!r && fd[NS_USER] >= 0 && !mntsnap__cap_effective(CAP_SYS_ADMIN_))
		r = mntsnap__sv_creds_inside(q, c);
	if (r && r != -ESRCH)
		q->reason = "credentials";
	return r;
}

/*
 * Open the caller's namespaces and root identity, prove with
 * NOTIF_ID_VALID (after the opens) that the pid still names the caller,
 * and run the work in a worker inside them. -ENOENT: the caller is gone.
 */
int mntsnap__sv_perform(struct mntsnap_supervisor *sv, struct sv_container *c, struct sv_req *q)
{
	struct sv_creds cr = { 0 };
	int fd[NS_N], r;

	q->reason = "caller gone";
	r = open_caller_ns(q, fd);
	if (r == -EPERM)
		q->reason = "supervisor's own namespace";
	if (!r)
		r = root_identity(q);
	if (!r)
		r = read_creds(q, fd, &cr);
	if (!r && mntsnap__sv_id_valid(sv, c, q->n.id))
		r = -ENOENT;
	if (r == -ESRCH)
		r = -ENOENT;
	if (r == -EMFILE || r == -ENFILE)
		q->reason = "supervisor's fd limit"; /* not the caller's doing */
	if (!r)
		r = run_worker(sv, q, fd, &cr);
	free(cr.groups);
	ns_close(fd);
	return r;
}
