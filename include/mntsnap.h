/* SPDX-License-Identifier: MIT */
/*
 * mntsnap: enumerate, snapshot and compare Linux mount tables with
 * listmount(2)/statmount(2), falling back to /proc/PID/mountinfo.
 *
 * Conventions (every function below):
 *  - int returns are 0 (or a count) on success and a negative errno value on
 *    failure; errno is never the channel. -EINTR is never one: a wait or
 *    read a signal interrupts (also with handlers without SA_RESTART) is
 *    retried inside.
 *  - ret_* out parameters come last and are left untouched on failure.
 *  - option structs start with "size_t sz"; declare them with
 *    MNTSNAP_OPTS(type, name, .field = ...) so that new fields can be
 *    appended without breaking old callers. The library reads only the
 *    first sz bytes and rejects non-zero bytes it does not know (-E2BIG).
 *  - objects are opaque, created by *_new/capture/load and released by
 *    *_free, which accept NULL. No global mutable state: everything is
 *    thread-safe as long as one object is not mutated from two threads.
 *  - every fd the library opens is O_CLOEXEC; the library never prints.
 */
#ifndef MNTSNAP_H
#define MNTSNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
/*
 * In C++ a struct's name is also a type name in scope, so g++ -Wshadow
 * reads mntsnap_diff() (and mntsnap_order_step/_dep()) as hiding the
 * constructor of the struct of the same name. That is the C API's
 * naming, not a mistake in the consumer's code: keep its -Werror builds.
 */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#endif
#endif

/*
 * The version of this header, the project's version (meson.build; the
 * 'version' test keeps them equal). A program built against it may run
 * with a newer library: mntsnap_version() names the one in use.
 */
#define MNTSNAP_VERSION_MAJOR 0
#define MNTSNAP_VERSION_MINOR 1
#define MNTSNAP_VERSION_PATCH 0

/*
 * Declare an option struct with its sz set and every other byte zero:
 *   MNTSNAP_OPTS(mntsnap_capture_opts, opts, .mask = MNTSNAP_F_ALL);
 * Standard C99 and later. GNU C zeroes the padding too (memset), so that
 * bytes this library version does not know are zero when a newer
 * header's struct is passed. C++ (any version): MNTSNAP_OPTS(type, name)
 * without fields, which zeroes every byte and sets sz, then assign the
 * fields (name.mask = ...). In GNU C the macro is a statement expression,
 * so it declares block-scope structs only; one with static storage has
 * all bytes zero anyway: static struct T name = { .sz = sizeof(name) }.
 */
#define MNTSNAP__FIRST(A, ...) A
#define MNTSNAP__REST(A, ...) __VA_ARGS__
#if defined(__cplusplus)
#define MNTSNAP_OPTS(TYPE, NAME) struct TYPE NAME = mntsnap__opts_init<struct TYPE>()
#elif defined(__GNUC__) && !defined(__cplusplus)
#define MNTSNAP_OPTS(TYPE, ...)                                                \
	struct TYPE MNTSNAP__FIRST(__VA_ARGS__, ~) = __extension__({           \
		memset(&MNTSNAP__FIRST(__VA_ARGS__, ~), 0, sizeof(struct TYPE)); \
		(struct TYPE){ .sz = sizeof(struct TYPE),                      \
			       MNTSNAP__REST(__VA_ARGS__, ) };                 \
	})
#else
#define MNTSNAP_OPTS(TYPE, ...)                                                \
	struct TYPE MNTSNAP__FIRST(__VA_ARGS__, ~) = {                         \
		.sz = sizeof(struct TYPE), MNTSNAP__REST(__VA_ARGS__, )        \
	}
#endif

/*
 * The library is built with -fvisibility=hidden: what this header
 * declares, and nothing else, is exported.
 */
#if defined(__GNUC__) && __GNUC__ >= 4
#pragma GCC visibility push(default)
#endif

/* ------------------------------------------------------------------------ */
/* Field mask: which fields of a record are valid.                          */
/* ------------------------------------------------------------------------ */
/*
 * A bit is set when the field was asked for and the source could give it.
 * An empty value is a value: a filesystem without options has
 * MNTSNAP_F_OPTS set and options "", a mount that is not idmapped has
 * MNTSNAP_F_UIDMAP set with uidmap_num 0, a non-FUSE mount an empty
 * subtype. Absent means only "not asked for, or not known": statmount(2)
 * leaves a string bit unset for an empty string, which reads as empty only
 * where the kernel says it supports the field (Linux 6.15+ supported mask;
 * before that such fields stay absent); an unset mount point means the
 * mount is outside the reader's root; a UUID is absent when none could be
 * read and none is not certain (see MNTSNAP_F_UUID).
 */
enum {
	MNTSNAP_F_ID = 1U << 0,             /* id, parent_id (64-bit, unique) */
	MNTSNAP_F_ID_OLD = 1U << 1,         /* id_old, parent_id_old (/proc ids) */
	MNTSNAP_F_DEV = 1U << 2,            /* dev_major, dev_minor */
	MNTSNAP_F_SB_MAGIC = 1U << 3,       /* sb_magic */
	MNTSNAP_F_SB_FLAGS = 1U << 4,       /* sb_flags */
	MNTSNAP_F_ATTR = 1U << 5,           /* attr */
	MNTSNAP_F_PROPAGATION = 1U << 6,    /* propagation, peer_group, master */
	MNTSNAP_F_PROPAGATE_FROM = 1U << 7, /* propagate_from */
	MNTSNAP_F_ROOT = 1U << 8,           /* root */
	MNTSNAP_F_MOUNT_POINT = 1U << 9,    /* mount_point */
	MNTSNAP_F_FS_TYPE = 1U << 10,       /* fs_type */
	MNTSNAP_F_FS_SUBTYPE = 1U << 11,    /* fs_subtype */
	MNTSNAP_F_SOURCE = 1U << 12,        /* source */
	MNTSNAP_F_OPTS = 1U << 13,          /* options (escaped, as in mountinfo) */
	MNTSNAP_F_OPT_ARRAY = 1U << 14,     /* opt_array/opt_num (unescaped) */
	MNTSNAP_F_OPT_SEC_ARRAY = 1U << 15, /* opt_sec_array/opt_sec_num */
	MNTSNAP_F_NS_ID = 1U << 16,         /* ns_id */
	MNTSNAP_F_UIDMAP = 1U << 17,        /* uidmap/uidmap_num */
	MNTSNAP_F_GIDMAP = 1U << 18,        /* gidmap/gidmap_num */
	MNTSNAP_F_UUID = 1U << 19,          /* uuid (not from statmount; see below) */
	MNTSNAP_F_ALL = (1U << 20) - 1,
};

/*
 * What a capture asks for by default: every field a mountinfo line needs,
 * so that MNTSNAP_FORMAT_MOUNTINFO is exact. propagate_from is the costly
 * one (the kernel walks peer groups for each slave mount): the statmount
 * backend derives it from peer group and master where that provably gives
 * the kernel's answer, and asks the kernel once per master group where it
 * cannot (MNTSNAP_CAPTURE_KERNEL_PROPAGATE_FROM asks for every mount).
 */
#define MNTSNAP_MASK_DEFAULT                                                    \
	(MNTSNAP_F_ID | MNTSNAP_F_ID_OLD | MNTSNAP_F_DEV | MNTSNAP_F_SB_MAGIC |  \
	 MNTSNAP_F_SB_FLAGS | MNTSNAP_F_ATTR | MNTSNAP_F_PROPAGATION |            \
	 MNTSNAP_F_PROPAGATE_FROM | MNTSNAP_F_ROOT | MNTSNAP_F_MOUNT_POINT |      \
	 MNTSNAP_F_FS_TYPE | MNTSNAP_F_FS_SUBTYPE | MNTSNAP_F_SOURCE |            \
	 MNTSNAP_F_OPTS | MNTSNAP_F_NS_ID)
#define MNTSNAP_MASK_FULL MNTSNAP_F_ALL

/* ------------------------------------------------------------------------ */
/* One mount.                                                               */
/* ------------------------------------------------------------------------ */
/*
 * A read-only view of one record of a snapshot. Strings point into the
 * snapshot and live as long as it does; absent strings are "" (check mask).
 * Array fields (opt_array, opt_sec_array, uidmap, gidmap) are *_num strings
 * laid end to end, each NUL-terminated.
 */
struct mntsnap_mount {
	uint32_t mask;          /* MNTSNAP_F_* valid in this record */
	uint32_t index;         /* position in the snapshot (storage order) */
	uint32_t parent_index;  /* == index for a root of the snapshot */
	uint32_t depth;         /* 0 for roots */
	uint64_t id;            /* unique 64-bit mount id (Linux 6.8+) */
	uint64_t parent_id;     /* == id for a namespace root */
	uint32_t id_old;        /* the id /proc/PID/mountinfo shows */
	uint32_t parent_id_old;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint64_t sb_magic;
	uint32_t sb_flags;      /* MS_RDONLY|MS_SYNCHRONOUS|MS_DIRSYNC|MS_LAZYTIME */
	uint32_t attr;          /* MOUNT_ATTR_* */
	uint32_t propagation;   /* MS_SHARED|MS_SLAVE|MS_UNBINDABLE|MS_PRIVATE */
	/*
	 * shared:N, 0 if not shared; master:N, 0 if not a slave. 0 too for
	 * parsed text whose shared:/master: value is no 32-bit number
	 * ("shared:4294967296"): the flag is set, opt_fields keeps the text.
	 */
	uint32_t peer_group;
	uint32_t master;
	uint32_t propagate_from; /* propagate_from:N, 0 if none */
	uint64_t ns_id;         /* mount namespace id */
	const char *root;       /* raw path inside the filesystem */
	const char *mount_point; /* raw path, relative to the reader's root */
	const char *fs_type;
	const char *fs_subtype;
	const char *source;
	/*
	 * fs + LSM options, escaped like mountinfo. Parsed text with a field
	 * after a bare ro/rw ("rw extra"): the rest of the line, its leading
	 * blank included (rendered without a comma).
	 */
	const char *options;
	const char *opt_array;
	const char *opt_sec_array;
	const char *uidmap;     /* "first lower count" strings */
	const char *gidmap;
	uint32_t opt_num;
	uint32_t opt_sec_num;
	uint32_t uidmap_num;
	uint32_t gidmap_num;
	/*
	 * Parsed mountinfo text only: the optional fields (column 7) exactly
	 * as the line had them, kept when they hold a tag this library does
	 * not know ("foo:bar") or a known tag's value that is no 32-bit
	 * number ("shared:1-"), so that rendering gives the line back; ""
	 * otherwise. Not a MNTSNAP_F_* field.
	 */
	const char *opt_fields;
	/*
	 * MNTSNAP_F_UUID: the filesystem's UUID, findmnt's UUID column (the
	 * superblock's UUID, blkid's for its device). Read per superblock,
	 * not by statmount: FS_IOC_GETFSUUID (Linux 6.5) on the mount's root
	 * where the filesystem reports it (ext2/3/4, xfs, btrfs, f2fs, ...),
	 * opened from the reader's root without following symlinks and
	 * checked to be that mount, else udev's /dev/disk/by-uuid link of
	 * the caller's own /dev for the device, else absent. A 16-byte UUID
	 * is canonical lowercase 8-4-4-4-12 text ("3e6be9de-8139-11d1-9106-
	 * a43f08d823a6"); a UUID of another length the kernel reports (1..15
	 * bytes) is lowercase hex without dashes; one from udev is its link's
	 * name decoded (what blkid printed: at most 36 printable characters,
	 * e.g. "B1C9-5C6F" for FAT). The empty value, present, where none is
	 * certain: a filesystem type not listed above without a device
	 * (tmpfs, proc, overlay, FUSE, NFS: their kernel UUIDs are random per
	 * mount, and findmnt shows none). Absent for the mountinfo text
	 * backend, for a device with no UUID found, for a foreign namespace reached
	 * without a process whose root can be opened, and where the mount
	 * point no longer leads to the mount. Not in MNTSNAP_MASK_DEFAULT:
	 * it costs an open and an ioctl per superblock.
	 */
	const char *uuid;
	/*
	 * Parsed mountinfo text only: the per-mount options (column 6)
	 * exactly as the line had them, kept when they hold an option this
	 * library does not know (a newer kernel's flag: "rw,nosuid,newflag")
	 * or are not in the kernel's form ("nosuid,rw": ro/rw not first),
	 * so that rendering, OPTIONS and VFS-OPTIONS give the text back; the
	 * known ones are in attr all the same. "" otherwise. Not a MNTSNAP_F_*
	 * field. Any length, as the kernel's column and libmount's reading
	 * of it: mntsnap_mount_options() says how long.
	 */
	const char *mnt_opts_text;
	/*
	 * Parsed mountinfo text only: the super options (column 11) exactly
	 * as the line had them, kept when sb_flags and options would not
	 * render them back: an empty last option right after the
	 * superblock's flags ("rw,", "ro,sync,"), or a first word that is
	 * not ro or rw ("size=1k,rw", "rwx": no kernel writes them). sb_flags
	 * and options hold what the text says all the same ("rw," is
	 * sb_flags 0, options ""; "size=1k,ro" is MNTSNAP_SB_RDONLY, options
	 * "size=1k": the first option that is exactly ro or rw gives the flag,
	 * none is rw). "" otherwise. Not a MNTSNAP_F_* field.
	 */
	const char *sb_opts_text;
};

/* mount attribute / propagation bits, same values as the kernel's */
#define MNTSNAP_ATTR_RDONLY 0x00000001U
#define MNTSNAP_ATTR_NOSUID 0x00000002U
#define MNTSNAP_ATTR_NODEV 0x00000004U
#define MNTSNAP_ATTR_NOEXEC 0x00000008U
#define MNTSNAP_ATTR__ATIME 0x00000070U
#define MNTSNAP_ATTR_RELATIME 0x00000000U
#define MNTSNAP_ATTR_NOATIME 0x00000010U
#define MNTSNAP_ATTR_STRICTATIME 0x00000020U
#define MNTSNAP_ATTR_NODIRATIME 0x00000080U
#define MNTSNAP_ATTR_IDMAP 0x00100000U
#define MNTSNAP_ATTR_NOSYMFOLLOW 0x00200000U
#define MNTSNAP_PROP_UNBINDABLE (1U << 17)
#define MNTSNAP_PROP_PRIVATE (1U << 18)
#define MNTSNAP_PROP_SLAVE (1U << 19)
#define MNTSNAP_PROP_SHARED (1U << 20)
#define MNTSNAP_SB_RDONLY 0x1U
#define MNTSNAP_SB_SYNCHRONOUS 0x10U
#define MNTSNAP_SB_DIRSYNC 0x80U
/* Only from mountinfo text of kernels before 5.15; statmount never sets it. */
#define MNTSNAP_SB_MANDLOCK 0x40U
#define MNTSNAP_SB_LAZYTIME (1U << 25)

/* ------------------------------------------------------------------------ */
/* Errors with detail.                                                      */
/* ------------------------------------------------------------------------ */
/*
 * Optional detail for a failed call (parser line and field, loader
 * section, missing capability, the step that failed). Every call that can
 * say more than its return value takes one, the same struct everywhere,
 * written only when the call fails (err set to the return value, msg in
 * words, line where there is one):
 *  - through its option struct's error field: mntsnap_capture(),
 *    mntsnap_parse_mountinfo(), mntsnap_refresh_with() and the other
 *    calls taking struct mntsnap_capture_opts, mntsnap_ns_run() and the
 *    other calls taking struct mntsnap_ns_opts, mntsnap_watch_new(),
 *    mntsnap_snapshot_save_with();
 *  - as an argument, where the call has no option struct:
 *    mntsnap_ns_open_self/pid/pidfd/path/fd/id(), mntsnap_snapshot_load(),
 *    _load_fd(), _load_buf(), mntsnap_policy_add() (ret_error),
 *    mntsnap_ns_explain() (fills one from an error code).
 * NULL there means "no detail wanted". The other calls' errors are fully
 * described by their return value and mntsnap_strerror().
 */
struct mntsnap_error {
	int err;          /* the negative errno the call returned */
	unsigned line;    /* 1-based input line, 0 if not applicable */
	char msg[240];    /* NUL-terminated, human readable */
};

/*
 * mntsnap_strerror - what an error returned by this library means, in
 * words for people: for each code the API documents, which situations
 * give it (a forgotten sz for -EINVAL, a newer header for -E2BIG, a
 * corrupt file for -EBADMSG, ...). err may be negative or positive.
 * Returns a static string, never NULL; a code the API does not document
 * gets one generic text that refers to strerror(3). For a namespace error with the failed
 * operation and the missing capability, see mntsnap_ns_explain().
 */
const char *mntsnap_strerror(int err);

/*
 * mntsnap_version - the version of the library the program runs with.
 * It is "MAJOR.MINOR.PATCH", such as "0.1.0": the project's version the
 * library was built as. With a shared library it may be newer than the
 * header the program was compiled against (MNTSNAP_VERSION_MAJOR/MINOR/
 * PATCH). Returns a static string, never NULL.
 */
const char *mntsnap_version(void);

/* ------------------------------------------------------------------------ */
/* Target mount namespaces (lib/ns.c).                                      */
/* ------------------------------------------------------------------------ */
struct mntsnap_ns;

/*
 * Open a handle on a mount namespace. The handle keeps an nsfs fd, so it
 * stays valid (and names the same namespace) after the process exits.
 *  _self:  the caller's namespace.
 *  _pid:   opened through a pidfd at once, so pid reuse cannot redirect it.
 *          A thread id names its process's namespace (a thread pidfd,
 *          PIDFD_THREAD, on Linux >= 6.9; else the /proc fallback below).
 *          When the caller may not open the process's namespace (no
 *          ptrace access) but can read its /proc/PID/mountinfo, as
 *          findmnt -N can, the handle is a text handle: mntsnap_ns_id() 0,
 *          captures read that text, entering and direct queries give
 *          -EACCES. Without pidfd_open (-ENOSYS: kernels before 5.3,
 *          valgrind, a seccomp filter; -EPERM: a filter denying it)
 *          /proc/PID/ns/mnt is opened instead, from a procfs root and
 *          never through a mount covering /proc/PID or its ns directory,
 *          with the process's start time read before and after (a reused
 *          pid starts later: -ESRCH), and only from a procfs of the
 *          caller's own pid namespace (a child of clone(CLONE_NEWPID)
 *          that still has its parent's /proc: -EOPNOTSUPP, as pids
 *          there name other processes); that handle follows no process
 *          (mntsnap_ns_alive() 0, like _path) and has no text fallback.
 *  _proc_pid: pid as the procfs at /proc numbers it (as ps and
 *          findmnt -N read it), which is the caller's numbering unless
 *          that procfs is of another pid namespace: an ancestor's kept
 *          by a child of clone(CLONE_NEWPID), or a container's seen by a
 *          caller of an outer namespace that entered the container's
 *          mount namespace. Where the numberings agree it is _pid. Where
 *          they do not, the task may have no pid in the caller's
 *          namespace at all, so the handle holds the task's /proc/PID
 *          directory instead of a pidfd (opened without crossing a mount
 *          covering it): it names the task, not the number, so nothing
 *          read through it is another task's, however soon the number is
 *          reused. Its namespace, root and mountinfo text are read
 *          through it (a text handle as _pid's without ptrace access);
 *          mntsnap_ns_alive() says -ESRCH once the task is a zombie or
 *          gone. A watch on it has no pidfd to wake it at the task's
 *          exit: it sees the exit at its next drain (or ask
 *          mntsnap_ns_alive() from time to time). No procfs at /proc:
 *          _pid. Errors as _pid's; -ESRCH: no such pid in that procfs.
 *  _pidfd: a pidfd the caller owns (not consumed); checked to be on
 *          pidfs (an anonymous inode before 6.9) before any ioctl.
 *  _path:  /proc/PID/ns/mnt or a bind-mounted namespace file. Opened
 *          O_PATH and checked to be on nsfs (fstatfs) before it is opened
 *          for real (through /proc/thread-self/fd, the same inode): a FIFO, a
 *          device node, a directory or a plain file gives -EINVAL at once,
 *          never blocks and never runs a driver's open.
 *  _fd:    an nsfs fd the caller owns (duplicated, not consumed); checked
 *          to be on nsfs before any ioctl is sent to it.
 *  _id:    a 64-bit mount namespace id (statmount/listmount work by id;
 *          entering needs an fd, found via NS_MNT_GET_NEXT when allowed).
 *          The id must name a namespace that exists: one listmount by id,
 *          and where that says ENOENT (also its answer for "not yours"),
 *          the namespaces mntsnap_ns_list() finds decide.
 * Errors: -ESRCH (_pid/_pidfd: no such process in the caller's pid
 * namespace: a wrong pid, a pid as a container numbers it, or a process
 * already gone; the kernel does not tell which), -EINVAL (not a
 * mount-namespace file), -ENOENT (no such path or namespace id),
 * -EOPNOTSUPP (_self, _path: no procfs mounted at /proc, e.g. after
 * mntsnap_ns_enter into a target whose /proc is none: _self reads
 * thread-self/ns/mnt of a procfs root only; _path reopens through it, and
 * the reopened file must be the inode checked, so a symlink planted
 * there is refused),
 * -EPERM/-EACCES, -ENOMEM.
 * err (may be NULL): on failure, what failed in words, as
 * mntsnap_ns_explain() words it ("ns_open_pid 42: ..."), and for _pid
 * without pidfd_open the failed step of the fallback too (see "Errors with
 * detail").
 */
int mntsnap_ns_open_self(struct mntsnap_error *err, struct mntsnap_ns **ret_ns);
int mntsnap_ns_open_pid(int pid, struct mntsnap_error *err, struct mntsnap_ns **ret_ns);
int mntsnap_ns_open_proc_pid(int pid, struct mntsnap_error *err, struct mntsnap_ns **ret_ns);
int mntsnap_ns_open_pidfd(int pidfd, struct mntsnap_error *err, struct mntsnap_ns **ret_ns);
int mntsnap_ns_open_path(const char *path, struct mntsnap_error *err,
			 struct mntsnap_ns **ret_ns);
int mntsnap_ns_open_fd(int nsfd, struct mntsnap_error *err, struct mntsnap_ns **ret_ns);
int mntsnap_ns_open_id(uint64_t ns_id, struct mntsnap_error *err, struct mntsnap_ns **ret_ns);
void mntsnap_ns_free(struct mntsnap_ns *ns); /* close the handle; NULL is fine */

/* The namespace's 64-bit id (0 if the kernel cannot tell, < 6.11). */
uint64_t mntsnap_ns_id(const struct mntsnap_ns *ns);

/*
 * Liveness of a handle from a pid or pidfd: 0 while the process runs,
 * -ESRCH once it has exited (its pid may already name another process; the
 * handle never follows the pid). Handles from a path, fd or id: always 0.
 * Every operation below that takes a handle checks this first.
 */
int mntsnap_ns_alive(const struct mntsnap_ns *ns);

/*
 * Explain a namespace error in words for people: which capability the
 * calling thread lacks for EPERM/EACCES (named through libcap when built
 * with it), "no such process in the caller's pid namespace" for ESRCH
 * (it cannot know whether the pid ever named one; a capture on a handle
 * whose process has gone says "has exited since"), "not a mount-namespace file"
 * for EINVAL, ... op names the failed operation ("open --pid 42").
 * Fills *ret (err, msg) and returns err.
 */
int mntsnap_ns_explain(int err, const char *op, struct mntsnap_error *ret);

/*
 * Every mount namespace the caller can see. NS_MNT_GET_PREV/NEXT from the
 * caller's namespace where the kernel has them and the caller may (root),
 * plus a /proc/[pid]/ns/mnt scan (the only source otherwise), deduplicated
 * by nsfs inode. Sorted by ns_id (then inode).
 */
struct mntsnap_ns_entry {
	uint64_t ns_id;     /* 0 if the kernel cannot tell (< 6.11) */
	uint64_t inode;     /* nsfs inode, as in /proc/PID/ns/mnt -> mnt:[inode] */
	int64_t nr_mounts;  /* mounts listmount would list; -1 unknown */
	int pid;            /* one process in it, 0 if none found (e.g. kept
			     * alive by a bind-mounted nsfs file or an fd) */
	bool own;           /* the caller's namespace */
};

/*
 * mntsnap_ns_list - every mount namespace visible: its id, mount count, a
 * process in it. *ret_list is malloc'd (free() it). 0 or -ENOMEM/-EIO.
 */
int mntsnap_ns_list(struct mntsnap_ns_entry **ret_list, size_t *ret_n);

/* ---- entering: a short-lived helper process ------------------------------- */
/*
 * The calls below run work inside ns from a helper process made with
 * clone(CLONE_VM|CLONE_VFORK): it costs about the same whatever the
 * caller's size and works from multithreaded callers (setns(CLONE_NEWNS)
 * itself fails there). The calling thread is suspended until the helper
 * exits. The helper: never executes anything; closes every fd but the
 * namespace fd (also 0-2; for opens, one socket; for captures, an O_PATH
 * fd of the caller's procfs, see mntsnap_capture); sets PR_SET_DUMPABLE 0 (the
 * memory is the caller's, so the caller is non-dumpable meanwhile and
 * restored after), PR_SET_NO_NEW_PRIVS and a parent-death SIGKILL; keeps
 * only CAP_SYS_ADMIN and CAP_SYS_CHROOT to setns() and then only
 * opts->keep_caps; is killed by SIGALRM at opts->timeout_ms; is always
 * reaped. It starts on the caller's CPU (the calling thread's affinity is
 * narrowed around clone() and restored). Results stay in the memory the
 * helper shares with the caller and are handed over, not copied (a
 * callback's buffer, a snapshot); an opened fd comes back over a
 * socketpair by SCM_RIGHTS.
 * After setns the helper's root is the target's, so a path libc opens on
 * its own (glibc's malloc reads /proc/sys/vm/overcommit_memory when a
 * thread's arena first shrinks; strerror() opens message catalogs in a
 * non-C locale) would be the target's file, and a FIFO or a stalled FUSE
 * mount there would stall the helper inside malloc until its timeout
 * killed it with the arena locked: the caller's next malloc would hang.
 * So for the library's own work (captures, stat, open_file, clone_tree)
 * a seccomp filter on the helper alone fails every open relative to its
 * root or cwd with ENOENT (libc then takes its defaults); the work opens
 * only relative to fds held from before. Callbacks of mntsnap_ns_run run
 * without it, to open the target's files if they mean to: the same libc
 * caveat applies to them.
 * Rootless containers: when setns() says EPERM, the helper joins the
 * user namespace owning the target (NS_GET_USERNS) and retries, as
 * nsenter and crun do, so that namespace's owner (the same uid, no
 * capabilities needed out here) can enter; the full capability set this
 * grants inside is then cut to opts->keep_caps like any other. Root in
 * the initial user namespace never joins. When neither works, opts->error
 * names the owner uid and the missing capability.
 * Known limit of any CLONE_VM helper: one killed by the timeout while
 * inside malloc() leaves that lock held in the caller. A target cannot
 * stall a capture into that timeout: inside it the helper opens nothing
 * of the target's but what it was asked to (open_file, clone_tree,
 * stat_path). Errors the helper reports name it and what failed
 * ("helper process, inside the target namespace: openat2: ...").
 * Common errors: -ESRCH (process gone), -EPERM (no right to enter: see
 * opts->error), -ETIMEDOUT, -ECHILD (helper died without an answer),
 * -ENOENT (an id-only handle whose namespace cannot be found to enter),
 * -ENOMEM, -E2BIG/-EINVAL (opts).
 */
struct mntsnap_ns_opts {
	size_t sz;
	unsigned timeout_ms;  /* 0 = 10000 */
	uint64_t keep_caps;   /* 1ULL << CAP_*: kept after entering; 0 = none */
	struct mntsnap_error *error; /* optional detail on failure */
	size_t : 0;
};

/*
 * Run fn(data, &buf, &len) inside ns. fn returns 0 or -errno and may
 * malloc() a result, which the caller receives as is in *ret_buf and
 * *ret_len (NULL/0 if none; free() it). ret_buf and ret_len may be NULL
 * when no result is wanted (fn still gets valid pointers; a buffer it
 * returns anyway is freed). fn runs with the caller's
 * memory (CLONE_VM) and the caller's calling thread suspended: it may
 * malloc, must not create threads or longjmp out, and sees no stdio.
 * Returns fn's result, or an error above.
 */
typedef int (*mntsnap_ns_fn)(void *data, void **ret_buf, size_t *ret_len);
int mntsnap_ns_run(const struct mntsnap_ns *ns, mntsnap_ns_fn fn, void *data,
		   const struct mntsnap_ns_opts *opts, void **ret_buf, size_t *ret_len);

/*
 * Open path inside ns (openat2 with RESOLVE_IN_ROOT|RESOLVE_NO_MAGICLINKS
 * from the root of the handle's process for pid/pidfd handles, so a
 * chroot()ed target counts too, else from the namespace root: absolute
 * symlinks and ".." stay inside the target's root, so nothing resolves to
 * a host file) and receive the fd (O_CLOEXEC added). flags: open(2) flags (O_CREAT and
 * O_TMPFILE use mode). Errors: as openat2(2) (-ENOENT, -EACCES, -EXDEV,
 * -ELOOP, -ENOSYS before 5.6) and the common ones; its EAGAIN (a ".."
 * resolved while any mount or rename happened) is retried, up to 256 times.
 */
int mntsnap_ns_open_file(const struct mntsnap_ns *ns, const char *path, int flags,
			 unsigned mode, const struct mntsnap_ns_opts *opts, int *ret_fd);

/*
 * Clone the mount tree at path inside ns (resolved like
 * mntsnap_ns_open_file, then open_tree(OPEN_TREE_CLONE|AT_RECURSIVE)) and
 * receive the detached mount fd; attach it with move_mount(2). The helper
 * keeps CAP_SYS_ADMIN for this. Errors: -EINVAL (path is not a mount tree
 * the kernel lets clone, e.g. unbindable), -EPERM, and the common ones.
 */
int mntsnap_ns_clone_tree(const struct mntsnap_ns *ns, const char *path,
			  const struct mntsnap_ns_opts *opts, int *ret_fd);

/*
 * mntsnap_ns_enter / _leave - move the calling thread into ns and back.
 * Single-threaded callers only.
 * enter saves the current namespace, root and cwd; leave returns to them
 * (setns resets root and cwd, so both are restored from the saved fds)
 * and frees saved. -EINVAL from enter: not a mount namespace, or the
 * caller's fs_struct is shared (other threads): use the helper calls.
 * -EPERM: see mntsnap_ns_explain(). Between the two calls every path
 * resolves inside ns, /proc included: a capture of the own namespace then
 * reads text only from a real procfs there (see mntsnap_capture).
 */
struct mntsnap_ns_saved;
int mntsnap_ns_enter(const struct mntsnap_ns *ns, struct mntsnap_ns_saved **ret_saved);
int mntsnap_ns_leave(struct mntsnap_ns_saved *saved);

/* ------------------------------------------------------------------------ */
/* Snapshots.                                                               */
/* ------------------------------------------------------------------------ */
struct mntsnap_snapshot;

enum mntsnap_backend {
	MNTSNAP_BACKEND_AUTO = 0,      /* statmount, else mountinfo */
	MNTSNAP_BACKEND_STATMOUNT = 1,
	MNTSNAP_BACKEND_MOUNTINFO = 2,
	/* reserved, never reported: a loaded snapshot keeps the backend
	 * that captured it */
	MNTSNAP_BACKEND_FILE = 3,
};

enum {
	/* list newest mounts first (LISTMOUNT_REVERSE) */
	MNTSNAP_CAPTURE_REVERSE = 1U << 0,
	/* always ask the kernel for propagate_from instead of deriving it */
	MNTSNAP_CAPTURE_KERNEL_PROPAGATE_FROM = 1U << 1,
	/* consistency: also require two successive captures to agree (see
	 * mntsnap_snapshot_consistent()); when none agree, the last capture
	 * comes back marked inconsistent (never -EAGAIN without _CONSISTENT) */
	MNTSNAP_CAPTURE_STRICT = 1U << 2,
	/* when every retry raced, fail with -EAGAIN instead of returning the
	 * last capture marked inconsistent (mntsnap_snapshot_consistent() 0) */
	MNTSNAP_CAPTURE_CONSISTENT = 1U << 3,
	/* mntsnap_refresh_with(): list ids only, fetch new mounts, keep the
	 * others unchecked (blind to attribute, propagation, option changes
	 * and moves; for callers that learn of those another way) */
	MNTSNAP_CAPTURE_REFRESH_IDS_ONLY = 1U << 4,
	/* foreign target: query directly (mnt_ns_fd/mnt_ns_id) or fail;
	 * never enter it */
	MNTSNAP_CAPTURE_NS_DIRECT = 1U << 8,
	/* foreign target: always capture inside it with a helper process */
	MNTSNAP_CAPTURE_NS_ENTER = 1U << 9,
};

struct mntsnap_capture_opts {
	size_t sz;
	uint32_t mask;            /* MNTSNAP_F_*; 0 = MNTSNAP_MASK_DEFAULT */
	uint32_t flags;           /* MNTSNAP_CAPTURE_* */
	int backend;              /* enum mntsnap_backend */
	unsigned threads;         /* statmount workers; 0/1 = calling thread */
	unsigned max_retries;     /* consistency retries; 0 = default (3) */
	const struct mntsnap_ns *ns;  /* target; NULL = caller's namespace. A pid handle
					 * is the process's view (mounts reachable from its
					 * root, relative to it, propagate_from as seen
					 * from it, as /proc/PID/mountinfo: none
					 * when that root reaches no mount of it;
					 * the whole namespace when no procfs at /proc can
					 * name the process); other handles the whole
					 * namespace, propagate_from as seen from
					 * its root. When that answer cannot be had,
					 * propagate_from is absent: see
					 * mntsnap_capture() */
	uint64_t under_id;        /* only this mount and below; 0 = all */
	const char *mountinfo_path;   /* mountinfo backend: file to parse */
	struct mntsnap_error *error;  /* optional detail on failure */
	size_t : 0;
};

/*
 * mntsnap_capture - capture the mount table of a namespace.
 * A foreign opts->ns is read, in this order of preference (each probed
 * with one listmount, never assumed from the kernel version): directly by
 * mnt_ns_fd (6.18+), directly by mnt_ns_id (CAP_SYS_ADMIN over its owner),
 * inside it by a helper process (see mntsnap_ns_run), and for a pid
 * handle without the right to enter, from the caller's /proc/PID/mountinfo.
 * MNTSNAP_CAPTURE_NS_DIRECT / _NS_ENTER force one way. The snapshot's
 * ns_id is the target's. -ESRCH when a pid handle's process has exited.
 * propagate_from of a foreign target (MNTSNAP_F_PROPAGATE_FROM) depends on
 * the root it is seen from, and statmount asked from outside the
 * namespace (by mnt_ns_fd or mnt_ns_id) never names one. So after a
 * direct query, and for a process whose root is not its namespace's
 * root, it is read from a text: the process's /proc/PID/mountinfo for a
 * view re-rooted at the process's root; for the whole namespace, the
 * mountinfo a helper inside reads (not with MNTSNAP_CAPTURE_NS_DIRECT).
 * A helper's statmount answers from the namespace's root itself. That
 * text never fails a capture: when it cannot be had (the process exited
 * meanwhile or no procfs here can name it, no right to read it or to
 * enter, NS_DIRECT where a helper's text is needed, a torn read), and
 * for a mount it lacks, the record's mask lacks MNTSNAP_F_PROPAGATE_FROM
 * (absent, never "none"); only the system's shortages (-ENOMEM, or no fd
 * left) fail it.
 * Returns 0 and *ret_snap, or:
 *  -ENOSYS/-EPERM/-EACCES  the forced backend is unavailable or blocked;
 *  -ENOENT   mountinfo_path or the target namespace does not exist;
 *  -EBADMSG  malformed mountinfo text (error->line says where), or a
 *            listmount/statmount answer that cannot be true (a record
 *            larger than the buffer or for another id, ids out of order,
 *            parent links forming a cycle);
 *  -EAGAIN   only with MNTSNAP_CAPTURE_CONSISTENT: the table kept
 *            changing for max_retries attempts (with STRICT: no two
 *            successive captures agreed). Without it the last capture
 *            comes back with mntsnap_snapshot_consistent() == 0;
 *  -ENOMEM, -E2BIG (unknown opts bytes, or a statmount record that
 *            would need more than 64 MiB), -EINVAL (bad opts).
 * A mount unmounted between listmount and statmount is left out, not an
 * error; string fields the kernel returns malformed are dropped from that
 * record's mask.
 * Backends: AUTO uses statmount and falls back to mountinfo text when
 * listmount/statmount fail with ENOSYS, EPERM or EACCES (seccomp) or the
 * first listmount rejects the request size (E2BIG/EINVAL on old kernels);
 * the snapshot says which backend produced it. The mountinfo backend has
 * no unique ids, so under_id gives -EOPNOTSUPP.
 * Text and change detector (POLLPRI) by route; a target's own /proc is
 * the target's to fake, so it is never read:
 *  - own namespace: mountinfo_path, else /proc/thread-self/mountinfo,
 *    only from a procfs mounted at /proc (its root; the lookup may not
 *    cross a mount; O_NONBLOCK): after mntsnap_ns_enter the /proc seen
 *    is the target's, and a tmpfs, a FIFO or another process's file
 *    there gives -ENOENT ("... of a procfs mounted at /proc"), never its
 *    text; the change detector is opened the same way or not at all;
 *  - a target, from the caller's side (direct query, or the text route),
 *    every file through a procfs at /proc (its root; else -ENOENT, as a
 *    caller inside a target would see the target's /proc):
 *    pid handles read the caller's /proc/PID/mountinfo, checked to be the
 *    handle's process (its pidfd still running after the open) in the
 *    handle's namespace; ns-file and id handles read the mountinfo of a
 *    process found in that namespace by a scan of the caller's /proc,
 *    pinned by a pidfd and checked in the namespace before and after the
 *    open (-ESRCH if there is none), and poll nothing;
 *  - inside the target (the helper): the helper's own
 *    /proc/<pid>/mountinfo of the caller's procfs, reached through an fd
 *    opened before entering: the kernel's text of the namespace the
 *    helper has just entered, for every kind of handle, also when the
 *    target has its own pid namespace and procfs. Without a procfs in
 *    the caller the fallback fails (-ENOENT, "helper process, inside the
 *    target namespace: capture: mountinfo: ...") rather than read the
 *    target's.
 * A live text is read again while a read was torn by a change (POLLPRI on
 * the open file, or an id listed twice), with the same max_retries, STRICT
 * (two successive quiet reads give the same text) and CONSISTENT rules as
 * statmount; -EBADMSG only for text that is malformed when read quietly.
 * mountinfo_path is parsed once, as it is, and is refused as soon as it
 * shows a NUL byte or does not start with a digit (-EBADMSG) or passes
 * 2 GiB (-E2BIG). Its last line may lack the final '\n' (a file someone
 * wrote); a live text's may not (a short read).
 */
int mntsnap_capture(const struct mntsnap_capture_opts *opts,
		    struct mntsnap_snapshot **ret_snap);

/*
 * mntsnap_stat_id / mntsnap_stat_path - one mount, no table walk.
 * By 64-bit id (statmount) or by path (statx STATX_MNT_ID_UNIQUE, then
 * statmount). The result is a one-record snapshot. mask 0 = default.
 * A foreign ns (stat_id) is asked in mntsnap_capture()'s order: by
 * mnt_ns_fd (6.18+), by mnt_ns_id (CAP_SYS_ADMIN over its owner), else
 * inside it by a helper process (see mntsnap_ns_run); the answer is the
 * same on every route. A pid handle's mount point and propagate_from are
 * those its /proc/PID/mountinfo shows: relative to the process's root;
 * another handle's propagate_from is relative to the namespace's root.
 * propagate_from comes from a text as in mntsnap_capture() (a helper
 * inside may always be used here), and is absent when that cannot be had.
 * The table is the one the reader's root reaches, as its mountinfo: the
 * caller's for its own namespace, a pid handle's process's for that
 * handle, whichever is chroot()ed; a mount outside it is -EXDEV (not in
 * that table; statmount names no mount point for it from the caller's
 * root, and a pid handle's mount point is read from its process's text),
 * and so is every mount of a process whose root reaches none of its
 * namespace (on a mount lazily unmounted, or a removed directory: an
 * empty mountinfo).
 * Errors: -ENOENT (no such mount (in ns), path does not exist, or an id
 * handle's namespace is gone), -EINVAL (id is not a unique id, empty
 * path), -ENOSYS (kernel without statmount), -EPERM (no right to query or
 * enter ns: mntsnap_ns_explain() names the missing capability), -ESRCH
 * (a pid handle's process has exited), -ENOMEM, -EBADMSG (an impossible
 * statmount answer), and the helper's errors (-ETIMEDOUT, -ECHILD).
 */
int mntsnap_stat_id(const struct mntsnap_ns *ns, uint64_t id, uint32_t mask,
		    struct mntsnap_snapshot **ret_snap);
int mntsnap_stat_path(const char *path, uint32_t mask,
		      struct mntsnap_snapshot **ret_snap);

/*
 * mntsnap_ns_stat_path - the mount at path as ns sees it (one-record
 * snapshot, like mntsnap_stat_path). ns NULL or _open_self: exactly
 * mntsnap_stat_path. Resolution follows symlinks but stays inside the
 * target (openat2 RESOLVE_IN_ROOT|RESOLVE_NO_MAGICLINKS): from the root of
 * the handle's process for pid/pidfd handles (/proc/PID/root of a procfs
 * at /proc, never through a mount covering /proc/PID, without entering;
 * a chroot()ed target counts; no procfs, or a covered /proc/PID, as
 * inside a target whose /proc is none, or one of a pid namespace the
 * process is not in: from the namespace root), else
 * from the namespace root by
 * the helper (mntsnap_ns_open_file with O_PATH); then statx
 * STATX_MNT_ID_UNIQUE of the opened path and mntsnap_stat_id in ns. An
 * absolute symlink in the target names the target's file, never the
 * caller's. The lookup itself runs in a helper process either way (for
 * pid handles one that enters nothing and keeps the caller's rights), so
 * a target's FUSE mount that never answers cannot hang the caller: the
 * helper's 10 s timeout ends it. Errors: those of mntsnap_stat_id, and
 * -ENOENT (no such path in the target), -ELOOP (a magic link or too many
 * symlinks), -EACCES (no ptrace access to the target process), -EXDEV,
 * -ETIMEDOUT (the lookup stalled).
 */
int mntsnap_ns_stat_path(const struct mntsnap_ns *ns, const char *path, uint32_t mask,
			 struct mntsnap_snapshot **ret_snap);

/*
 * mntsnap_parse_mountinfo - parse mountinfo text (e.g. a saved
 * /proc/PID/mountinfo) of len bytes into a snapshot whose backend is
 * MNTSNAP_BACKEND_MOUNTINFO. Of opts (may be NULL) only mask, flags
 * (MNTSNAP_CAPTURE_REVERSE) and error are used. Records carry what the text
 * can give: ID_OLD, DEV, SB_FLAGS, ATTR, PROPAGATION, PROPAGATE_FROM (0
 * unless it differs from master, as for statmount records), ROOT,
 * MOUNT_POINT, FS_TYPE, FS_SUBTYPE, SOURCE, OPTS; never the 64-bit ids.
 * Every line must end in '\n' (a buffer may be a short read of /proc;
 * mntsnap_capture() with a mountinfo_path takes a file's last line
 * without one); empty text gives an empty snapshot. A
 * mount id listed twice is kept (every line a record, rendered back as
 * it was) and the snapshot marked inconsistent (mntsnap_snapshot_consistent()
 * 0): parent links of that id are ambiguous.
 * Errors: -EBADMSG (malformed text: error->line and error->msg name the
 * line and field; no partial table is returned), -ENOMEM, -E2BIG (unknown
 * opts bytes, or text over 2 GiB), -EINVAL.
 */
int mntsnap_parse_mountinfo(const char *buf, size_t len,
			    const struct mntsnap_capture_opts *opts,
			    struct mntsnap_snapshot **ret_snap);

/* Release a snapshot and every string it holds; NULL is fine. */
void mntsnap_snapshot_free(struct mntsnap_snapshot *snap);

/* Number of records. */
size_t mntsnap_snapshot_count(const struct mntsnap_snapshot *snap);

/*
 * Fill *ret with record i (storage order, which is the kernel's order:
 * ascending unique id, like /proc/PID/mountinfo). -ERANGE if i >= count.
 */
int mntsnap_snapshot_get(const struct mntsnap_snapshot *snap, size_t i,
			 struct mntsnap_mount *ret);

/*
 * Record i in tree order, findmnt's: every parent before its children, a
 * mount's children by ascending old (32-bit) mount id, as libmount's
 * mnt_table_next_child_fs() hands them out (the order of mounting; the
 * kernel reuses freed old ids, so unique ids may say otherwise), equal
 * ids in storage order; records without old ids in storage order. Old
 * ids compare as libmount's ints: a parsed file's 2^31 and up (never
 * the kernel's) come before 0. The root findmnt draws (libmount's
 * mnt_table_get_root_fs(): the smallest parent id, walked up) comes first, other roots of a filtered or
 * partial table after it in the same order. Returns the storage index,
 * or -ERANGE.
 */
long mntsnap_snapshot_tree_index(const struct mntsnap_snapshot *snap, size_t i);

/* Storage index of the record with this unique / old id, or -ENOENT. */
long mntsnap_snapshot_find(const struct mntsnap_snapshot *snap, uint64_t id);
long mntsnap_snapshot_find_old(const struct mntsnap_snapshot *snap, uint32_t id_old);

/* First child / next sibling (storage indices, tree order as above) or -ENOENT. */
long mntsnap_snapshot_first_child(const struct mntsnap_snapshot *snap, size_t i);
long mntsnap_snapshot_next_sibling(const struct mntsnap_snapshot *snap, size_t i);

/* ---- lookups (lib/lookup.c) ----------------------------------------------- */
/*
 * Lookups in a snapshot (a capture, a loaded file, parsed text) without
 * touching the file system: answers come from the table's text alone, so
 * a saved snapshot of another machine or namespace answers as it was.
 * Paths are absolute, as mount points read in the snapshot (relative to
 * the reader's root); "//", a trailing "/", "." and ".." are taken by the
 * text (a snapshot has no symlinks to follow). Each lookup is a binary
 * search (O(log n); a path lookup O(log n) per path component) over an
 * index the first lookup of its kind builds (O(n log n), 4 bytes a mount;
 * mntsnap_snapshot_memory counts it). Lookups from several threads on
 * one snapshot are safe; a refresh drops the indexes. All return a
 * storage index (>= 0, for mntsnap_snapshot_get) or -ENOENT (no such
 * mount), -EINVAL (NULL, a relative path), -ERANGE (i or after past
 * the end), -ENOMEM.
 */

/*
 * mntsnap_snapshot_find_path - the mount a path is on: findmnt -T PATH,
 * done on the table. The path is walked as the kernel walks it, on the
 * text: from the root mount (the table's root at the longest prefix of
 * path), each component that is the mount point of a child of the mount
 * reached so far enters that child and whatever is stacked on it there.
 * So the answer is the top of a stack, a mount covered by a later mount
 * on a directory above it is never the answer (a live lookup would not
 * reach it either), and a file bind mount is the answer for its own
 * path. findmnt -T reads the file system instead (stat), and lists every
 * mount of the table at the mount point it found.
 */
long mntsnap_snapshot_find_path(const struct mntsnap_snapshot *snap, const char *path);

/*
 * mntsnap_snapshot_find_mount_point - the mount at mount point path
 * exactly (findmnt -M): the top of the stack there, the one a path walk
 * reaches; when every mount at path is covered by a mount above it, the
 * top of the stack of the latest mounted of them. -ENOENT when path is
 * no mount point. Walk the stack down with mntsnap_snapshot_stacked_on().
 */
long mntsnap_snapshot_find_mount_point(const struct mntsnap_snapshot *snap, const char *path);

/*
 * mntsnap_snapshot_stacked_on - the mount that record i is stacked on:
 * its parent when mounted at the same mount point, else -ENOENT (i is the
 * bottom of its stack).
 */
long mntsnap_snapshot_stacked_on(const struct mntsnap_snapshot *snap, size_t i);

/*
 * mntsnap_snapshot_next_mount_point - every mount whose mount point is
 * path (stacked and covered ones too, as findmnt -M lists them), one per
 * call: after -1 gives the first, then pass the previous answer; -ENOENT
 * after the last. Order: by parent, then storage order. -EINVAL if after
 * is not a mount at path.
 */
long mntsnap_snapshot_next_mount_point(const struct mntsnap_snapshot *snap, const char *path,
				       long after);

/*
 * mntsnap_snapshot_next_source - every mount whose source is exactly
 * source (findmnt -S for a name as the table has it: no tags, no
 * symlinks resolved), in storage order: after -1 gives the first, then
 * pass the previous answer; -ENOENT after the last. Records without a
 * source never match; -EINVAL for "".
 */
long mntsnap_snapshot_next_source(const struct mntsnap_snapshot *snap, const char *source,
				  long after);

/*
 * mntsnap_snapshot_parent - the parent of record i (its storage index),
 * -ENOENT for a root of the table. With mntsnap_snapshot_first_child()
 * and _next_sibling() (findmnt's order) it walks the tree both ways:
 * for (long p = i; p >= 0; p = mntsnap_snapshot_parent(snap, p)) is the
 * chain from i to its root.
 */
long mntsnap_snapshot_parent(const struct mntsnap_snapshot *snap, size_t i);

/*
 * A new snapshot holding the records for which keep() returns true (tree
 * links recomputed: a kept mount whose parent was dropped becomes a root).
 * Returns 0 or -ENOMEM/-EINVAL.
 */
typedef bool (*mntsnap_filter_fn)(const struct mntsnap_mount *m, void *data);
int mntsnap_snapshot_filter(const struct mntsnap_snapshot *snap, mntsnap_filter_fn keep,
			    void *data, struct mntsnap_snapshot **ret_snap);

/* What produced the snapshot (enum mntsnap_backend) */
int mntsnap_snapshot_backend(const struct mntsnap_snapshot *snap);
/* Mask the capture asked for (what a record *could* have). */
uint32_t mntsnap_snapshot_mask(const struct mntsnap_snapshot *snap);
/* Mount namespace id, 0 if unknown. */
uint64_t mntsnap_snapshot_ns_id(const struct mntsnap_snapshot *snap);
/* Capture time (CLOCK_REALTIME ns) */
uint64_t mntsnap_snapshot_time(const struct mntsnap_snapshot *snap);
/* Release (uname -r) of the kernel that captured it, "" if unknown; kept in saved files. */
const char *mntsnap_snapshot_kernel_release(const struct mntsnap_snapshot *snap);
/*
 * That kernel's supported statmount mask (Linux 6.15+; asked for with
 * the string fields whose empty value it tells apart, so only a statmount
 * capture whose mask has one of MNTSNAP_F_SOURCE, _OPTS, _OPT_ARRAY,
 * _OPT_SEC_ARRAY, _FS_SUBTYPE, _UIDMAP, _GIDMAP gets it), 0 if unknown;
 * kept in saved files.
 */
uint64_t mntsnap_snapshot_kernel_supported_mask(const struct mntsnap_snapshot *snap);
/* Heap bytes the snapshot holds (records, strings, indexes). */
size_t mntsnap_snapshot_memory(const struct mntsnap_snapshot *snap);

/* Backend names for messages and JSON: "statmount", "mountinfo", ... */
const char *mntsnap_backend_name(int backend);

/* ------------------------------------------------------------------------ */
/* Rendering (lib/render-*.c).                                              */
/* ------------------------------------------------------------------------ */
enum mntsnap_format {
	MNTSNAP_FORMAT_MOUNTINFO = 0, /* byte-identical to /proc/PID/mountinfo */
	/*
	 * findmnt --json names with findmnt's values, plus mntsnap's fields;
	 * invalid UTF-8 bytes as \udcHH, 64-bit ids and time as digit strings
	 */
	MNTSNAP_FORMAT_JSON = 1,
	/* findmnt --raw -o ID,PARENT,UNIQ-ID,TARGET,SOURCE,FSTYPE,OPTIONS,PROPAGATION */
	MNTSNAP_FORMAT_TABLE = 2,
	/*
	 * findmnt's default tree, byte for byte in a UTF-8 locale: a header,
	 * TARGET SOURCE FSTYPE OPTIONS in columns aligned to their widest
	 * cell, the tree drawn in TARGET, siblings in findmnt's order (see
	 * mntsnap_snapshot_tree_index); unprintable bytes as \xHH. Exact for
	 * a table that holds every mount's parent, as a kernel's does; a
	 * parsed text whose parents are missing gets its extra roots in id
	 * order, each mount drawn once (findmnt 2.38.1 takes them in text
	 * order and may draw a mount twice; `mntsnap list` copies that)
	 */
	MNTSNAP_FORMAT_TREE = 3,
};

/*
 * mntsnap_render - write the whole snapshot to f in one of the formats
 * and fflush() it. Records lacking fields a format needs are rendered
 * with what is there (mountinfo needs MNTSNAP_MASK_DEFAULT plus
 * propagate_from for slaves to be exact).
 *
 * Returns 0, the write's error (-ENOSPC, -EPIPE, ...; -EIO when it is no
 * longer known), -EINVAL for an unknown format.
 *
 * Each format, shown for the table of this mountinfo text (parsed with
 * mntsnap_parse_mountinfo; tests/api/check-examples.py renders it and
 * compares every block below with the output):
 *     22 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw
 *     24 22 0:5 / /dev rw,nosuid shared:2 - devtmpfs udev rw,size=4096k,mode=755
 *     23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw
 *
 * MNTSNAP_FORMAT_MOUNTINFO ("mountinfo"): the kernel's text, byte for
 * byte, one line a mount in storage order:
 *     22 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw
 *     24 22 0:5 / /dev rw,nosuid shared:2 - devtmpfs udev rw,size=4096k,mode=755
 *     23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw
 *
 * MNTSNAP_FORMAT_TREE ("tree"): findmnt's default tree, byte for byte in
 * a UTF-8 locale (siblings by 32-bit mount id, as findmnt orders them):
 *     TARGET  SOURCE    FSTYPE   OPTIONS
 *     /       /dev/sda2 ext4     rw,relatime
 *     ├─/proc proc      proc     rw,nosuid,nodev,noexec,relatime
 *     └─/dev  udev      devtmpfs rw,nosuid,size=4096k,mode=755
 *
 * MNTSNAP_FORMAT_TABLE ("table"): findmnt --raw -o ID,PARENT,UNIQ-ID,
 * TARGET,SOURCE,FSTYPE,OPTIONS,PROPAGATION, storage order (UNIQ-ID is
 * empty for parsed text, which has no unique ids):
 *     ID PARENT UNIQ-ID TARGET SOURCE FSTYPE OPTIONS PROPAGATION
 *     22 1  / /dev/sda2 ext4 rw,relatime shared
 *     24 22  /dev udev devtmpfs rw,nosuid,size=4096k,mode=755 shared
 *     23 22  /proc proc proc rw,nosuid,nodev,noexec,relatime shared
 *
 * MNTSNAP_FORMAT_JSON ("json"): one object, the capture's facts then one
 * record a line with findmnt --json's names and mntsnap's fields (the
 * first record shown; time-ns is the capture's clock):
 *     {"backend":"mountinfo","ns-id":"0","time-ns":"...","count":3,"filesystems":[
 *       {"id":22,"parent":1,"target":"/","source":"/dev/sda2","fstype":"ext4",...},
 */
int mntsnap_render(const struct mntsnap_snapshot *snap, int format, FILE *f);

/*
 * One mountinfo line (with the trailing newline) into buf. Returns the
 * line's length; if that is >= len the line was truncated (snprintf-like).
 */
long mntsnap_render_mountinfo_line(const struct mntsnap_mount *m, char *buf,
				   size_t len);

/* Which options mntsnap_mount_options() writes, with findmnt's meaning. */
enum mntsnap_options_kind {
	MNTSNAP_OPTIONS_ALL = 0, /* OPTIONS: VFS + FS merged, one rw/ro first */
	MNTSNAP_OPTIONS_VFS = 1, /* VFS-OPTIONS: column 6, \ooo unescaped */
	MNTSNAP_OPTIONS_FS = 2,  /* FS-OPTIONS: the super options, \ooo unescaped */
};

/*
 * A mount's options as findmnt shows them for the same mountinfo line,
 * NUL-terminated into buf. OPTIONS is libmount's merge: the super
 * options' rw/ro dropped, "ro" first when either side is read-only
 * (vfs "ro,relatime" + fs "rw" gives "ro,relatime"). Returns the length
 * (snprintf-like: >= len means truncated), -EINVAL, -ENOMEM.
 */
long mntsnap_mount_options(const struct mntsnap_mount *m, int which, char *buf, size_t len);

/* Parse "table", "tree", "json", "mountinfo"; -EINVAL otherwise. */
int mntsnap_format_from_name(const char *name);

/* ------------------------------------------------------------------------ */
/* Saving and loading snapshots (lib/wire.c).                               */
/* ------------------------------------------------------------------------ */
/*
 * mntsnap_snapshot_save / _save_fd - write a snapshot to a file in the
 * binary format.
 *
 * The binary format is versioned, checksummed (CRC32C) and compact (about
 * 0.2x the mountinfo text of the same table); its layout is documented in
 * lib/wire.c. It is a file format only: a namespace helper hands its
 * snapshot to the caller in memory.
 *
 * mntsnap_snapshot_save - write atomically: an unnamed O_TMPFILE in the
 * same directory (a named ".NAME.mntsnap-XXXXXX" where the filesystem has
 * none), fsync, then linked to path or renamed over it, fsync of the
 * directory; a crash or kill leaves the old file or the new one, never
 * half of one, and a temp name left by a killed save is removed by the
 * next save of the same path. A symlink path replaces the file it resolves
 * to (the link stays); the replaced file's mode (and owner, where allowed)
 * is kept; a new file is 0600.
 * Returns 0, -EINVAL, -ENOMEM, -EISDIR (path ends in '/' or names a
 * directory), -ENOENT (a dangling symlink, or no such directory) or the
 * errno of the failing open/write/fsync/link/rename.
 * mntsnap_snapshot_save_fd - write to an fd the caller owns (not synced).
 */
int mntsnap_snapshot_save(const struct mntsnap_snapshot *snap, const char *path);
int mntsnap_snapshot_save_fd(const struct mntsnap_snapshot *snap, int fd);

enum {
	/*
	 * No fsync of the file nor of the directory: still atomic (the
	 * temp file and the rename are the same), so readers see the old
	 * file or the new one, but a power loss or a kernel crash may leave
	 * the old one, an empty one or none. For state that does not outlive
	 * a boot: a runtime's state directory on tmpfs (/run), where fsync
	 * is a no-op anyway, or a container start that must not wait for
	 * the disk (the fsyncs are most of a save's cost on ext4).
	 */
	MNTSNAP_SAVE_NO_SYNC = 1U << 0,
};

struct mntsnap_save_opts {
	size_t sz;
	uint32_t flags;               /* MNTSNAP_SAVE_* */
	struct mntsnap_error *error;  /* optional detail on failure: which step */
	size_t : 0;
};

/*
 * mntsnap_snapshot_save_with - mntsnap_snapshot_save() with options
 * (opts NULL: the same as it). opts->flags MNTSNAP_SAVE_NO_SYNC skips both
 * fsyncs and nothing else; opts->error names the step that failed
 * ("fsync of the directory /run/x: ..."). Returns as
 * mntsnap_snapshot_save(), and -EINVAL/-E2BIG for opts (an unknown flag is
 * -EINVAL).
 */
int mntsnap_snapshot_save_with(const struct mntsnap_snapshot *snap, const char *path,
			       const struct mntsnap_save_opts *opts);

/*
 * mntsnap_snapshot_load / _load_fd / _load_buf - read a saved snapshot.
 * The loader trusts nothing. Returns 0 and *ret_snap, or:
 *  -EBADMSG     corrupt: bad magic, wrong checksum, truncated, an offset,
 *               length or count out of bounds, an unterminated string,
 *               duplicate ids, parent links that point nowhere or loop;
 *  -EPROTO      written by a newer format version;
 *  -EOPNOTSUPP  needs a feature (required flag/section) this reader lacks,
 *               also a record field a newer writer marked required (a
 *               field it marked optional is skipped: the file loads
 *               without it);
 *  -EFBIG       larger than 2 GiB; -ENOMEM; errors of open()/read().
 * The 24-byte header is read and checked first: input that is no snapshot
 * (bad magic) costs one small read, and the header's length bounds the
 * rest.
 * err (optional) says what was wrong and where. The loaded snapshot keeps
 * the backend, mask, ns id, time and consistency of the saved capture.
 */
int mntsnap_snapshot_load(const char *path, struct mntsnap_error *err,
			  struct mntsnap_snapshot **ret_snap);
int mntsnap_snapshot_load_fd(int fd, struct mntsnap_error *err,
			     struct mntsnap_snapshot **ret_snap);
int mntsnap_snapshot_load_buf(const void *buf, size_t len, struct mntsnap_error *err,
			      struct mntsnap_snapshot **ret_snap);

/* ------------------------------------------------------------------------ */
/* Comparing snapshots (lib/diff.c).                                        */
/* ------------------------------------------------------------------------ */
struct mntsnap_diff;

/* How mounts were matched (mntsnap_diff_key()). */
enum mntsnap_diff_key {
	MNTSNAP_DIFF_KEY_ID = 1,   /* 64-bit unique id (never reused) */
	MNTSNAP_DIFF_KEY_PATH = 2, /* mount point + root + device */
};

enum mntsnap_diff_kind {
	MNTSNAP_DIFF_ADDED = 1,
	MNTSNAP_DIFF_REMOVED = 2,
	MNTSNAP_DIFF_CHANGED = 3,
};

/* Which fields of a matched mount changed (mntsnap_diff_entry.changed). */
enum {
	MNTSNAP_CHANGE_MOUNT_POINT = 1U << 0,  /* moved (MS_MOVE) */
	MNTSNAP_CHANGE_PARENT = 1U << 1,
	MNTSNAP_CHANGE_ROOT = 1U << 2,
	MNTSNAP_CHANGE_ATTR = 1U << 3,         /* ro, nosuid, atime, ... */
	MNTSNAP_CHANGE_PROPAGATION = 1U << 4,  /* shared/slave/private/unbindable */
	MNTSNAP_CHANGE_PEER_GROUP = 1U << 5,
	MNTSNAP_CHANGE_MASTER = 1U << 6,
	MNTSNAP_CHANGE_PROPAGATE_FROM = 1U << 7,
	MNTSNAP_CHANGE_OPTIONS = 1U << 8,      /* superblock options */
	MNTSNAP_CHANGE_SOURCE = 1U << 9,
	MNTSNAP_CHANGE_FS_TYPE = 1U << 10,     /* type, subtype or magic */
	MNTSNAP_CHANGE_DEV = 1U << 11,
	MNTSNAP_CHANGE_SB_FLAGS = 1U << 12,
	MNTSNAP_CHANGE_IDMAP = 1U << 13,
	MNTSNAP_CHANGE_UUID = 1U << 14,        /* filesystem UUID (MNTSNAP_F_UUID) */
};

struct mntsnap_diff_entry {
	int kind;          /* enum mntsnap_diff_kind */
	uint32_t changed;  /* MNTSNAP_CHANGE_* (CHANGED only) */
	long old_index;    /* storage index in old, -1 for ADDED */
	long new_index;    /* storage index in new, -1 for REMOVED */
};

enum {
	/* match by mount point + root + device even when both have ids */
	MNTSNAP_DIFF_BY_PATH = 1U << 0,
	/* compare tables built separately (a restore vs its original): match
	 * by mount point + root, ignore ids and device numbers, compare peer
	 * groups by structure (one-to-one), not by number */
	MNTSNAP_DIFF_IGNORE_IDS = 1U << 1,
};

struct mntsnap_diff_opts {
	size_t sz;
	uint32_t flags;          /* MNTSNAP_DIFF_* */
	const char *old_prefix;  /* taken off old mount points (path key) */
	const char *new_prefix;  /* taken off new mount points (path key) */
	size_t : 0;
};

/*
 * mntsnap_diff - compare two snapshots. Mounts are matched by unique id
 * when both snapshots have ids, else (or with BY_PATH/IGNORE_IDS or a
 * prefix) by mount point + root + device; mntsnap_diff_key() says which.
 * A matched pair is CHANGED when any field present in both records (in
 * both masks) differs, an empty value being a value ("" -> "size=1024k"
 * is a change); a field absent from either mask is not compared. Per field:
 * mount point (after the prefix is taken off), root, source, fs type,
 * subtype, sb magic, sb flags, attributes, options, option arrays,
 * security option arrays, uid and gid maps, UUID and device: by value
 * (attributes include the per-mount option words of parsed mountinfo text
 * this build does not know, kept in mnt_opts_text: compared as a set of
 * words, whatever their order, as MNTSNAP_CHANGE_ATTR);
 * parent: by id, only with the id key (path keys cannot name parents);
 * propagation, peer group, master: by value, peer group and master by
 * structure (one-to-one renumbering) with IGNORE_IDS; propagate_from: by
 * value, by structure with IGNORE_IDS; device: not with IGNORE_IDS; ids
 * and the namespace id: never (they are the key or the snapshot's).
 * Entries: REMOVED in
 * old's storage order, then ADDED/CHANGED in new's. The diff refers to
 * both snapshots: keep them alive until mntsnap_diff_free().
 * Returns 0, -EINVAL, -E2BIG (unknown opts bytes), -ENOMEM.
 */
int mntsnap_diff(const struct mntsnap_snapshot *old, const struct mntsnap_snapshot *new_snap,
		 struct mntsnap_diff **ret);
int mntsnap_diff_with(const struct mntsnap_snapshot *old, const struct mntsnap_snapshot *new_snap,
		      const struct mntsnap_diff_opts *opts, struct mntsnap_diff **ret);
void mntsnap_diff_free(struct mntsnap_diff *d);

int mntsnap_diff_key(const struct mntsnap_diff *d);   /* how mounts were matched: enum mntsnap_diff_key */
size_t mntsnap_diff_count(const struct mntsnap_diff *d); /* number of entries; 0 = equal */
/* Number of entries of one kind: ADDED, REMOVED, CHANGED. */
size_t mntsnap_diff_added(const struct mntsnap_diff *d);
size_t mntsnap_diff_removed(const struct mntsnap_diff *d);
size_t mntsnap_diff_changed(const struct mntsnap_diff *d);
/* Entry i of the diff; -ERANGE past the end. */
int mntsnap_diff_get(const struct mntsnap_diff *d, size_t i, struct mntsnap_diff_entry *ret);
/* Name of one MNTSNAP_CHANGE_* bit: "attributes", "propagation", ...; NULL if unknown. */
const char *mntsnap_diff_change_name(uint32_t bit);
/* Name of a diff key: "id" or "mount_point+root+device" */
const char *mntsnap_diff_key_name(int key);

enum mntsnap_diff_format {
	MNTSNAP_DIFF_FORMAT_TEXT = 0, /* "+ id path", "- id path", "~ id path" + fields */
	MNTSNAP_DIFF_FORMAT_JSON = 1, /* {"key","equal","added",...,"entries":[...]} */
};
/* Write the diff and fflush() f; 0, -EINVAL (format), the write's error
 * (-ENOSPC, -EPIPE, ...; -EIO when unknown), -ENOMEM. */
int mntsnap_diff_render(const struct mntsnap_diff *d, int format, FILE *f);

/* ------------------------------------------------------------------------ */
/* Restore order (lib/restore.c).                                           */
/* ------------------------------------------------------------------------ */
struct mntsnap_order;

/* Why one mount must be recreated after another. */
enum mntsnap_order_reason {
	MNTSNAP_ORDER_PARENT = 1,      /* it is mounted on that mount */
	MNTSNAP_ORDER_STACKED = 2,     /* stacked on it at the same mount point */
	MNTSNAP_ORDER_OVERMOUNT = 3,   /* that sibling covers our mount point */
	MNTSNAP_ORDER_BIND_SOURCE = 4, /* bind-mounted from that mount (same sb) */
	MNTSNAP_ORDER_PEER = 5,        /* joins that peer's group */
	MNTSNAP_ORDER_MASTER = 6,      /* becomes a slave of that mount's group */
};

/* Constraint: record index after record after_index (storage indices). */
struct mntsnap_order_dep {
	uint32_t index;
	uint32_t after_index;
	int reason; /* enum mntsnap_order_reason */
};

/* One mount to recreate, in order. Indices are storage indices, -1 = none. */
struct mntsnap_order_step {
	uint32_t index;
	long bind_from; /* bind from this earlier mount (its root contains ours);
			 * -1: create fresh (the widest-root member of its sb) */
	long peer_of;   /* shared: join this earlier peer's group (SET_GROUP);
			 * -1: first of its group (make-shared) or not shared */
	long master_of; /* slave: a member of the master group whose root
			 * contains ours; -1: not a slave, or the master is
			 * outside the snapshot */
};

/*
 * mntsnap_restore_order - order the records of s for recreation: parents
 * before children, stacked mounts in their original order, covered
 * siblings before the sibling covering them, bind sources before binds,
 * a group's first peer before the others, masters before slaves. The
 * order, every constraint with its reason, and per step where to bind
 * from / which peer or master to copy the group from (lib/restore.c
 * explains the recipe). Needs root, mount point, device and propagation
 * in every record.
 * Returns 0, -EINVAL, -ENODATA (fields missing), -ELOOP (constraints form
 * a loop), -ENOMEM.
 */
int mntsnap_restore_order(const struct mntsnap_snapshot *s, struct mntsnap_order **ret);
void mntsnap_order_free(struct mntsnap_order *o);
size_t mntsnap_order_count(const struct mntsnap_order *o);
int mntsnap_order_step(const struct mntsnap_order *o, size_t i, struct mntsnap_order_step *ret);
size_t mntsnap_order_ndeps(const struct mntsnap_order *o);
int mntsnap_order_dep(const struct mntsnap_order *o, size_t i, struct mntsnap_order_dep *ret);
/* Name of an order reason: "parent", "stacked", "overmount", "bind_source", "peer",
 * "master"; NULL if unknown */
const char *mntsnap_order_reason_name(int reason);

/* ------------------------------------------------------------------------ */
/* Consistency and refresh (lib/consistent.c, lib/refresh.c).               */
/* ------------------------------------------------------------------------ */
/*
 * A statmount capture is checked for races with concurrent mount changes
 * (POLLPRI on the namespace's mountinfo, mounts vanishing mid-walk, a
 * listmount afterwards that disagrees, a missing parent) and retried up
 * to max_retries times. The detectors cannot see a change of propagation
 * type alone, nor a superblock remount made from another namespace:
 * MNTSNAP_CAPTURE_STRICT additionally requires two successive captures to
 * agree field by field. lib/consistent.c has the details.
 *
 * Not an errno-returning function (the exception to the 0-or--errno
 * rule): a tri-state. 1 consistent, 0 raced on every try (or a refresh
 * during which the table changed, or parsed mountinfo text that lists a
 * mount id more than once: every line is kept, attempts is 0), -1 not
 * checked (other parsed mountinfo files, hand-built snapshots, or NULL);
 * the -1 is no -EPERM.
 *
 * After an ids-only refresh (MNTSNAP_CAPTURE_REFRESH_IDS_ONLY) of a table
 * under 2,048 mounts, 1 means less: the id set came from one listmount
 * call that returned fewer ids than asked - one walk the kernel makes
 * under the namespace lock, so a set that existed at one moment - and
 * every new mount was still there for its statmount. The new mounts'
 * records are each read after that moment, and the kept ones are as old
 * as they were (this mode never reads them), so 1 does not say the
 * records show one moment. 0: the listing took more than one call, or a
 * new mount was gone before its statmount. From 2,048 mounts on, the
 * refresh polls the namespace's mountinfo (POLLPRI) as a checked refresh
 * does: 0 if the table changed meanwhile, -1 where there is none to poll.
 */
int mntsnap_snapshot_consistent(const struct mntsnap_snapshot *snap);
/* Captures it took (1 = first try), 0 if unknown. */
unsigned mntsnap_snapshot_attempts(const struct mntsnap_snapshot *snap);

/*
 * mntsnap_refresh - bring a statmount snapshot of the caller's namespace
 * up to date in place: list ids, statmount new mounts in full and check
 * the others cheaply (MNT_BASIC|SB_BASIC, no strings; superblock options
 * once per superblock), refetching only what changed (and every mount
 * below a mount seen moved: their paths moved along). Blind to a move
 * that keeps the parent mount, to a changed propagate_from alone, and to
 * a rename of a directory above a mount point or above a bind mount's
 * root (a fresh capture shows the new path, but no mount changed, so
 * nothing a strings-free check reads differs).
 * _with takes error and MNTSNAP_CAPTURE_REFRESH_IDS_ONLY (no
 * per-mount check: ~0.02 of a full capture instead of ~0.5, 1.1-1.3x a
 * bare listmount of every id after one change) from opts (a foreign ns:
 * -EOPNOTSUPP). The result is in ascending id order.
 * Returns the number of mounts added + removed + changed (0 = unchanged),
 * or -EINVAL (no unique ids in the snapshot), -ENOMEM, or a syscall error;
 * on error the snapshot is unchanged (its records, their order, indexes and
 * tree; strings and superblock entries of mounts it had fetched may stay
 * behind, unreferenced, as memory).
 * Views (mntsnap_snapshot_get) taken before a refresh stay valid until
 * mntsnap_snapshot_free(): strings are only ever appended, never moved or
 * freed, so each refresh grows the snapshot by the strings of the mounts it
 * added or changed, plus, when the string table has to grow, the old table
 * it keeps (all kept tables together are smaller than the live one;
 * mntsnap_snapshot_memory counts them). A new capture gives that back.
 */
int mntsnap_refresh(struct mntsnap_snapshot *snap);
int mntsnap_refresh_with(struct mntsnap_snapshot *snap, const struct mntsnap_capture_opts *opts);

/* ------------------------------------------------------------------------ */
/* Watching a mount table live (lib/watch.c).                               */
/* ------------------------------------------------------------------------ */
struct mntsnap_watch;

enum mntsnap_watch_kind {
	MNTSNAP_WATCH_MOUNT = 1,  /* a mount appeared (mount, bind, propagation) */
	MNTSNAP_WATCH_UMOUNT = 2, /* a mount went away */
	MNTSNAP_WATCH_MOVE = 3,   /* same mount, new place (mount point/parent) */
	MNTSNAP_WATCH_CHANGE = 4, /* same mount, other fields (remount, setattr) */
	MNTSNAP_WATCH_RESYNC = 5, /* events may have been lost (queue overflow):
				   * the table was captured again, the events
				   * before this one are the differences found */
};

enum {
	/* never use fanotify mount events: POLLPRI on the namespace's
	 * mountinfo + a listing and strings-free statmount sweep */
	MNTSNAP_WATCH_POLLPRI_ONLY = 1U << 0,
	/* trust fanotify alone when a drain also had POLLPRI: no delayed
	 * sweep (see mntsnap_watch_new), so an attribute change landing
	 * together with a mount or umount is missed until the next change
	 * that only POLLPRI reports; per-event cost then never depends on
	 * the table's size */
	MNTSNAP_WATCH_NO_SETTLE = 1U << 1,
};

/* How a watcher learns of changes (mntsnap_watch_route()). */
enum mntsnap_watch_route {
	MNTSNAP_WATCH_ROUTE_FANOTIFY = 1, /* fanotify mount events + POLLPRI */
	MNTSNAP_WATCH_ROUTE_POLLPRI = 2,  /* POLLPRI + sweep only */
	/* POLLPRI + the process's mountinfo text read again: a pid handle
	 * whose namespace may not be queried, or no statmount here */
	MNTSNAP_WATCH_ROUTE_TEXT = 3,
};

struct mntsnap_watch_opts {
	size_t sz;
	const struct mntsnap_ns *ns;  /* target; NULL = caller's namespace */
	uint32_t mask;                /* MNTSNAP_F_*; 0 = MNTSNAP_MASK_DEFAULT */
	uint32_t flags;               /* MNTSNAP_WATCH_* */
	unsigned settle_ms;           /* delay of the settle sweep; 0 = 100 */
	struct mntsnap_error *error;  /* optional detail on failure */
	/*
	 * A procfs mountinfo file to watch (/proc/PID/mountinfo, a thread's
	 * /proc/PID/task/TID/mountinfo, one of a procfs mounted elsewhere):
	 * opened once here and read again through that open file at each
	 * change (MNTSNAP_WATCH_ROUTE_TEXT). The kernel fixes such a file's
	 * view at its open (the task's root and namespace then, a thread's
	 * own root), so that view is the watch's for good, as findmnt --poll
	 * sees it, whatever the task does to its root later (pivot_root(),
	 * chroot()). ns, if given, is the task's pid handle: its exit ends
	 * the watch. A file on no procfs: -EINVAL. NULL: none.
	 */
	const char *mountinfo_path;
	size_t : 0;
};

/*
 * mntsnap_watch_new - watch a mount namespace and keep a live snapshot of
 * it. Captures the table once, then learns of changes from:
 *  - fanotify mount events (Linux 6.15+: fanotify_init(FAN_REPORT_MNT) and
 *    a FAN_MARK_MNTNS mark on the namespace): attach -> one statmount,
 *    detach -> the record is dropped, move -> one statmount. Cost per
 *    event does not depend on the table's size;
 *  - POLLPRI on the namespace's mountinfo (own namespace, or a pid
 *    handle's process), which also fires for what fanotify does not
 *    report (bind remount ro, mount_setattr, superblock remount): a drain
 *    where it fired without any fanotify event re-lists the ids and checks
 *    every mount with a strings-free statmount (superblock options once per
 *    superblock), reporting what changed;
 *  - a queue overflow (16,384 pending events): a full capture, diffed
 *    against the live snapshot, reported as events and then RESYNC.
 * The one thing the fanotify route cannot tell: an attribute change that
 * lands in the same drain as a mount or umount (POLLPRI fired, but so did
 * fanotify, and POLLPRI never says how many changes it stands for). So
 * settle_ms after such a drain the watcher sweeps (its fd wakes for it),
 * at most once per settle_ms however busy the table is: the snapshot is a
 * fresh capture's equal after every drain but within settle_ms of such a
 * coincidence. MNTSNAP_WATCH_NO_SETTLE skips that sweep. Nothing sees a
 * propagation type change alone (MS_SHARED/MS_PRIVATE bump no counter),
 * nor a rename of a directory above a mount point or a bind mount's root
 * (another path in mountinfo, no mount changed: no counter, no event).
 * Without fanotify mount events (before 6.15, ENOSYS/EINVAL, or blocked by
 * seccomp: EPERM/EACCES) or with MNTSNAP_WATCH_POLLPRI_ONLY, every POLLPRI
 * triggers the sweep (mount points included, so same-parent moves are
 * seen): the same events, at a cost that grows with the table.
 * A foreign opts->ns (which must outlive the watcher) is queried directly
 * (by its nsfs fd, 6.18+, or by id with CAP_SYS_ADMIN over its owner);
 * a pid handle that may not be (no such capability, no ptrace access to
 * open the namespace, a kernel without the request fields) is watched
 * from its process's mountinfo text, as a capture falls back to it:
 * MNTSNAP_WATCH_ROUTE_TEXT, POLLPRI on that text, each change read in
 * full and diffed (records without unique ids: event ids are 0, a moved
 * mount is paired by source and /proc id as libmount pairs it). So is the
 * caller's own namespace where statmount is missing or blocked;
 * fanotify marks need CAP_SYS_ADMIN over its owner too (else the POLLPRI
 * route) and an nsfs fd (an id handle's is looked up by id). Only a pid
 * handle has a mountinfo to poll: with an ns-file or id handle only
 * fanotify events are seen (no remounts), and without fanotify there is
 * nothing to watch with (-EOPNOTSUPP). A pid handle whose process exits
 * ends the watch (mntsnap_watch_drain() says -ESRCH). A pid handle is
 * its process's view, as mntsnap_capture() of it: for a process whose root
 * is not its namespace's (chroot()) at the start, the snapshot
 * (mntsnap_watch_snapshot) holds the mounts reachable from that root,
 * mount points relative to it, and the events are the changes between
 * that view before and after each drain (a mount outside the root: none;
 * one moved in from outside: MOUNT; one moved out: UMOUNT; one made and
 * gone within one drain: none), at the cost of a copy of the whole table
 * per drain with changes. propagate_from (MNTSNAP_F_PROPAGATE_FROM) of a
 * pid handle is its process's mountinfo's (statmount from outside a
 * namespace never names one), read at the start, at a resync and once
 * per drain that fetches a mount, absent where that text lacks it; of an
 * ns-file or id handle it is always absent (no process to read it from).
 * Errors: -EPERM (no right to query a target without a process:
 * opts->error says why),
 * -ENOSYS (no statmount/listmount: nothing to keep current with),
 * -EOPNOTSUPP (no event source, see above), -ESRCH, -ENOENT,
 * -E2BIG/-EINVAL (opts), -ENOMEM, and a capture's errors.
 */
int mntsnap_watch_new(const struct mntsnap_watch_opts *opts, struct mntsnap_watch **ret_watch);

/* Close every fd and free the watcher (events and snapshots it lent). NULL ok. */
void mntsnap_watch_free(struct mntsnap_watch *w);

/*
 * The fd to poll (POLLIN) or add to an epoll set: readable when a drain
 * has something to do. Owned by the watcher (O_CLOEXEC); do not close it.
 */
int mntsnap_watch_fd(const struct mntsnap_watch *w);

/* enum mntsnap_watch_route the watcher ended up with. */
int mntsnap_watch_route(const struct mntsnap_watch *w);

/*
 * mntsnap_watch_drain - read what the kernel has pending (never blocks),
 * bring the live snapshot up to date and queue one typed event per
 * change; read them with mntsnap_watch_next(). Events of an earlier drain
 * that were not read are dropped. Returns the number of events queued (0:
 * nothing changed), or -ESRCH (a pid handle's process has exited: the
 * watch is over, the snapshot keeps its last state), -ENOMEM, -EBADMSG
 * (a fanotify record that cannot be true), or the error of a read(),
 * statmount or listmount (the snapshot is then resynced at the next
 * drain, and the fd wakes for it settle_ms later).
 */
int mntsnap_watch_drain(struct mntsnap_watch *w);

/*
 * mntsnap_watch_sync - mntsnap_watch_drain(), then a sweep of every
 * mount at once, mount points included (pending or not: a propagation
 * change, a rename of a directory above a mount point send no event),
 * so the snapshot is a fresh capture's equal now (call it before saving
 * the snapshot at the end of a watch). Returns and queues like
 * mntsnap_watch_drain().
 */
int mntsnap_watch_sync(struct mntsnap_watch *w);

/* One change. The records are valid until the next drain. */
struct mntsnap_watch_event {
	int kind;                   /* enum mntsnap_watch_kind */
	uint32_t changed;           /* MNTSNAP_CHANGE_* (MOVE and CHANGE) */
	uint64_t id;                /* unique mount id (0 for RESYNC) */
	struct mntsnap_mount mount; /* the record now: MOUNT, MOVE, CHANGE */
	struct mntsnap_mount old;   /* the record before: UMOUNT, MOVE, CHANGE */
};

/*
 * The next queued event in *ret: 0, or 1 when there is none left (the
 * libmount iterator convention), -EINVAL. index/parent_index/depth of
 * the records are not meaningful (the live snapshot is not in tree order
 * between drains).
 */
int mntsnap_watch_next(struct mntsnap_watch *w, struct mntsnap_watch_event *ret);

/*
 * The live snapshot as it stands after the last drain, in ascending id
 * order like a capture (mntsnap_diff against a fresh capture says equal).
 * Owned by the watcher, valid until the next drain or free; the events of
 * the last drain stay readable. 0, -ENOMEM, -EINVAL.
 */
int mntsnap_watch_snapshot(struct mntsnap_watch *w, const struct mntsnap_snapshot **ret_snap);

/* "mount", "umount", "move", "remount" (CHANGE, as findmnt --poll says), "resync"; NULL if unknown. */
const char *mntsnap_watch_kind_name(int kind);

/* ------------------------------------------------------------------------ */
/* Library probing.                                                         */
/* ------------------------------------------------------------------------ */
/*
 * Does the calling thread get statmount/listmount? 1 yes, 0 no (ENOSYS,
 * or blocked by seccomp with EPERM/EACCES). A "yes" is cached per
 * process, so a thread that installs a filter later still reads 1
 * (capture falls back on its own then); a "no" is never cached: a
 * seccomp filter belongs to the thread that installed it, and the
 * process's other threads may still have the calls.
 */
int mntsnap_have_statmount(void);

/* Kernel's supported statmount mask (6.15+), 0 if it cannot tell. */
uint64_t mntsnap_kernel_supported_mask(void);

/* ------------------------------------------------------------------------ */
/* Cleanup helpers for __attribute__((cleanup)).                            */
/* ------------------------------------------------------------------------ */
/*
 * mntsnap_snapshot_freep / _diff_freep / _order_freep / _ns_freep /
 * _watch_freep - free *p with the type's own free function and set *p to
 * NULL; p NULL or *p NULL is fine. Made for GCC's and clang's
 * __attribute__((cleanup)), the _cleanup_ habit of crun, systemd and
 * libbpf users, so a pointer initialised to NULL is released on every
 * return path:
 *
 *   MNTSNAP_CLEANUP(mntsnap_snapshot_freep) struct mntsnap_snapshot *snap = NULL;
 *
 * (mntsnap-supervisor.h and mntsnap-seccomp.h have the same for their
 * objects.) mntsnap_ns_leave() has none: leaving a namespace can fail and
 * its answer must be looked at. Arrays from mntsnap_ns_list() and
 * buffers from mntsnap_ns_run() are released with free().
 */
void mntsnap_snapshot_freep(struct mntsnap_snapshot **p);
void mntsnap_diff_freep(struct mntsnap_diff **p);
void mntsnap_order_freep(struct mntsnap_order **p);
void mntsnap_ns_freep(struct mntsnap_ns **p);
void mntsnap_watch_freep(struct mntsnap_watch **p);

/* __attribute__((cleanup(f))) where the compiler has it (GCC, clang). */
#if defined(__GNUC__) || defined(__clang__)
#define MNTSNAP_CLEANUP(f) __attribute__((cleanup(f)))
#endif

#if defined(__GNUC__) && __GNUC__ >= 4
#pragma GCC visibility pop
#endif


#ifdef __cplusplus
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
}

/* MNTSNAP_OPTS for C++: every byte zero, then sz. */
template <typename T> static inline T mntsnap__opts_init(void)
{
	T o;

	memset(static_cast<void *>(&o), 0, sizeof(o));
	o.sz = sizeof(o);
	return o;
}
#endif
#endif /* MNTSNAP_H */
