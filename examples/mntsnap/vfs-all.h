/* SPDX-License-Identifier: MIT */
/* findmnt --vfs-all: every VFS option of a mount, set or not. */
#ifndef MNTSNAP_VFS_ALL_H
#define MNTSNAP_VFS_ALL_H

#include <stddef.h>

#include "columns.h"

/*
 * Append to b the VFS options that the option string opts[0..n) (a
 * mount's OPTIONS, or an fstab entry's options as written) amounts to:
 * for each fs-independent flag, the name of its state ("rw", "exec",
 * "nosuid", ...), in libmount's order and spelling.
 */
void vfs_all_options(struct obuf *b, const char *opts, size_t n);

#endif
