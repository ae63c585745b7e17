// SPDX-License-Identifier: MIT
/*
 * The mount supervisor: answers seccomp user notifications for mount(2)
 * by deciding with a policy and performing the allowed mounts itself,
 * inside the caller's mount namespace, through the namespace helper.
 *
 * The order for each request is fixed, for safety:
 *  1. RECV the notification (zeroed first, as the kernel requires);
 *  2. read every argument from the caller's memory (process_vm_readv);
 *  3. open the caller's mount namespace through a pidfd and note the
 *     identity of its root;
 *  4. NOTIF_ID_VALID: the caller is still blocked in this very call, so
 *     the pid named it throughout 2-3 (pid reuse cannot redirect us);
 *  5. in the helper: check the root, resolve the paths inside it, decide,
 *     mount onto the resolved fds;
 *  6. SEND the result. CONTINUE is never sent: the caller could rewrite
 *     its arguments after step 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "backends.h"
#include "mntsnap.h"
#include "ns.h"
#include "supervisor.h"
#include "sys-seam.h"
#include "sys.h"
#include "uapi.h"

/* The native seccomp audit arch: requests from another ABI are refused. */
#if defined(__x86_64__) && !defined(__ILP32__)
#define NATIVE_ARCH 0xc000003eU /* AUDIT_ARCH_X86_64 */
#elif defined(__aarch64__) && defined(__AARCH64EL__)
#define NATIVE_ARCH 0xc00000b7U /* AUDIT_ARCH_AARCH64 */
#elif defined(__riscv) && __riscv_xlen == 64
#define NATIVE_ARCH 0xc00000f3U /* AUDIT_ARCH_RISCV64 */
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_ARCH 0xc0000015U /* AUDIT_ARCH_PPC64LE */
#elif defined(__s390x__)
#define NATIVE_ARCH 0x80000016U /* AUDIT_ARCH_S390X */
#else
#define NATIVE_ARCH 0U /* unknown: every request is refused */
#endif

#define MNT_FORCE_ 1U
#define MNT_DETACH_ 2U
#define MNT_EXPIRE_ 4U
#define UMOUNT_NOFOLLOW_ 8U

/* ---- the object --------------------------------------------------------- */

int mntsnap__supervisor_new_with(const struct mntsnap_policy *policy,
				 const struct mntsnap_supervisor_opts *opts,
				 const struct mntsnap_sysops *seam, struct mntsnap_supervisor **ret_sv)
{
	struct mntsnap_supervisor *sv;
	int r;

	if (!policy || !ret_sv)
		return -EINVAL;
	sv = calloc(1, sizeof(*sv));
	if (!sv)
		return -ENOMEM;
	sv->o.sz = sizeof(sv->o);
	r = OPTS_LOAD(&sv->o, opts);
	if (r) {
		free(sv);
		return r;
	}
	mntsnap__sys_resolve(seam, &sv->sys);
	sv->policy = policy;
	{
		struct stat st;

		if (!stat("/proc/self/ns/mnt", &st)) {
			sv->own_dev = st.st_dev;
			sv->own_ino = st.st_ino;
		}
	}
	sv->epfd = epoll_create1(EPOLL_CLOEXEC);
	sv->events = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (sv->epfd < 0 || sv->events < 0 ||
	    epoll_ctl(sv->epfd, EPOLL_CTL_ADD, sv->events,
		      &(struct epoll_event){ .events = EPOLLIN })) {
		r = -errno;
		if (sv->epfd >= 0)
			close(sv->epfd);
		if (sv->events >= 0)
			close(sv->events);
		free(sv);
		return r;
	}
	pthread_mutex_init(&sv->audit_lock, NULL);
	*ret_sv = sv;
	return 0;
}

int mntsnap_supervisor_new(const struct mntsnap_policy *policy,
			   const struct mntsnap_supervisor_opts *opts,
			   struct mntsnap_supervisor **ret_sv)
{
	return mntsnap__supervisor_new_with(policy, opts, NULL, ret_sv);
}

/*
 * Stop c's worker and wait for it: it returns between two requests, so
 * this waits at most for the one in hand (bounded by the helper's
 * timeout).
 */
static void container_free(struct sv_container *c)
{
	if (!c)
		return;
	if (c->started) {
		uint64_t one = 1;

		if (write(c->stop, &one, sizeof(one)) == sizeof(one))
			pthread_join(c->worker, NULL);
	}
	if (c->stop >= 0)
		close(c->stop);
	close(c->fd);
	free(c->id);
	for (size_t i = 0; i < c->nmounted; i++)
		free(c->mounted[i].bind_source);
	free(c->mounted);
	mntsnap__ns_free(c->ns);
	for (size_t i = 0; i < c->nctx; i++)
		mntsnap__sv_fsctx_free(c->ctx[i]);
	free(c->ctx);
	free(c);
}

void mntsnap_supervisor_free(struct mntsnap_supervisor *sv)
{
	if (!sv)
		return;
	for (size_t i = 0; i < sv->n; i++)
		container_free(sv->c[i]);
	free(sv->c);
	close(sv->epfd);
	close(sv->events);
	pthread_mutex_destroy(&sv->audit_lock);
	free(sv);
}

static int handle_one(struct mntsnap_supervisor *sv, struct sv_container *c);

/*
 * A container's worker: answers its requests one at a time (a container
 * has at most one request in hand, the others wait in the kernel), so a
 * request that stalls (a helper waiting on the container's FUSE mount
 * until its timeout, say) delays only its own container. The main loop
 * (dispatch) only counts answers and reaps finished containers: nothing
 * it does waits on a container.
 */
static void *worker(void *arg)
{
	struct sv_container *c = arg;
	struct mntsnap_supervisor *sv = c->sv;
	uint64_t one = 1;

	for (;;) {
		struct pollfd p[2] = { { c->fd, POLLIN, 0 }, { c->stop, POLLIN, 0 } };

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			return NULL;
		if (p[0].revents & POLLIN) {
			int r = handle_one(sv, c);

			if (r > 0)
				atomic_fetch_add(&sv->answered, r);
		} else if (p[0].revents & (POLLHUP | POLLERR | POLLNVAL)) {
			/* every process of the filter has exited: nothing more can come */
			break;
		}
		if (write(sv->events, &one, sizeof(one)) < 0)
			continue; /* the counter is full: dispatch has been told already */
	}
	atomic_store(&c->finished, true);
	if (write(sv->events, &one, sizeof(one)) < 0)
		return NULL;
	return NULL;
}

int mntsnap_supervisor_add(struct mntsnap_supervisor *sv, int notify_fd, const char *id)
{
	struct sv_container *c, **nc;

	if (!sv)
		return -EINVAL;
	if (notify_fd < 0 || fcntl(notify_fd, F_GETFD) < 0)
		return -EBADF;
	/* it is in every audit line, which has a bounded length */
	if (id && strlen(id) > MNTSNAP_SV_ID_MAX)
		return -ENAMETOOLONG;
	/*
	 * A seccomp notify fd says ENOENT for an id it never sent; anything
	 * else (a pipe from a confused or hostile agent peer) would poll
	 * readable, fail RECV, and be retried in a busy loop.
	 */
	{
		uint64_t none = 0;

		if (sv->sys.ioctl(sv->sys.ctx, notify_fd, MNTSNAP_K_SECCOMP_IOCTL_NOTIF_ID_VALID,
				  &none) != -ENOENT)
			return -ENOTTY;
	}
	for (size_t i = 0; i < sv->n; i++)
		if (sv->c[i]->fd == notify_fd)
			return -EEXIST;
	c = calloc(1, sizeof(*c));
	nc = realloc(sv->c, (sv->n + 1) * sizeof(*nc));
	if (nc)
		sv->c = nc;
	if (!c || !nc || !(c->id = strdup(id ? id : ""))) {
		free(c);
		return -ENOMEM;
	}
	c->fd = notify_fd;
	c->sv = sv;
	c->stop = eventfd(0, EFD_CLOEXEC);
	if (c->stop < 0) {
		int r = -errno;

		free(c->id);
		free(c);
		return r;
	}
	{
		int r = pthread_create(&c->worker, NULL, worker, c);

		if (r) {
			close(c->stop);
			free(c->id);
			free(c);
			return -r;
		}
	}
	c->started = true;
	/* the supervisor owns it now: keep it off 0-2 and close-on-exec */
	fcntl(notify_fd, F_SETFD, FD_CLOEXEC);
	sv->c[sv->n++] = c;
	return 0;
}

size_t mntsnap_supervisor_count(const struct mntsnap_supervisor *sv)
{
	return sv ? sv->n : 0;
}

int mntsnap_supervisor_fd(const struct mntsnap_supervisor *sv)
{
	return sv ? sv->epfd : -EINVAL;
}

static void container_remove(struct mntsnap_supervisor *sv, struct sv_container *c)
{
	for (size_t i = 0; i < sv->n; i++) {
		if (sv->c[i] != c)
			continue;
		container_free(c);
		sv->c[i] = sv->c[--sv->n];
		return;
	}
}

static int read_args(struct sv_req *q)
{
	const uint64_t *a = q->n.data.args;
	int pid = (int)q->n.pid;
	bool has_target;
	int r;

	r = mntsnap__sv_read_opt(pid, a[0], q->source, sizeof(q->source), &q->has_source);
	if (!r)
		r = mntsnap__sv_read_opt(pid, a[1], q->target, sizeof(q->target), &has_target);
	if (!r && !has_target)
		r = -EFAULT;
	if (!r)
		r = mntsnap__sv_read_opt(pid, a[2], q->fstype, sizeof(q->fstype), &q->has_fstype);
	return r;
}

/* ---- decoding mount(2) -------------------------------------------------- */

#define MS_PROPAGATION_ (MNTSNAP_MS_SHARED | MNTSNAP_MS_SLAVE | MNTSNAP_MS_PRIVATE | \
			 MNTSNAP_MS_UNBINDABLE)

static const struct {
	uint32_t ms;
	const char *name;
} propagations[] = {
	{ MNTSNAP_MS_SHARED, "shared" },
	{ MNTSNAP_MS_SLAVE, "slave" },
	{ MNTSNAP_MS_PRIVATE, "private" },
	{ MNTSNAP_MS_UNBINDABLE, "unbindable" },
};

/* A propagation change: exactly one type, optionally MS_REC, as the kernel wants. */
static int decode_propagation(struct sv_req *q, uint32_t f)
{
	q->kind = SV_PROPAGATION;
	q->rec = f & MNTSNAP_K_MS_REC;
	f &= ~MNTSNAP_K_MS_REC;
	for (size_t i = 0; i < sizeof(propagations) / sizeof(propagations[0]); i++)
		if (f == propagations[i].ms) {
			q->prop = f;
			return 0;
		}
	return -EINVAL;
}

/*
 * Which kind of request, in the order mount(2) itself tests the flags
 * (remount, bind, propagation, move, new); -EOPNOTSUPP for flags the
 * supervisor does not know.
 */
static int decode_flags(struct sv_req *q, uint64_t flags64)
{
	uint32_t f = (uint32_t)flags64;

	if (flags64 >> 32)
		return -EINVAL;
	if ((f & MNTSNAP_K_MS_MGC_MSK) == MNTSNAP_K_MS_MGC_VAL)
		f &= ~MNTSNAP_K_MS_MGC_MSK; /* the pre-2.4 magic, ignored by the kernel too */
	f &= ~MNTSNAP_K_MS_SILENT;
	if (f & MNTSNAP_K_MS_REMOUNT) {
		q->kind = f & MNTSNAP_K_MS_BIND ? SV_REMOUNT_BIND : SV_REMOUNT;
		f &= ~(MNTSNAP_K_MS_REMOUNT | MNTSNAP_K_MS_BIND);
	} else if (f & MNTSNAP_K_MS_BIND) {
		q->kind = SV_BIND;
		q->rec = f & MNTSNAP_K_MS_REC;
		f &= ~(MNTSNAP_K_MS_BIND | MNTSNAP_K_MS_REC);
	} else if (f & MS_PROPAGATION_) {
		return decode_propagation(q, f);
	} else if (f & MNTSNAP_K_MS_MOVE) {
		q->kind = SV_MOVE; /* mount(2) ignores every other flag here */
		return 0;
	} else {
		q->kind = SV_NEW;
	}
	if (f & ~mntsnap__mntflag_ms_all())
		return -EOPNOTSUPP;
	q->ms = f;
	return 0;
}

/* "private" or "private,rec": how rules see a propagation change */
static char *propagation_opts(const struct sv_req *q)
{
	for (size_t i = 0; i < sizeof(propagations) / sizeof(propagations[0]); i++)
		if (q->prop == propagations[i].ms) {
			char *s = malloc(strlen(propagations[i].name) + 5);

			if (s)
				sprintf(s, "%s%s", propagations[i].name, q->rec ? ",rec" : "");
			return s;
		}
	return NULL;
}

static void decide_mount(struct mntsnap_supervisor *sv, struct sv_container *c, struct sv_req *q)
{
	int perr = mntsnap__policy_errno(sv->policy);
	int r;

	q->reason = "arguments";
	r = read_args(q);
	if (r == -ESRCH)
		r = -ENOENT;
	if (!r) {
		r = decode_flags(q, q->n.data.args[3]);
		if (r == -EOPNOTSUPP) {
			q->reason = "unsupported flags";
			r = -perr;
		}
	}
	if (!r && q->kind == SV_NEW && !q->has_fstype) {
		q->reason = "no fstype";
		r = -EINVAL;
	}
	if (!r && (q->kind == SV_NEW || q->kind == SV_REMOUNT)) {
		r = mntsnap__sv_read_opt((int)q->n.pid, q->n.data.args[4], q->data, sizeof(q->data),
			     &q->has_data);
		if (r == -ENAMETOOLONG) {
			q->reason = "binary data";
			r = -perr;
		}
	}
	if (!r) {
		q->asked = q->kind == SV_PROPAGATION ? propagation_opts(q)
						    : mntsnap__opts_from_ms(q->ms, q->data);
		if (!q->asked)
			r = -ENOMEM;
	}
	if (!r && (q->kind == SV_NEW || q->kind == SV_BIND) &&
	    !mntsnap__policy_may_allow(sv->policy, mntsnap__sv_match_fstype(q))) {
		q->reason = "policy";
		q->rule = -1;
		r = -perr;
	}
	if (!r)
		r = mntsnap__sv_perform(sv, c, q);
	q->result = r;
}

static void decide_umount(struct mntsnap_supervisor *sv, struct sv_container *c, struct sv_req *q)
{
	bool has;
	int r;

	q->kind = SV_UMOUNT;
	q->umount_flags = (unsigned)q->n.data.args[1];
	q->reason = "arguments";
	r = mntsnap__sv_read_opt((int)q->n.pid, q->n.data.args[0], q->target, sizeof(q->target), &has);
	if (!r && !has)
		r = -EFAULT;
	if (r == -ESRCH)
		r = -ENOENT;
	if (!r && (q->n.data.args[1] >> 32 ||
		   (q->umount_flags & ~(MNT_DETACH_ | UMOUNT_NOFOLLOW_)))) {
		/* MNT_FORCE and MNT_EXPIRE are not for containers */
		q->reason = "unsupported flags";
		r = q->umount_flags & (MNT_FORCE_ | MNT_EXPIRE_) ? -mntsnap__policy_errno(sv->policy)
								  : -EINVAL;
	}
	if (!r)
		r = mntsnap__sv_perform(sv, c, q);
	q->result = r;
}

/* Remember (or forget) a mount made for c. */
static void track(struct sv_container *c, const struct sv_req *q)
{
	if (q->result || !q->mnt_id)
		return;
	if (q->kind == SV_UMOUNT) {
		for (size_t i = 0; i < c->nmounted; i++)
			if (c->mounted[i].id == q->mnt_id) {
				free(c->mounted[i].bind_source);
				c->mounted[i] = c->mounted[--c->nmounted];
				return;
			}
	} else if (q->kind == SV_NEW || q->kind == SV_BIND) {
		struct sv_mount m = { .id = q->mnt_id, .own_sb = q->own_sb };
		struct sv_mount *n;

		if (q->kind == SV_BIND && !(m.bind_source = strdup(q->rsource)))
			return;
		n = realloc(c->mounted, (c->nmounted + 1) * sizeof(*n));
		/* without memory it is only forgotten: umount2 of it is refused */
		if (!n) {
			free(m.bind_source);
			return;
		}
		c->mounted = n;
		c->mounted[c->nmounted++] = m;
	}
}

/* ---- audit -------------------------------------------------------------- */

static const char *syscall_name(const struct sv_req *q, char *buf, size_t len)
{
	if (q->sysname)
		return q->sysname;
	/* another ABI's numbers mean other calls: i386 165 is getresuid */
	if (q->n.data.arch != NATIVE_ARCH) {
		snprintf(buf, len, "nr:%d,arch:0x%08x", q->n.data.nr, q->n.data.arch);
		return buf;
	}
	if (q->n.data.nr == SYS_mount)
		return "mount";
	if (q->n.data.nr == SYS_umount2)
		return "umount2";
	snprintf(buf, len, "nr:%d", q->n.data.nr);
	return buf;
}

static void audit(struct mntsnap_supervisor *sv, struct sv_container *c, struct sv_req *q)
{
	struct mntsnap_sv_event ev = { 0 };
	struct timespec ts;
	char nr[48];

	if (!sv->o.audit)
		return;
	pthread_mutex_lock(&sv->audit_lock);
	clock_gettime(CLOCK_REALTIME, &ts);
	ev.time_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	ev.container = c->id;
	ev.pid = (int)q->n.pid;
	ev.syscall = syscall_name(q, nr, sizeof(nr));
	if (q->kind == SV_UMOUNT) {
		ev.target = q->target[0] ? q->target : NULL;
	} else if (q->sysname && q->n.data.nr != MNTSNAP_NR_move_mount) {
		ev.fstype = q->has_fstype ? q->fstype : NULL;
		ev.source = q->has_source ? q->source : NULL; /* open_tree */
	} else if (q->n.data.arch == NATIVE_ARCH &&
		   (q->n.data.nr == SYS_mount || q->n.data.nr == MNTSNAP_NR_move_mount)) {
		ev.fstype = mntsnap__sv_match_fstype(q);
		if (!ev.fstype && q->has_fstype)
			ev.fstype = q->fstype;
		ev.source = q->has_source ? q->source : NULL;
		ev.target = q->target[0] ? q->target : NULL;
	}
	ev.source_resolved = q->rsource[0] ? q->rsource : NULL;
	ev.target_resolved = q->rtarget[0] ? q->rtarget : NULL;
	ev.options_asked = q->asked;
	ev.options_applied = q->result ? NULL : q->applied;
	ev.rule = q->rule;
	ev.result = q->result;
	ev.mnt_id = q->result ? 0 : q->mnt_id; /* umount2: the mount removed */
	ev.reason = q->result || q->gone ? q->reason : NULL;
	ev.grant = q->result || !q->grant[0] ? NULL : q->grant;
	sv->o.audit(&ev, sv->o.audit_data);
	pthread_mutex_unlock(&sv->audit_lock);
}

/* The audit sink's word before a request is acted on, see audit_ready. */
static int audit_ready(struct mntsnap_supervisor *sv)
{
	int r;

	if (!sv->o.audit_ready)
		return 0;
	pthread_mutex_lock(&sv->audit_lock);
	r = sv->o.audit_ready(sv->o.audit_data);
	pthread_mutex_unlock(&sv->audit_lock);
	return r;
}

/* RECV one notification on c and answer it. 1 answered, 0 none, -errno. */
static int handle_one(struct mntsnap_supervisor *sv, struct sv_container *c)
{
	struct mntsnap_k_seccomp_notif_resp resp = { 0 };
	struct sv_req *q = calloc(1, sizeof(*q));
	long r;

	if (!q)
		return -ENOMEM;
	q->rule = -2;
	q->c = c;
	r = sv->sys.ioctl(sv->sys.ctx, c->fd, MNTSNAP_K_SECCOMP_IOCTL_NOTIF_RECV, &q->n);
	if (r < 0) {
		free(q);
		/* ENOENT: the caller was interrupted before we got it */
		return r == -ENOENT || r == -EINTR ? 0 : (int)r;
	}
	if (audit_ready(sv) < 0) {
		/* fail closed: nothing is done that the audit cannot record */
		q->reason = "audit unavailable";
		q->result = -mntsnap__policy_errno(sv->policy);
	} else if (q->n.data.arch == NATIVE_ARCH && q->n.data.nr == SYS_mount) {
		decide_mount(sv, c, q);
	} else if (q->n.data.arch == NATIVE_ARCH && q->n.data.nr == SYS_umount2) {
		decide_umount(sv, c, q);
	} else if (q->n.data.arch == NATIVE_ARCH && q->n.data.nr == MNTSNAP_NR_fsopen) {
		mntsnap__sv_fsopen(sv, c, q);
	} else if (q->n.data.arch == NATIVE_ARCH && q->n.data.nr == MNTSNAP_NR_fsconfig) {
		mntsnap__sv_fsconfig(sv, c, q);
	} else if (q->n.data.arch == NATIVE_ARCH && q->n.data.nr == MNTSNAP_NR_fsmount) {
		mntsnap__sv_fsmount(sv, c, q);
	} else if (q->n.data.arch == NATIVE_ARCH && q->n.data.nr == MNTSNAP_NR_move_mount) {
		mntsnap__sv_move_mount(sv, c, q);
	} else if (q->n.data.arch == NATIVE_ARCH && q->n.data.nr == MNTSNAP_NR_open_tree) {
		mntsnap__sv_open_tree(sv, c, q);
	} else if (q->n.data.arch == NATIVE_ARCH && q->n.data.nr == MNTSNAP_NR_mount_setattr) {
		mntsnap__sv_mount_setattr(sv, c, q);
	} else {
		q->reason = "syscall not handled";
		q->result = -mntsnap__policy_errno(sv->policy);
	}
	resp.id = q->n.id;
	resp.error = q->result;
	track(c, q);
	/*
	 * Audited before the answer: once answered, the caller (and whoever
	 * watches it) may look for the line.
	 */
	audit(sv, c, q);
	/*
	 * Always answered, even when the caller seems gone: an unanswered
	 * caller would block forever, and SEND to a gone one is a harmless
	 * ENOENT.
	 */
	if (!q->answered)
		sv->sys.ioctl(sv->sys.ctx, c->fd, MNTSNAP_K_SECCOMP_IOCTL_NOTIF_SEND, &resp);
	free(q->asked);
	free(q->applied);
	free(q);
	return 1;
}

/*
 * The workers answer; this waits for word from them, counts their
 * answers and drops the containers whose processes have all gone (their
 * workers have returned: the join does not wait).
 */
int mntsnap_supervisor_dispatch(struct mntsnap_supervisor *sv, int timeout_ms)
{
	struct epoll_event ev;
	uint64_t v;
	int n;

	if (!sv)
		return -EINVAL;
	n = epoll_wait(sv->epfd, &ev, 1, timeout_ms);
	if (n < 0)
		return -errno;
	if (n > 0 && read(sv->events, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return -errno;
	for (size_t i = sv->n; i-- > 0;)
		if (atomic_load(&sv->c[i]->finished))
			container_remove(sv, sv->c[i]);
	return atomic_exchange(&sv->answered, 0);
}

void mntsnap_supervisor_freep(struct mntsnap_supervisor **p)
{
	if (p) {
		mntsnap_supervisor_free(*p);
		*p = NULL;
	}
}
