// SPDX-License-Identifier: MIT
/*
 * mntsnap list -s (fstab) and -x (verify), as findmnt 2.38 does them:
 * the entries that match -t, -O, -S, -T, -M and the SOURCE|MOUNTPOINT
 * argument, as a list (findmnt never draws fstab as a tree), or checked
 * one by one with findmnt's messages and exit status.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>
#include <sys/utsname.h>

#include "btrfs.h"
#include "cli.h"
#include "intl.h"
#include "cmd-fstab.h"
#include "fstab.h"
#include "pathcache.h"
#include "tags.h"

/*
 * mnt_fs_match_target(): as written, then the canonical forms. A mount
 * table's targets count as canonical and are never resolved, so never
 * cached either (what the cache holds shows: -x resolves an empty source
 * to a cached "/", libmount's streq_paths() taking "" for "/").
 */
static bool match_target(struct pathcache *c, const struct fstab *t, const struct fstab_ent *e,
			 const char *target)
{
	const char *cn, *tcn;

	if (streq_paths(e->target, target))
		return true;
	cn = pathcache_target(c, target);
	if (cn && streq_paths(e->target, cn))
		return true;
	if (!cn || t->kernel || e->fs_kernel || !strcmp(e->fstype, "swap"))
		return false;
	tcn = pathcache_target(c, e->target);
	return tcn && !strcmp(cn, tcn);
}

/* mnt_fs_streq_srcpath() */
static bool streq_srcpath(const struct fstab_ent *e, const char *path)
{
	if (e->tagname)
		return false;
	return fstab_pseudo(e->fstype) ? !strcmp(e->source, path) : streq_paths(e->source, path);
}

/* mnt_fs_match_source(): as written, the tag's text, then the devices */
static bool match_source(struct pathcache *c, const struct fstab_ent *e, const char *source)
{
	const char *src;
	char *cn;
	bool ok;

	if (streq_srcpath(e, source) || (e->tagname && !strcmp(source, e->source)))
		return true;
	/* -C: libmount without a cache compares nothing resolved */
	if (c->off || fstab_pseudo(e->fstype) || fstab_netfs(e->fstype))
		return false;
	cn = pathcache_spec(c, source);
	if (!cn)
		return false;
	if (!e->tagname) {
		ok = streq_srcpath(e, cn) || ((src = pathcache_path(c, e->source)) && !strcmp(cn, src));
	} else {
		/* does the device carry the entry's tag? (mnt_cache_device_has_tag()) */
		ok = tags_cache_has(c->tags, cn, e->tagname, e->tagval);
	}
	free(cn);
	return ok;
}

/* mnt_fs_get_devno(): an fstab entry has none (0) */
static bool devno_is(const struct fstab *t, const struct fstab_ent *e, unsigned maj, unsigned min)
{
	if ((t->kernel || e->fs_kernel) && (e->m.mask & MNTSNAP_F_DEV))
		return e->m.dev_major == maj && e->m.dev_minor == min;
	return !maj && !min;
}

/* libmount's id and parent id of an entry: 0 for one of no mountinfo line */
static uint32_t ent_id(const struct fstab *t, const struct fstab_ent *e)
{
	return fstab_ent_mountinfo(t, e) ? e->m.id_old : 0;
}

static uint32_t ent_parent_id(const struct fstab *t, const struct fstab_ent *e)
{
	return fstab_ent_mountinfo(t, e) ? e->m.parent_id_old : 0;
}

/*
 * libmount's is_mountinfo() as mnt_table_uniq_fs() asks it, once before
 * it drops anything: the table's first entry is a mountinfo line
 */
static bool tab_is_mountinfo(const struct fstab *t)
{
	return t->n && fstab_ent_mountinfo(t, &t->ent[0]);
}

/*
 * is_mountinfo() after -U, as mnt_table_over_fs() and the submount walk
 * ask it: the first entry -U left is a mountinfo line. Only then does
 * libmount answer for stacks and submounts; for any other table it fails
 * (findmnt: none).
 */
static bool table_mountinfo(const struct fstab *t)
{
	for (size_t k = 0; k < t->n; k++)
		if (!t->ent[k].gone)
			return fstab_ent_mountinfo(t, &t->ent[k]);
	return false;
}

/*
 * mnt_table_over_fs(): a mount with one stacked on it, an entry left whose
 * parent id is its id at its target; by id, so every entry of an id a
 * table lists twice (-F A -F A) is over that child, a root that is its
 * own parent over itself, and in -m's table of several files an fstab
 * line (ids 0 and 0) over itself, as in findmnt.
 */
static bool shadowed(const struct fstab *t, size_t i)
{
	const struct fstab_ent *e = &t->ent[i];

	if (!table_mountinfo(t))
		return false;
	for (size_t k = 0; k < t->n; k++)
		if (!t->ent[k].gone && ent_parent_id(t, &t->ent[k]) == ent_id(t, e) &&
		    streq_paths(t->ent[k].target, e->target))
			return true;
	return false;
}

/*
 * findmnt's match_func() for one entry: every filter in findmnt's order,
 * each answering "no" (or, with -i, "yes") as soon as it fails; -D keeps
 * every *tmpfs* outright (-i: drops it) before the pseudo test.
 */
static bool match_ent(const struct fstab_match *mt, size_t i)
{
	const struct view *v = mt->a->view;
	const struct fstab_ent *e = &mt->t->ent[i];
	bool no = v->invert;

	if (v->types && !match_types(e->fstype, v->types))
		return no;
	if (v->options && !match_options(e->options, e->options ? strlen(e->options) : 0,
					 v->options))
		return no;
	if (mt->majmin && !devno_is(mt->t, e, mt->maj, mt->min))
		return no;
	if (mt->target && !match_target(mt->a->cache, mt->t, e, mt->target))
		return no;
	if (mt->source && !match_source(mt->a->cache, e, mt->source))
		return no;
	if (v->df && !v->all) {
		if (strstr(e->fstype, "tmpfs"))
			return !no;
		if (fstab_pseudo(e->fstype))
			return no;
	}
	if (v->real && fstab_pseudo(e->fstype))
		return no;
	if (v->pseudo && !fstab_pseudo(e->fstype))
		return no;
	if (v->shadowed && !shadowed(mt->t, i))
		return no;
	return !no;
}

/* the entry at step k of a walk in the -d direction */
static size_t at(const struct fstab_match *mt, size_t k)
{
	return mt->backward ? mt->t->n - 1 - k : k;
}

/* mnt_table_get_nents(): the entries -U left */
static size_t nents(const struct fstab *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++)
		n += !t->ent[i].gone;
	return n;
}

/*
 * libmount's first pass passes over a btrfs entry whose subvolid= is not
 * the default subvolume of what its mount point leads to now (btrfs.h):
 * mount(8)'s choice among one device's entries. The options in
 * mnt_fs_get_option()'s order: fs, then VFS, then userspace ones.
 */
static bool btrfs_passed_over(const struct fstab_ent *e)
{
	const char *opts[] = { e->fs_opts, e->vfs_opts, e->user_opts };

	return btrfs_not_default(e->fstype, e->target, opts, sizeof(opts) / sizeof(opts[0]));
}

/*
 * The first entry (in the walk's direction) whose source path is p, or
 * -1; subvols: the first pass's, which passes over btrfs entries of
 * another subvolume than the default one.
 */
static long first_srcpath(const struct fstab_match *mt, const char *p, bool subvols)
{
	for (size_t k = 0; k < mt->t->n; k++) {
		size_t i = at(mt, k);
		const struct fstab_ent *e = &mt->t->ent[i];

		if (!e->gone && streq_srcpath(e, p) && !(subvols && btrfs_passed_over(e)))
			return (long)i;
	}
	return -1;
}

/*
 * mnt_table_find_srcpath(): pass after pass over the whole table (as
 * written; PATH resolved; the tags PATH's device carries; each entry's
 * own path resolved), so an entry matching an earlier pass wins over an
 * earlier entry matching a later one. (A device the caller may not read:
 * libmount then evaluates every tag of the table, through udev's links or
 * libblkid's cache, against it: tags_cache_has() does.)
 */
static long find_srcpath(struct fstab_match *mt, const char *path)
{
	const struct fstab *t = mt->t;
	size_t ntags = 0, n = nents(t);
	const char *cn, *p;
	long r;

	if (!*path)
		return -1;
	r = first_srcpath(mt, path, true);
	if (r >= 0)
		return r;
	for (size_t i = 0; i < t->n; i++)
		ntags += !t->ent[i].gone && t->ent[i].tagname;
	cn = pathcache_path(mt->a->cache, path);
	if (!cn)
		return -1;
	if (ntags < n && (r = first_srcpath(mt, cn, false)) >= 0)
		return r;
	for (size_t k = 0; ntags && k < t->n; k++) {
		const struct fstab_ent *e = &t->ent[at(mt, k)];

		if (e->gone || !e->tagname)
			continue;
		if (tags_cache_has(mt->a->cache->tags, cn, e->tagname, e->tagval))
			return (long)at(mt, k);
	}
	for (size_t k = 0; ntags <= n && k < t->n; k++) {
		const struct fstab_ent *e = &t->ent[at(mt, k)];

		if (e->gone || e->tagname || fstab_pseudo(e->fstype) || fstab_netfs(e->fstype))
			continue;
		p = pathcache_path(mt->a->cache, e->source);
		if (p && !strcmp(p, cn))
			return (long)at(mt, k);
	}
	return -1;
}

/* mnt_table_find_tag(): the tag as written, else the device it names */
static long find_tag(struct fstab_match *mt, const char *name, const char *val)
{
	char *dev;
	long r;

	for (size_t k = 0; k < mt->t->n; k++) {
		const struct fstab_ent *e = &mt->t->ent[at(mt, k)];

		if (!e->gone && e->tagname && !strcmp(e->tagname, name) && !strcmp(e->tagval, val))
			return (long)at(mt, k);
	}
	dev = mt->a->cache->off ? NULL : tags_cache_resolve(mt->a->cache->tags, name, val);
	r = dev ? find_srcpath(mt, dev) : -1;
	free(dev);
	return r;
}

/* mnt_table_find_source() */
static long find_source(struct fstab_match *mt, const char *source)
{
	static const char *const names[] = { "ID", "UUID", "LABEL", "PARTUUID", "PARTLABEL" };
	char *name = NULL, *val = NULL;
	long r = -2;

	if (!tags_parse(source, &name, &val))
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(name, names[i]))
				r = find_tag(mt, name, val);
	free(name);
	free(val);
	return r == -2 ? find_srcpath(mt, source) : r;
}

/* the first entry (in the walk's direction) whose target is p by the text, or -1 */
static long first_target(const struct fstab_match *mt, const char *p)
{
	for (size_t k = 0; k < mt->t->n; k++) {
		size_t i = at(mt, k);

		if (!mt->t->ent[i].gone && streq_paths(mt->t->ent[i].target, p))
			return (long)i;
	}
	return -1;
}

/* mnt_table_find_target(): as written, made absolute, resolved, each entry's resolved */
static long find_target(struct fstab_match *mt, const char *path)
{
	const char *cn, *p;
	char *abs;
	long r;

	if (!*path)
		return -1;
	if ((r = first_target(mt, path)) >= 0)
		return r;
	if (path[0] != '/' && (abs = pathcache_absolute(path))) {
		r = first_target(mt, abs);
		free(abs);
		if (r >= 0)
			return r;
	}
	cn = pathcache_path(mt->a->cache, path);
	if (!cn)
		return -1;
	if ((r = first_target(mt, cn)) >= 0)
		return r;
	for (size_t k = 0; k < mt->t->n; k++) {
		const struct fstab_ent *e = &mt->t->ent[at(mt, k)];

		if (e->gone || mt->t->kernel || e->fs_kernel || !strcmp(e->fstype, "swap") ||
		    !strcmp(e->target, "/"))
			continue;
		p = pathcache_target(mt->a->cache, e->target);
		if (p && !strcmp(p, cn))
			return (long)at(mt, k);
	}
	return -1;
}

/* findmnt's is_listall_mode(): no filter, so every entry without matching */
bool fstab_listall(const struct view *v)
{
	if ((v->df || v->real || v->pseudo) && !v->all)
		return false;
	return !v->types && !v->options && !v->target && !v->mountpoint && !v->source &&
	       !v->devno && !v->match;
}

void fstab_match_init(struct fstab_match *mt, const struct fstab_args *a, const struct fstab *t,
		      bool backward)
{
	const struct view *v = a->view;
	const char *dn;
	int maj, min;

	*mt = (struct fstab_match){ .a = a, .t = t, .backward = backward };
	mt->target = v->target ? v->target : v->mountpoint;
	mt->source = v->source ? v->source : v->match;
	mt->listall = fstab_listall(v);
	/*
	 * findmnt's set_source_match(): "MAJ:MIN" (sscanf) is a device number,
	 * matched beside -S NAME (-S MAJ:MIN: view.devno; a lone argument:
	 * view.match)
	 */
	dn = v->devno;
	if (!v->source && v->match && view_is_devno(v->match)) {
		dn = v->match;
		mt->source = NULL;
	}
	/*
	 * MAJ:MIN MOUNTPOINT: the same set_source_match(), so a device number
	 * (an fstab entry's is 0:0) beside the mount point, never a source
	 */
	if (v->pair && view_is_devno(v->source)) {
		dn = v->source;
		mt->source = NULL;
	}
	if (dn && sscanf(dn, "%d:%d", &maj, &min) == 2) {
		mt->majmin = true;
		mt->maj = (unsigned)maj, mt->min = (unsigned)min;
	}
	/* a lone SOURCE|MOUNTPOINT argument may be a target (not a LABEL=/UUID= one) */
	mt->can_swap = !v->source && !mt->target && !mt->majmin && v->match &&
		       !tags_is_devtag(v->match);
	/* findmnt -f SPEC without -t/-O: mount(8)'s lookup, the first found */
	mt->compat = mt->source && !v->types && !v->options && v->first_only;
	/*
	 * -f SOURCE MOUNTPOINT: findmnt sets no FL_NOSWAPMATCH for two
	 * arguments (its LABEL=/UUID=/PARTLABEL=/PARTUUID= test is for a lone
	 * argument), and its -f lookup takes SOURCE alone: as a source, then
	 * its text, a tag's too, as a mount point; the MOUNTPOINT unused
	 */
	if (mt->compat && v->pair)
		mt->can_swap = true;
}

/*
 * findmnt's get_next_fs(): the next entry, or -1. Every entry when no
 * filter is given; with -f SPEC mount(8)'s lookup (the source, else the
 * target of that name); else the next match in the walk. Lazily, as
 * findmnt: what a lookup resolves is in the path cache for the checks of
 * the entries found before the next one. An argument that matches no
 * source at all is then tried as a target, from the top.
 */
long fstab_match_next(struct fstab_match *mt)
{
	if (mt->compat) {
		long r = -1;

		if (!mt->pos++) {
			r = find_source(mt, mt->source);
			if (r < 0 && mt->can_swap)
				r = find_target(mt, mt->source);
		}
		return r;
	}
	for (;;) {
		while (mt->pos < mt->t->n) {
			size_t i = at(mt, mt->pos++);

			if (mt->t->ent[i].gone || !(mt->listall || match_ent(mt, i)))
				continue;
			mt->can_swap = false;
			return (long)i;
		}
		if (!mt->can_swap)
			return -1;
		mt->can_swap = false;
		mt->target = mt->source;
		mt->source = NULL;
		mt->pos = 0;
	}
}

/*
 * -U drops entry i: in a mountinfo table (KEEPTREE) every entry still
 * there whose parent id is its id first takes its parent id, the entries
 * of a kept copy of that id too (--shadowed asks by these ids)
 */
static void uniq_drop(struct fstab *t, size_t i)
{
	uint32_t id = ent_id(t, &t->ent[i]), pid = ent_parent_id(t, &t->ent[i]);

	for (size_t k = 0; tab_is_mountinfo(t) && k < t->n; k++)
		if (!t->ent[k].gone && (t->ent[k].m.mask & MNTSNAP_F_ID_OLD) &&
		    t->ent[k].m.parent_id_old == id)
			t->ent[k].m.parent_id_old = pid;
	t->ent[i].gone = true;
}

/*
 * -U: libmount's mnt_table_uniq_fs() as findmnt calls it. From the last
 * entry back, an entry goes when one after it that stayed has its target
 * (mnt_fs_match_target(), so "/mnt/" is "/mnt" and resolved paths count).
 */
void fstab_uniq(struct fstab *t, struct pathcache *c)
{
	for (size_t i = t->n; i-- > 0;)
		for (size_t k = i + 1; k < t->n && !t->ent[i].gone; k++)
			if (!t->ent[k].gone && match_target(c, t, &t->ent[k], t->ent[i].target))
				uniq_drop(t, i);
}

/* the last entry whose target is path by the text */
static const struct fstab_ent *tab_last_target(const struct fstab *t, const char *path)
{
	for (size_t i = t->n; i-- > 0;)
		if (streq_paths(t->ent[i].target, path))
			return &t->ent[i];
	return NULL;
}

/*
 * mnt_table_find_target() for the extra target match (find_target() is
 * -f SPEC's, over the entries left by the filters): last entry first, the
 * path as written, a relative one made absolute (-C too), then
 * (with the cache, i.e. without -C) its canonical form against each
 * target as written and against each target resolved (not swap, not "/",
 * not a line of /proc/mounts: libmount marks those the kernel's).
 */
static const struct fstab_ent *tab_find_target(const struct fstab_args *a,
					       const struct fstab *t, const char *path)
{
	const struct fstab_ent *e = tab_last_target(t, path);
	const char *cn, *p;
	char *abs;

	if (!e && path[0] != '/' && (abs = pathcache_absolute(path))) {
		e = tab_last_target(t, abs);
		free(abs);
	}
	if (e)
		return e;
	if (a->view->nocanon || !(cn = pathcache_path(a->cache, path)))
		return NULL;
	for (size_t i = t->n; i-- > 0;)
		if (streq_paths(t->ent[i].target, cn))
			return &t->ent[i];
	for (size_t i = t->n; i-- > 0;) {
		e = &t->ent[i];
		if (e->fs_kernel || !strcmp(e->fstype, "swap") || !strcmp(e->target, "/"))
			continue;
		p = pathcache_target(a->cache, e->target);
		if (p && streq_paths(p, cn))
			return e;
	}
	return NULL;
}

/*
 * findmnt's enable_extra_target_match() on a kernel table: for a -T PATH
 * no entry matched, the target of the entry PATH is under, as libmount's
 * mnt_table_find_mountpoint() finds it: PATH (resolved unless -C; it must
 * exist), then PATH cut at its last '/' while more than one character
 * is left, then "/". NULL when there is none or it is PATH itself.
 */
static char *extra_target(const struct fstab_args *a, const struct fstab *t, const char *target)
{
	const char *tgt = a->view->nocanon ? target : pathcache_path(a->cache, target);
	const struct fstab_ent *e = NULL;
	struct stat st;
	char *mnt, *p;

	if (!tgt || !*tgt || stat(tgt, &st) || !(mnt = strdup(tgt)))
		return NULL;
	do {
		if (*mnt && (e = tab_find_target(a, t, mnt)))
			break;
		p = strrchr(mnt, '/');
		if (!p)
			break;
		*p = '\0';
	} while (mnt[1]);
	free(mnt);
	if (!e)
		e = tab_find_target(a, t, "/");
	return e && strcmp(e->target, tgt) ? strdup(e->target) : NULL;
}

/* the output of fstab entries, for their rows primed and printed alike */
static void out_setup(struct fstab_args *a)
{
	struct view *v = a->view;

	v->out.cx.fstab = true;
	v->out.cx.tid = 0;
	/*
	 * the columns resolve a source through the lookups' cache, as
	 * findmnt's: an entry "/dev/sda1/" printed first leaves that spelling
	 * for "/dev/sda1", whose LABEL and UUID are then probed in vain
	 */
	v->out.cx.paths = a->cache;
	if (v->out.mode == OUT_TREE)
		v->out.mode = OUT_LIST;
	v->out.json_flat = true;
}

/* the entries found, in the order found (the -d direction) */
static int print_ents(struct fstab_args *a, const struct fstab *t, const size_t *found, size_t n)
{
	struct view *v = a->view;
	const struct mntsnap_mount **list = calloc(n + 1, sizeof(*list));
	long r;

	if (!list)
		return cli_fail(-ENOMEM, "list");
	for (size_t k = 0; k < n; k++)
		list[k] = &t->ent[found[k]].m;
	out_setup(a);
	r = out_render_list(list, n, NULL, &v->out, stdout);
	v->out.cx.paths = NULL;
	free(list);
	if (r < 0)
		return cli_fail((int)r, "list: writing output");
	return r ? 0 : 1;
}

/* findmnt's condition for the extra target match: a kernel table, -T alone */
static bool extra_ok(const struct fstab_args *a)
{
	const struct view *v = a->view;
	bool noswap = v->source || v->target || v->mountpoint ||
		      (v->match && tags_is_devtag(v->match));

	return a->kernel_tab && noswap && v->target && !v->mountpoint;
}

/* libmount's mnt_get_fstab_path(): $LIBMOUNT_FSTAB, for root only */
static const char *fstab_path(void)
{
	const char *p = cli_safe_getenv("LIBMOUNT_FSTAB");

	return p ? p : FSTAB_PATH;
}

/* the entries to print, in the order findmnt adds their lines */
struct found {
	size_t *idx, n;
	bool *listed; /* -R: the entries with a line already (has_line()), else NULL */
	bool subs;    /* -R on a mountinfo table: each entry's submounts follow it */
};

/*
 * mnt_table_next_child_fs(): of the entries that name parent's id as
 * their parent (parent itself aside), the lowest id above the child
 * before (*last; none yet: any), the first in the table of equal ids.
 * Returns its index, or -1.
 */
static long next_child(const struct fstab *t, size_t parent, bool *any, uint32_t *last)
{
	uint32_t pid = ent_id(t, &t->ent[parent]), best = 0;
	long found = -1;

	for (size_t k = 0; k < t->n; k++) {
		const struct fstab_ent *c = &t->ent[k];
		uint32_t id = ent_id(t, c);

		if (c->gone || ent_parent_id(t, c) != pid || id == pid)
			continue;
		if ((*any || id > *last) && (found < 0 || id < best)) {
			found = (long)k;
			best = id;
		}
	}
	if (found >= 0) {
		*any = false;
		*last = best;
	}
	return found;
}

/*
 * findmnt prints each entry as soon as it finds it: where the row's
 * columns resolve its source (-c, the tag columns), that spelling enters
 * the cache before the next entries are looked up. An entry "/dev/sda1//"
 * (whose realpath() fails, so it is kept as written) matched by its text
 * thus leaves that spelling for a later lookup of "/dev/sda1", and a later
 * "/dev/sda1/" cannot take "/dev/sda1"'s place before this row's LABEL.
 */
static void prime_printed(struct fstab_args *a, const struct fstab_ent *e)
{
	const struct mntsnap_mount *m = &e->m;

	if (!e->tagname && (m->mask & MNTSNAP_F_SOURCE) && m->source[0] &&
	    view_prints_resolved(a->view))
		pathcache_path(a->cache, m->source);
	/*
	 * and the row's every cell, as findmnt's add_line() computes them: a
	 * tag column probes the source (an image file's UUID and LABEL then
	 * name that file in libmount's tag cache), -e evaluates a tag, so a
	 * later entry's tag is tested against what this row taught the
	 * cache. With -i a row printed is one that failed the test: an image
	 * file holding the device's filesystem, printed with its UUID, makes
	 * a later "UUID=..." line fail -S LABEL=... of that device too.
	 */
	out_prime_row(m, &a->view->out);
}

/*
 * findmnt -R's create_treenode() (without -R its add_line()): entry i
 * unless it is listed already, its row (priming the cache), then its
 * submounts in turn (a mountinfo table's only), depth first, each row
 * printed before the next is looked for and before the next match.
 */
static void found_take(struct fstab_args *a, const struct fstab *t, struct found *f, size_t i)
{
	bool any = true;
	uint32_t last = 0;

	if (f->listed) {
		if (f->listed[i])
			return;
		f->listed[i] = true;
	}
	f->idx[f->n++] = i;
	prime_printed(a, &t->ent[i]);
	for (long c; f->subs && (c = next_child(t, i, &any, &last)) >= 0;)
		found_take(a, t, f, (size_t)c);
}

/* The entries at -T's mount point instead, taken into f */
static void extra_matches(struct fstab_args *a, const struct fstab *t, struct found *f)
{
	struct view *v = a->view;
	const char *saved = v->target;
	char *mnt = extra_target(a, t, v->target);
	struct fstab_match mt;

	if (!mnt)
		return;
	v->target = mnt;
	fstab_match_init(&mt, a, t, v->backward);
	for (long i; (i = fstab_match_next(&mt)) >= 0;) {
		found_take(a, t, f, (size_t)i);
		if (v->first_only)
			break;
	}
	v->target = saved;
	free(mnt);
}

/* findmnt's add_matching_lines(): every entry found, -f the first only */
static int list_matches(struct fstab_args *a, const struct fstab *t)
{
	struct fstab_match mt;
	struct found f = { .idx = calloc(t->n + 1, sizeof(*f.idx)) };
	int r;

	out_setup(a);
	fstab_match_init(&mt, a, t, a->view->backward);
	/* -R with a filter: a match listed already (another's submount) is left out */
	if (a->view->submounts && !mt.listall) {
		f.listed = calloc(t->n + 1, sizeof(*f.listed));
		f.subs = table_mountinfo(t);
	}
	if (!f.idx || (a->view->submounts && !mt.listall && !f.listed)) {
		free(f.idx);
		free(f.listed);
		return cli_fail(-ENOMEM, "list");
	}
	for (long i; (i = fstab_match_next(&mt)) >= 0;) {
		found_take(a, t, &f, (size_t)i);
		if (a->view->first_only)
			break;
	}
	if (!f.n && extra_ok(a))
		extra_matches(a, t, &f);
	r = f.n ? print_ents(a, t, f.idx, f.n) : 1;
	/* the path cache is the caller's, gone after this listing */
	a->view->out.cx.paths = NULL;
	free(f.idx);
	free(f.listed);
	return r;
}

static bool all_fs_kernel(const struct fstab *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (!t->ent[i].fs_kernel)
			return false;
	return true;
}

int fstab_list(struct fstab_args *a)
{
	const char *path = a->path ? a->path : fstab_path();
	const char *const *paths = a->npaths > 1 ? a->paths : &path;
	const char *const *names = a->names ? a->names : paths;
	struct fstab t;
	size_t failed = 0;
	int r;

	if (a->view->mountinfo)
		return cli_fail(0, "list: --format mountinfo is the kernel's text: not for a table "
				   "in the fstab format");
	r = fstab_read_all(paths, names, a->npaths > 1 ? a->npaths : 1, &t, &failed);
	if (r)
		return cli_fail_ul(r, ul_gettext("can't read %s"), names[failed]);
	return fstab_list_table(a, &t);
}

int fstab_list_table(struct fstab_args *a, struct fstab *tab)
{
	struct pathcache cache;
	struct fstab t = *tab;
	int r;

	*tab = (struct fstab){ 0 };
	/*
	 * read (its parse warnings said), now refused as findmnt refuses it;
	 * -x prints no columns, findmnt never asks
	 */
	if (a->view->poll_only && !a->verify) {
		fstab_free(&t);
		return view_poll_only(a->view, "list");
	}
	if (a->view->mountinfo) {
		fstab_free(&t);
		return cli_fail(0, "list: --format mountinfo is the kernel's text: not for a table "
				   "in the fstab format");
	}
	/* findmnt -m: an mtab whose every entry is the kernel's is a kernel table */
	if (a->mtab && all_fs_kernel(&t))
		a->kernel_tab = true;
	/*
	 * findmnt's cache knows this namespace's mount points for fstab, not
	 * for a kernel table (-F FILE in the fstab format, without -s)
	 */
	pathcache_init(&cache, !a->view->nocanon && !a->kernel_tab);
	cache.off = a->view->nocanon;
	cache.tags = a->view->out.cx.tags;
	a->cache = &cache;
	if (a->view->uniq)
		fstab_uniq(&t, &cache);
	r = a->verify ? fstab_verify(a, &t) : list_matches(a, &t);
	pathcache_free(&cache);
	a->cache = NULL;
	fstab_free(&t);
	return r;
}

int fstab_verify_kernel(struct fstab_args *a, const struct mntsnap_snapshot *snap)
{
	struct pathcache cache;
	struct fstab t;
	int r = fstab_from_snapshot(snap, &t);

	/*
	 * -m: libmount's mtab holds utab's options, split by its option maps
	 * after the kernel's (mnt_fs_append_options()): --verbose shows each
	 * part in its list
	 */
	for (size_t i = 0; !r && a->user_opts && i < t.n; i++)
		if (a->user_opts[i])
			r = fstab_split_options(a->user_opts[i], &t.ent[i].vfs_opts,
						&t.ent[i].fs_opts, &t.ent[i].user_opts);
	if (r) {
		fstab_free(&t);
		return cli_fail(r, "list -x");
	}
	/*
	 * findmnt gives its path cache this namespace's mount points for
	 * fstab only: a kernel table's targets (-k, -N's) resolve as paths
	 */
	pathcache_init(&cache, false);
	cache.off = a->view->nocanon;
	cache.tags = a->view->out.cx.tags;
	a->cache = &cache;
	if (a->view->uniq)
		fstab_uniq(&t, &cache);
	r = fstab_verify(a, &t);
	pathcache_free(&cache);
	a->cache = NULL;
	fstab_free(&t);
	return r;
}
