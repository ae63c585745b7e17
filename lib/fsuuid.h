/* SPDX-License-Identifier: MIT */
/*
 * One mount's filesystem UUID, as findmnt's UUID column shows it (libblkid's
 * value for the superblock's device), read without trusting the target's
 * paths and without calling into a filesystem whose server the target may
 * control (FUSE, network filesystems, overlayfs over them).
 */
#ifndef MNTSNAP_FSUUID_H
#define MNTSNAP_FSUUID_H

#include <stdbool.h>
#include <stdint.h>

/* 36 characters of a canonical 16-byte UUID plus the NUL */
#define MNTSNAP_FS_UUID_SIZE 37

/*
 * The UUID of the filesystem mounted as mount mnt_id.
 *
 * root_dirfd: a directory fd of the root the mount point is relative to
 * (statmount's mnt_point is relative to the reader's root; for a foreign
 * namespace, that namespace's root), or AT_FDCWD for the caller's own root.
 * mount_point: absolute path of the mount under that root.
 * mnt_id: the mount's unique id (statx STATX_MNT_ID_UNIQUE, 6.8+); on a
 * kernel whose statx does not report it, the 32-bit id (STATX_MNT_ID).
 * dev_major/dev_minor: the superblock's device (statmount sb_dev_*; 0 for
 * anonymous devices: tmpfs, proc, btrfs, overlay, FUSE, NFS).
 * fs_type: the filesystem type name (statmount fs_type, "ext4").
 *
 * 1. If fs_type is one whose UUID the kernel reports (ext2/3/4, xfs,
 *    btrfs, f2fs, erofs, ubifs, bcachefs: see fsuuid.c for why only those),
 *    the mount point is opened under root_dirfd with no symlink followed
 *    and no lookup outside the dcache, its statx mount id must equal mnt_id
 *    (an over-mounted, moved or replaced mount point gives another id: no
 *    UUID is taken from whatever is there now), and FS_IOC_GETFSUUID (6.5)
 *    is asked on it; btrfs before it set the VFS's UUID: BTRFS_IOC_FS_INFO.
 * 2. Else, for a block device (dev_major != 0): the link in udev's
 *    /dev/disk/by-uuid whose node has that device number, in the /dev of
 *    the calling process's root. Never the target's /dev (it could plant
 *    any link there): a helper that has entered a target's mount namespace
 *    calls mntsnap__fs_uuid_at() with a by-uuid fd opened before entering,
 *    or MNTSNAP_FS_UUID_NO_UDEV and leaves step 2 to the caller
 *    (mntsnap__fs_uuid_by_dev()).
 *
 * Returns 0 with out holding the NUL-terminated text: a 16-byte UUID as
 * canonical lowercase 8-4-4-4-12 (what blkid prints for these
 * filesystems); a UUID of another length the kernel might report (1..15
 * bytes) as lowercase hex without dashes; a udev name as udev's encoding
 * decoded (whatever blkid printed, 1..36 printable ASCII characters).
 * An all-zero UUID counts as none (blkid reports none for it either).
 *
 * -ENODATA: no UUID, or none that can be obtained safely: the type is not
 * listed and the device has no by-uuid link (tmpfs, proc, sysfs, FUSE,
 * NFS, overlay: their kernel UUIDs are random per superblock, which
 * findmnt does not show), the path does not lead to mnt_id any more
 * (ENOENT, ELOOP for a planted symlink, EXDEV, EAGAIN out of the dcache,
 * another mount id), the kernel predates the ioctl (ENOTTY/EINVAL), a
 * seccomp filter refuses a step (EPERM/EACCES), no udev link.
 * -EINVAL: mount_point not absolute, a NULL argument.
 * -EBADF: root_dirfd is neither AT_FDCWD nor an open fd.
 * -ENOMEM, -EMFILE, -ENFILE: from the kernel, as they are.
 * out is written only on success.
 */
int mntsnap__fs_uuid(int root_dirfd, const char *mount_point, uint64_t mnt_id,
		     uint32_t dev_major, uint32_t dev_minor, const char *fs_type,
		     char out[MNTSNAP_FS_UUID_SIZE]);

/*
 * The same with step 2 in the by-uuid directory open as byuuid_dirfd, or
 * without step 2 for MNTSNAP_FS_UUID_NO_UDEV. -EBADF for another negative
 * byuuid_dirfd; otherwise as above.
 */
#define MNTSNAP_FS_UUID_NO_UDEV (-1)
int mntsnap__fs_uuid_at(int root_dirfd, const char *mount_point, uint64_t mnt_id,
			uint32_t dev_major, uint32_t dev_minor, const char *fs_type,
			int byuuid_dirfd, char out[MNTSNAP_FS_UUID_SIZE]);

/* Whether step 1 is tried for this filesystem type (the list above). */
bool mntsnap__fs_uuid_type_listed(const char *fs_type);

/*
 * Step 2 alone, in the by-uuid directory open as byuuid_dirfd (udev's
 * layout: links "../../NODE" whose names encode the UUID, "\x2f" for '/').
 * Reads at most 4096 entries. 0 and out, -ENODATA when no link leads to a
 * block node of that number, -ENOMEM/-EMFILE/-ENFILE/-EBADF.
 */
int mntsnap__fs_uuid_by_dev(int byuuid_dirfd, uint32_t dev_major, uint32_t dev_minor,
			    char out[MNTSNAP_FS_UUID_SIZE]);

#endif
