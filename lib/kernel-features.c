// SPDX-License-Identifier: MIT
/*
 * The kernel-feature table (libbpf's features.c idea): each row names one
 * interface the library uses, the release it appeared in and a probe that
 * asks the running kernel, through the syscall seam, rather than trusting
 * a version number: distributions backport (mnt_ns_fd reached 6.17.y) and
 * seccomp filters hide what the kernel has.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "kernel-features.h"

/*
 * The statmount row's "yes", once seen. Only a yes is kept: a refusal may
 * be one thread's seccomp filter (a filter belongs to the thread that
 * installed it, unless TSYNC spread it), and keeping it would deny the
 * process's other threads what the kernel gives them.
 */
static atomic_bool statmount_yes;

static void req_root(struct mntsnap_k_mnt_id_req *req, const struct mntsnap_k_mnt_id_req *tmpl)
{
	if (tmpl)
		*req = *tmpl;
	else
		*req = (struct mntsnap_k_mnt_id_req){ .size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER0 };
	req->mnt_id = MNTSNAP_K_LSMT_ROOT;
	req->param = 0;
}

/* One listmount of one id: the cheapest call that carries a request. */
static int list_one(const struct mntsnap_sysops *sys, const struct mntsnap_k_mnt_id_req *tmpl,
		    unsigned flags)
{
	struct mntsnap_k_mnt_id_req req;
	uint64_t id;
	long r;

	req_root(&req, tmpl);
	r = sys->listmount(sys->ctx, &req, &id, 1, flags);
	return r < 0 ? (int)r : 0;
}

/*
 * The kernel's answer as is: ENOSYS/EPERM/EACCES mean "unusable here";
 * what else a caller makes of an error (an old kernel's EINVAL for a
 * request it is too small for) depends on the request it meant to send.
 */
static int probe_statmount(const struct mntsnap_sysops *sys,
			   const struct mntsnap_k_mnt_id_req *tmpl)
{
	return list_one(sys, tmpl, 0);
}

/* The caller's own mount namespace file, for probes without a target. */
static int own_ns_fd(void)
{
	int fd = open("/proc/thread-self/ns/mnt", O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	return fd < 0 ? -errno : fd;
}

/* A VER1 request naming a namespace by id: tmpl's, else the caller's own. */
static int probe_ns_id(const struct mntsnap_sysops *sys, const struct mntsnap_k_mnt_id_req *tmpl)
{
	struct mntsnap_k_mnt_id_req req = { .size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER1 };
	long r;
	int fd;

	if (tmpl)
		return list_one(sys, tmpl, 0);
	fd = own_ns_fd();
	if (fd < 0)
		return fd;
	r = sys->ioctl(sys->ctx, fd, MNTSNAP_NS_GET_MNTNS_ID, &req.mnt_ns_id);
	close(fd);
	if (r < 0)
		return (int)r;
	return list_one(sys, &req, 0);
}

/* A request naming a namespace by nsfs fd: tmpl's, else the caller's own. */
static int probe_ns_fd(const struct mntsnap_sysops *sys, const struct mntsnap_k_mnt_id_req *tmpl)
{
	struct mntsnap_k_mnt_id_req req = { .size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER0 };
	int fd, r;

	if (tmpl)
		return list_one(sys, tmpl, 0);
	fd = own_ns_fd();
	if (fd < 0)
		return fd;
	req.mnt_ns_fd = (uint32_t)fd;
	r = list_one(sys, &req, 0);
	close(fd);
	return r;
}

static int probe_reverse(const struct mntsnap_sysops *sys, const struct mntsnap_k_mnt_id_req *tmpl)
{
	(void)tmpl;
	return list_one(sys, NULL, MNTSNAP_K_LISTMOUNT_REVERSE);
}

static int probe_statx_id(const struct mntsnap_sysops *sys, const struct mntsnap_k_mnt_id_req *tmpl)
{
	struct mntsnap_statx stx;
	long r;

	(void)tmpl;
	memset(&stx, 0, sizeof(stx));
	r = sys->statx(sys->ctx, AT_FDCWD, "/", 0, MNTSNAP_STATX_MNT_ID_UNIQUE, &stx);
	if (r < 0)
		return (int)r;
	/* kernels before 6.8 ignore the request bit and leave it unset */
	return stx.stx_mask & MNTSNAP_STATX_MNT_ID_UNIQUE ? 0 : -ENOSYS;
}

static int probe_pidfd_ns(const struct mntsnap_sysops *sys, const struct mntsnap_k_mnt_id_req *tmpl)
{
	long pidfd = mntsnap__sys_pidfd_open(getpid(), 0), fd;

	(void)tmpl;
	if (pidfd < 0)
		return (int)pidfd;
	fd = sys->ioctl(sys->ctx, (int)pidfd, MNTSNAP_PIDFD_GET_MNT_NAMESPACE, NULL);
	close((int)pidfd);
	if (fd < 0)
		return (int)fd;
	close((int)fd);
	return 0;
}

static int probe_ns_info(const struct mntsnap_sysops *sys, const struct mntsnap_k_mnt_id_req *tmpl)
{
	struct mntsnap_k_mnt_ns_info info = { .size = MNTSNAP_K_MNT_NS_INFO_SIZE_VER0 };
	int fd = open("/proc/thread-self/ns/mnt", O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	long r;

	(void)tmpl;
	if (fd < 0)
		return -errno;
	r = sys->ioctl(sys->ctx, fd, MNTSNAP_NS_MNT_GET_INFO, &info);
	close(fd);
	return r < 0 ? (int)r : 0;
}

/* Above 512: see the statmount buffer note in backend-statmount.c. */
#define PROBE_SM_BUF 1024

static int probe_supported_mask(const struct mntsnap_sysops *sys,
				const struct mntsnap_k_mnt_id_req *tmpl)
{
	union {
		struct mntsnap_k_statmount sm;
		char bytes[PROBE_SM_BUF];
	} b;
	struct mntsnap_k_mnt_id_req req;
	uint64_t id;
	long r;

	(void)tmpl;
	req_root(&req, NULL);
	r = sys->listmount(sys->ctx, &req, &id, 1, 0);
	if (r < 0)
		return (int)r;
	if (r == 0)
		return -ENOENT;
	req.mnt_id = id;
	req.param = MNTSNAP_K_STATMOUNT_SUPPORTED_MASK;
	r = sys->statmount(sys->ctx, &req, &b.sm, sizeof(b), 0);
	if (r < 0)
		return (int)r;
	/* before 6.15 the bit is unknown and comes back unset */
	return b.sm.mask & MNTSNAP_K_STATMOUNT_SUPPORTED_MASK ? 0 : -EOPNOTSUPP;
}

static int probe_fanotify(const struct mntsnap_sysops *sys, const struct mntsnap_k_mnt_id_req *tmpl)
{
	long fd = sys->fanotify_init(sys->ctx, MNTSNAP_K_FAN_REPORT_MNT | MNTSNAP_K_FAN_CLOEXEC, 0);

	(void)tmpl;
	if (fd < 0)
		return (int)fd;
	close((int)fd);
	return 0;
}

static int probe_by_fd(const struct mntsnap_sysops *sys, const struct mntsnap_k_mnt_id_req *tmpl)
{
	union {
		struct mntsnap_k_statmount sm;
		char bytes[PROBE_SM_BUF];
	} b;
	struct mntsnap_k_mnt_id_req req = { .size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER1 };
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	long r;

	(void)tmpl;
	if (fd < 0)
		return -errno;
	req.mnt_fd = (uint32_t)fd;
	req.param = MNTSNAP_K_STATMOUNT_MNT_BASIC;
	/* before 7.0 any flag is EINVAL */
	r = sys->statmount(sys->ctx, &req, &b.sm, sizeof(b), MNTSNAP_K_STATMOUNT_BY_FD);
	close(fd);
	return r < 0 ? (int)r : 0;
}

static const struct mntsnap_feat_desc table[MNTSNAP_FEAT__COUNT] = {
	[MNTSNAP_FEAT_STATMOUNT] = { "statmount", "6.8", MNTSNAP_FEAT_SCOPE_PROCESS,
				     probe_statmount },
	[MNTSNAP_FEAT_STATX_MNT_ID_UNIQUE] = { "STATX_MNT_ID_UNIQUE", "6.8",
					       MNTSNAP_FEAT_SCOPE_CALL, probe_statx_id },
	[MNTSNAP_FEAT_MNT_NS_ID] = { "mnt_id_req VER1 (mnt_ns_id)", "6.11",
				     MNTSNAP_FEAT_SCOPE_CALL, probe_ns_id },
	[MNTSNAP_FEAT_LISTMOUNT_REVERSE] = { "LISTMOUNT_REVERSE", "6.11",
					     MNTSNAP_FEAT_SCOPE_CALL, probe_reverse },
	[MNTSNAP_FEAT_PIDFD_GET_MNT_NAMESPACE] = { "PIDFD_GET_MNT_NAMESPACE", "6.11",
						   MNTSNAP_FEAT_SCOPE_CALL, probe_pidfd_ns },
	[MNTSNAP_FEAT_NS_MNT_GET_INFO] = { "NS_MNT_GET_INFO", "6.12", MNTSNAP_FEAT_SCOPE_CALL,
					   probe_ns_info },
	[MNTSNAP_FEAT_SUPPORTED_MASK] = { "STATMOUNT_SUPPORTED_MASK", "6.15",
					  MNTSNAP_FEAT_SCOPE_CALL, probe_supported_mask },
	[MNTSNAP_FEAT_FANOTIFY_MNT] = { "FAN_REPORT_MNT", "6.15", MNTSNAP_FEAT_SCOPE_CALL,
					probe_fanotify },
	[MNTSNAP_FEAT_MNT_NS_FD] = { "mnt_id_req.mnt_ns_fd", "6.18", MNTSNAP_FEAT_SCOPE_CALL,
				     probe_ns_fd },
	[MNTSNAP_FEAT_STATMOUNT_BY_FD] = { "STATMOUNT_BY_FD", "7.0", MNTSNAP_FEAT_SCOPE_CALL,
					   probe_by_fd },
};

const struct mntsnap_feat_desc *mntsnap__feature(int feat)
{
	return feat >= 0 && feat < MNTSNAP_FEAT__COUNT ? &table[feat] : NULL;
}

int mntsnap__feature_probe(int feat, const struct mntsnap_sysops *sys,
			   const struct mntsnap_k_mnt_id_req *tmpl)
{
	const struct mntsnap_feat_desc *d = mntsnap__feature(feat);
	int r;

	if (!d)
		return -EINVAL;
	/*
	 * The one process-scoped row: the library's only process-wide cache
	 * of a kernel answer (with the kernel release in snapshot.c and the
	 * helpers' dumpable count in ns-helper.c). A test's seam table
	 * neither reads nor writes it, so fake errors never leak out.
	 */
	if (d->scope != MNTSNAP_FEAT_SCOPE_PROCESS || sys->seam || tmpl)
		return d->probe(sys, tmpl);
	if (atomic_load_explicit(&statmount_yes, memory_order_relaxed))
		return 0;
	/* a "no" is asked again each time: one failing syscall, < 1 us */
	r = d->probe(sys, NULL);
	if (!r)
		atomic_store_explicit(&statmount_yes, true, memory_order_relaxed);
	return r;
}

int mntsnap__feature_of_req(const struct mntsnap_k_mnt_id_req *tmpl)
{
	if (tmpl && tmpl->mnt_ns_fd)
		return MNTSNAP_FEAT_MNT_NS_FD;
	if (tmpl && tmpl->size >= MNTSNAP_K_MNT_ID_REQ_SIZE_VER1)
		return MNTSNAP_FEAT_MNT_NS_ID;
	return MNTSNAP_FEAT_STATMOUNT;
}
