/* SPDX-License-Identifier: MIT */
/*
 * libmount's path cache, as findmnt -s and -x go through it: a path is
 * resolved once and its first answer kept for every path libmount calls
 * the same (streq_paths: "/tmp/" is "/tmp"), so what a -T lookup resolved
 * first is what --verify later says is canonical. Targets that are mount
 * points of this namespace stay as written.
 */
#ifndef MNTSNAP_PATHCACHE_H
#define MNTSNAP_PATHCACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "mntsnap.h"

struct tags_cache;

struct pathcache {
	char **key, **val;
	size_t n;
	struct mntsnap_snapshot *mounts; /* this namespace's table, NULL if unread */
	/*
	 * -C (findmnt's FL_NOCACHE): no cache at all, so nothing is compared
	 * in a resolved form: path and target give NULL, spec resolves uncached
	 */
	bool off;
	/*
	 * the run's tag cache (libmount's: the path cache is also where its
	 * tags live): a tag resolves through it; NULL: uncached
	 */
	struct tags_cache *tags;
};

/*
 * targets: read this namespace's mount table, whose mount points then stay
 * as written (libmount's cache_set_targets(), which findmnt does for
 * fstab only); a failure leaves mounts NULL, as libmount goes on.
 */
void pathcache_init(struct pathcache *c, bool targets);
void pathcache_free(struct pathcache *c);

/* libmount's streq_paths(): "/a//b/" is "/a/b"; "a" is not "/a" */
bool streq_paths(const char *a, const char *b);

/*
 * absolute_path(), as mnt_table_find_target() tries a relative path: the
 * working directory, '/', and path without a leading "./" (a lone "."
 * is the directory itself). Malloc'd; NULL: no memory or no working
 * directory.
 */
char *pathcache_absolute(const char *path);

/* mnt_resolve_path(): cached, else realpath(3), else the path itself; NULL: no memory or off */
const char *pathcache_path(struct pathcache *c, const char *path);

/*
 * What pathcache_path() would answer, without keeping a new answer: for a
 * lookup libmount would not have made (a record its earlier filters turn
 * away), so nothing is left in the cache for -c and the tag columns.
 * Malloc'd; NULL: no memory or off.
 */
char *pathcache_peek(const struct pathcache *c, const char *path);

/* mnt_resolve_target(): a mount point as written, else as pathcache_path() */
const char *pathcache_target(struct pathcache *c, const char *path);

/* mnt_resolve_spec(): a tag's device (malloc'd, libblkid) or the path's; NULL if none */
char *pathcache_spec(struct pathcache *c, const char *spec);

#endif
