/* SPDX-License-Identifier: MIT */
/*
 * mntsnap-supervisor: a mount supervisor for containers. A seccomp filter
 * in the container turns mount(2) into a user notification
 * (SCMP_ACT_NOTIFY / SECCOMP_RET_USER_NOTIF); the supervisor receives it on
 * the filter's notify fd, reads the arguments from the caller's memory,
 * decides with a policy over the whole request (filesystem type, source,
 * target as the container resolves them, every option), and when allowed
 * performs the mount itself inside the container's namespaces (mount,
 * pid, net, ipc, cgroup, time: a new proc, sysfs, mqueue or cgroup2 shows
 * the container's processes, devices, queues and cgroup root, never the
 * supervisor's) and, when the container has a user namespace of its own,
 * with the credentials of its root there (unless the deciding rule grants
 * MNTSNAP_POLICY_GRANT_HOST_CREDENTIALS), and returns the result as
 * mount's return value. The container needs no
 * CAP_SYS_ADMIN: seccomp acts at syscall entry, before capability checks.
 *
 * Same conventions as mntsnap.h (0 or a negative errno value, ret_* last,
 * sz-versioned option structs declared with MNTSNAP_OPTS, opaque objects,
 * O_CLOEXEC fds, never printing). Core library: libc only.
 *
 * Safety, by construction:
 *  - arguments are read with process_vm_readv(2); then
 *    SECCOMP_IOCTL_NOTIF_ID_VALID is checked before anything is done, so a
 *    request whose caller died (or whose pid now names someone else) is
 *    dropped;
 *  - the supervisor never answers SECCOMP_USER_NOTIF_FLAG_CONTINUE (the
 *    caller could rewrite its pointer arguments after the check): every
 *    allowed request is performed by the supervisor and its result
 *    returned;
 *  - paths are resolved inside the container's root with openat2(2)
 *    RESOLVE_IN_ROOT|RESOLVE_NO_MAGICLINKS by a worker process inside the
 *    caller's namespaces, from the directory the kernel resolved: the policy
 *    sees the canonical path ("/mnt/l" -> "/../../tmp" is "/tmp") and the
 *    mount goes onto that same opened object (fsmount + move_mount onto
 *    the fd, open_tree for binds), never onto a path looked up again;
 *  - those lookups are checked with the calling thread's fsuid, fsgid and
 *    supplementary groups (read from the supervisor's procfs before
 *    SECCOMP_IOCTL_NOTIF_ID_VALID): a path the caller cannot search fails
 *    with EACCES as it would for the caller itself; only the mount is
 *    then made with the container root's credentials (or the
 *    supervisor's, see above);
 *  - a worker that ends (killed: it is a process of the container's pid
 *    namespace) after attaching the mount does not turn a performed
 *    request into a failure: the mount's id is known before the attach,
 *    and if it is attached in the caller's mount namespace the answer is
 *    0, audited with its mnt_id, and the mount counts as made for the
 *    container;
 *  - a requester whose root is not its mount namespace's root (chroot()
 *    inside the container) is refused with EPERM: there "/" would mean
 *    something else to it than to the supervisor; so is one in the
 *    supervisor's own mount namespace;
 *  - a proc is mounted "subset=pid" and a sysfs "ro" unless the rule
 *    grants otherwise; binfmt_misc is refused where it would be the
 *    host's instance (no user namespace of the container's own).
 *
 * Handled: mount(2) new mounts, binds (MS_REC), remounts (with and without
 * MS_BIND; the rule's force list is applied again, as the flags given
 * replace the mount's) of a mount the supervisor made for the same notify
 * fd only, and without MS_BIND only of a new mount whose superblock was
 * created for it (FSCONFIG_CMD_CREATE_EXCL, 6.6+), is of no type whose
 * superblocks are shared (sysfs, mqueue, cgroup2, debugfs, ...) and is
 * mounted nowhere else in the container's mount namespace (the superblock
 * under a bind is its source's; a bind is remounted under the "bind"
 * rules with the source it was made from; no remount clears a flag the
 * mount locked: a bind's source mount's ro, nosuid, nodev, noexec and
 * atime mode, a new mount's forced flags; such a remount fails with EPERM
 * as in a user namespace); a bind whose source is on proc,
 * sysfs or another kernel interface only under the rule's grant
 * (full-proc, writable-sysfs, writable-cgroup, host-credentials for the
 * others), and a
 * non-recursive one only if no mount lies below its source; umount2(2) with 0, MNT_DETACH or UMOUNT_NOFOLLOW
 * of a mount the supervisor made for the same notify fd, nothing else;
 * MS_MOVE of such a mount (matched with its type, its resolved location as
 * source and the new one as target; a bind as "bind" with the source it
 * was made from); propagation changes with MS_REC or
 * not (matched with the mount's type and the options "shared", "slave",
 * "private" or "unbindable", plus "rec").
 * The new mount API: fsopen() and fsmount() give the caller a placeholder
 * (SECCOMP_IOCTL_NOTIF_ADDFD: the non-blocking read end of an empty pipe
 * of the supervisor's, recognised by the inode its fdinfo names: the
 * supervisor never takes a reference to a container's file, whose last
 * close could block it; once the container has closed it the context is
 * forgotten, at most 64 are pending per notify fd, and all notify fds
 * together at most half of RLIMIT_NOFILE's soft limit less 32, as each
 * costs the supervisor an fd: beyond it fsopen(), fsmount() and
 * open_tree() fail with ENFILE, reason "placeholder limit"), fsconfig() string and
 * flag options on it are recorded, and move_mount() of the placeholder
 * onto an absolute path decides the whole request (type, source, every
 * option, mount attributes, resolved target) and performs it like
 * mount(2); open_tree(OPEN_TREE_CLONE) gives a placeholder moved as a
 * bind, mount_setattr() on a placeholder records attributes; fspick and
 * the other forms are refused.
 * Refused with the policy's errno: unknown flags, non-string data,
 * relative paths, other syscalls and ABIs.
 */
#ifndef MNTSNAP_SUPERVISOR_H
#define MNTSNAP_SUPERVISOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mntsnap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Exported from a library built with -fvisibility=hidden (see mntsnap.h). */
#if defined(__GNUC__) && __GNUC__ >= 4
#pragma GCC visibility push(default)
#endif

/* ------------------------------------------------------------------------ */
/* Policy.                                                                  */
/* ------------------------------------------------------------------------ */
struct mntsnap_policy;

/*
 * One rule. A request matches when every non-NULL field matches; the first
 * matching rule decides, else the policy's default.
 *  fstype: the filesystem type asked for ("tmpfs"), "bind" for bind
 *          mounts, their remounts and moves; for a remount or move of a
 *          new mount, or a propagation change, the type of the mount
 *          concerned.
 *          NULL or "*": any.
 *  source: fnmatch(3) glob with FNM_PATHNAME ('*' never crosses '/'). For
 *          bind mounts it matches the source path resolved inside the
 *          container's root; for new mounts the source string as given
 *          ("none"). NULL: any.
 *  target: glob over the target path resolved inside the container's root
 *          (symlinks followed inside that root, then matched). NULL: any.
 *  force:  NULL-terminated list of options added to the mount. Mount
 *          flags by name ("ro", "nosuid", "nodev", "noexec", "noatime",
 *          "nodiratime", "relatime", "strictatime", "nosymfollow", "sync",
 *          "dirsync", "lazytime") override their opposite in the request
 *          ("rw", "suid", "dev", "exec", ...); "key=value" or "key"
 *          filesystem options replace an asked option with the same key.
 *  forbid: NULL-terminated list of option names; a request asking for one
 *          ("uid" matches "uid" and "uid=anything") fails with err.
 *  deny:   the rule refuses what it matches, with err.
 *  err:    positive errno for deny and forbid; 0 = the policy's.
 *  grant:  MNTSNAP_POLICY_GRANT_* bits, what the supervisor otherwise
 *          refuses a container even when the rule allows the mount (each
 *          one named in the audit event's grant when used):
 *          _FULL_PROC: a proc without "subset=pid" (by default a proc
 *          made for a container is subset=pid: its processes only, no
 *          /proc/sys, no /proc/kcore; a container without a user
 *          namespace could write the host's kernel settings through a full
 *          one); _WRITABLE_SYSFS: a sysfs mount without "ro" (by default
 *          read-only); _WRITABLE_CGROUP: a cgroup2 or cgroup mount
 *          without "ro" (by default read-only, as runtimes mount
 *          /sys/fs/cgroup: a writable one lets the container change the
 *          limits of its own cgroup and, where the runtime left it in the
 *          host's cgroup, kill and move the host's processes), or a bind
 *          from one; _HOST_CREDENTIALS: the filesystem is created with
 *          the supervisor's credentials instead of those of the container's
 *          user namespace, for a type a user namespace may not mount (a
 *          block device filesystem); its superblock is then owned by the
 *          supervisor's user namespace. Without a user namespace of its
 *          own a container's mounts always use the supervisor's.
 * mount(2) expresses exec, suid, dev and atime only by the absence of a
 * flag: "not asked" and "asked for exec" are the same request, so forbid
 * cannot tell them apart; force the opposite ("noexec") instead.
 */
struct mntsnap_policy_rule {
	size_t sz;
	const char *fstype;
	const char *source;
	const char *target;
	const char *const *force;
	const char *const *forbid;
	bool deny;
	int err;
	unsigned grant;
	size_t : 0;
};

#define MNTSNAP_POLICY_GRANT_FULL_PROC 0x1U
#define MNTSNAP_POLICY_GRANT_WRITABLE_SYSFS 0x2U
#define MNTSNAP_POLICY_GRANT_HOST_CREDENTIALS 0x4U
#define MNTSNAP_POLICY_GRANT_WRITABLE_CGROUP 0x8U

/*
 * A policy: default_allow says what happens to a request no rule matches;
 * err (positive errno, 0 = EPERM) is returned to the container for a
 * refusal that names no errno of its own. *ret_policy: free with
 * mntsnap_policy_free(). Errors: -EINVAL (err out of range), -ENOMEM.
 */
int mntsnap_policy_new(bool default_allow, int err, struct mntsnap_policy **ret_policy);

/*
 * Append a rule (copied: the caller's strings may go away). Errors:
 * -EINVAL with ret_error->msg naming the field: a target glob that is not
 * absolute ("/..." or "*"), a glob with an unclosed '[' or a trailing
 * '\', an empty source glob or fstype, an empty or comma-containing
 * force/forbid entry, an errno out of 0-4095; -E2BIG (opts); -ENOMEM.
 * ret_error may be NULL.
 */
int mntsnap_policy_add(struct mntsnap_policy *policy, const struct mntsnap_policy_rule *rule,
		       struct mntsnap_error *ret_error);

/* Number of rules. */
size_t mntsnap_policy_count(const struct mntsnap_policy *policy);

/*
 * Decide one request without performing it (what the supervisor does
 * once paths are resolved): fstype, source and target as above, options
 * the comma-separated options asked ("nosuid,size=1m", NULL = none).
 * Returns 0 when allowed, else the negative errno the container would
 * get; *ret_rule (may be NULL) is the deciding rule's index, -1 for the
 * default.
 */
int mntsnap_policy_check(const struct mntsnap_policy *policy, const char *fstype,
			 const char *source, const char *target, const char *options,
			 int *ret_rule);

/* Accepts NULL. */
void mntsnap_policy_free(struct mntsnap_policy *policy);

/* ------------------------------------------------------------------------ */
/* Supervisor.                                                              */
/* ------------------------------------------------------------------------ */
struct mntsnap_supervisor;

/*
 * One decision, passed to the audit callback. Strings are valid during
 * the call only; NULL when unknown (unreadable argument, never resolved).
 */
struct mntsnap_sv_event {
	uint64_t time_ns;         /* CLOCK_REALTIME */
	const char *container;    /* the id given to mntsnap_supervisor_add */
	int pid;                  /* the caller, in the supervisor's pid namespace */
	const char *syscall;      /* "mount", "umount2", "fsopen", "fsconfig",
				   * "fsmount", "move_mount", "open_tree",
				   * "mount_setattr", "nr:N", or for
				   * another ABI (always refused)
				   * "nr:N,arch:0xAUDITARCH" */
	const char *fstype;       /* as asked; "bind" for bind mounts */
	const char *source;       /* as asked */
	const char *target;       /* as asked */
	const char *source_resolved; /* inside the container's root (binds) */
	const char *target_resolved;
	const char *options_asked;   /* flags by name, then the data string */
	const char *options_applied; /* with the rule's force list, if performed */
	int rule;                 /* deciding rule, -1 default, -2 not decided */
	int result;               /* 0 or the -errno the caller got */
	uint64_t mnt_id;          /* unique id of the new mount (statx
				   * STATX_MNT_ID_UNIQUE, statmount's id), 0 if none */
	const char *reason;       /* short word on why, for refusals */
	const char *grant;        /* the rule's grants used by a performed
				   * request, comma-joined ("full-proc",
				   * "writable-sysfs", "writable-cgroup",
				   * "host-credentials"),
				   * NULL if none */
	uint64_t unlogged;        /* not 0: this event only sums up that many
				   * of the container's requests left out of
				   * the audit (see audit below); syscall
				   * NULL, pid 0, reason "not logged",
				   * rule -2, time that of the event it
				   * precedes */
};

typedef void (*mntsnap_sv_audit_fn)(const struct mntsnap_sv_event *ev, void *data);

/*
 * Can the audit sink take one more line (of at most
 * MNTSNAP_SV_AUDIT_LINE_MAX bytes)? 0 yes, else a negative errno.
 */
typedef int (*mntsnap_sv_audit_ready_fn)(void *data);

/*
 * The longest audit line mntsnap_sv_event_json() makes for any request
 * (every field at the kernel's limits, every byte escaped), newline and
 * NUL included: a buffer this long always takes a line.
 */
#define MNTSNAP_SV_AUDIT_LINE_MAX (256U * 1024U)
/*
 * Each string field a container chooses (fstype, source, target, their
 * resolved forms, the options) takes at most this many bytes of a line
 * (escapes included, never cut in two); the line then says
 * "truncated":{"source":4095,...} with the whole lengths in bytes.
 */
#define MNTSNAP_SV_AUDIT_FIELD_MAX 1024U
#define MNTSNAP_SV_ID_MAX 1024 /* a container id's length, see mntsnap_supervisor_add */

/*
 * audit: called once per request answered (also for refusals), from
 * mntsnap_supervisor_dispatch()'s workers, one at a time (never
 * concurrently), before the request is answered. Every request that
 * changed a mount (a mount, umount2, remount, move or propagation change
 * performed) is always audited. The others (refusals, and the new mount
 * API's placeholder calls, which change nothing) are audited within a
 * budget per container, a token bucket of audit bytes (lines as
 * mntsnap_sv_event_json() makes them): 1 MiB at once, then 16 KiB a
 * second. Beyond it they are still answered as ever, only not audited;
 * the container's next audited event is preceded by one event whose
 * unlogged says how many were left out (also when its processes have
 * gone, and at mntsnap_supervisor_free). So no container fills the audit
 * sink (which would make audit_ready refuse every container's requests)
 * faster than its own mounts do. audit_ready (may be
 * NULL), with audit_data: asked before a request is acted on; when it
 * fails the request is refused (the policy's errno, reason "audit
 * unavailable"), never performed, so nothing is done that the audit
 * cannot record. timeout_ms bounds each worker run inside a container
 * (0 = 10 s).
 */
struct mntsnap_supervisor_opts {
	size_t sz;
	mntsnap_sv_audit_fn audit;
	void *audit_data;
	unsigned timeout_ms;
	mntsnap_sv_audit_ready_fn audit_ready;
	size_t : 0;
};

/*
 * A supervisor deciding with policy, which it borrows: keep the policy
 * alive and unchanged until mntsnap_supervisor_free(). Errors: -EINVAL,
 * -E2BIG (opts), -ENOMEM, -EMFILE (epoll_create1).
 */
int mntsnap_supervisor_new(const struct mntsnap_policy *policy,
			   const struct mntsnap_supervisor_opts *opts,
			   struct mntsnap_supervisor **ret_sv);

/*
 * Serve one more seccomp notify fd (from seccomp(2)
 * SECCOMP_FILTER_FLAG_NEW_LISTENER, an OCI listenerPath message or
 * seccomp_notify_fd()). The supervisor takes the fd over on success (it
 * closes it when every process of the filter has gone, or at free); on
 * failure the caller keeps it. id names the container in audit events
 * (copied, NULL = "", at most MNTSNAP_SV_ID_MAX bytes: -ENAMETOOLONG).
 * Errors: -EBADF, -ENOTTY (not a seccomp notify
 * fd: a pipe would poll readable and be retried for ever), -EEXIST (fd
 * already served), -ENOMEM.
 */
int mntsnap_supervisor_add(struct mntsnap_supervisor *sv, int notify_fd, const char *id);

/* Number of notify fds served. */
size_t mntsnap_supervisor_count(const struct mntsnap_supervisor *sv);

/*
 * An fd that polls readable when a worker has answered a request or a
 * container's processes have all gone: add it to the caller's event loop
 * and call mntsnap_supervisor_dispatch() then.
 */
int mntsnap_supervisor_fd(const struct mntsnap_supervisor *sv);

/*
 * Requests are answered by a thread per notify fd (started by
 * mntsnap_supervisor_add), one request at a time per container, so a
 * container whose request stalls (a FUSE mount that never answers on the
 * way to a target, until the worker's timeout) delays only itself. This
 * waits up to timeout_ms (-1 forever, 0 not at all) for word from them,
 * and drops the notify fds whose processes have all exited. Returns the
 * number of requests answered since the last call (0 on timeout) or
 * -EINTR, -EBADF. A request that cannot be handled (unreadable
 * arguments, a caller gone, a worker failure) is answered with an error
 * or dropped; it never stops the supervisor.
 */
int mntsnap_supervisor_dispatch(struct mntsnap_supervisor *sv, int timeout_ms);

/*
 * Accepts NULL. Stops the threads (waiting for a request in hand, at
 * most its worker's timeout) and closes every notify fd: pending callers
 * get ENOSYS.
 */
void mntsnap_supervisor_free(struct mntsnap_supervisor *sv);

/*
 * mntsnap_policy_freep / mntsnap_supervisor_freep - free *p and set it
 * to NULL (NULL fine), for MNTSNAP_CLEANUP() (mntsnap.h):
 *   MNTSNAP_CLEANUP(mntsnap_policy_freep) struct mntsnap_policy *p = NULL;
 */
void mntsnap_policy_freep(struct mntsnap_policy **p);
void mntsnap_supervisor_freep(struct mntsnap_supervisor **p);

/*
 * One audit event as a JSON object on one line, newline included, into
 * buf (NUL-terminated). Returns the length without the NUL, or -ENOSPC
 * when buf is too small (buf then holds no partial line).
 */
int mntsnap_sv_event_json(const struct mntsnap_sv_event *ev, char *buf, size_t len);

#if defined(__GNUC__) && __GNUC__ >= 4
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif
