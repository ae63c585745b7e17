/* SPDX-License-Identifier: MIT */
/*
 * Stand-in for <linux/mount.h> from Linux >= 6.8 kernel headers (here with
 * everything up to 6.15), for build machines whose own headers are older.
 * glibc's <sys/mount.h> includes <linux/mount.h>, so on a distribution
 * with new headers every source that includes <sys/mount.h> also sees
 * struct statmount, struct mnt_id_req, STATMOUNT_* and LISTMOUNT_*. CI
 * builds every source with this directory first on the include path to
 * prove that lib/uapi.h's own (prefixed) copies never clash with them.
 * It adds to the real header (#include_next), as newer headers would.
 * Layout and values as in the kernel's include/uapi/linux/mount.h.
 */
#include_next <linux/mount.h>

#ifndef MNTSNAP_COMPAT_LINUX_MOUNT_H_6_8
#define MNTSNAP_COMPAT_LINUX_MOUNT_H_6_8

#include <linux/types.h>

struct mnt_id_req {
	__u32 size;
	__u32 spare;
	__u64 mnt_id;
	__u64 param;
	__u64 mnt_ns_id;
};

#define MNT_ID_REQ_SIZE_VER0 24 /* sizeof first published struct */
#define MNT_ID_REQ_SIZE_VER1 32 /* sizeof second published struct */

struct statmount {
	__u32 size;
	__u32 mnt_opts;
	__u64 mask;
	__u32 sb_dev_major;
	__u32 sb_dev_minor;
	__u64 sb_magic;
	__u32 sb_flags;
	__u32 fs_type;
	__u64 mnt_id;
	__u64 mnt_parent_id;
	__u32 mnt_id_old;
	__u32 mnt_parent_id_old;
	__u64 mnt_attr;
	__u64 mnt_propagation;
	__u64 mnt_peer_group;
	__u64 mnt_master;
	__u64 propagate_from;
	__u32 mnt_root;
	__u32 mnt_point;
	__u64 mnt_ns_id;
	__u32 fs_subtype;
	__u32 sb_source;
	__u32 opt_num;
	__u32 opt_array;
	__u32 opt_sec_num;
	__u32 opt_sec_array;
	__u64 supported_mask;
	__u32 mnt_uidmap_num;
	__u32 mnt_uidmap;
	__u32 mnt_gidmap_num;
	__u32 mnt_gidmap;
	__u64 __spare2[43];
	char str[];
};

#define STATMOUNT_SB_BASIC 0x00000001U
#define STATMOUNT_MNT_BASIC 0x00000002U
#define STATMOUNT_PROPAGATE_FROM 0x00000004U
#define STATMOUNT_MNT_ROOT 0x00000008U
#define STATMOUNT_MNT_POINT 0x00000010U
#define STATMOUNT_FS_TYPE 0x00000020U
#define STATMOUNT_MNT_NS_ID 0x00000040U
#define STATMOUNT_MNT_OPTS 0x00000080U
#define STATMOUNT_FS_SUBTYPE 0x00000100U
#define STATMOUNT_SB_SOURCE 0x00000200U
#define STATMOUNT_OPT_ARRAY 0x00000400U
#define STATMOUNT_OPT_SEC_ARRAY 0x00000800U
#define STATMOUNT_SUPPORTED_MASK 0x00001000U
#define STATMOUNT_MNT_UIDMAP 0x00002000U
#define STATMOUNT_MNT_GIDMAP 0x00004000U

#define LSMT_ROOT 0xffffffffffffffff
#define LISTMOUNT_REVERSE (1 << 0)

#endif
