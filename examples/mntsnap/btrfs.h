/* SPDX-License-Identifier: MIT */
/*
 * btrfs subvolumes as findmnt -f SOURCE (libmount's
 * mnt_table_find_srcpath()) and mount(8) see them: of the several mounts
 * one btrfs device may have (the top volume, subvolumes), the lookup's
 * first pass takes only one of the filesystem's default subvolume.
 */
#ifndef MNTSNAP_CLI_BTRFS_H
#define MNTSNAP_CLI_BTRFS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The default subvolume id of the btrfs that the directory path leads
 * to now (the "default" entry of its root tree directory, as
 * "btrfs subvolume get-default" prints it): 0 and *id, else -errno
 * (not a directory, not btrfs: -ENOTTY, no CAP_SYS_ADMIN: -EPERM).
 */
int btrfs_default_subvol(const char *path, uint64_t *id);

/*
 * Whether the btrfs that the directory path leads to now has the block
 * device dev among its devices (the device numbers compared): 1 or 0,
 * -errno when either cannot be asked. A saved table's record is asked
 * about its mount point only where this holds: the filesystem there is
 * then the one the record names, not another one mounted there since or
 * on another machine.
 */
int btrfs_on_device(const char *path, const char *dev);

/*
 * libmount's rule for a record whose source matches on the first pass:
 * true when it is a btrfs mount (fstype exactly "btrfs") mounted on
 * target, whose default subvolume target answers, and whose first
 * subvolid= option (opts[0], then opts[1], ...: the fs options first,
 * as mnt_fs_get_option() looks; a NULL entry is skipped) is another
 * subvolume or no number. A target that does not answer (not btrfs
 * there now, no privilege) and a record without subvolid= are never
 * passed over.
 */
bool btrfs_not_default(const char *fstype, const char *target, const char *const *opts,
		       size_t nopts);

#endif
