// SPDX-License-Identifier: MIT
/*
 * mntsnap list -s (fstab) and -x (verify), as findmnt 2.38 does them:
 * the entries that match -t, -O, -S, -T, -M and the SOURCE|MOUNTPOINT
 * argument, as a list (findmnt never draws fstab as a tree), or checked
 * one by one with findmnt's messages and exit status.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>
#include <sys/utsname.h>

#include "cli.h"
#include "cmd-fstab.h"
#include "fstab.h"
#include "pathcache.h"
#include "tags.h"

/* mnt_fs_match_target(): as written, then the canonical forms */
static bool match_target(struct pathcache *c, const struct fstab_ent *e, const char *target)
{
	const char *cn, *tcn;

	if (streq_paths(e->target, target))
		return true;
	cn = pathcache_target(c, target);
	if (cn && streq_paths(e->target, cn))
		return true;
	if (!cn || !strcmp(e->fstype, "swap"))
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
	char *cn, *v;
	bool ok;

	if (streq_srcpath(e, source) || (e->tagname && !strcmp(source, e->source)))
		return true;
	if (fstab_pseudo(e->fstype) || fstab_netfs(e->fstype))
		return false;
	cn = pathcache_spec(c, source);
	if (!cn)
		return false;
	if (!e->tagname) {
		ok = streq_srcpath(e, cn) || ((src = pathcache_path(c, e->source)) && !strcmp(cn, src));
	} else {
		/* does the device carry the entry's tag? */
		v = tags_device_value(cn, e->tagname);
		ok = v && !strcmp(v, e->tagval);
		free(v);
	}
	free(cn);
	return ok;
}

bool fstab_pseudo(const char *type)
{
	/* libmount 2.38's list (mnt_fstype_is_pseudofs) */
	static const char *const pseudo[] = {
		"anon_inodefs", "apparmorfs", "autofs", "bdev", "binder", "binfmt_misc", "bpf",
		"cgroup", "cgroup2", "configfs", "cpuset", "debugfs", "devfs", "devpts",
		"devtmpfs", "dlmfs", "dmabuf", "drm", "efivarfs", "fuse", "fuse.archivemount",
		"fuse.avfsd", "fuse.dumpfs", "fuse.encfs", "fuse.gvfs-fuse-daemon",
		"fuse.gvfsd-fuse", "fuse.lxcfs", "fuse.rofiles-fuse", "fuse.vmware-vmblock",
		"fuse.xwmfs", "fusectl", "hugetlbfs", "ipathfs", "mqueue", "nfsd", "none", "nsfs",
		"overlay", "pipefs", "proc", "pstore", "ramfs", "resctrl", "rootfs", "rpc_pipefs",
		"securityfs", "selinuxfs", "smackfs", "sockfs", "spufs", "sysfs", "tmpfs",
		"tracefs", "vboxsf", "virtiofs",
	};

	for (size_t i = 0; i < sizeof(pseudo) / sizeof(pseudo[0]); i++)
		if (!strcmp(type, pseudo[i]))
			return true;
	return false;
}

bool fstab_netfs(const char *t)
{
	/* mnt_fstype_is_netfs() */
	return !strcmp(t, "cifs") || !strcmp(t, "smb3") || !strcmp(t, "smbfs") ||
	       !strncmp(t, "nfs", 3) || !strcmp(t, "afs") || !strcmp(t, "ncpfs") ||
	       !strcmp(t, "glusterfs") || !strcmp(t, "fuse.curlftpfs") ||
	       !strcmp(t, "fuse.sshfs") || !strncmp(t, "9p", 2);
}

static bool is_tag_spec(const char *s)
{
	return !strncmp(s, "LABEL=", 6) || !strncmp(s, "UUID=", 5) ||
	       !strncmp(s, "PARTLABEL=", 10) || !strncmp(s, "PARTUUID=", 9);
}

/* findmnt's match_func() for one entry */
static bool match_ent(const struct fstab_match *mt, const struct fstab_ent *e)
{
	const struct view *v = mt->a->view;

	if (v->types && !match_types(e->fstype, v->types))
		return false;
	if (v->options && !match_options(e->options ? e->options : "",
					 e->options ? strlen(e->options) : 0, v->options))
		return false;
	if (mt->target && !match_target(mt->a->cache, e, mt->target))
		return false;
	if (mt->source && !match_source(mt->a->cache, e, mt->source))
		return false;
	return true;
}

void fstab_match_init(struct fstab_match *mt, const struct fstab_args *a, const struct fstab *t)
{
	const struct view *v = a->view;

	*mt = (struct fstab_match){ .a = a, .t = t };
	mt->target = v->target ? v->target : v->mountpoint;
	mt->source = v->source ? v->source : v->match;
	/* a lone SOURCE|MOUNTPOINT argument may be a target (not a LABEL=/UUID= one) */
	mt->can_swap = !v->source && !mt->target && v->match && !is_tag_spec(v->match);
}

/*
 * findmnt's get_next_fs(): the next match from entry i on, or -1. Lazily,
 * as findmnt: what a lookup resolves is in the path cache for the checks
 * of the entries found before the next one. An argument that matches no
 * source at all is then tried as a target, from the top.
 */
long fstab_match_next(struct fstab_match *mt, size_t i)
{
	for (;;) {
		for (; i < mt->t->n; i++)
			if (match_ent(mt, &mt->t->ent[i])) {
				mt->can_swap = false;
				return (long)i;
			}
		if (!mt->can_swap)
			return -1;
		mt->can_swap = false;
		mt->target = mt->source;
		mt->source = NULL;
		i = 0;
	}
}

/*
 * mnt_table_find_target(), last entry first: the path as written, then
 * (with the cache, i.e. without -C) its canonical form against each
 * target as written and against each target resolved (not swap, not "/",
 * not a line of /proc/mounts: libmount marks those the kernel's).
 */
static const struct fstab_ent *find_target(const struct fstab_args *a, const struct fstab *t,
					   const char *path)
{
	bool kernel = a->path && !strcmp(a->path, "/proc/mounts");
	const char *cn, *p;

	for (size_t i = t->n; i-- > 0;)
		if (streq_paths(t->ent[i].target, path))
			return &t->ent[i];
	if (a->view->nocanon || !(cn = pathcache_path(a->cache, path)))
		return NULL;
	for (size_t i = t->n; i-- > 0;)
		if (streq_paths(t->ent[i].target, cn))
			return &t->ent[i];
	for (size_t i = t->n; i-- > 0 && !kernel;) {
		const struct fstab_ent *e = &t->ent[i];

		if (!strcmp(e->fstype, "swap") || !strcmp(e->target, "/"))
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
		if (*mnt && (e = find_target(a, t, mnt)))
			break;
		p = strrchr(mnt, '/');
		if (!p)
			break;
		*p = '\0';
	} while (mnt[1]);
	free(mnt);
	if (!e)
		e = find_target(a, t, "/");
	return e && strcmp(e->target, tgt) ? strdup(e->target) : NULL;
}

/* -e: each tag source as the device it names ("" when none) */
static int evaluate(struct fstab *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct fstab_ent *e = &t->ent[i];
		char *dev;

		if (!e->tagname)
			continue;
		dev = tags_evaluate(e->tagname, e->tagval);
		free(e->evaluated);
		e->evaluated = dev ? dev : strdup("");
		if (!e->evaluated)
			return -ENOMEM;
		e->m.source = e->evaluated;
	}
	return 0;
}

static int print_ents(struct fstab_args *a, struct fstab *t, const bool *match)
{
	struct view *v = a->view;
	const struct mntsnap_mount **list = calloc(t->n + 1, sizeof(*list));
	long r;

	if (!list)
		return cli_fail(-ENOMEM, "list");
	for (size_t i = 0; i < t->n; i++)
		list[i] = &t->ent[i].m;
	v->out.cx.fstab = true;
	v->out.cx.tid = 0;
	if (v->out.mode == OUT_TREE)
		v->out.mode = OUT_LIST;
	v->out.json_flat = true;
	r = out_render_list(list, t->n, match, &v->out, stdout);
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
		      (v->match && is_tag_spec(v->match));

	return a->kernel_tab && noswap && v->target && !v->mountpoint;
}

/* The entries at -T's mount point instead; how many */
static size_t extra_matches(struct fstab_args *a, const struct fstab *t, bool *match)
{
	struct view *v = a->view;
	const char *saved = v->target;
	char *mnt = extra_target(a, t, v->target);
	struct fstab_match mt;
	size_t hits = 0;

	if (!mnt)
		return 0;
	v->target = mnt;
	fstab_match_init(&mt, a, t);
	for (long i = fstab_match_next(&mt, 0); i >= 0; i = fstab_match_next(&mt, (size_t)i + 1))
		match[i] = true, hits++;
	v->target = saved;
	free(mnt);
	return hits;
}

/* libmount's mnt_get_fstab_path(): $LIBMOUNT_FSTAB, unless setuid/setgid */
static const char *fstab_path(void)
{
	const char *p = getuid() == geteuid() && getgid() == getegid() ? getenv("LIBMOUNT_FSTAB")
								       : NULL;

	return p ? p : FSTAB_PATH;
}

int fstab_list(struct fstab_args *a)
{
	const char *path = a->path ? a->path : fstab_path();
	struct pathcache cache;
	struct fstab t;
	bool *match;
	int r;

	if (a->view->mountinfo)
		return cli_fail(0, "list: --format mountinfo is the kernel's text: not for a table "
				   "in the fstab format");
	r = fstab_read(path, &t);
	if (r)
		return cli_fail(r, "can't read %s", path);
	if (a->evaluate && (r = evaluate(&t))) {
		fstab_free(&t);
		return cli_fail(r, "list");
	}
	match = calloc(t.n + 1, sizeof(*match));
	if (!match) {
		fstab_free(&t);
		return cli_fail(-ENOMEM, "list");
	}
	/* findmnt's cache knows this namespace's mount points for fstab, not for a kernel table */
	if (a->kernel_tab)
		cache = (struct pathcache){ 0 };
	else
		pathcache_init(&cache);
	a->cache = &cache;
	if (a->verify) {
		r = fstab_verify(a, &t);
	} else {
		struct fstab_match mt;
		size_t hits = 0;

		fstab_match_init(&mt, a, &t);
		for (long i = fstab_match_next(&mt, 0); i >= 0; i = fstab_match_next(&mt, (size_t)i + 1))
			match[i] = true, hits++;
		if (!hits && extra_ok(a))
			hits = extra_matches(a, &t, match);
		r = hits ? print_ents(a, &t, match) : 1;
	}
	free(match);
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

	if (r)
		return cli_fail(r, "list -x");
	pathcache_init(&cache);
	a->cache = &cache;
	r = fstab_verify(a, &t);
	pathcache_free(&cache);
	a->cache = NULL;
	fstab_free(&t);
	return r;
}
