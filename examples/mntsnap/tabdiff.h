/* SPDX-License-Identifier: MIT */
/*
 * libmount 2.38's table diff (mnt_diff_tables()) over two reads of a
 * table in /proc/mounts' format, as findmnt --poll diffs them: entries
 * without mount ids are paired by source and mount point alone.
 */
#ifndef MNTSNAP_TABDIFF_H
#define MNTSNAP_TABDIFF_H

#include <stddef.h>

#include "fstab.h"

struct tabdiff_change {
	int kind; /* MNTSNAP_WATCH_MOUNT, _UMOUNT, _MOVE or _CHANGE (a remount) */
	const struct fstab_ent *old, *new; /* NULL: none (a mount's old, an umount's new) */
};

/*
 * The changes from old to new in libmount's order: mounts and remounts
 * in new's order (a mount later turned into a move keeps its place),
 * then umounts in old's order; entries marked gone (-U's) are not in
 * the table. *ret (malloc'd, NULL when none), *ret_n.
 * Returns 0 or -ENOMEM.
 */
int tabdiff_tables(const struct fstab *old, const struct fstab *new,
		   struct tabdiff_change **ret, size_t *ret_n);

#endif
