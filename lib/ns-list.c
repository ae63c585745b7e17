// SPDX-License-Identifier: MIT
/*
 * Finding mount namespaces: mntsnap__ns_list() (every namespace visible,
 * by walking nsfs with NS_MNT_GET_NEXT/PREV and by scanning /proc), and
 * an nsfs fd for an id-only handle to enter (mntsnap__ns_enter_fd).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "backends.h"
#include "mntsnap.h"
#include "ns.h"
#include "proc.h"
#include "sys.h"

struct ns_seen {
	struct mntsnap_ns_entry *v;
	size_t n, cap;
};

static struct mntsnap_ns_entry *seen_find(struct ns_seen *s, uint64_t ino)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].inode == ino)
			return &s->v[i];
	return NULL;
}

static int seen_add(struct ns_seen *s, const struct mntsnap_ns_entry *e)
{
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 16;
		void *nv = realloc(s->v, ncap * sizeof(*s->v));

		if (!nv)
			return -ENOMEM;
		s->v = nv;
		s->cap = ncap;
	}
	s->v[s->n++] = *e;
	return 0;
}

/* Count what listmount lists, for kernels without NS_MNT_GET_INFO. */
static int64_t count_mounts(int nsfd, uint64_t id)
{
	struct mntsnap_k_mnt_id_req req = { .size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER0, .mnt_id = MNTSNAP_K_LSMT_ROOT };
	uint64_t ids[512];
	int64_t n = 0;
	long r;

	if (nsfd >= 0) {
		req.mnt_ns_fd = (uint32_t)nsfd;
	} else {
		req.size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER1;
		req.mnt_ns_id = id;
	}
	for (;;) {
		r = mntsnap__sys_listmount(NULL, &req, ids, 512, 0);
		if (r < 0)
			return nsfd >= 0 && id ? count_mounts(-1, id) : -1;
		n += r;
		if (r < 512)
			return n;
		req.param = ids[r - 1];
	}
}

/* Describe the namespace behind nsfd. */
static int describe(int nsfd, struct mntsnap_ns_entry *e)
{
	struct mntsnap_k_mnt_ns_info info = { .size = MNTSNAP_K_MNT_NS_INFO_SIZE_VER0 };
	struct stat st;

	memset(e, 0, sizeof(*e));
	if (fstat(nsfd, &st))
		return -errno;
	e->inode = st.st_ino;
	e->nr_mounts = -1;
	if (mntsnap__sys_ioctl(NULL, nsfd, MNTSNAP_NS_MNT_GET_INFO, &info) >= 0) {
		e->ns_id = info.mnt_ns_id;
		e->nr_mounts = info.nr_mounts;
		return 0;
	}
	if (mntsnap__sys_ioctl(NULL, nsfd, MNTSNAP_NS_GET_MNTNS_ID, &e->ns_id) < 0)
		e->ns_id = 0;
	e->nr_mounts = count_mounts(nsfd, e->ns_id);
	return 0;
}

/*
 * Walk the kernel's namespace list from start in one direction. Each step
 * returns a new fd; visit(fd) may keep it (returns 1, the walk stops) or
 * not (0, the walk goes on from it; < 0, an error that ends the walk: the
 * walk closes the fd). Stops at the
 * end (ENOENT) or at the first refusal (EPERM without CAP_SYS_ADMIN).
 */
static int ns_walk(int start, unsigned long dir, int (*visit)(int fd, void *data), void *data)
{
	int cur = start;
	int r = 0;

	for (;;) {
		long fd = mntsnap__sys_ioctl(NULL, cur, dir, NULL);

		if (cur != start)
			close(cur);
		if (fd < 0) {
			r = fd == -ENOENT ? 0 : (int)fd;
			break;
		}
		r = visit((int)fd, data);
		if (r < 0)
			close((int)fd); /* not kept: a failed visit keeps nothing */
		if (r) {
			r = r < 0 ? r : 0;
			break;
		}
		cur = (int)fd;
	}
	return r;
}

static int list_visit(int fd, void *data)
{
	struct mntsnap_ns_entry e;
	struct ns_seen *s = data;

	if (describe(fd, &e))
		return 0;
	if (seen_find(s, e.inode))
		return 0;
	return seen_add(s, &e);
}

/* Calls fn for each PID/ns/mnt of the procfs at /proc with its pid and stat. */
static int proc_scan(int (*fn)(int proc, int pid, const struct stat *st, void *data), void *data)
{
	int proc = mntsnap__procfs_root(), dfd;
	struct dirent *de;
	int r = 0;
	DIR *d;

	if (proc < 0)
		return proc;
	dfd = openat(proc, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = dfd < 0 ? NULL : fdopendir(dfd);
	if (!d) {
		r = -errno;
		if (dfd >= 0)
			close(dfd);
		close(proc);
		return r;
	}
	while (!r && (de = readdir(d))) {
		char path[300];
		struct stat st;
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		snprintf(path, sizeof(path), "%ld/ns/mnt", pid);
		if (fstatat(proc, path, &st, 0))
			continue; /* gone, or not ours to look at */
		r = fn(proc, (int)pid, &st, data);
	}
	closedir(d);
	close(proc);
	return r < 0 ? r : 0;
}

static int scan_add(int proc, int pid, const struct stat *st, void *data)
{
	struct ns_seen *s = data;
	struct mntsnap_ns_entry *e = seen_find(s, st->st_ino), ne;
	char path[64];
	int fd, r;

	if (e) {
		if (!e->pid)
			e->pid = pid;
		return 0;
	}
	snprintf(path, sizeof(path), "%d/ns/mnt", pid);
	fd = mntsnap__proc_ns_open(proc, path);
	if (fd < 0)
		return 0;
	r = describe(fd, &ne);
	close(fd);
	if (r || ne.inode != st->st_ino)
		return 0; /* the process moved on meanwhile */
	ne.pid = pid;
	return seen_add(s, &ne);
}

static int entry_cmp(const void *a, const void *b)
{
	const struct mntsnap_ns_entry *x = a, *y = b;

	if (x->ns_id != y->ns_id)
		return x->ns_id < y->ns_id ? -1 : 1;
	return x->inode < y->inode ? -1 : x->inode > y->inode;
}

int mntsnap__ns_list(struct mntsnap_ns_entry **ret_list, size_t *ret_n)
{
	struct ns_seen s = { 0 };
	struct mntsnap_ns_entry own;
	int self, r;

	if (!ret_list || !ret_n)
		return -EINVAL;
	self = mntsnap__ns_open_own_fd();
	if (self < 0)
		return self;
	r = describe(self, &own);
	if (!r) {
		own.own = true;
		r = seen_add(&s, &own);
	}
	/* iteration sees namespaces without processes; refusal is not an error */
	if (!r) {
		r = ns_walk(self, MNTSNAP_NS_MNT_GET_PREV, list_visit, &s);
		if (r == -ENOMEM)
			goto out;
		r = ns_walk(self, MNTSNAP_NS_MNT_GET_NEXT, list_visit, &s);
		if (r == -ENOMEM)
			goto out;
		/* the scan adds what iteration could not show, and the pids */
		r = proc_scan(scan_add, &s);
	}
out:
	close(self);
	if (r) {
		free(s.v);
		return r;
	}
	qsort(s.v, s.n, sizeof(*s.v), entry_cmp);
	*ret_list = s.v;
	*ret_n = s.n;
	return 0;
}

int mntsnap_ns_list(struct mntsnap_ns_entry **ret_list, size_t *ret_n)
{
	return mntsnap__ns_list(ret_list, ret_n);
}

struct id_search {
	uint64_t id;
	int fd;
};

static int id_visit(int fd, void *data)
{
	struct id_search *q = data;
	uint64_t id = 0;

	if (mntsnap__sys_ioctl(NULL, fd, MNTSNAP_NS_GET_MNTNS_ID, &id) >= 0 && id == q->id) {
		q->fd = fd;
		return 1;
	}
	/* ids ascend along NEXT; keep fd only as the next starting point */
	return 0;
}

static int id_scan(int proc, int pid, const struct stat *st, void *data)
{
	struct id_search *q = data;
	char path[64];
	uint64_t id = 0;
	int fd;

	(void)st;
	snprintf(path, sizeof(path), "%d/ns/mnt", pid);
	fd = mntsnap__proc_ns_open(proc, path);
	if (fd < 0)
		return 0;
	if (mntsnap__sys_ioctl(NULL, fd, MNTSNAP_NS_GET_MNTNS_ID, &id) >= 0 && id == q->id) {
		q->fd = fd;
		return 1;
	}
	close(fd);
	return 0;
}

int mntsnap__ns_enter_fd(const struct mntsnap_ns *ns, int *ret_fd, bool *ret_owned)
{
	struct id_search q = { .fd = -1 };
	int self;

	if (ns->nsfd >= 0) {
		*ret_fd = ns->nsfd;
		*ret_owned = false;
		return 0;
	}
	if (ns->text_only)
		return -EACCES; /* the caller may read its text, not its namespace */
	if (!ns->ns_id)
		return -EINVAL;
	q.id = ns->ns_id;
	self = mntsnap__ns_open_own_fd();
	if (self < 0)
		return self;
	if (id_visit(self, &q) == 1) {
		*ret_fd = mntsnap__fd_move_above_stdio(self);
		*ret_owned = true;
		return *ret_fd < 0 ? *ret_fd : 0;
	}
	/* the walk closes the fds it does not hand back */
	ns_walk(self, MNTSNAP_NS_MNT_GET_NEXT, id_visit, &q);
	if (q.fd < 0)
		ns_walk(self, MNTSNAP_NS_MNT_GET_PREV, id_visit, &q);
	close(self);
	if (q.fd < 0)
		proc_scan(id_scan, &q);
	if (q.fd < 0)
		return -ENOENT;
	*ret_fd = mntsnap__fd_move_above_stdio(q.fd);
	*ret_owned = true;
	return *ret_fd < 0 ? *ret_fd : 0;
}

