// SPDX-License-Identifier: MIT
/*
 * The new mount API under the supervisor. A filesystem context or
 * detached mount the container holds is a placeholder of ours; its
 * options are recorded; move_mount() onto a path decides the whole request
 * at once and performs it like mount(2) (see sv-mount.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "backends.h"
#include "mntsnap.h"
#include "proc.h"
#include "supervisor.h"
#include "sys.h"
#include "uapi.h"

#define KNOWN_ATTR_ (MNTSNAP_K_MOUNT_ATTR_RDONLY | MNTSNAP_K_MOUNT_ATTR_NOSUID |            \
		     MNTSNAP_K_MOUNT_ATTR_NODEV | MNTSNAP_K_MOUNT_ATTR_NOEXEC |              \
		     MNTSNAP_K_MOUNT_ATTR__ATIME | MNTSNAP_K_MOUNT_ATTR_NODIRATIME |         \
		     MNTSNAP_K_MOUNT_ATTR_NOSYMFOLLOW)

/* Accepts NULL. */
void mntsnap__sv_fsctx_free(struct sv_fsctx *x)
{
	if (!x)
		return;
	close(x->fd);
	free(x->source);
	free(x->opts);
	free(x);
}

/*
 * Which of c's contexts the caller's fd is, by the inode and mount (of
 * pipefs) its fdinfo names. Never by fetching the file (pidfd_getfd):
 * once the container drops its own copy, our close() would be the last
 * reference and run the file's release in the supervisor: a TCP socket
 * with SO_LINGER and unread data blocks that close for the linger time.
 * The pidfd pins the caller while its fdinfo is read.
 */
static int ctx_of_fd(struct sv_container *c, const struct sv_req *q, uint64_t fd64,
		     struct sv_fsctx **ret)
{
	uint64_t ino, mnt;
	int r;

	r = mntsnap__sv_read_fd_id(q, fd64, &ino, &mnt);
	if (r)
		return r;
	for (size_t i = 0; i < c->nctx; i++)
		if (c->ctx[i]->ino == ino && c->ctx[i]->mnt_id == mnt) {
			*ret = c->ctx[i];
			return 0;
		}
	return -EINVAL; /* not one of ours: what the kernel says for a non-context fd */
}

/* What x holds of the container's budget (SV_CONTAINER_BYTES_MAX). */
static size_t ctx_bytes(const struct sv_fsctx *x)
{
	return (x->source ? strlen(x->source) : 0) + (x->opts ? strlen(x->opts) : 0);
}

static void ctx_remove(struct sv_container *c, struct sv_fsctx *x)
{
	for (size_t i = 0; i < c->nctx; i++)
		if (c->ctx[i] == x) {
			atomic_fetch_sub(&c->sv->placeholders, 1);
			c->ctx_bytes -= ctx_bytes(x);
			c->ctx[i] = c->ctx[--c->nctx];
			mntsnap__sv_fsctx_free(x);
			return;
		}
}

/*
 * Forget the contexts the container no longer holds: the placeholder it
 * got is the read end of a pipe whose write end we keep, and once every
 * copy of the read end is closed the write end polls POLLERR. Without
 * this a container that dropped SV_MAX_CTX placeholders (or made that
 * many mounts: an fsopen context outlives its fsmount) could never use
 * the new mount API again.
 */
static void ctx_reclaim(struct sv_container *c)
{
	struct pollfd p[SV_MAX_CTX];
	size_t n = c->nctx < SV_MAX_CTX ? c->nctx : SV_MAX_CTX;

	for (size_t i = 0; i < n; i++)
		p[i] = (struct pollfd){ .fd = c->ctx[i]->fd, .events = 0 };
	if (poll(p, n, 0) <= 0)
		return;
	/* from the end: ctx_remove moves the last entry into the hole */
	for (size_t i = n; i-- > 0;)
		if (p[i].revents & POLLERR)
			ctx_remove(c, c->ctx[i]);
}

/*
 * How many placeholders every container together may hold: each costs
 * the supervisor an fd (its end of the pipe), and 16 containers of 64
 * took a supervisor to its 1024 fds, after which other containers'
 * mounts failed with EMFILE. Half the soft RLIMIT_NOFILE, less 32 for
 * what a request needs meanwhile (namespace fds, pidfds, the workers'
 * pipes), is left to them; the rest to requests and notify fds.
 */
static size_t placeholders_max(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > SIZE_MAX)
		return SIZE_MAX;
	return rl.rlim_cur / 2 > 32 ? (size_t)rl.rlim_cur / 2 - 32 : 0;
}

/* Count one more placeholder against the supervisor's bound; false when full. */
static bool placeholder_take(struct mntsnap_supervisor *sv)
{
	size_t max = placeholders_max();

	if (atomic_fetch_add(&sv->placeholders, 1) < max)
		return true;
	atomic_fetch_sub(&sv->placeholders, 1);
	return false;
}

/*
 * A new placeholder, handed to the caller with ADDFD|SEND, which also
 * answers the call with the fd number. On success the context is c's.
 */
static int ctx_hand_over(struct mntsnap_supervisor *sv, struct sv_container *c, struct sv_req *q,
			 struct sv_fsctx *x, bool cloexec)
{
	struct mntsnap_k_seccomp_notif_addfd add = { 0 };
	struct sv_fsctx **n;
	struct stat st;
	int pfd[2];
	long r;

	if (c->nctx >= SV_MAX_CTX)
		ctx_reclaim(c);
	if (c->nctx >= SV_MAX_CTX) {
		q->reason = "container's placeholder limit";
		return -EMFILE;
	}
	if (c->ctx_bytes + ctx_bytes(x) > SV_CONTAINER_BYTES_MAX) {
		q->reason = "container's context memory";
		return -ENOMEM;
	}
	if (!placeholder_take(sv)) {
		/* the supervisor's bound, not the container's: "in the system" */
		q->reason = "placeholder limit";
		return -ENFILE;
	}
	/*
	 * Inert: nothing is ever written to it and the container holds only
	 * the read end, non-blocking so that a read() (libmount reads an fs
	 * context fd for the kernel's messages) answers EAGAIN at once.
	 */
	if (pipe2(pfd, O_CLOEXEC | O_NONBLOCK)) {
		r = -errno;
		atomic_fetch_sub(&sv->placeholders, 1);
		if (r == -EMFILE || r == -ENFILE)
			q->reason = "supervisor's fd limit";
		return (int)r;
	}
	x->fd = pfd[1];
	if (fstat(pfd[0], &st)) {
		r = -errno;
		goto out;
	}
	x->ino = st.st_ino;
	{
		/* the pipefs mount the container's fdinfo will name */
		char rel[48];
		uint64_t ino;
		int proc = mntsnap__procfs_root();

		snprintf(rel, sizeof(rel), "self/fdinfo/%d", pfd[0]);
		/* "self" is procfs's own symlink */
		r = proc < 0 ? proc : mntsnap__sv_fdinfo_id(proc, rel, 0, &ino, &x->mnt_id);
		if (proc >= 0)
			close(proc);
		if (r)
			goto out;
	}
	r = -ENOMEM;
	n = realloc(c->ctx, (c->nctx + 1) * sizeof(*n));
	if (!n)
		goto out;
	c->ctx = n;
	r = -ENOENT;
	if (mntsnap__sv_id_valid(sv, c, q->n.id))
		goto out;
	add.id = q->n.id;
	add.flags = MNTSNAP_K_SECCOMP_ADDFD_FLAG_SEND;
	add.srcfd = (uint32_t)pfd[0];
	add.newfd_flags = cloexec ? O_CLOEXEC : 0;
	r = sv->sys.ioctl(sv->sys.ctx, c->fd, MNTSNAP_K_SECCOMP_IOCTL_NOTIF_ADDFD, &add);
	if (r < 0)
		goto out;
	r = 0;
	q->answered = true;
	c->ctx[c->nctx++] = x;
	c->ctx_bytes += ctx_bytes(x);
out:
	if (r)
		atomic_fetch_sub(&sv->placeholders, 1); /* x->fd is closed with x */
	close(pfd[0]);
	return (int)r;
}

void mntsnap__sv_fsopen(struct mntsnap_supervisor *sv, struct sv_container *c, struct sv_req *q)
{
	const uint64_t *a = q->n.data.args;
	struct sv_fsctx *x;
	int r;

	q->sysname = "fsopen";
	q->reason = "arguments";
	r = mntsnap__sv_read_str((int)q->n.pid, a[0], q->fstype, sizeof(q->fstype));
	q->has_fstype = !r;
	if (!r && a[1] & ~(uint64_t)MNTSNAP_K_FSOPEN_CLOEXEC)
		r = -EINVAL;
	if (!r)
		r = mntsnap__sv_decide_type(sv->policy, q, q->fstype);
	if (!r) {
		x = calloc(1, sizeof(*x));
		if (!x) {
			r = -ENOMEM;
		} else {
			x->fd = -1;
			snprintf(x->fstype, sizeof(x->fstype), "%s", q->fstype);
			q->reason = "fd";
			r = ctx_hand_over(sv, c, q, x, a[1] & MNTSNAP_K_FSOPEN_CLOEXEC);
			if (r)
				mntsnap__sv_fsctx_free(x);
			else
				q->reason = NULL;
		}
	}
	q->result = r;
}

/*
 * Record one fsconfig option as "key" or "key=value", within the
 * context's and the container's bounds.
 */
static int ctx_add_opt(struct sv_container *c, struct sv_req *q, struct sv_fsctx *x,
		       const char *key, const char *val)
{
	size_t had = x->opts ? strlen(x->opts) : 0;
	size_t n = (had ? had + 1 : 0) + strlen(key) + (val ? strlen(val) + 1 : 0);
	char *o;

	/* a comma would split the option when it is replayed */
	if (strchr(key, ',') || strchr(key, '=') || (val && strchr(val, ',')) || !*key)
		return -EINVAL;
	if (n > SV_CTX_OPTS_MAX) {
		q->reason = "options too long";
		return -EINVAL;
	}
	if (c->ctx_bytes - had + n > SV_CONTAINER_BYTES_MAX) {
		q->reason = "container's context memory";
		return -ENOMEM;
	}
	o = malloc(n + 1);
	if (!o)
		return -ENOMEM;
	snprintf(o, n + 1, "%s%s%s%s%s", x->opts ? x->opts : "", x->opts ? "," : "", key,
		 val ? "=" : "", val ? val : "");
	free(x->opts);
	x->opts = o;
	c->ctx_bytes = c->ctx_bytes - had + n;
	return 0;
}

/* A string of fsconfig: -EINVAL over the kernel's limit, as fsconfig says. */
static int fsconfig_str(int pid, uint64_t addr, char *buf)
{
	int r = mntsnap__sv_read_str(pid, addr, buf, SV_FSCONFIG_STR_MAX);

	return r == -ENAMETOOLONG ? -EINVAL : r;
}

static int fsconfig_apply(struct sv_container *c, struct sv_req *q, struct sv_fsctx *x)
{
	const uint64_t *a = q->n.data.args;
	int pid = (int)q->n.pid;
	char key[SV_FSCONFIG_STR_MAX];
	size_t had;
	int r;

	if (x->is_mount)
		return -EINVAL;
	switch (a[1]) {
	case MNTSNAP_K_FSCONFIG_CMD_CREATE:
		if (x->created)
			return -EBUSY;
		x->created = true;
		return 0;
	case MNTSNAP_K_FSCONFIG_SET_FLAG:
	case MNTSNAP_K_FSCONFIG_SET_STRING:
		break;
	default:
		/* binary, path and fd values, reconfiguration: not for containers */
		q->reason = "unsupported command";
		return -EOPNOTSUPP;
	}
	if (x->created)
		return -EBUSY;
	r = fsconfig_str(pid, a[2], key);
	if (r)
		return r;
	if (a[1] == MNTSNAP_K_FSCONFIG_SET_FLAG) {
		snprintf(q->data, sizeof(q->data), "%s", key);
		return ctx_add_opt(c, q, x, key, NULL);
	}
	r = fsconfig_str(pid, a[3], q->data);
	if (r)
		return r;
	if (!strcmp(key, "source")) {
		/* the kernel takes one source per context */
		if (x->source)
			return -EINVAL;
		had = strlen(q->data);
		if (c->ctx_bytes + had > SV_CONTAINER_BYTES_MAX) {
			q->reason = "container's context memory";
			return -ENOMEM;
		}
		x->source = strdup(q->data);
		if (!x->source)
			return -ENOMEM;
		c->ctx_bytes += had;
		return 0;
	}
	return ctx_add_opt(c, q, x, key, q->data);
}

void mntsnap__sv_fsconfig(struct mntsnap_supervisor *sv, struct sv_container *c, struct sv_req *q)
{
	struct sv_fsctx *x = NULL;
	int r;

	q->sysname = "fsconfig";
	q->reason = "fd";
	r = ctx_of_fd(c, q, q->n.data.args[0], &x);
	if (!r) {
		snprintf(q->fstype, sizeof(q->fstype), "%s", x->fstype);
		q->has_fstype = true;
		q->reason = "caller gone";
		r = mntsnap__sv_id_valid(sv, c, q->n.id) ? -ENOENT : 0;
	}
	if (!r) {
		q->reason = "arguments";
		r = fsconfig_apply(c, q, x);
	}
	if (!r)
		q->reason = NULL;
	if (r == -ESRCH)
		r = -ENOENT;
	q->asked = x && x->opts ? strdup(x->opts) : NULL;
	q->result = r;
}

void mntsnap__sv_fsmount(struct mntsnap_supervisor *sv, struct sv_container *c, struct sv_req *q)
{
	const uint64_t *a = q->n.data.args;
	struct sv_fsctx *x = NULL, *m;
	int r;

	q->sysname = "fsmount";
	q->reason = "fd";
	r = ctx_of_fd(c, q, a[0], &x);
	if (!r && (x->is_mount || !x->created)) {
		q->reason = "not created";
		r = -EINVAL;
	}
	if (!r && x->mounted) {
		/* the kernel mounts a context once */
		q->reason = "already mounted";
		r = -EBUSY;
	}
	if (!r && ((a[1] & ~(uint64_t)MNTSNAP_K_FSMOUNT_CLOEXEC) || (a[2] & ~(uint64_t)KNOWN_ATTR_))) {
		q->reason = "unsupported flags";
		r = -EINVAL;
	}
	if (!r) {
		snprintf(q->fstype, sizeof(q->fstype), "%s", x->fstype);
		q->has_fstype = true;
		m = calloc(1, sizeof(*m));
		r = -ENOMEM;
		if (m) {
			*m = *x;
			m->fd = -1;
			m->is_mount = true;
			m->attr = a[2];
			m->source = x->source ? strdup(x->source) : NULL;
			m->opts = x->opts ? strdup(x->opts) : NULL;
			r = (x->source && !m->source) || (x->opts && !m->opts) ? -ENOMEM : 0;
			if (!r)
				r = ctx_hand_over(sv, c, q, m, a[1] & MNTSNAP_K_FSMOUNT_CLOEXEC);
			if (r)
				mntsnap__sv_fsctx_free(m);
			else
				x->mounted = true;
		}
		if (!r)
			q->reason = NULL;
	}
	if (r == -ESRCH)
		r = -ENOENT;
	q->result = r;
}

/* The options of a detached mount: what fsconfig set, then its attr flags by name. */
static char *mount_opts(const struct sv_fsctx *m)
{
	static const struct {
		uint64_t bit;
		const char *name;
	} attrs[] = {
		{ MNTSNAP_K_MOUNT_ATTR_RDONLY, "ro" },      { MNTSNAP_K_MOUNT_ATTR_NOSUID, "nosuid" },
		{ MNTSNAP_K_MOUNT_ATTR_NODEV, "nodev" },    { MNTSNAP_K_MOUNT_ATTR_NOEXEC, "noexec" },
		{ MNTSNAP_K_MOUNT_ATTR_NODIRATIME, "nodiratime" },
		{ MNTSNAP_K_MOUNT_ATTR_NOSYMFOLLOW, "nosymfollow" },
	};
	char buf[SV_DATA_MAX];
	size_t n = 0;

	buf[0] = '\0';
	if (m->opts)
		n = (size_t)snprintf(buf, sizeof(buf), "%s", m->opts);
	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]) && n < sizeof(buf); i++)
		if (m->attr & attrs[i].bit)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? "," : "",
					      attrs[i].name);
	if ((m->attr & MNTSNAP_K_MOUNT_ATTR__ATIME) == MNTSNAP_K_MOUNT_ATTR_NOATIME && n < sizeof(buf))
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%snoatime", n ? "," : "");
	if ((m->attr & MNTSNAP_K_MOUNT_ATTR__ATIME) == MNTSNAP_K_MOUNT_ATTR_STRICTATIME &&
	    n < sizeof(buf))
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%sstrictatime", n ? "," : "");
	return n < sizeof(buf) ? strdup(buf) : NULL;
}

/*
 * move_mount of one of our detached mounts onto an absolute path: the
 * whole request (type, source, every option, the target resolved inside
 * the container) is decided here and performed like mount(2). Moving
 * anything else (an attached mount, a path) is refused.
 */
void mntsnap__sv_move_mount(struct mntsnap_supervisor *sv, struct sv_container *c, struct sv_req *q)
{
	const uint64_t *a = q->n.data.args;
	struct sv_fsctx *m = NULL;
	char from[8];
	int r;

	q->sysname = "move_mount";
	q->reason = "arguments";
	r = mntsnap__sv_read_str((int)q->n.pid, a[1], from, sizeof(from));
	if (!r)
		r = mntsnap__sv_read_str((int)q->n.pid, a[3], q->target, sizeof(q->target));
	if (!r && (a[4] != MNTSNAP_K_MOVE_MOUNT_F_EMPTY_PATH || from[0])) {
		q->reason = "unsupported flags";
		r = -mntsnap__policy_errno(sv->policy);
	}
	if (!r) {
		q->reason = "fd";
		r = ctx_of_fd(c, q, a[0], &m);
		if (!r && !m->is_mount)
			r = -EINVAL;
	}
	if (!r) {
		/* a clone from open_tree is a bind; an fsmount a new mount */
		q->kind = m->is_bind ? SV_BIND : SV_NEW;
		q->rec = m->rec;
		snprintf(q->fstype, sizeof(q->fstype), "%s", m->fstype);
		q->has_fstype = !m->is_bind;
		q->has_source = m->source != NULL;
		snprintf(q->source, sizeof(q->source), "%s", m->source ? m->source : "");
		q->asked = mount_opts(m);
		r = q->asked ? 0 : -ENOMEM;
	}
	if (!r)
		r = mntsnap__sv_decide_type(sv->policy, q, mntsnap__sv_match_fstype(q));
	if (!r)
		r = mntsnap__sv_perform(sv, c, q);
	if (!r)
		ctx_remove(c, m); /* attached: the placeholder stands for nothing now */
	if (r == -ESRCH)
		r = -ENOENT;
	q->result = r;
}


/*
 * open_tree(AT_FDCWD-or-any, "/abs/path", OPEN_TREE_CLONE[|AT_RECURSIVE]):
 * a placeholder standing for a bind of path; move_mount decides it as a
 * bind mount (source and target resolved in the container) and performs
 * it. Without OPEN_TREE_CLONE open_tree names an attached mount, whose
 * move is MS_MOVE's business: refused here.
 */
void mntsnap__sv_open_tree(struct mntsnap_supervisor *sv, struct sv_container *c,
			   struct sv_req *q)
{
	const uint64_t a1 = q->n.data.args[1], fl = q->n.data.args[2];
	const uint64_t known = MNTSNAP_OPEN_TREE_CLONE | MNTSNAP_OPEN_TREE_CLOEXEC |
			       MNTSNAP_AT_RECURSIVE;
	struct sv_fsctx *x;
	int r;

	q->sysname = "open_tree";
	q->reason = "arguments";
	r = mntsnap__sv_read_str((int)q->n.pid, a1, q->source, sizeof(q->source));
	q->has_source = !r;
	if (!r && ((fl & ~known) || !(fl & MNTSNAP_OPEN_TREE_CLONE) || q->source[0] != '/')) {
		q->reason = "unsupported flags";
		r = -mntsnap__policy_errno(sv->policy);
	}
	if (!r)
		r = mntsnap__sv_decide_type(sv->policy, q, "bind");
	if (!r) {
		x = calloc(1, sizeof(*x));
		r = -ENOMEM;
		if (x) {
			x->fd = -1;
			x->is_mount = x->is_bind = x->created = true;
			x->rec = fl & MNTSNAP_AT_RECURSIVE;
			snprintf(x->fstype, sizeof(x->fstype), "bind");
			x->source = strdup(q->source);
			r = x->source ? 0 : -ENOMEM;
			if (!r) {
				q->reason = "fd";
				r = ctx_hand_over(sv, c, q, x, fl & MNTSNAP_OPEN_TREE_CLOEXEC);
			}
			if (r)
				mntsnap__sv_fsctx_free(x);
		}
	}
	if (!r)
		q->reason = NULL;
	if (r == -ESRCH)
		r = -ENOENT;
	q->result = r;
}

/*
 * mount_setattr(placeholder, "", AT_EMPTY_PATH, attr, size) before the
 * move: the attributes are recorded (the rule's force list still wins at
 * move_mount). On attached mounts, or with propagation or an idmap, it is
 * refused.
 */
void mntsnap__sv_mount_setattr(struct mntsnap_supervisor *sv, struct sv_container *c,
			       struct sv_req *q)
{
	const uint64_t *a = q->n.data.args;
	struct mntsnap_k_mount_attr ma = { 0 };
	struct sv_fsctx *m = NULL;
	char path[8];
	int r;

	q->sysname = "mount_setattr";
	q->reason = "arguments";
	r = mntsnap__sv_read_str((int)q->n.pid, a[1], path, sizeof(path));
	if (!r && (path[0] || a[2] != AT_EMPTY_PATH || a[4] < MNTSNAP_K_MOUNT_ATTR_SIZE_VER0)) {
		q->reason = "unsupported flags";
		r = -mntsnap__policy_errno(sv->policy);
	}
	if (!r)
		r = mntsnap__sv_read_mem((int)q->n.pid, a[3], &ma, sizeof(ma));
	if (!r && (ma.propagation || ma.userns_fd || ((ma.attr_set | ma.attr_clr) & ~KNOWN_ATTR_))) {
		q->reason = "unsupported attributes";
		r = -mntsnap__policy_errno(sv->policy);
	}
	if (!r) {
		q->reason = "fd";
		r = ctx_of_fd(c, q, a[0], &m);
		if (!r && !m->is_mount)
			r = -EINVAL;
	}
	if (!r) {
		q->reason = "caller gone";
		r = mntsnap__sv_id_valid(sv, c, q->n.id) ? -ENOENT : 0;
	}
	if (!r) {
		if (ma.attr_clr & MNTSNAP_K_MOUNT_ATTR__ATIME)
			m->attr &= ~(uint64_t)MNTSNAP_K_MOUNT_ATTR__ATIME;
		m->attr = (m->attr & ~ma.attr_clr) | ma.attr_set;
		snprintf(q->fstype, sizeof(q->fstype), "%s", m->fstype);
		q->has_fstype = true;
		q->reason = NULL;
	}
	if (r == -ESRCH)
		r = -ENOENT;
	q->result = r;
}
