// SPDX-License-Identifier: MIT
/*
 * fstab_from_snapshot() (fstab.h): a mount table as fstab entries for
 * list -x -k. Apart from fstab.c, the file reader, so that the reader
 * links without the /dev/root lookup (devroot.c and the path cache
 * behind it) into the fuzz target that checks it against libmount.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devroot.h"
#include "fstab.h"
#include "tags.h"

/* one of the library's option strings for m, malloc'd; NULL when empty */
static int options_of(const struct mntsnap_mount *m, int which, char **ret)
{
	long n = mntsnap_mount_options(m, which, NULL, 0);

	*ret = NULL;
	if (n < 0)
		return (int)n;
	if (!n)
		return 0;
	*ret = malloc((size_t)n + 1);
	if (!*ret)
		return -ENOMEM;
	n = mntsnap_mount_options(m, which, *ret, (size_t)n + 1);
	return n < 0 ? (int)n : 0;
}

/*
 * FSTYPE as the kernel writes it in mountinfo ("fuse.sshfs": the type and
 * its subtype), the one string libmount checks against its pseudo and
 * network lists and /proc/filesystems; malloc'd.
 */
static char *fstype_of(const struct mntsnap_mount *m)
{
	char *t = NULL;

	if (!(m->mask & MNTSNAP_F_FS_SUBTYPE) || !m->fs_subtype[0])
		return strdup(m->fs_type);
	if (asprintf(&t, "%s.%s", m->fs_type, m->fs_subtype) < 0)
		return NULL;
	return t;
}

int fstab_from_snapshot(const struct mntsnap_snapshot *snap, struct fstab *t)
{
	size_t n = mntsnap_snapshot_count(snap);
	struct mntsnap_mount m;
	char **root_src = NULL;
	int r;

	*t = (struct fstab){ 0 };
	/* findmnt -x -k checks the device libmount names for "/dev/root" */
	r = devroot_names(snap, &root_src);
	if (r)
		return r;
	t->ent = calloc(n + 1, sizeof(*t->ent));
	if (!t->ent) {
		devroot_free(root_src, n);
		return -ENOMEM;
	}
	t->kernel = true;
	for (size_t i = 0; i < n && !r; i++) {
		struct fstab_ent *e = &t->ent[t->n++];

		mntsnap_snapshot_get(snap, i, &m);
		e->m = m;
		e->target = strdup(m.mount_point);
		e->source = strdup(root_src && root_src[i] ? root_src[i] :
				   m.mask & MNTSNAP_F_SOURCE ? m.source : "none");
		if (root_src && root_src[i])
			e->m.source = e->source;
		e->fstype = fstype_of(&m);
		if (!e->target || !e->source || !e->fstype)
			r = -ENOMEM;
		/* libmount takes a tag from any table's source, a mount's too */
		if (!r && (r = tags_source(e->source, &e->tagname, &e->tagval)) != -ENOMEM)
			r = 0;
		if (!r)
			r = options_of(&m, MNTSNAP_OPTIONS_VFS, &e->vfs_opts);
		if (!r)
			r = options_of(&m, MNTSNAP_OPTIONS_FS, &e->fs_opts);
		if (!r)
			r = options_of(&m, MNTSNAP_OPTIONS_ALL, &e->options);
	}
	devroot_free(root_src, n);
	if (r)
		fstab_free(t);
	return r;
}
