/* SPDX-License-Identifier: MIT */
#ifndef MNTSNAP_CLI_DEVROOT_H
#define MNTSNAP_CLI_DEVROOT_H

#include <stddef.h>
#include <mntsnap.h>

/*
 * findmnt's name for the kernel's "/dev/root" sources: per storage index,
 * the device libmount puts in its place (kernel_fs_postparse()), NULL for
 * every other record. *ret NULL when no record needs one. Free with
 * devroot_free(). Returns 0 or -ENOMEM.
 */
int devroot_names(const struct mntsnap_snapshot *snap, char ***ret);
void devroot_free(char **names, size_t n);

/* The same for one record: malloc'd, NULL when it keeps its source */
char *devroot_name(const struct mntsnap_mount *m);

#endif
