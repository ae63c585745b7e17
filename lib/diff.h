/* SPDX-License-Identifier: MIT */
/* Two snapshots compared (lib/diff.c), rendered by lib/render-diff.c. */
#ifndef MNTSNAP_DIFF_H
#define MNTSNAP_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "mntsnap.h"

struct mntsnap_diff {
	const struct mntsnap_snapshot *old, *new;
	struct mntsnap_diff_entry *e;
	size_t n, cap;
	size_t added, removed, changed;
	int key;
	uint32_t flags;
	const char *old_prefix, *new_prefix;
};

/*
 * MNTSNAP_CHANGE_* bits between two records of one mount (matched by id),
 * comparing only the fields both masks have: what mntsnap_diff() would
 * report for the pair.
 */
uint32_t mntsnap__diff_changes(const struct mntsnap_mount *a, const struct mntsnap_mount *b);

/*
 * The bodies of public functions, for the inside of the library: a lib
 * file never calls the public API (the wrappers are what callers see).
 */
int mntsnap__diff(const struct mntsnap_snapshot *old, const struct mntsnap_snapshot *new, struct mntsnap_diff **ret);
size_t mntsnap__diff_count(const struct mntsnap_diff *d);
void mntsnap__diff_free(struct mntsnap_diff *d);
int mntsnap__diff_get(const struct mntsnap_diff *d, size_t i, struct mntsnap_diff_entry *ret);

#endif
