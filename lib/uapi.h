/* SPDX-License-Identifier: MIT */
/*
 * Kernel ABI copies for mntsnap.
 *
 * Debian 12's and musl's headers predate statmount/listmount, so every
 * structure, constant and syscall number the library needs is defined here
 * (from include/uapi/linux/{mount,nsfs,pidfd,stat,fanotify}.h) and checked with
 * static asserts against the kernel's published layout. Every name carries
 * a mntsnap_k_ / MNTSNAP_K_ prefix (as util-linux does with ul_statmount):
 * <sys/mount.h> pulls in <linux/mount.h> on systems with Linux >= 6.8
 * headers, and the kernel's own names would then be defined twice. Never
 * include <linux/mount.h> here: old systems lack what is defined below.
 */
#ifndef MNTSNAP_UAPI_H
#define MNTSNAP_UAPI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>

/* ---- syscall numbers (arch/<arch>/.../syscall*.tbl) ---------------------- */
/*
 * From 424 on every architecture shares one number, except alpha (+110) and
 * the three MIPS ABIs (+4000 o32, +5000 n64, +6000 n32); x32 ORs in
 * __X32_SYSCALL_BIT.
 */
#if defined(__alpha__)
#define MNTSNAP_NR_BASE 110
#elif defined(__mips__) && defined(_MIPS_SIM) && _MIPS_SIM == _MIPS_SIM_ABI32
#define MNTSNAP_NR_BASE 4000
#elif defined(__mips__) && defined(_MIPS_SIM) && _MIPS_SIM == _MIPS_SIM_ABI64
#define MNTSNAP_NR_BASE 5000
#elif defined(__mips__) && defined(_MIPS_SIM) && _MIPS_SIM == _MIPS_SIM_NABI32
#define MNTSNAP_NR_BASE 6000
#elif defined(__x86_64__) && defined(__ILP32__)
#define MNTSNAP_NR_BASE 0x40000000
#else
#define MNTSNAP_NR_BASE 0
#endif

#define MNTSNAP_NR_open_tree (MNTSNAP_NR_BASE + 428)
#define MNTSNAP_NR_move_mount (MNTSNAP_NR_BASE + 429)
#define MNTSNAP_NR_fsopen (MNTSNAP_NR_BASE + 430)
#define MNTSNAP_NR_fsconfig (MNTSNAP_NR_BASE + 431)
#define MNTSNAP_NR_fsmount (MNTSNAP_NR_BASE + 432)
#define MNTSNAP_NR_fspick (MNTSNAP_NR_BASE + 433)
#define MNTSNAP_NR_pidfd_open (MNTSNAP_NR_BASE + 434)
#define MNTSNAP_NR_pidfd_getfd (MNTSNAP_NR_BASE + 438)
#define MNTSNAP_NR_clone3 (MNTSNAP_NR_BASE + 435)
#define MNTSNAP_NR_openat2 (MNTSNAP_NR_BASE + 437)
#define MNTSNAP_NR_mount_setattr (MNTSNAP_NR_BASE + 442)
#define MNTSNAP_NR_statmount (MNTSNAP_NR_BASE + 457)
#define MNTSNAP_NR_listmount (MNTSNAP_NR_BASE + 458)
#define MNTSNAP_NR_open_tree_attr (MNTSNAP_NR_BASE + 467)

/* ---- struct mntsnap_k_mnt_id_req ----------------------------------------------------- */
struct mntsnap_k_mnt_id_req {
	uint32_t size;
	union {
		uint32_t mnt_ns_fd; /* 6.18: namespace fd (was "spare") */
		uint32_t mnt_fd;    /* 7.0: with MNTSNAP_K_STATMOUNT_BY_FD */
	};
	uint64_t mnt_id;    /* statmount: mount; listmount: parent or MNTSNAP_K_LSMT_ROOT */
	uint64_t param;     /* statmount: mask; listmount: last id returned */
	uint64_t mnt_ns_id; /* 6.11 (VER1) */
};

#define MNTSNAP_K_MNT_ID_REQ_SIZE_VER0 24 /* 6.8 */
#define MNTSNAP_K_MNT_ID_REQ_SIZE_VER1 32 /* 6.11 */

/* ---- struct mntsnap_k_statmount ------------------------------------------------------ */
struct mntsnap_k_statmount {
	uint32_t size;
	uint32_t mnt_opts; /* [str] 6.11 */
	uint64_t mask;
	uint32_t sb_dev_major;
	uint32_t sb_dev_minor;
	uint64_t sb_magic;
	uint32_t sb_flags;
	uint32_t fs_type; /* [str] */
	uint64_t mnt_id;
	uint64_t mnt_parent_id;
	uint32_t mnt_id_old;
	uint32_t mnt_parent_id_old;
	uint64_t mnt_attr;
	uint64_t mnt_propagation;
	uint64_t mnt_peer_group;
	uint64_t mnt_master;
	uint64_t propagate_from;
	uint32_t mnt_root;  /* [str] */
	uint32_t mnt_point; /* [str] */
	uint64_t mnt_ns_id; /* 6.11 */
	uint32_t fs_subtype;    /* [str] 6.13 */
	uint32_t sb_source;     /* [str] 6.13 */
	uint32_t opt_num;       /* 6.13 */
	uint32_t opt_array;     /* [str] 6.13 */
	uint32_t opt_sec_num;   /* 6.13 */
	uint32_t opt_sec_array; /* [str] 6.13 */
	uint64_t supported_mask; /* 6.15 */
	uint32_t mnt_uidmap_num; /* 6.15 */
	uint32_t mnt_uidmap;     /* [str] 6.15 */
	uint32_t mnt_gidmap_num; /* 6.15 */
	uint32_t mnt_gidmap;     /* [str] 6.15 */
	uint64_t __spare2[43];
	char str[]; /* NUL-terminated strings; str[0] is always "" */
};

#define MNTSNAP_K_STATMOUNT_SB_BASIC 0x00000001U
#define MNTSNAP_K_STATMOUNT_MNT_BASIC 0x00000002U
#define MNTSNAP_K_STATMOUNT_PROPAGATE_FROM 0x00000004U
#define MNTSNAP_K_STATMOUNT_MNT_ROOT 0x00000008U
#define MNTSNAP_K_STATMOUNT_MNT_POINT 0x00000010U
#define MNTSNAP_K_STATMOUNT_FS_TYPE 0x00000020U
#define MNTSNAP_K_STATMOUNT_MNT_NS_ID 0x00000040U     /* 6.11 */
#define MNTSNAP_K_STATMOUNT_MNT_OPTS 0x00000080U      /* 6.11 */
#define MNTSNAP_K_STATMOUNT_FS_SUBTYPE 0x00000100U    /* 6.13 */
#define MNTSNAP_K_STATMOUNT_SB_SOURCE 0x00000200U     /* 6.13 */
#define MNTSNAP_K_STATMOUNT_OPT_ARRAY 0x00000400U     /* 6.13 */
#define MNTSNAP_K_STATMOUNT_OPT_SEC_ARRAY 0x00000800U /* 6.13 */
#define MNTSNAP_K_STATMOUNT_SUPPORTED_MASK 0x00001000U /* 6.15 */
#define MNTSNAP_K_STATMOUNT_MNT_UIDMAP 0x00002000U    /* 6.15 */
#define MNTSNAP_K_STATMOUNT_MNT_GIDMAP 0x00004000U    /* 6.15 */

/* statmount() flags */
#define MNTSNAP_K_STATMOUNT_BY_FD 0x00000001U /* 7.0 */

/* listmount() */
#define MNTSNAP_K_LSMT_ROOT 0xffffffffffffffffULL
#define MNTSNAP_K_LISTMOUNT_REVERSE (1U << 0) /* 6.11 */

/* Unique mount ids are all above this value (6.8). */
#define MNTSNAP_K_MNT_UNIQUE_ID_OFFSET 0x80000000ULL

/* ---- mount attributes and propagation -------------------------------------- */
/* Prefixed like everything here, so no <sys/mount.h> copy can clash. */
#define MNTSNAP_K_MOUNT_ATTR_RDONLY 0x00000001U
#define MNTSNAP_K_MOUNT_ATTR_NOSUID 0x00000002U
#define MNTSNAP_K_MOUNT_ATTR_NODEV 0x00000004U
#define MNTSNAP_K_MOUNT_ATTR_NOEXEC 0x00000008U
#define MNTSNAP_K_MOUNT_ATTR__ATIME 0x00000070U
#define MNTSNAP_K_MOUNT_ATTR_RELATIME 0x00000000U
#define MNTSNAP_K_MOUNT_ATTR_NOATIME 0x00000010U
#define MNTSNAP_K_MOUNT_ATTR_STRICTATIME 0x00000020U
#define MNTSNAP_K_MOUNT_ATTR_NODIRATIME 0x00000080U
#define MNTSNAP_K_MOUNT_ATTR_IDMAP 0x00100000U
#define MNTSNAP_K_MOUNT_ATTR_NOSYMFOLLOW 0x00200000U

/* MS_* as reported in mnt_propagation and SB_* in sb_flags (same values). */
#define MNTSNAP_MS_RDONLY 0x1U
#define MNTSNAP_MS_SYNCHRONOUS 0x10U
#define MNTSNAP_MS_DIRSYNC 0x80U
#define MNTSNAP_MS_UNBINDABLE (1U << 17)
#define MNTSNAP_MS_PRIVATE (1U << 18)
#define MNTSNAP_MS_SLAVE (1U << 19)
#define MNTSNAP_MS_SHARED (1U << 20)
#define MNTSNAP_MS_LAZYTIME (1U << 25)

/* ---- statx ---------------------------------------------------------------- */
#define MNTSNAP_STATX_TYPE 0x00000001U
#define MNTSNAP_STATX_INO 0x00000100U
#define MNTSNAP_STATX_MNT_ID 0x00001000U
#define MNTSNAP_STATX_MNT_ID_UNIQUE 0x00004000U /* 6.8 */

/* Kernel struct statx, own copy: musl 1.2.3 has neither it nor statx(). */
struct mntsnap_statx_ts {
	int64_t tv_sec;
	uint32_t tv_nsec;
	int32_t __reserved;
};
struct mntsnap_statx {
	uint32_t stx_mask;
	uint32_t stx_blksize;
	uint64_t stx_attributes;
	uint32_t stx_nlink;
	uint32_t stx_uid;
	uint32_t stx_gid;
	uint16_t stx_mode;
	uint16_t __spare0;
	uint64_t stx_ino;
	uint64_t stx_size;
	uint64_t stx_blocks;
	uint64_t stx_attributes_mask;
	struct mntsnap_statx_ts stx_atime, stx_btime, stx_ctime, stx_mtime;
	uint32_t stx_rdev_major;
	uint32_t stx_rdev_minor;
	uint32_t stx_dev_major;
	uint32_t stx_dev_minor;
	uint64_t stx_mnt_id;
	uint64_t __spare2[13];
};

/* statx flag: answer from the inode cache, no remote revalidation (4.11) */
#define MNTSNAP_AT_STATX_DONT_SYNC 0x4000

/* ---- open_tree / openat2 --------------------------------------------------- */
#define MNTSNAP_OPEN_TREE_CLONE 1U
#define MNTSNAP_OPEN_TREE_CLOEXEC 02000000U /* == O_CLOEXEC */
#define MNTSNAP_AT_RECURSIVE 0x8000

struct mntsnap_open_how {
	uint64_t flags;
	uint64_t mode;
	uint64_t resolve;
};
#define MNTSNAP_RESOLVE_NO_XDEV 0x01
#define MNTSNAP_RESOLVE_NO_MAGICLINKS 0x02
#define MNTSNAP_RESOLVE_NO_SYMLINKS 0x04
#define MNTSNAP_RESOLVE_BENEATH 0x08
#define MNTSNAP_RESOLVE_IN_ROOT 0x10

/* ---- nsfs ioctls (include/uapi/linux/nsfs.h) -------------------------------- */
struct mntsnap_k_mnt_ns_info {
	uint32_t size;
	uint32_t nr_mounts; /* excludes the namespace's rootfs */
	uint64_t mnt_ns_id;
};
#define MNTSNAP_K_MNT_NS_INFO_SIZE_VER0 16

#define MNTSNAP_NSIO 0xb7
#define MNTSNAP_NS_GET_USERNS _IO(MNTSNAP_NSIO, 0x1)
#define MNTSNAP_NS_GET_NSTYPE _IO(MNTSNAP_NSIO, 0x3)
#define MNTSNAP_NS_GET_OWNER_UID _IO(MNTSNAP_NSIO, 0x4) /* on a user namespace fd */
#define MNTSNAP_NS_GET_MNTNS_ID _IOR(MNTSNAP_NSIO, 0x5, uint64_t)            /* 6.11 */
#define MNTSNAP_NS_MNT_GET_INFO _IOR(MNTSNAP_NSIO, 10, struct mntsnap_k_mnt_ns_info)  /* 6.12 */
#define MNTSNAP_NS_MNT_GET_NEXT _IOR(MNTSNAP_NSIO, 11, struct mntsnap_k_mnt_ns_info)  /* 6.12 */
#define MNTSNAP_NS_MNT_GET_PREV _IOR(MNTSNAP_NSIO, 12, struct mntsnap_k_mnt_ns_info)  /* 6.12 */
#define MNTSNAP_NS_GET_ID _IOR(MNTSNAP_NSIO, 13, uint64_t)                  /* 6.18 */

/* ---- filesystem magics (include/uapi/linux/magic.h), for fstatfs() ---------- */
#define MNTSNAP_NSFS_MAGIC 0x6e736673
#define MNTSNAP_PROC_SUPER_MAGIC 0x9fa0
#define MNTSNAP_PIDFS_MAGIC 0x50494446         /* 6.9: pidfds live on pidfs */
#define MNTSNAP_ANON_INODE_FS_MAGIC 0x09041934 /* before: anonymous inodes */

/* ---- pidfd ioctls (include/uapi/linux/pidfd.h) ------------------------------ */
#define MNTSNAP_PIDFS_IOCTL_MAGIC 0xFF
#define MNTSNAP_PIDFD_GET_MNT_NAMESPACE _IO(MNTSNAP_PIDFS_IOCTL_MAGIC, 3)   /* 6.11 */
#define MNTSNAP_PIDFD_GET_USER_NAMESPACE _IO(MNTSNAP_PIDFS_IOCTL_MAGIC, 9)  /* 6.11 */

/* ---- classic BPF for seccomp (linux/filter.h, linux/seccomp.h) -------------- */
struct mntsnap_sock_filter {
	uint16_t code;
	uint8_t jt, jf;
	uint32_t k;
};
struct mntsnap_sock_fprog {
	unsigned short len;
	struct mntsnap_sock_filter *filter;
};
#define MNTSNAP_BPF_LD_W_ABS 0x20   /* BPF_LD | BPF_W | BPF_ABS */
#define MNTSNAP_BPF_JEQ_K 0x15      /* BPF_JMP | BPF_JEQ | BPF_K */
#define MNTSNAP_BPF_RET_K 0x06      /* BPF_RET | BPF_K */
#define MNTSNAP_SECCOMP_SET_MODE_FILTER 1
#define MNTSNAP_SECCOMP_RET_ALLOW 0x7fff0000U
#define MNTSNAP_SECCOMP_RET_ERRNO 0x00050000U
/* struct seccomp_data: int nr; u32 arch; u64 ip; u64 args[6] */
#define MNTSNAP_SECCOMP_DATA_NR 0
#define MNTSNAP_SECCOMP_DATA_ARG0 16

/* ---- fanotify mount events (include/uapi/linux/fanotify.h, 6.15) ------------- */
/*
 * A group made with MNTSNAP_K_FAN_REPORT_MNT reports attach/detach of the
 * mounts of a namespace marked with MNTSNAP_K_FAN_MARK_MNTNS (the nsfs fd as
 * dirfd, no path); a move is one event with both bits. Each event carries
 * one MNTSNAP_K_FAN_EVENT_INFO_TYPE_MNT record with the unique mount id.
 */
#define MNTSNAP_K_FAN_CLOEXEC 0x00000001U
#define MNTSNAP_K_FAN_NONBLOCK 0x00000002U
#define MNTSNAP_K_FAN_REPORT_MNT 0x00004000U    /* fanotify_init flag, 6.15 */
#define MNTSNAP_K_FAN_MARK_ADD 0x00000001U
#define MNTSNAP_K_FAN_MARK_MNTNS 0x00000110U    /* fanotify_mark type, 6.15 */
#define MNTSNAP_K_FAN_Q_OVERFLOW 0x00004000ULL  /* event mask: queue overflowed */
#define MNTSNAP_K_FAN_MNT_ATTACH 0x01000000ULL  /* event mask, 6.15 */
#define MNTSNAP_K_FAN_MNT_DETACH 0x02000000ULL  /* event mask, 6.15 */
#define MNTSNAP_K_FANOTIFY_METADATA_VERSION 3
#define MNTSNAP_K_FAN_EVENT_INFO_TYPE_MNT 7

struct mntsnap_k_fanotify_event_metadata {
	uint32_t event_len;
	uint8_t vers;
	uint8_t reserved;
	uint16_t metadata_len;
	uint64_t mask __attribute__((aligned(8)));
	int32_t fd;
	int32_t pid;
};

struct mntsnap_k_fanotify_event_info_header {
	uint8_t info_type;
	uint8_t pad;
	uint16_t len;
};

struct mntsnap_k_fanotify_event_info_mnt {
	struct mntsnap_k_fanotify_event_info_header hdr;
	uint64_t mnt_id;
};

/* ---- seccomp user notification (include/uapi/linux/seccomp.h) --------------- */
#define MNTSNAP_K_SECCOMP_SET_MODE_FILTER 1U
#define MNTSNAP_K_SECCOMP_FILTER_FLAG_NEW_LISTENER (1U << 3) /* 5.0 */
#define MNTSNAP_K_SECCOMP_RET_USER_NOTIF 0x7fc00000U          /* 5.0 */
#define MNTSNAP_K_SECCOMP_RET_ALLOW 0x7fff0000U
#define MNTSNAP_K_SECCOMP_USER_NOTIF_FLAG_CONTINUE (1U << 0)  /* 5.5: never used here */
#define MNTSNAP_K_SECCOMP_ADDFD_FLAG_SETFD (1U << 0)          /* 5.9 */
#define MNTSNAP_K_SECCOMP_ADDFD_FLAG_SEND (1U << 1)           /* 5.14 */

struct mntsnap_k_seccomp_data {
	int32_t nr;
	uint32_t arch;
	uint64_t instruction_pointer;
	uint64_t args[6];
};

struct mntsnap_k_seccomp_notif {
	uint64_t id;
	uint32_t pid;
	uint32_t flags;
	struct mntsnap_k_seccomp_data data;
};

struct mntsnap_k_seccomp_notif_resp {
	uint64_t id;
	int64_t val;
	int32_t error;
	uint32_t flags;
};

struct mntsnap_k_seccomp_notif_addfd {
	uint64_t id;
	uint32_t flags;
	uint32_t srcfd;
	uint32_t newfd;
	uint32_t newfd_flags;
};

/* the kernel's SECCOMP_IO* macros: magic '!' (encoding varies by arch) */
#define MNTSNAP_K_SECCOMP_IOC_MAGIC '!'
#define MNTSNAP_K_SECCOMP_IOCTL_NOTIF_RECV \
	_IOWR(MNTSNAP_K_SECCOMP_IOC_MAGIC, 0, struct mntsnap_k_seccomp_notif)
#define MNTSNAP_K_SECCOMP_IOCTL_NOTIF_SEND \
	_IOWR(MNTSNAP_K_SECCOMP_IOC_MAGIC, 1, struct mntsnap_k_seccomp_notif_resp)
#define MNTSNAP_K_SECCOMP_IOCTL_NOTIF_ID_VALID _IOW(MNTSNAP_K_SECCOMP_IOC_MAGIC, 2, uint64_t)
#define MNTSNAP_K_SECCOMP_IOCTL_NOTIF_ADDFD \
	_IOW(MNTSNAP_K_SECCOMP_IOC_MAGIC, 3, struct mntsnap_k_seccomp_notif_addfd)

/* ---- the new mount API (include/uapi/linux/mount.h) ------------------------- */
#define MNTSNAP_K_FSOPEN_CLOEXEC 0x00000001U
#define MNTSNAP_K_FSPICK_CLOEXEC 0x00000001U
#define MNTSNAP_K_FSPICK_EMPTY_PATH 0x00000008U
#define MNTSNAP_K_FSMOUNT_CLOEXEC 0x00000001U
#define MNTSNAP_K_FSCONFIG_SET_FLAG 0
#define MNTSNAP_K_FSCONFIG_SET_STRING 1
#define MNTSNAP_K_FSCONFIG_CMD_CREATE 6
#define MNTSNAP_K_FSCONFIG_CMD_RECONFIGURE 7
#define MNTSNAP_K_FSCONFIG_CMD_CREATE_EXCL 8 /* 6.6: never an existing superblock */
#define MNTSNAP_K_MOVE_MOUNT_F_EMPTY_PATH 0x00000004U
#define MNTSNAP_K_MOVE_MOUNT_T_EMPTY_PATH 0x00000040U

struct mntsnap_k_mount_attr {
	uint64_t attr_set;
	uint64_t attr_clr;
	uint64_t propagation;
	uint64_t userns_fd;
};
#define MNTSNAP_K_MOUNT_ATTR_SIZE_VER0 32

/* mount(2) flags the supervisor decodes (include/uapi/linux/mount.h) */
#define MNTSNAP_K_MS_NOSUID 0x2U
#define MNTSNAP_K_MS_NODEV 0x4U
#define MNTSNAP_K_MS_NOEXEC 0x8U
#define MNTSNAP_K_MS_REMOUNT 0x20U
#define MNTSNAP_K_MS_MANDLOCK 0x40U
#define MNTSNAP_K_MS_NOATIME 0x400U
#define MNTSNAP_K_MS_NODIRATIME 0x800U
#define MNTSNAP_K_MS_BIND 0x1000U
#define MNTSNAP_K_MS_MOVE 0x2000U
#define MNTSNAP_K_MS_REC 0x4000U
#define MNTSNAP_K_MS_SILENT 0x8000U
#define MNTSNAP_K_MS_RELATIME (1U << 21)
#define MNTSNAP_K_MS_STRICTATIME (1U << 24)
#define MNTSNAP_K_MS_MGC_MSK 0xffff0000U
#define MNTSNAP_K_MS_MGC_VAL 0xc0ed0000U

/* ---- layout checks ----------------------------------------------------------- */
#define MNTSNAP_CHECK_OFF(type, field, off) \
	_Static_assert(offsetof(struct type, field) == (off), #type "." #field " offset")

_Static_assert(sizeof(struct mntsnap_k_mnt_id_req) == MNTSNAP_K_MNT_ID_REQ_SIZE_VER1, "mnt_id_req size");
MNTSNAP_CHECK_OFF(mntsnap_k_mnt_id_req, size, 0);
MNTSNAP_CHECK_OFF(mntsnap_k_mnt_id_req, mnt_ns_fd, 4);
MNTSNAP_CHECK_OFF(mntsnap_k_mnt_id_req, mnt_fd, 4);
MNTSNAP_CHECK_OFF(mntsnap_k_mnt_id_req, mnt_id, 8);
MNTSNAP_CHECK_OFF(mntsnap_k_mnt_id_req, param, 16);
MNTSNAP_CHECK_OFF(mntsnap_k_mnt_id_req, mnt_ns_id, 24);

_Static_assert(sizeof(struct mntsnap_k_statmount) == 512, "statmount fixed part is 512 bytes");
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, size, 0);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, mnt_opts, 4);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, mask, 8);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, sb_dev_major, 16);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, sb_dev_minor, 20);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, sb_magic, 24);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, sb_flags, 32);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, fs_type, 36);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, mnt_id, 40);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, mnt_parent_id, 48);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, mnt_id_old, 56);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, mnt_parent_id_old, 60);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, mnt_attr, 64);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, mnt_propagation, 72);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, mnt_peer_group, 80);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, mnt_master, 88);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, propagate_from, 96);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, mnt_root, 104);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, mnt_point, 108);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, mnt_ns_id, 112);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, fs_subtype, 120);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, sb_source, 124);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, opt_num, 128);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, opt_array, 132);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, opt_sec_num, 136);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, opt_sec_array, 140);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, supported_mask, 144);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, mnt_uidmap_num, 152);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, mnt_uidmap, 156);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, mnt_gidmap_num, 160);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, mnt_gidmap, 164);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, __spare2, 168);
MNTSNAP_CHECK_OFF(mntsnap_k_statmount, str, 512);

/* ---- filesystem identity ioctls (include/uapi/linux/fs.h, btrfs.h) ---------- */
/*
 * FS_IOC_GETFSUUID (6.5): the VFS answers it from the superblock for every
 * filesystem that registered a UUID length (super_set_uuid()), -ENOTTY
 * otherwise; len is the number of valid bytes in uuid.
 */
struct mntsnap_k_fsuuid2 {
	uint8_t len;
	uint8_t uuid[16];
};
#define MNTSNAP_K_FS_IOC_GETFSUUID _IOR(0x15, 0, struct mntsnap_k_fsuuid2)

/* BTRFS_IOC_FS_INFO: btrfs's own ioctl; fsid is what blkid calls UUID. */
struct mntsnap_k_btrfs_fs_info_args {
	uint64_t max_id;
	uint64_t num_devices;
	uint8_t fsid[16];
	uint32_t nodesize;
	uint32_t sectorsize;
	uint32_t clone_alignment;
	uint16_t csum_type;
	uint16_t csum_size;
	uint64_t flags; /* in/out: 0 asks for nothing beyond the base fields */
	uint64_t generation;
	uint8_t metadata_uuid[16];
	uint8_t reserved[944];
};
#define MNTSNAP_K_BTRFS_IOC_FS_INFO _IOR(0x94, 31, struct mntsnap_k_btrfs_fs_info_args)

/* openat2: fail with EAGAIN instead of leaving the dcache (5.12) */
#define MNTSNAP_RESOLVE_CACHED 0x20

_Static_assert(sizeof(struct mntsnap_statx) == 256, "statx size");
MNTSNAP_CHECK_OFF(mntsnap_statx, stx_dev_major, 136);
MNTSNAP_CHECK_OFF(mntsnap_statx, stx_mnt_id, 144);
_Static_assert(sizeof(struct mntsnap_k_mnt_ns_info) == MNTSNAP_K_MNT_NS_INFO_SIZE_VER0, "mnt_ns_info size");
_Static_assert(sizeof(struct mntsnap_open_how) == 24, "open_how size");
_Static_assert(sizeof(struct mntsnap_k_fanotify_event_metadata) == 24, "fanotify metadata size");
MNTSNAP_CHECK_OFF(mntsnap_k_fanotify_event_metadata, metadata_len, 6);
MNTSNAP_CHECK_OFF(mntsnap_k_fanotify_event_metadata, mask, 8);
MNTSNAP_CHECK_OFF(mntsnap_k_fanotify_event_metadata, fd, 16);
MNTSNAP_CHECK_OFF(mntsnap_k_fanotify_event_metadata, pid, 20);
_Static_assert(sizeof(struct mntsnap_k_fanotify_event_info_header) == 4, "fanotify info header size");
_Static_assert(sizeof(struct mntsnap_k_fanotify_event_info_mnt) == 16, "fanotify mnt info size");
MNTSNAP_CHECK_OFF(mntsnap_k_fanotify_event_info_mnt, mnt_id, 8);

_Static_assert(sizeof(struct mntsnap_k_seccomp_data) == 64, "seccomp_data size");
MNTSNAP_CHECK_OFF(mntsnap_k_seccomp_data, arch, 4);
MNTSNAP_CHECK_OFF(mntsnap_k_seccomp_data, args, 16);
_Static_assert(sizeof(struct mntsnap_k_seccomp_notif) == 80, "seccomp_notif size");
MNTSNAP_CHECK_OFF(mntsnap_k_seccomp_notif, pid, 8);
MNTSNAP_CHECK_OFF(mntsnap_k_seccomp_notif, data, 16);
_Static_assert(sizeof(struct mntsnap_k_seccomp_notif_resp) == 24, "seccomp_notif_resp size");
MNTSNAP_CHECK_OFF(mntsnap_k_seccomp_notif_resp, val, 8);
MNTSNAP_CHECK_OFF(mntsnap_k_seccomp_notif_resp, error, 16);
_Static_assert(sizeof(struct mntsnap_k_seccomp_notif_addfd) == 24, "seccomp_notif_addfd size");
MNTSNAP_CHECK_OFF(mntsnap_k_seccomp_notif_addfd, srcfd, 12);
MNTSNAP_CHECK_OFF(mntsnap_k_seccomp_notif_addfd, newfd_flags, 20);
_Static_assert(sizeof(struct mntsnap_k_mount_attr) == MNTSNAP_K_MOUNT_ATTR_SIZE_VER0, "mount_attr size");
_Static_assert(sizeof(struct mntsnap_k_fsuuid2) == 17, "fsuuid2 size");
_Static_assert(sizeof(struct mntsnap_k_btrfs_fs_info_args) == 1024, "btrfs fs_info size");
MNTSNAP_CHECK_OFF(mntsnap_k_btrfs_fs_info_args, fsid, 16);
MNTSNAP_CHECK_OFF(mntsnap_k_btrfs_fs_info_args, metadata_uuid, 64);

#endif /* MNTSNAP_UAPI_H */
