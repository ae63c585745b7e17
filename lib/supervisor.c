// SPDX-License-Identifier: MIT
/*
 * The mount supervisor: answers seccomp user notifications for mount(2)
 * by deciding with a policy and performing the allowed mounts itself,
 * inside the caller's mount namespace, through the namespace helper.
 * This file holds the object, a worker thread per container and the loop
 * that runs each request down the pipeline (lib/supervisor.h).
 *
 * The order for each request is fixed, for safety:
 *  1. RECV the notification (zeroed first, as the kernel requires);
 *  2. read every argument from the caller's memory (process_vm_readv,
 *     sv-read.c) and decode it (sv-decode.c);
 *  3. decide what can be decided before any path is resolved
 *     (sv-decide.c);
 *  4. open the caller's mount namespace through a pidfd and note the
 *     identity of its root (sv-perform.c);
 *  5. NOTIF_ID_VALID: the caller is still blocked in this very call, so
 *     the pid named it throughout 2-4 (pid reuse cannot redirect us);
 *  6. in the worker (sv-mount.c): check the root, resolve the paths
 *     inside it, decide (sv-decide.c), mount onto the resolved fds;
 *  7. track, audit and SEND the result (sv-answer.c). CONTINUE is never
 *     sent: the caller could rewrite its arguments after step 2.
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
	atomic_fetch_sub(&c->sv->placeholders, c->nctx);
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
		if (p[1].revents) {
			mntsnap__sv_audit_unlogged(sv, c);
			return NULL;
		}
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
	/* the left-out refusals are summed up before the container is forgotten */
	mntsnap__sv_audit_unlogged(sv, c);
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

static void decide_mount(struct mntsnap_supervisor *sv, struct sv_container *c, struct sv_req *q)
{
	int perr = mntsnap__policy_errno(sv->policy);
	int r;

	q->reason = "arguments";
	r = mntsnap__sv_read_mount_args(q);
	if (r == -ESRCH)
		r = -ENOENT;
	if (!r) {
		r = mntsnap__sv_decode_mount(q, q->n.data.args[3]);
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
		q->asked = mntsnap__sv_decode_asked(q);
		if (!q->asked)
			r = -ENOMEM;
	}
	if (!r)
		r = mntsnap__sv_decide_early(sv->policy, q);
	if (!r)
		r = mntsnap__sv_perform(sv, c, q);
	q->result = r;
}

static void decide_umount(struct mntsnap_supervisor *sv, struct sv_container *c, struct sv_req *q)
{
	int flags = mntsnap__sv_decode_umount(q, q->n.data.args[1]);
	bool has;
	int r;

	q->reason = "arguments";
	r = mntsnap__sv_read_opt((int)q->n.pid, q->n.data.args[0], q->target, sizeof(q->target), &has);
	if (!r && !has)
		r = -EFAULT;
	if (r == -ESRCH)
		r = -ENOENT;
	if (!r && flags) {
		q->reason = "unsupported flags";
		r = flags == -EOPNOTSUPP ? -mntsnap__policy_errno(sv->policy) : -EINVAL;
	}
	if (!r)
		r = mntsnap__sv_perform(sv, c, q);
	q->result = r;
}

/* RECV one notification on c and answer it. 1 answered, 0 none, -errno. */
static int handle_one(struct mntsnap_supervisor *sv, struct sv_container *c)
{
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
	if (mntsnap__sv_audit_ready(sv) < 0) {
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
	mntsnap__sv_answer(sv, c, q);
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
