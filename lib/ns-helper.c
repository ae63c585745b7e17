// SPDX-License-Identifier: MIT
/*
 * The helper process that enters a mount namespace, does one piece of work
 * there and reports back: in the memory it shares with the caller, plus a
 * socketpair when the result is an fd.
 *
 * Why clone(CLONE_VM|CLONE_VFORK) and not fork() or a thread:
 *  - setns(CLONE_NEWNS) needs an unshared fs_struct, so a multithreaded
 *    caller cannot enter itself; a child without CLONE_FS can.
 *  - fork() copies the caller's page tables: fork+exit+wait costs 0.6-0.8
 *    ms small and ~7 ms at 512 MiB resident (tests/bench/bench-ns on the
 *    2-core test VM, results-ns-2cores.txt). A CLONE_VM child copies
 *    nothing: a no-op helper round trip is 52-59 us whatever the caller's
 *    size, and the "<= 100 us, independent of memory size" target leaves
 *    no other process-based choice.
 *  - A CLONE_VM child runs on the caller's TLS, so the calling thread must
 *    not run meanwhile: CLONE_VFORK suspends it until the child exits. The
 *    child may then use libc (malloc included) exactly like that thread
 *    would; locks are shared memory and work across both.
 *  - A thread that unshare(CLONE_FS)s is faster still, but cannot have its
 *    own fd table closed, its own parent-death signal or be killed on a
 *    timeout; the hardening below needs a process.
 * Consequences: results are left in the shared heap for the caller to
 * take over once the child has exited (child_replied), never streamed;
 * and the timeout is the child's own ITIMER_REAL (its SIGALRM kills it),
 * since the suspended caller cannot watch a clock. Known limit of any CLONE_VM
 * helper: a child killed by that timeout while it holds a libc lock
 * (inside malloc, say) leaves the lock held in the caller; the default
 * timeout is 10 s for work that takes milliseconds, and a target cannot
 * stall a capture or a stat into it: inside, the helper opens nothing
 * of the target's but what it was asked to (its /proc included: a
 * capture's text and change detector come through the caller's procfs).
 *
 * Hardening, in order, before the target is touched: parent-death SIGKILL
 * (and a getppid() check for the race), PR_SET_DUMPABLE 0 (on the shared
 * mm, see mntsnap__dumpable_hold), PR_SET_NO_NEW_PRIVS, every fd closed but the
 * socket, the namespace fd, the target process's root and, for captures,
 * the caller's procfs (0-2 included), capabilities cut to
 * CAP_SYS_ADMIN + CAP_SYS_CHROOT (what setns needs), then after setns to
 * the work's own needs (none for captures, opens and callbacks unless the
 * caller asks; CAP_SYS_ADMIN for open_tree), and for the library's own
 * work a seccomp filter against opens relative to the target's root or
 * cwd (child_confine). Nothing is ever executed.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mntsnap-config.h"
#include "backends.h"
#include "mntsnap.h"
#include "proc.h"
#include "ns.h"
#include "snapshot.h"


#if defined(__SANITIZE_ADDRESS__)
#define HELPER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HELPER_ASAN 1
#endif
#endif
#ifdef HELPER_ASAN
#include <sanitizer/asan_interface.h>
/*
 * The child _exit()s from deep inside its own stack, so ASan never sees
 * those frames return and their poison stays in the shadow of the range;
 * the next mapping at the same address would report false errors.
 */
#define helper_stack_unpoison(p, n) __asan_unpoison_memory_region((p), (n))
#else
#define helper_stack_unpoison(p, n) ((void)(p), (void)(n))
#endif

#define CLONE_NEWNS_ 0x00020000
#define CLONE_NEWUSER_ 0x10000000
#define CAP_SYS_CHROOT_ 18
#define CAP_SYS_ADMIN_ 21
#ifndef __WALL
#define __WALL 0x40000000
#endif

#define HELPER_STACK MNTSNAP_HELPER_STACK
/*
 * openat2 EAGAIN retries: a count alone is not enough where the walk is
 * slow (a loaded machine preempts it) and a storm of mounts keeps the
 * mount seqcount moving; the tries go on, yielding the CPU after the first
 * few, until OPENAT2_RETRY_NS has passed (the helper's own timeout still
 * bounds the whole call).
 */
#define OPENAT2_EAGER 16
#define OPENAT2_RETRY_NS 2000000000LL
#define DEFAULT_TIMEOUT_MS 10000
/* the child's message for a plain setns failure; anything else is detail */
#define SETNS_MSG "setns"

enum {
	STEP_PREPARE = 1,
	STEP_CAPS,
	STEP_SETNS,
	STEP_WORK,
	STEP_SEND,
};

struct helper;
typedef int (*helper_work_fn)(struct helper *h);

/* capget/capset's _LINUX_CAPABILITY_VERSION_3 layout: two 32-bit words */
struct cap_hdr_ {
	uint32_t version;
	int pid;
};
struct cap_data_ {
	uint32_t effective, permitted, inheritable;
};

struct helper {
	int sock;            /* the child's end */
	int nsfd;            /* what to setns() into */
	int rootfd;          /* the target process's root, or -1 */
	int procfd;          /* the caller's procfs (captures), or -1 */
	int byuuidfd;        /* the caller's /dev/disk/by-uuid (UUID asked), or -1 */
	pid_t ppid;
	unsigned timeout_ms;
	uint64_t keep_caps;  /* after setns */
	struct cap_data_ caps[2]; /* child: its current set, saves a capget */
	helper_work_fn work;
	void *arg;
	int step;            /* child: where it is, for error replies */
	bool joined;         /* child: entered the owner user namespace */
	bool want_fd;        /* the work's result is an fd: needs the socket */
	bool stay;           /* no setns, capabilities untouched: the helper only
			      * bounds a lookup by its timeout */
	/* the reply: written by the child, read once it has exited */
	bool replied;        /* written last, see child_replied() */
	int status;          /* 0 or -errno */
	int failed_step;     /* STEP_* that failed */
	void *out_buf;       /* result bytes, malloc'd in the (shared) heap */
	size_t out_len;
	char msg[200];       /* detail for an error reply */
};

struct helper_result {
	void *buf;
	size_t len;
	int fd;
	int step;
	char msg[200];
};

/* ---- the child's side ------------------------------------------------------ */

/*
 * How the child answers. It shares the caller's memory (CLONE_VM), so it
 * writes the answer straight into the caller's struct helper, and results
 * that are memory (a callback's bytes, a snapshot) stay where the child
 * malloc'd them, in the caller's own heap: handed over, never copied or
 * re-encoded. A socket or the wire format would protect nothing here, as
 * the producer is this process's code in this address space, not the
 * target, and at 1,000 mounts encoding, decoding and the fresh pages they
 * touch cost ~1 ms against the ~100 us budget for entering. Only an fd
 * needs the kernel (the child's fd table is its own): it travels over a
 * socketpair with SCM_RIGHTS, made only for work that opens something.
 */
/* CLOCK_MONOTONIC in ns, from the vDSO: no system call in the helper */
static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void child_replied(struct helper *h)
{
	/* last store: the caller trusts the other fields only after it */
	__atomic_store_n(&h->replied, true, __ATOMIC_RELEASE);
}

/* Ownership of buf (malloc'd, may be NULL) passes to the caller. */
static int child_reply_bytes(struct helper *h, void *buf, size_t len)
{
	h->out_buf = buf;
	h->out_len = buf ? len : 0;
	child_replied(h);
	return 0;
}

static int child_reply_fd(struct helper *h, int fd)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} u;
	char byte = 0;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b,
			     .msg_controllen = sizeof(u.b) };
	struct cmsghdr *cm;
	ssize_t n;

	h->step = STEP_SEND;
	memset(&u, 0, sizeof(u));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	do
		n = sendmsg(h->sock, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		return n < 0 ? -errno : -EIO;
	child_replied(h);
	return 0;
}

static void child_reply_error(struct helper *h, int err)
{
	h->status = err;
	h->failed_step = h->step;
	child_replied(h);
}

static int close_range_(unsigned lo, unsigned hi)
{
	long max;
	int r;

	if (lo > hi)
		return 0;
	r = (int)mntsnap__sys_close_range(lo, hi, 0);
	if (r != -ENOSYS)
		return r;
	/* before 5.9: the slow way, bounded by the fd limit */
	max = sysconf(_SC_OPEN_MAX);

	for (long fd = lo; fd <= (long)hi && fd < (max > 0 ? max : 65536); fd++)
		close((int)fd);
	return 0;
}

/* Close every fd but the n in keep (0-2 included: the helper prints nothing). */
static int close_all_but(int *keep, int n)
{
	unsigned next = 0;
	int r = 0;

	/* tiny n: insertion sort */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
			int t = keep[j];

			keep[j] = keep[j - 1];
			keep[j - 1] = t;
		}
	for (int i = 0; i < n && !r; i++) {
		if (keep[i] < 0)
			continue;
		if ((unsigned)keep[i] > next)
			r = close_range_(next, (unsigned)keep[i] - 1);
		next = (unsigned)keep[i] + 1;
	}
	if (!r)
		r = close_range_(next, ~0U);
	return r;
}

/*
 * Effective and permitted = their current value & keep; inheritable = 0,
 * which also empties the ambient set (the kernel keeps ambient within
 * permitted & inheritable), so no PR_CAP_AMBIENT call is needed. Raw
 * capget/capset rather than libcap: every syscall costs ~1 us on a VM,
 * of a ~100 us budget, and libcap would malloc and probe more; h->caps
 * carries the set from one cut to the next, so only the first cut (and
 * one after joining a user namespace, which grants a new set) reads it.
 */
static int caps_limit(struct helper *h, uint64_t keep, bool reread)
{
	struct cap_hdr_ hdr = { .version = 0x20080522, .pid = 0 };
	bool same = !reread;

	if (reread) {
		long r = mntsnap__sys_capget(&hdr, h->caps);

		if (r)
			return (int)r;
	}
	for (int i = 0; i < 2; i++) {
		uint32_t k = (uint32_t)(keep >> (32 * i));
		struct cap_data_ *d = &h->caps[i];

		same = same && !(d->effective & ~k) && !(d->permitted & ~k) && !d->inheritable;
		d->effective &= k;
		d->permitted &= k;
		d->inheritable = 0;
	}
	if (same)
		return 0; /* already within keep: skip the syscall */
	return (int)mntsnap__sys_capset(&hdr, h->caps);
}

static void child_set_msg(struct helper *h, const char *what, int err)
{
	size_t n = strlen(what);

	if (n >= sizeof(h->msg))
		n = sizeof(h->msg) - 1;
	memcpy(h->msg, what, n);
	h->msg[n] = '\0';
	(void)err;
}

/*
 * After setns the helper's root and cwd are the target's, so any path
 * libc resolves on its own lands in the target's tree: glibc's malloc
 * opens /proc/sys/vm/overcommit_memory the first time a thread's arena
 * shrinks, its strerror() opens message catalogs under /usr/share/locale
 * in a non-C locale. A FIFO or a FUSE mount that never answers there
 * stalls the helper inside malloc or gettext until the timeout kills it,
 * the lock still held, and the caller's next malloc in that arena hangs
 * for good; a file there is the target's word about the host's settings.
 * So before library work inside, a seccomp filter on the helper alone
 * (a filter belongs to the task, not the shared memory) fails every open
 * relative to the root or the cwd with ENOENT, which libc takes as "no
 * such file" and its defaults: the work opens only relative to fds held
 * from before (the caller's procfs, the target process's root) or with
 * openat2 from one. The filter is not there for mntsnap_ns_run: its
 * callbacks may open the target's files on purpose. No arch check: the
 * helper makes native syscalls only, and a foreign one this filter
 * happened to match would fail, not pass.
 */
static int child_confine(struct helper *h)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint32_t arg0_lo = MNTSNAP_SECCOMP_DATA_ARG0;
#else
	const uint32_t arg0_lo = MNTSNAP_SECCOMP_DATA_ARG0 + 4;
#endif
	const uint32_t enoent = MNTSNAP_SECCOMP_RET_ERRNO | ENOENT;
	struct mntsnap_sock_filter f[] = {
		{ MNTSNAP_BPF_LD_W_ABS, 0, 0, MNTSNAP_SECCOMP_DATA_NR },
#ifdef SYS_open
		{ MNTSNAP_BPF_JEQ_K, 0, 1, SYS_open },
		{ MNTSNAP_BPF_RET_K, 0, 0, enoent },
#endif
#ifdef SYS_creat
		{ MNTSNAP_BPF_JEQ_K, 0, 1, SYS_creat },
		{ MNTSNAP_BPF_RET_K, 0, 0, enoent },
#endif
		{ MNTSNAP_BPF_JEQ_K, 0, 3, SYS_openat },
		{ MNTSNAP_BPF_LD_W_ABS, 0, 0, arg0_lo },
		{ MNTSNAP_BPF_JEQ_K, 0, 1, (uint32_t)AT_FDCWD },
		{ MNTSNAP_BPF_RET_K, 0, 0, enoent },
		{ MNTSNAP_BPF_RET_K, 0, 0, MNTSNAP_SECCOMP_RET_ALLOW },
	};
	struct mntsnap_sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	int r;

	/* no_new_privs is set (child_prepare), so no capability is needed */
	r = (int)mntsnap__sys_seccomp(MNTSNAP_SECCOMP_SET_MODE_FILTER, 0, &prog);
	if (r)
		child_set_msg(h, "seccomp filter against path lookups in the target", -r);
	return r;
}

static int child_prepare(struct helper *h)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };
	struct itimerval it = { { 0, 0 }, { 0, 0 } };
	sigset_t mask;
	int r;

	h->step = STEP_PREPARE;
	r = (int)mntsnap__sys_prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (r)
		return child_set_msg(h, "PR_SET_PDEATHSIG", -r), r;
	/* the parent may have died before the line above took effect */
	if (getppid() != h->ppid)
		_exit(127);
	/* our own timer: the caller is suspended and cannot watch a clock */
	sigaction(SIGALRM, &sa, NULL);
	sigfillset(&mask);
	sigdelset(&mask, SIGALRM);
	sigprocmask(SIG_SETMASK, &mask, NULL);
	it.it_value.tv_sec = h->timeout_ms / 1000;
	it.it_value.tv_usec = (long)(h->timeout_ms % 1000) * 1000;
	if (setitimer(ITIMER_REAL, &it, NULL))
		return child_set_msg(h, "setitimer", errno), -errno;
	r = (int)mntsnap__sys_prctl(PR_SET_DUMPABLE, 0);
	if (r)
		return child_set_msg(h, "PR_SET_DUMPABLE", -r), r;
	r = (int)mntsnap__sys_prctl(PR_SET_NO_NEW_PRIVS, 1);
	if (r)
		return child_set_msg(h, "PR_SET_NO_NEW_PRIVS", -r), r;
	int keep[5] = { h->sock, h->nsfd, h->rootfd, h->procfd, h->byuuidfd };

	if (close_all_but(keep, 5))
		return child_set_msg(h, "close_range", errno), -errno;
	if (h->stay)
		return 0; /* resolves as the caller would, with its rights */
	h->step = STEP_CAPS;
	r = caps_limit(h, 1ULL << CAP_SYS_ADMIN_ | 1ULL << CAP_SYS_CHROOT_, true);
	if (r)
		child_set_msg(h, "dropping capabilities", -r);
	return r;
}

/*
 * setns(CLONE_NEWNS) needs CAP_SYS_ADMIN over the user namespace owning
 * the target. A rootless container's owner (no capabilities out here) has
 * it only once inside that user namespace, so on EPERM join it first, as
 * nsenter, crun and runc do. Root in the initial user namespace already
 * holds the capability over every descendant and never gets here. Joining
 * cannot be undone, which is fine for a child about to exit; it grants a
 * full capability set in that user namespace, which the cut after setns
 * takes back to keep_caps like any other.
 */
static int child_join_owner(struct helper *h)
{
	int ufd = -1, r;

	r = mntsnap__ns_owner_userns(h->nsfd, &ufd);
	if (r == -ENOENT)
		return -EPERM; /* our own: our capabilities decide, none to gain */
	if (!r) {
		r = (int)mntsnap__sys_setns(ufd, CLONE_NEWUSER_);
		close(ufd);
		h->joined = !r;
	}
	/* whatever stopped the join, the answer is the kernel's first EPERM */
	if (r) {
		mntsnap__ns_owner_why(h->nsfd, h->msg, sizeof(h->msg));
		return -EPERM;
	}
	r = (int)mntsnap__sys_setns(h->nsfd, CLONE_NEWNS);
	if (r)
		child_set_msg(h, "setns after joining the target's owner user namespace", -r);
	return r;
}

static int child_setns(struct helper *h)
{
	int r;

	h->step = STEP_SETNS;
	r = (int)mntsnap__sys_setns(h->nsfd, CLONE_NEWNS);
	if (!r)
		return 0;
	child_set_msg(h, SETNS_MSG, -r);
	return r == -EPERM ? child_join_owner(h) : r;
}

static int helper_child(void *arg)
{
	struct helper *h = arg;
	int r = child_prepare(h);

	if (!r && !h->stay)
		r = child_setns(h);
	if (!r && !h->stay) {
		close(h->nsfd);
		h->step = STEP_CAPS;
		r = caps_limit(h, h->keep_caps, h->joined);
		if (r)
			child_set_msg(h, "dropping capabilities after setns", -r);
	}
	if (!r) {
		h->step = STEP_WORK;
		r = h->work(h);
	}
	if (r < 0)
		child_reply_error(h, r);
	_exit(0);
}

/* ---- the caller's side ----------------------------------------------------- */

/*
 * PR_SET_DUMPABLE lives on the mm, which the child shares: setting it 0 in
 * the child makes the whole caller non-dumpable while any helper runs. The
 * value before the first helper is put back after the last one. This
 * count is process-wide state (as are the statmount probe cache and the
 * kernel release read once): it mirrors a process-wide kernel flag, so it
 * cannot hang off a caller's handle.
 */
static pthread_mutex_t dump_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned dump_holders;
static int dump_saved;

void mntsnap__dumpable_hold(void)
{
	pthread_mutex_lock(&dump_lock);
	if (dump_holders++ == 0)
		dump_saved = (int)mntsnap__sys_prctl(PR_GET_DUMPABLE, 0);
	pthread_mutex_unlock(&dump_lock);
}

void mntsnap__dumpable_release(void)
{
	pthread_mutex_lock(&dump_lock);
	if (--dump_holders == 0 && dump_saved == 1)
		mntsnap__sys_prctl(PR_SET_DUMPABLE, 1);
	pthread_mutex_unlock(&dump_lock);
}

/* The fd the child sent; the child has exited, so it is there or never. */
static int recv_fd(int sock, int *ret_fd)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} u;
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b,
			     .msg_controllen = sizeof(u.b) };
	struct cmsghdr *cm;
	int fd = -1;
	ssize_t n;

	do
		n = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
		    cm->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	if (fd >= 0 && (n != 1 || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))) {
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		return -EBADMSG;
	fd = mntsnap__fd_move_above_stdio(fd);
	if (fd < 0)
		return fd;
	*ret_fd = fd;
	return 0;
}

static int collect_reply(struct helper *h, int sock, const siginfo_t *si,
			 struct helper_result *res)
{
	if (!__atomic_load_n(&h->replied, __ATOMIC_ACQUIRE)) {
		/* the child's last step is in shared memory: say where it died */
		res->step = h->step;
		if (si->si_code == CLD_KILLED && si->si_status == SIGALRM) {
			snprintf(res->msg, sizeof(res->msg), "killed by its %u ms timeout",
				 h->timeout_ms);
			return -ETIMEDOUT;
		}
		snprintf(res->msg, sizeof(res->msg), "died without an answer (%s %d)",
			 si->si_code == CLD_EXITED ? "exit status" : "signal", si->si_status);
		return -ECHILD;
	}
	if (h->status) {
		res->step = h->failed_step;
		memcpy(res->msg, h->msg, sizeof(res->msg));
		res->msg[sizeof(res->msg) - 1] = '\0';
		return h->status < 0 ? h->status : -EBADMSG;
	}
	res->buf = h->out_buf;
	res->len = h->out_len;
	return h->want_fd ? recv_fd(sock, &res->fd) : 0;
}

static int opts_load(const struct mntsnap_ns_opts *in, struct mntsnap_ns_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->sz = sizeof(*o);
	return OPTS_LOAD_ERR(o, in, "mntsnap_ns_opts");
}

static const char *step_name(int step)
{
	switch (step) {
	case STEP_PREPARE:
		return "helper process, before entering the target namespace";
	case STEP_CAPS:
		return "helper process, dropping capabilities";
	case STEP_SETNS:
		return "helper process, entering the target namespace";
	case STEP_WORK:
		return "helper process, inside the target namespace";
	case STEP_SEND:
		return "helper process, inside the target namespace, sending the result";
	default:
		return "helper process";
	}
}

static int result_error(const struct helper_result *res, int r, struct mntsnap_error *err)
{
	if (!err)
		return r;
	if (res->step == STEP_SETNS && (r == -EPERM || r == -EACCES)) {
		/* the child's finding about the owner user namespace beats a
		 * guess from the caller's own capabilities */
		if (res->msg[0] && strcmp(res->msg, SETNS_MSG))
			return mntsnap__set_error(err, r, 0,
						 "helper process, setns into the target: %s: %s",
						 strerror(-r), res->msg);
		return mntsnap__ns_explain(r, "helper process, setns into the target", err);
	}
	/* a capture's message already ends in the reason: say it once */
	if (res->step && strstr(res->msg, strerror(-r)))
		return mntsnap__set_error(err, r, 0, "%s: %s", step_name(res->step), res->msg);
	if (res->step)
		return mntsnap__set_error(err, r, 0, "%s%s%s: %s", step_name(res->step),
					 res->msg[0] ? ": " : "", res->msg, strerror(-r));
	return mntsnap__ns_explain(r, "helper process (caller's side)", err);
}

static size_t stack_map_size(void)
{
	return mntsnap_helper_stack_map_size();
}

/* A stack with a guard page below it: an overflow faults in the child. */
static char *stack_get(const struct mntsnap_ns *ns)
{
	struct mntsnap_ns *mut = (struct mntsnap_ns *)ns; /* only the atomic cache */
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *st = atomic_exchange(&mut->stack_cache, NULL);

	if (st)
		return st;
	st = mmap(NULL, stack_map_size(), PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (st == MAP_FAILED)
		return NULL;
	if (mprotect(st, page, PROT_NONE)) {
		munmap(st, stack_map_size());
		return NULL;
	}
	return st;
}

static void stack_put(const struct mntsnap_ns *ns, char *st)
{
	struct mntsnap_ns *mut = (struct mntsnap_ns *)ns;
	void *expect = NULL;

	helper_stack_unpoison(st + stack_map_size() - HELPER_STACK, HELPER_STACK);
	if (!atomic_compare_exchange_strong(&mut->stack_cache, &expect, st))
		munmap(st, stack_map_size());
}

/*
 * Run h->work inside ns. Fills res (buf malloc'd, or fd). The child is
 * always reaped before this returns: the calling thread stays suspended
 * until it has exited, and then waits for the zombie.
 */
/*
 * Run the child on the CPU the caller is on. The caller is suspended for
 * the child's whole life, so that CPU is free; left to itself the
 * scheduler starts a new task on the idlest CPU, and on a VM waking an
 * idle vCPU costs tens of us twice: once to start the child, once to wake
 * the caller when it exits (measured here: 30-40 us each; pinned, the
 * no-op round trip went from ~80 to 52-59 us and entering around a
 * 1,000-mount capture from ~120 to 64-78 us over the capture, the figures
 * doc/benchmark-notes.md gives). The child inherits the calling
 * thread's affinity at clone(), so it is narrowed just around clone() and
 * put back. Best effort: a mask that cannot be read or set (more than
 * CPU_SETSIZE CPUs, a seccomp policy) just means no pinning. Another
 * thread setting this thread's affinity during those microseconds would
 * see its change undone by the restore; we accept that rare race.
 */
struct cpu_pin {
	cpu_set_t saved;
	bool pinned;
};

static void pin_to_this_cpu(struct cpu_pin *p)
{
	int cpu = sched_getcpu();
	cpu_set_t one;

	p->pinned = false;
	if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof(p->saved), &p->saved))
		return;
	if (CPU_COUNT(&p->saved) <= 1)
		return; /* already pinned by the caller */
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	p->pinned = !sched_setaffinity(0, sizeof(one), &one);
}

static void unpin(struct cpu_pin *p)
{
	if (p->pinned)
		sched_setaffinity(0, sizeof(p->saved), &p->saved);
}

static void close_pair(int *sv)
{
	for (int i = 0; i < 2; i++)
		if (sv[i] >= 0)
			close(sv[i]);
}

static int helper_run(const struct mntsnap_ns *ns, struct helper *h,
		      const struct mntsnap_ns_opts *o, struct helper_result *res)
{
	int sv[2] = { -1, -1 }, nsfd = -1;
	struct cpu_pin pin;
	bool owned = false;
	siginfo_t si;
	char *stack;
	pid_t pid;
	int r;

	memset(res, 0, sizeof(*res));
	res->fd = -1;
	if (!ns)
		return -EINVAL;
	r = mntsnap__ns_check_alive(ns);
	if (r)
		return r;
	if (!h->stay) {
		r = mntsnap__ns_enter_fd(ns, &nsfd, &owned);
		if (r)
			return r;
	}
	if (h->want_fd && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		r = -errno;
		goto out;
	}
	stack = stack_get(ns);
	if (!stack) {
		r = -errno;
		goto out;
	}
	h->sock = sv[1];
	h->nsfd = nsfd;
	h->ppid = getpid();
	h->timeout_ms = o->timeout_ms ? o->timeout_ms : DEFAULT_TIMEOUT_MS;

	mntsnap__dumpable_hold();
	pin_to_this_cpu(&pin);
	/* exit signal 0: a caller's SIGCHLD handler reaping with waitpid(-1)
	 * never steals this child (only __WALL/__WCLONE waits see it) */
	pid = (int)mntsnap__sys_clone(helper_child, stack + stack_map_size(), CLONE_VM | CLONE_VFORK, h);
	r = pid < 0 ? pid : 0;
	unpin(&pin);
	mntsnap__dumpable_release();
	stack_put(ns, stack);
	if (!r) {
		memset(&si, 0, sizeof(si));
		while (mntsnap__sys_waitid(P_PID, (unsigned)pid, &si, WEXITED | __WALL) == -EINTR)
			;
		r = collect_reply(h, sv[0], &si, res);
	}
out:
	close_pair(sv);
	if (owned)
		close(nsfd);
	return r;
}

/* ---- the work --------------------------------------------------------------- */

struct run_work {
	mntsnap_ns_fn fn;
	void *data;
};

static int work_run(struct helper *h)
{
	struct run_work *w = h->arg;
	void *buf = NULL;
	size_t len = 0;
	int r = w->fn(w->data, &buf, &len);

	if (r < 0) {
		free(buf);
		child_set_msg(h, "callback", -r);
		return r;
	}
	return child_reply_bytes(h, buf, len);
}

int mntsnap__ns_run(const struct mntsnap_ns *ns, mntsnap_ns_fn fn, void *data,
		   const struct mntsnap_ns_opts *opts, void **ret_buf, size_t *ret_len)
{
	struct run_work w = { .fn = fn, .data = data };
	struct helper h = { .work = work_run, .arg = &w, .rootfd = -1, .procfd = -1,
			    .byuuidfd = -1 };
	struct helper_result res;
	struct mntsnap_ns_opts o;
	int r;

	if (!fn)
		return -EINVAL;
	r = opts_load(opts, &o);
	if (r)
		return r;
	h.keep_caps = o.keep_caps;
	r = helper_run(ns, &h, &o, &res);
	if (r)
		return result_error(&res, r, o.error);
	/* NULL outs: the caller wants no result; one fn made anyway is freed */
	if (ret_buf)
		*ret_buf = res.buf;
	else
		free(res.buf);
	if (ret_len)
		*ret_len = res.len;
	return 0;
}

int mntsnap_ns_run(const struct mntsnap_ns *ns, mntsnap_ns_fn fn, void *data,
		   const struct mntsnap_ns_opts *opts, void **ret_buf, size_t *ret_len)
{
	return mntsnap__ns_run(ns, fn, data, opts, ret_buf, ret_len);
}

struct open_work {
	const char *path;
	int flags;
	unsigned mode;
	bool tree;
};

static int work_open(struct helper *h)
{
	struct open_work *w = h->arg;
	struct mntsnap_open_how how = { 0 };
	int root, fd, r;

	/*
	 * Resolve from the target process's root when there is a process (a
	 * chroot()ed container's root is not its namespace's root); else
	 * from "/", which after setns is the namespace root.
	 */
	root = h->rootfd >= 0 ? h->rootfd : open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return -errno;
	/* from here on only openat2 from root and open_tree of its result */
	r = h->stay ? 0 : child_confine(h);
	if (r) {
		if (root != h->rootfd)
			close(root);
		return r;
	}
	how.flags = (uint64_t)(unsigned)(w->tree ? O_PATH : w->flags) | O_CLOEXEC;
	if (!w->tree && (w->flags & (O_CREAT | O_TMPFILE)))
		how.mode = w->mode;
	/* symlinks (absolute or ..) cannot climb out of the target's root */
	how.resolve = MNTSNAP_RESOLVE_IN_ROOT | MNTSNAP_RESOLVE_NO_MAGICLINKS;
	/*
	 * Under RESOLVE_IN_ROOT a ".." fails with EAGAIN when any mount or
	 * rename happened anywhere meanwhile, and openat2(2) says to retry:
	 * a target that mounts in a loop (or just a busy host) hits it
	 * often, but one lookup takes microseconds, so a few tries get
	 * through; the bound keeps a pathological case finite.
	 */
	for (long long tries = 0, t0 = 0;; tries++) {
		fd = (int)mntsnap__sys_openat2(root, w->path, &how);
		r = fd < 0 ? fd : 0;
		if (r != -EAGAIN)
			break;
		if (tries == OPENAT2_EAGER)
			t0 = now_ns();
		else if (tries > OPENAT2_EAGER) {
			if (now_ns() - t0 > OPENAT2_RETRY_NS)
				break;
			sched_yield();
		}
	}
	if (root != h->rootfd)
		close(root);
	if (r) {
		child_set_msg(h, "openat2", -r);
		return r;
	}
	if (w->tree) {
		int t = (int)mntsnap__sys_open_tree(fd, "",
						    MNTSNAP_OPEN_TREE_CLONE | MNTSNAP_OPEN_TREE_CLOEXEC |
							    MNTSNAP_AT_RECURSIVE | AT_EMPTY_PATH);

		r = t < 0 ? t : 0;
		close(fd);
		if (r) {
			child_set_msg(h, "open_tree", -r);
			return r;
		}
		fd = t;
	}
	r = child_reply_fd(h, fd);
	close(fd);
	return r;
}

static int open_common(const struct mntsnap_ns *ns, struct open_work *w,
		       const struct mntsnap_ns_opts *opts, int *ret_fd)
{
	struct helper h = { .work = work_open, .arg = w, .rootfd = -1, .procfd = -1,
			    .byuuidfd = -1, .want_fd = true };
	struct helper_result res;
	struct mntsnap_ns_opts o;
	int r;

	if (!w->path || !*w->path || !ret_fd)
		return -EINVAL;
	r = opts_load(opts, &o);
	if (r)
		return r;
	h.keep_caps = o.keep_caps;
	if (w->tree)
		h.keep_caps |= 1ULL << CAP_SYS_ADMIN_; /* open_tree clones need it */
	h.rootfd = ns ? mntsnap__task_root_fd(ns->pidfd, ns->piddir) : -ENOENT;
	if (h.rootfd < 0 && h.rootfd != -ENOENT)
		return mntsnap__ns_explain(h.rootfd, "the target process's root", o.error);
	r = helper_run(ns, &h, &o, &res);
	if (h.rootfd >= 0)
		close(h.rootfd);
	if (r)
		return result_error(&res, r, o.error);
	*ret_fd = res.fd;
	return 0;
}

int mntsnap__ns_open_file(const struct mntsnap_ns *ns, const char *path, int flags,
			 unsigned mode, const struct mntsnap_ns_opts *opts, int *ret_fd)
{
	struct open_work w = { .path = path, .flags = flags, .mode = mode };

	return open_common(ns, &w, opts, ret_fd);
}

int mntsnap_ns_open_file(const struct mntsnap_ns *ns, const char *path, int flags,
			 unsigned mode, const struct mntsnap_ns_opts *opts, int *ret_fd)
{
	return mntsnap__ns_open_file(ns, path, flags, mode, opts, ret_fd);
}

int mntsnap_ns_clone_tree(const struct mntsnap_ns *ns, const char *path,
			  const struct mntsnap_ns_opts *opts, int *ret_fd)
{
	struct open_work w = { .path = path, .tree = true };

	return open_common(ns, &w, opts, ret_fd);
}

/*
 * A lookup in a target's tree can wait for good: a FUSE filesystem whose
 * daemon never answers holds every lookup below its mount point, and only
 * a fatal signal ends that wait. In the calling thread nothing could
 * bound it; in a helper its timeout does (SIGALRM kills it in the
 * syscall, where it holds no lock of the caller's). It needs to enter
 * nothing: rootfd is the target's root, reached through /proc/PID/root.
 */
int mntsnap__helper_open_at(const struct mntsnap_ns *ns, int rootfd, const char *path,
			   int *ret_fd)
{
	struct open_work w = { .path = path, .flags = O_PATH };
	struct helper h = { .work = work_open, .arg = &w, .rootfd = rootfd, .procfd = -1,
			    .byuuidfd = -1, .want_fd = true, .stay = true };
	struct mntsnap_ns_opts o = { .sz = sizeof(o) };
	struct helper_result res;
	int r;

	if (rootfd < 0 || !path || !ret_fd)
		return -EINVAL;
	r = helper_run(ns, &h, &o, &res);
	if (r)
		return r;
	*ret_fd = res.fd;
	return 0;
}

/*
 * A snapshot comes back by pointer like any reply (see child_replied): the
 * child builds it in the shared heap and the caller takes it over.
 */
struct snap_handover {
	struct mntsnap_snapshot *snap; /* set by the child, last thing before replying */
};

static int child_hand_over(struct helper *h, struct snap_handover *out,
			   struct mntsnap_snapshot *s)
{
	out->snap = s;
	return child_reply_bytes(h, NULL, 0);
}

static int take_snapshot(struct snap_handover *out, int r, struct mntsnap_snapshot **ret_snap)
{
	if (r) {
		/* a reply lost after the hand-over: the snapshot is still ours */
		mntsnap__snapshot_free(out->snap);
		return r;
	}
	if (!out->snap)
		return -EBADMSG;
	*ret_snap = out->snap;
	return 0;
}

struct stat_work {
	const struct mntsnap_sysops *sys;
	uint64_t id;
	uint32_t mask;
	struct snap_handover out;
};

/*
 * The caller's udev /dev/disk/by-uuid for the UUID's udev step, opened
 * before the helper enters (inside, /dev is the target's); -1 if the
 * UUID is not asked or there is none.
 */
static int caller_byuuid(uint32_t mask)
{
	if (!(mask & MNTSNAP_F_UUID))
		return -1;
	return open("/dev/disk/by-uuid", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
}

/* Inside, the target is our own namespace: a plain statmount of the id. */
static int work_stat_id(struct helper *h)
{
	struct stat_work *w = h->arg;
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_ns in = { .nsfd = -1, .pidfd = -1, .piddir = -1, .self = true, .inside = true,
				 .host_proc = -1, .root_fd = -1, .byuuid_fd = h->byuuidfd };
	int r;

	/* before the filter: "/" is the namespace root now, as mount points are */
	if (w->mask & MNTSNAP_F_UUID)
		in.root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	r = child_confine(h);
	if (!r)
		r = mntsnap__sm_stat_one(w->sys, &in, MNTSNAP_NS_ROUTE_AUTO, w->id, w->mask, &s);
	if (in.root_fd >= 0)
		close(in.root_fd);
	if (r) {
		child_set_msg(h, "statmount", -r);
		return r;
	}
	return child_hand_over(h, &w->out, s);
}

int mntsnap__helper_stat_id(const struct mntsnap_ns *ns, const struct mntsnap_sysops *sys,
			   uint64_t id, uint32_t mask, struct mntsnap_snapshot **ret_snap)
{
	struct stat_work w = { .sys = sys, .id = id, .mask = mask };
	struct helper h = { .work = work_stat_id, .arg = &w, .rootfd = -1, .procfd = -1,
			    .byuuidfd = -1 };
	struct mntsnap_ns_opts no = { .sz = sizeof(no) };
	struct helper_result res;
	int r;

	h.byuuidfd = caller_byuuid(mask);
	r = helper_run(ns, &h, &no, &res);
	if (h.byuuidfd >= 0)
		close(h.byuuidfd);
	return take_snapshot(&w.out, r, ret_snap);
}

struct capture_work {
	const struct mntsnap_capture_opts *o;
	const struct mntsnap_sysops *sys;
	uint64_t ns_id;
	struct snap_handover out;
};

static int work_capture(struct helper *h)
{
	struct capture_work *w = h->arg;
	struct mntsnap_capture_opts c = *w->o;
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error e = { 0 };
	/* inside, the target is our own namespace, but its /proc is not ours
	 * to trust: text and change detector come from h->procfd */
	struct mntsnap_ns in = { .nsfd = -1, .pidfd = -1, .piddir = -1, .ns_id = w->ns_id, .self = true,
				 .inside = true, .host_proc = h->procfd, .root_fd = -1,
				 .byuuid_fd = h->byuuidfd };
	int r;

	/* before the filter: "/" is the namespace root now, as mount points are */
	if (c.mask & MNTSNAP_F_UUID)
		in.root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	r = child_confine(h);
	if (r)
		goto out;
	/* no worker threads here */
	c.sz = sizeof(c);
	c.ns = &in;
	c.threads = 0;
	c.error = &e;
	c.flags &= ~(uint32_t)(MNTSNAP_CAPTURE_NS_DIRECT | MNTSNAP_CAPTURE_NS_ENTER);
	r = mntsnap__capture_source(&c, w->sys, MNTSNAP_NS_ROUTE_AUTO, &s);
	if (r) {
		snprintf(h->msg, sizeof(h->msg), "capture: %.*s", (int)sizeof(h->msg) - 10,
			 e.msg[0] ? e.msg : "failed");
		goto out;
	}
	r = child_hand_over(h, &w->out, s);
out:
	if (in.root_fd >= 0)
		close(in.root_fd);
	return r;
}

/*
 * The caller's procfs, for the helper to read its own mountinfo by after
 * entering. Checked to be a procfs: a caller's /proc that is something
 * else gives no text rather than wrong text. -1 when there is none.
 */
static int open_host_proc(void)
{
	int fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct statfs sf;
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstatfs(fd, &sf) || sf.f_type != MNTSNAP_PROC_SUPER_MAGIC || fstat(fd, &st) ||
	    st.st_ino != 1 /* PROC_ROOT_INO: its root, not a directory in it */) {
		close(fd);
		return -1;
	}
	return fd;
}

int mntsnap__helper_capture(const struct mntsnap_ns *ns, const struct mntsnap_capture_opts *o,
			   const struct mntsnap_sysops *sys, struct mntsnap_snapshot **ret_snap)
{
	struct capture_work w = { .o = o, .sys = sys, .ns_id = ns ? ns->ns_id : 0 };
	struct helper h = { .work = work_capture, .arg = &w, .rootfd = -1, .procfd = -1,
			    .byuuidfd = -1 };
	struct mntsnap_ns_opts no = { .sz = sizeof(no), .error = o->error };
	struct helper_result res;
	int r;

	h.procfd = open_host_proc();
	h.byuuidfd = caller_byuuid(o->mask);
	r = helper_run(ns, &h, &no, &res);
	if (h.procfd >= 0)
		close(h.procfd);
	if (h.byuuidfd >= 0)
		close(h.byuuidfd);
	if (r)
		r = result_error(&res, r, o->error);
	return take_snapshot(&w.out, r, ret_snap);
}
