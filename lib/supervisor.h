/* SPDX-License-Identifier: MIT */
/*
 * Internals of the mount supervisor: mount options and the policy
 * (policy.c), requests and containers. One request runs one pipeline,
 * one stage a file:
 *   read (sv-read.c: the caller's memory and fds, NOTIF_ID_VALID)
 *   -> decode (sv-decode.c: arguments -> struct sv_req, no syscalls)
 *   -> decide (sv-decide.c: the policy over the struct, no syscalls)
 *   -> perform (sv-perform.c: a worker in the caller's namespaces;
 *      sv-mount.c: the work inside them, the only code that mounts)
 *   -> answer (sv-answer.c: tracking, audit, SEND).
 * supervisor.c's loop drives mount(2) and umount2 through them,
 * sv-newapi.c the new mount API's calls. Calls run one way, in this
 * order: supervisor.c, sv-newapi.c, sv-answer.c, sv-perform.c,
 * sv-mount.c, sv-decide.c, sv-decode.c, sv-read.c (a file calls only
 * later ones; the perform stage asks read for NOTIF_ID_VALID after
 * opening the namespaces, and decide once the paths are resolved);
 * policy.c and sv-json.c are below them all. tests/api/check-layers.py
 * enforces the order.
 */
#ifndef MNTSNAP_SUPERVISOR_INTERNAL_H
#define MNTSNAP_SUPERVISOR_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sys.h"
#include "uapi.h"

#include "mntsnap-supervisor.h"

/*
 * A mount flag as mount(2) sets it (ms), as the new mount API sets it
 * (attr: MOUNT_ATTR_* on the mount; sb: an fsconfig flag on the
 * superblock) and by name, with the name of its absence.
 */
struct mntsnap__mntflag {
	const char *name;
	const char *opposite;
	uint32_t ms;
	uint64_t attr;     /* 0 with attr_atime: an atime mode */
	bool attr_atime;   /* attr is a value of MOUNT_ATTR__ATIME */
	const char *sb;    /* fsconfig flag, NULL if per-mount only */
};

/* The flag whose name or opposite is name (*ret_set: which), or NULL. */
const struct mntsnap__mntflag *mntsnap__mntflag_find(const char *name, size_t len,
						     bool *ret_set);

/* Every MS_* bit mntsnap__mntflag knows. */
uint32_t mntsnap__mntflag_ms_all(void);

/*
 * Names of the ms bits, comma-joined, then data (appended as is): the
 * "options asked" of a mount(2) request. Malloc'd; NULL on ENOMEM.
 */
char *mntsnap__opts_from_ms(uint32_t ms, const char *data);

/*
 * The options to perform: asked with rule's force list applied (forced
 * flags override their opposite, forced keys replace asked ones).
 * rule < 0: asked unchanged. Malloc'd; NULL on ENOMEM.
 */
char *mntsnap__policy_apply(const struct mntsnap_policy *p, int rule, const char *asked);

/*
 * opts with every item of force added last, overriding the same key or
 * the flag's opposite as a rule's force list does. Malloc'd; NULL on
 * ENOMEM.
 */
char *mntsnap__opts_force(const char *opts, const char *const *force);

/* The MNTSNAP_POLICY_GRANT_* bits of rule (0 for the default, rule < 0). */
unsigned mntsnap__policy_grant(const struct mntsnap_policy *p, int rule);

/* mntsnap_policy_check() for the library's own callers. */
int mntsnap__policy_check(const struct mntsnap_policy *policy, const char *fstype,
			  const char *source, const char *target, const char *options,
			  int *ret_rule);

/* The policy's errno for refusals that name none (positive). */
int mntsnap__policy_errno(const struct mntsnap_policy *p);

/*
 * Could a rule match fstype (NULL = unknown), or the default allow? When
 * not, the default refuses it whatever the paths: no need to resolve them.
 */
bool mntsnap__policy_may_allow(const struct mntsnap_policy *p, const char *fstype);

/* ---- the supervisor's internals, shared by supervisor.c and sv-*.c ---- */

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

#define SV_PATH_MAX 4096
#define SV_DATA_MAX 4096 /* mount(2) copies one page of data */
#define SV_FSTYPE_MAX 256

/*
 * A filesystem context or detached mount of the new mount API, as the
 * container holds it: the fd it got from fsopen()/fsmount() is the read
 * end of a pipe of ours, fd is the write end (the inode, read from the
 * container's fdinfo, names the context; POLLERR on fd says the container dropped it); the options it
 * configures are only recorded. Nothing is created until move_mount()
 * names the target: then the whole request is decided at once, like a
 * mount(2), and performed the same way.
 */
struct sv_fsctx {
	int fd;           /* our (write) end of the placeholder pipe */
	uint64_t ino;     /* the read end's inode and mount (pipefs), as fdinfo names them */
	uint64_t mnt_id;
	bool created;     /* FSCONFIG_CMD_CREATE seen */
	bool is_mount;    /* from fsmount() or open_tree(): a "detached mount" */
	bool mounted;     /* fsmount() done: a second one is EBUSY, as the kernel says */
	bool is_bind;     /* from open_tree(OPEN_TREE_CLONE): source is a path */
	bool rec;         /* open_tree with AT_RECURSIVE */
	uint64_t attr;    /* fsmount attr_flags */
	char fstype[256];
	char *source;
	char *opts;       /* comma list of what fsconfig set */
};

#define SV_MAX_CTX 64 /* pending contexts per container */
/*
 * fsconfig's key and string value: the kernel copies each with
 * strndup_user(..., 256) (fs/fsopen.c) and refuses a longer one with
 * EINVAL (measured on 6.18: a 255-byte "source" is taken, 256 refused).
 */
#define SV_FSCONFIG_STR_MAX 256
/*
 * The options recorded for one context, about what mount(2) takes (one
 * page of data; legacy filesystems refuse more than a page of options in
 * a context), less room for the mount attributes added at move_mount:
 * over it fsconfig fails with EINVAL, like theirs.
 */
#define SV_CTX_OPTS_MAX (SV_DATA_MAX - 128) /* room for the attribute names */
/* Every context of a container together: options and sources recorded. */
#define SV_CONTAINER_BYTES_MAX (SV_MAX_CTX * (SV_CTX_OPTS_MAX + SV_FSCONFIG_STR_MAX))

/*
 * A mount the supervisor made for a container: its unique id and, for a
 * bind, the source it was decided with (a remount of it is decided as a
 * bind again, never by the type of the source's superblock). locked: the
 * MOUNT_ATTR_* no remount of it may lose: for a bind the source mount's
 * ro, nosuid, nodev, noexec and atime mode (what the kernel's MNT_LOCK_*
 * keeps on a copy made in a user namespace), for a new mount the rule's
 * forced ones and a sysfs's default ro.
 */
struct sv_mount {
	uint64_t id;
	uint64_t ns_id;    /* the mount namespace it was made in (0: unknown) */
	char *bind_source; /* NULL: a new mount */
	bool own_sb;       /* its superblock was created for it (CREATE_EXCL) */
	uint64_t locked;
};

/*
 * One notify fd, served by a thread of its own (the worker, see
 * supervisor.c): everything below but the worker's bookkeeping is touched
 * by that thread only, so nothing one container does (a helper waiting
 * on its FUSE mount, a flood of calls) holds up another. mounted: the
 * mounts made for it, the only ones its umount2(), MS_MOVE and remounts
 * may act on.
 */
struct sv_container {
	struct mntsnap_supervisor *sv;
	pthread_t worker;
	bool started;
	int stop;                 /* eventfd: the worker returns */
	atomic_bool finished;     /* every process of the filter has gone */
	int fd;
	char *id;
	struct sv_mount *mounted;
	size_t nmounted;
	struct mntsnap_ns *ns; /* the callers' mount namespace, see caller_ns() */
	dev_t ns_dev;
	ino_t ns_ino;
	struct sv_fsctx **ctx;    /* pending new-mount-API contexts, see fsopen */
	size_t nctx;
	size_t ctx_bytes;         /* recorded in them (sources, options) */
	size_t prune_at;          /* mounted checked for vanished mounts at this many */
	/* the audit budget of requests that change no mount (sv-answer.c) */
	double audit_tokens;      /* bytes */
	uint64_t audit_last_ns;   /* CLOCK_MONOTONIC of the last refill, 0: full */
	uint64_t unlogged;        /* left out since the last audited event */
};

/*
 * The audit budget per container for requests that change no mount
 * (refusals, placeholder calls): a token bucket of line bytes. A busy
 * container's requests of ordinary paths (about 400 bytes a line) fit
 * 2,600 at once; a flood of maximal ones is held to 16 KiB a second.
 */
#define SV_AUDIT_BURST (1024.0 * 1024.0)
#define SV_AUDIT_RATE (16.0 * 1024.0) /* bytes per second */
/* A container's record of mounts is checked for vanished ones past this. */
#define SV_PRUNE_MIN 64

enum sv_kind { SV_NEW, SV_BIND, SV_REMOUNT, SV_REMOUNT_BIND, SV_UMOUNT, SV_PROPAGATION, SV_MOVE };

/* One request, from RECV to SEND. The worker's half comes back in place. */
struct sv_req {
	struct mntsnap_k_seccomp_notif n;
	const struct sv_container *c;
	enum sv_kind kind;
	unsigned umount_flags;
	uint32_t ms;         /* the MS_* bits the flag table knows */
	bool rec;            /* MS_REC on a bind or a propagation change */
	uint32_t prop;       /* MS_SHARED/SLAVE/PRIVATE/UNBINDABLE asked */
	bool has_source, has_fstype, has_data;
	char source[SV_PATH_MAX], target[SV_PATH_MAX], fstype[SV_FSTYPE_MAX], data[SV_DATA_MAX];
	char *asked;         /* flags by name + data */
	/* expected identity of the caller's root */
	uint64_t root_mnt, root_ino, root_dev;
	/* filled by the worker (lib/sv-perform.c) */
	char rsource[SV_PATH_MAX], rtarget[SV_PATH_MAX], mfstype[SV_FSTYPE_MAX];
	char *applied;
	int rule;
	uint64_t mnt_id;
	const char *reason;
	char grant[64];      /* the rule's grants that were used, comma-joined */
	bool own_sb;         /* a new mount on a superblock created for it */
	uint64_t locked;     /* see struct sv_mount: recorded, or kept on a remount */
	int result;
	bool gone;           /* the answer found nobody */
	bool answered;       /* ADDFD with SEND already answered the call */
	const char *sysname; /* for the audit; NULL: from the number */
};

struct mntsnap_supervisor {
	const struct mntsnap_policy *policy;
	struct mntsnap_supervisor_opts o;
	struct mntsnap_sysops sys;
	int epfd;
	int events;               /* eventfd in epfd: a worker answered or finished */
	atomic_int answered;      /* since the last dispatch */
	pthread_mutex_t audit_lock; /* the audit callbacks are never called concurrently */
	struct sv_container **c;
	size_t n;
	atomic_size_t placeholders; /* pending contexts of every container: one fd each */
	dev_t own_dev;  /* the supervisor's own mount namespace (nsfs inode) */
	ino_t own_ino;
};

/*
 * What the worker gets: the request and the policy (lib/sv-mount.c), and
 * how to take on the credentials a decided request is performed with
 * (lib/sv-perform.c): host true for a rule granting
 * MNTSNAP_POLICY_GRANT_HOST_CREDENTIALS, else those of the container's
 * user namespace when it has one. Until then the worker has the caller's
 * fsuid, fsgid and groups, for the path lookups. 0 or -errno; called
 * once, after the decision and before anything is mounted.
 */
struct sv_work {
	struct sv_req *q;
	const struct mntsnap_policy *policy;
	int (*become)(const struct sv_work *w, bool host);
	/*
	 * Called with the new mount's unique id right before it is attached
	 * in the container (q complete as far as the work goes): if the
	 * worker dies after that, the supervisor finds out from the
	 * container's mount table whether the request happened.
	 */
	void (*attaching)(const struct sv_work *w, uint64_t mnt_id);
	const struct mntsnap_sysops *sys; /* move_mount (a test's seam) */
	void *ctx;
	bool own_userns; /* the container has a user namespace of its own */
};

/*
 * Run inside the caller's namespaces by the worker (lib/sv-perform.c):
 * check the root, resolve, decide and perform a mount(2) request (or the move_mount
 * of a new-API placeholder, decoded as one), or an umount2. 0 or -errno;
 * the request's resolved paths, rule, options and mount id are filled in.
 */
int mntsnap__sv_work_mount(void *data, void **ret_buf, size_t *ret_len);
int mntsnap__sv_work_umount(void *data, void **ret_buf, size_t *ret_len);

/* lib/sv-mount.c: statx(2) returning 0 or -errno (musl 1.2.3 has no wrapper). */
int mntsnap__sv_statx(int dfd, const char *path, int flags, unsigned mask,
		      struct mntsnap_statx *st);

/*
 * lib/sv-mount.c: the mount with this unique id if the supervisor made it
 * for c, else NULL.
 */
const struct sv_mount *mntsnap__sv_ours(const struct sv_container *c, uint64_t id);

/*
 * lib/sv-decide.c, the decide stage (no syscalls; the policy over q):
 * early, before anything is opened: a mount of a type no rule can allow
 * is refused (q->reason, q->rule -1; _early: for a mount(2) new mount or
 * bind). In the worker, once
 * the paths are resolved into q: the rule (src: the source a remount or
 * move found for the mount it acts on, else NULL), the options to
 * perform in q->applied with the type's defaults and the grants used;
 * then a binfmt_misc that would be the host's instance is refused. 0 or
 * -errno (the policy's refusal, -ENOMEM), q->reason set.
 */
int mntsnap__sv_decide_type(const struct mntsnap_policy *p, struct sv_req *q, const char *fstype);
int mntsnap__sv_decide_early(const struct mntsnap_policy *p, struct sv_req *q);
int mntsnap__sv_decide(struct sv_req *q, const struct mntsnap_policy *p, const char *src);
int mntsnap__sv_decide_instance(struct sv_req *q, const struct mntsnap_policy *p, bool own_userns);

/*
 * lib/sv-decode.c, the decode stage (no syscalls): mount(2)'s flags into
 * q's kind, ms, rec and prop (-EOPNOTSUPP: flags the supervisor does not
 * know, -EINVAL: ones mount(2) refuses); umount2's into its kind and
 * flags (-EOPNOTSUPP: MNT_FORCE or MNT_EXPIRE, -EINVAL: unknown ones);
 * the options asked (malloc'd, NULL on ENOMEM); the fstype rules see:
 * "bind", the asked type, or the mount's own.
 */
int mntsnap__sv_decode_mount(struct sv_req *q, uint64_t flags64);
int mntsnap__sv_decode_umount(struct sv_req *q, uint64_t flags64);
char *mntsnap__sv_decode_asked(const struct sv_req *q);
const char *mntsnap__sv_match_fstype(const struct sv_req *q);
/* cgroup2 or cgroup (v1): a view of the cgroup tree, read-only by default */
bool mntsnap__sv_is_cgroup(const char *fstype);

/*
 * lib/sv-read.c: a NUL-terminated string at addr in the caller's
 * memory, read a page at a time: 0, -EFAULT (unreadable, NULL),
 * -ENAMETOOLONG, -ESRCH. _opt: NULL is "absent" (*ret_has false), not an
 * error.
 */
int mntsnap__sv_read_str(int pid, uint64_t addr, char *buf, size_t max);
int mntsnap__sv_read_opt(int pid, uint64_t addr, char *buf, size_t max, bool *ret_has);

/*
 * lib/sv-read.c: mount(2)'s source, target and fstype (source and fstype
 * may be NULL, the target may not: -EFAULT). 0 or as above.
 */
int mntsnap__sv_read_mount_args(struct sv_req *q);

/*
 * lib/sv-read.c: the inode and mount id of an open file from the "ino:"
 * and "mnt_id:" lines of procfs's rel (-ENOENT: no such fd, -EOPNOTSUPP:
 * no such lines); _fd_id: of the caller's fd fd64, read while a pidfd
 * pins the caller (-EBADF: no such fd, -ESRCH: gone).
 */
int mntsnap__sv_fdinfo_id(int proc, const char *rel, uint64_t resolve, uint64_t *ret_ino,
			  uint64_t *ret_mnt);
int mntsnap__sv_read_fd_id(const struct sv_req *q, uint64_t fd64, uint64_t *ret_ino,
			   uint64_t *ret_mnt);

/*
 * The calling thread's credentials for permission checks: fsuid, fsgid
 * and supplementary groups, as ids of the reader's user namespace.
 */
struct sv_creds {
	uint32_t fsuid, fsgid;
	size_t ngroups;
	uint32_t *groups; /* malloc'd */
};

/*
 * lib/sv-read.c: q's caller's credentials from the fourth "Uid:"/"Gid:"
 * fields and "Groups:" of its status below the supervisor's own procfs
 * root (ids of the supervisor's user namespace); _inside: the same ids
 * mapped into the caller's user namespace with its uid_map/gid_map (read
 * by the supervisor: outside ids are the supervisor's). Check
 * NOTIF_ID_VALID afterwards. 0, -ESRCH (gone), -EIO (unparsable),
 * -EPERM (an id with no mapping inside), -ENOMEM.
 */
int mntsnap__sv_read_creds(const struct sv_req *q, struct sv_creds *ret);
int mntsnap__sv_creds_inside(const struct sv_req *q, struct sv_creds *c);

/* lib/sv-read.c: exactly len bytes at addr: 0, -EFAULT, -ESRCH. */
int mntsnap__sv_read_mem(int pid, uint64_t addr, void *buf, size_t len);

/*
 * lib/sv-read.c: a pidfd for the caller's process (the notification
 * names a thread: PIDFD_THREAD, or its group's leader found and checked).
 * -ESRCH when it has gone.
 */
int mntsnap__sv_caller_pidfd(const struct sv_req *q);

/* lib/sv-read.c: SECCOMP_IOCTL_NOTIF_ID_VALID; 0 while the caller waits. */
int mntsnap__sv_id_valid(struct mntsnap_supervisor *sv, struct sv_container *c, uint64_t id);

/*
 * lib/sv-perform.c, the one entry into the perform stage: open the
 * caller's namespaces, check the request is still the caller's
 * (NOTIF_ID_VALID after the opens), and run the work (sv-mount.c) in a
 * worker inside them, with the credentials the decision calls for.
 * 0 or -errno; -ENOENT: the caller is gone.
 */
int mntsnap__sv_perform(struct mntsnap_supervisor *sv, struct sv_container *c, struct sv_req *q);

/*
 * lib/sv-newapi.c: fsopen, fsconfig, fsmount, move_mount, open_tree
 * (clones) and mount_setattr (on placeholders) requests.
 */
void mntsnap__sv_fsopen(struct mntsnap_supervisor *sv, struct sv_container *c, struct sv_req *q);
void mntsnap__sv_fsconfig(struct mntsnap_supervisor *sv, struct sv_container *c, struct sv_req *q);
void mntsnap__sv_fsmount(struct mntsnap_supervisor *sv, struct sv_container *c, struct sv_req *q);
void mntsnap__sv_move_mount(struct mntsnap_supervisor *sv, struct sv_container *c,
			    struct sv_req *q);
void mntsnap__sv_open_tree(struct mntsnap_supervisor *sv, struct sv_container *c,
			   struct sv_req *q);
void mntsnap__sv_mount_setattr(struct mntsnap_supervisor *sv, struct sv_container *c,
			       struct sv_req *q);
void mntsnap__sv_fsctx_free(struct sv_fsctx *x);

/*
 * lib/sv-answer.c: the audit sink's word before a request is acted on
 * (0, or < 0: refuse, nothing may be done that cannot be recorded), and
 * the last stage: the mounts made for c tracked, the audit line written,
 * the caller answered (SEND, unless ADDFD answered already).
 */
int mntsnap__sv_audit_ready(struct mntsnap_supervisor *sv);
void mntsnap__sv_answer(struct mntsnap_supervisor *sv, struct sv_container *c, struct sv_req *q);

/* lib/sv-answer.c: the event summing up c's requests left out of the audit, if any. */
void mntsnap__sv_audit_unlogged(struct mntsnap_supervisor *sv, struct sv_container *c);

/* lib/sv-json.c: the length of ev's line, newline included. */
size_t mntsnap__sv_event_json_len(const struct mntsnap_sv_event *ev);

#endif
