// SPDX-License-Identifier: MIT
/*
 * mnt_diff_tables() of libmount 2.38 on entries that have no mount id
 * (/proc/mounts' format), rule for rule:
 *  - an entry of the new table is paired with the first entry of the old
 *    one that has its source and mount point (mnt_table_find_pair()); none:
 *    a mount; paired: a remount when the VFS options differ or the FS
 *    options differ, each compared only when both entries have some;
 *  - an entry of the old table that pairs with no entry of the new one is
 *    a move when a mount found above has its source (every id is 0, so
 *    the first such mount, which becomes the move), else an umount.
 * Two mounts of one source on one mount point pair with the same old
 * entry, so the second one's mount (and an umount of one of the two) is
 * no change at all, as findmnt prints it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <mntsnap.h>

#include "pathcache.h"
#include "tabdiff.h"

/* libmount's source path: none for a tag (NAME=value) source */
static const char *srcpath(const struct fstab_ent *e)
{
	return e->tagname ? NULL : e->source;
}

/*
 * mnt_fs_match_source() without a cache: the path as text (by components,
 * a pseudo filesystem's exactly), or a tag source's whole text
 */
static bool match_source(const struct fstab_ent *e, const char *src)
{
	const char *p = srcpath(e);

	if (!fstab_pseudo(e->fstype) ? p && src && streq_paths(p, src)
				     : (!p && !src) || (p && src && !strcmp(p, src)))
		return true;
	return e->tagname && src && !strcmp(src, e->source);
}

/* mnt_table_find_pair(): the first entry of t with source src at target tgt */
static const struct fstab_ent *find_pair(const struct fstab *t, const char *src, const char *tgt)
{
	if (!src || !*src || !tgt || !*tgt)
		return NULL;
	for (size_t i = 0; i < t->n; i++)
		if (!t->ent[i].gone && t->ent[i].target && streq_paths(t->ent[i].target, tgt) &&
		    match_source(&t->ent[i], src))
			return &t->ent[i];
	return NULL;
}

/* two option lists differ: only when both have some */
static bool opts_differ(const char *a, const char *b)
{
	return a && b && strcmp(a, b);
}

/* tabdiff_get_mount(): the first mount so far of source src (ids all 0) */
static struct tabdiff_change *mount_of(struct tabdiff_change *v, size_t n, const char *src)
{
	for (size_t i = 0; i < n; i++) {
		const char *s = v[i].new ? v[i].new->source : NULL;

		if (v[i].kind == MNTSNAP_WATCH_MOUNT && v[i].new &&
		    ((!s && !src) || (s && src && !strcmp(s, src))))
			return &v[i];
	}
	return NULL;
}

/* the entries a table holds: those -U dropped (gone) are none */
static size_t live_count(const struct fstab *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++)
		n += !t->ent[i].gone;
	return n;
}

int tabdiff_tables(const struct fstab *old, const struct fstab *new,
		   struct tabdiff_change **ret, size_t *ret_n)
{
	struct tabdiff_change *v = calloc(old->n + new->n + 1, sizeof(*v));
	bool no = live_count(old), nn = live_count(new);
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < new->n; i++) {
		const struct fstab_ent *e = &new->ent[i];
		const struct fstab_ent *o = no ? find_pair(old, e->source, e->target) : NULL;

		if (e->gone)
			continue;
		if (!o)
			v[n++] = (struct tabdiff_change){ MNTSNAP_WATCH_MOUNT, NULL, e };
		else if (opts_differ(o->vfs_opts, e->vfs_opts) ||
			 opts_differ(o->fs_opts, e->fs_opts))
			v[n++] = (struct tabdiff_change){ MNTSNAP_WATCH_CHANGE, o, e };
	}
	for (size_t i = 0; i < old->n; i++) {
		const struct fstab_ent *e = &old->ent[i];
		struct tabdiff_change *m;

		if (e->gone || (nn && find_pair(new, e->source, e->target)))
			continue;
		m = nn ? mount_of(v, n, e->source) : NULL;
		if (m) {
			m->kind = MNTSNAP_WATCH_MOVE;
			m->old = e;
		} else {
			v[n++] = (struct tabdiff_change){ MNTSNAP_WATCH_UMOUNT, e, NULL };
		}
	}
	if (!n) {
		free(v);
		v = NULL;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}
