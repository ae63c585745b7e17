// SPDX-License-Identifier: MIT
/*
 * mntsnap list -x: findmnt 2.38's --verify, check for check and message
 * for message (its messages are the interface scripts grep for):
 *  - the order (only when no filter is given; -U's dropped entries
 *    aside): a target listed twice is a warning, a target listed before
 *    the one it lies under an error;
 *  - swap areas: the discard= and pri= values; others: the target
 *    (canonical? there? a directory for a bind?) and, with --verbose, the
 *    options;
 *  - the source: a tag must name a device (an error unless noauto), a
 *    path should be a block device (pseudo and network filesystems aside);
 *  - the type: known to this kernel (/proc/filesystems, modules.dep), and
 *    what libblkid finds on the device;
 *  - the root's passno (1, unless xfs or btrfs).
 * Findings go to stdout, each under its target; the counts to stderr.
 * Exit 1 when there are errors or parse errors, else 0 (warnings too).
 * It needs libblkid (tags and on-disk types): without it, -x is refused.
 */
#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>
#include <sys/utsname.h>

#include "cli.h"
#include "cmd-fstab.h"
#include "intl.h"
#include "tags.h"

struct vfy {
	const struct fstab_args *a;
	const struct fstab_ent *e;
	char **fs;   /* filesystem types this kernel knows */
	size_t nfs;
	int nwarnings, nerrors;
	bool target_printed, no_fsck;
	/*
	 * findmnt's locale (every category of the environment's, or none):
	 * its %m is strerror() in LC_MESSAGES, translated where libc has a
	 * catalog; mntsnap's process keeps "C" for its own messages
	 */
	locale_t loc;
};

static const char *errstr(const struct vfy *v, int e)
{
	return v->loc ? strerror_l(e, v->loc) : strerror(e);
}

static void mesg(struct vfy *v, char type, const char *fmt, va_list ap)
{
	if (!v->target_printed && v->e) {
		printf("%s\n", v->e->target);
		v->target_printed = true;
	}
	printf("   [%c] ", type);
	vprintf(fmt, ap);
	putchar('\n');
}

__attribute__((format(printf, 2, 3))) static void warn_(struct vfy *v, const char *fmt, ...)
{
	va_list ap;

	v->nwarnings++;
	va_start(ap, fmt);
	mesg(v, 'W', fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 2, 3))) static void err_(struct vfy *v, const char *fmt, ...)
{
	va_list ap;

	v->nerrors++;
	va_start(ap, fmt);
	mesg(v, 'E', fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 2, 3))) static void ok_(struct vfy *v, const char *fmt, ...)
{
	va_list ap;

	if (!v->a->verbose)
		return;
	va_start(ap, fmt);
	mesg(v, ' ', fmt, ap);
	va_end(ap);
}

/*
 * mnt_fs_get_option(): 0 and the value (to the end of its option string,
 * as libmount hands it out) when the entry has option name, else 1.
 * A double quote that never closes runs to the end of the string, and
 * libmount's parser returns no item for that text: not found. fstab's
 * split already drops such an item; a mount table's options are kept as
 * the kernel (or a -F file) wrote them, so the lookup must skip it too.
 */
static int find_in(const char *list, const char *name, const char **val, size_t *valsz)
{
	size_t nl = strlen(name);
	const char *p = list;

	while (p && *p) {
		const char *start = p, *eq = NULL;
		bool open = false;

		while (*p && (open || *p != ',')) {
			if (*p == '"')
				open = !open;
			else if (!open && *p == '=' && !eq)
				eq = p;
			p++;
		}
		if (open)
			break;
		if ((size_t)((eq ? eq : p) - start) == nl && !strncmp(start, name, nl)) {
			*val = eq ? eq + 1 : NULL;
			*valsz = eq ? (size_t)(p - eq - 1) : 0;
			return 0;
		}
		if (*p)
			p++;
	}
	return 1;
}

static int get_option(const struct fstab_ent *e, const char *name, const char **val,
		      size_t *valsz)
{
	const char *dv;
	size_t ds;

	if (!val)
		val = &dv, valsz = &ds;
	if (!find_in(e->fs_opts, name, val, valsz) || !find_in(e->vfs_opts, name, val, valsz) ||
	    !find_in(e->user_opts, name, val, valsz))
		return 0;
	return 1;
}

/* every later target against this one (only when no filter is given) */
static void check_order(struct vfy *v, const struct fstab *t, size_t i)
{
	struct pathcache *c = v->a->cache;
	/* -C: the targets as written */
	const char *tgt = c->off ? t->ent[i].target : pathcache_target(c, t->ent[i].target);

	for (size_t k = i + 1; tgt && k < t->n; k++) {
		const char *n = t->ent[k].gone ? NULL
				: c->off       ? t->ent[k].target
					       : pathcache_target(c, t->ent[k].target);
		size_t len = n ? strlen(n) : 0;

		if (n && !strncmp(n, tgt, len)) {
			if (tgt[len] == '\0')
				warn_(v, ul_gettext("target specified more than once"));
			else if (tgt[len] == '/')
				err_(v, ul_gettext("wrong order: %s specified before %s"), tgt, n);
		}
	}
}

static void check_target(struct vfy *v)
{
	const char *cn = v->a->cache->off ? v->e->target
					  : pathcache_target(v->a->cache, v->e->target);
	struct stat st;

	if (!cn)
		return;
	if (strcmp(cn, v->e->target))
		warn_(v, ul_gettext("non-canonical target path (real: %s)"), cn);
	if (stat(cn, &st)) {
		int e = errno;

		char f[256];

		if (get_option(v->e, "noauto", NULL, NULL) == 1)
			err_(v, ul_gettext_m(f, sizeof(f), "unreachable on boot required target: %m"),
			     errstr(v, e));
		else
			warn_(v, ul_gettext_m(f, sizeof(f), "unreachable target: %m"), errstr(v, e));
	} else if (!S_ISDIR(st.st_mode) && get_option(v->e, "bind", NULL, NULL) == 1) {
		/* findmnt 2.38 says so for a non-directory without "bind" */
		err_(v, ul_gettext("target is not a directory"));
	} else {
		ok_(v, ul_gettext("target exists"));
	}
}

static void check_options(struct vfy *v)
{
	if (v->e->vfs_opts)
		ok_(v, ul_gettext("VFS options: %s"), v->e->vfs_opts);
	if (v->e->fs_opts)
		ok_(v, ul_gettext("FS options: %s"), v->e->fs_opts);
	if (v->e->user_opts)
		ok_(v, ul_gettext("userspace options: %s"), v->e->user_opts);
}

static void check_swaparea(struct vfy *v)
{
	const char *arg;
	size_t sz;

	if (!get_option(v->e, "discard", &arg, &sz) && arg && strncmp(arg, "once", sz) &&
	    strncmp(arg, "pages", sz))
		err_(v, ul_gettext("unsupported swaparea discard policy: %s"), arg);
	if (!get_option(v->e, "pri", &arg, &sz) && arg) {
		const char *p = arg + (*arg == '-');

		for (; p < arg + sz; p++)
			if (!isdigit((unsigned char)*p)) {
				err_(v, ul_gettext("failed to parse swaparea priority option"));
				break;
			}
	}
}

static char *check_tag(struct vfy *v)
{
	/* -C: findmnt evaluates no tag without its cache */
	char *src = v->a->cache->off ? NULL : tags_cache_resolve(v->a->cache->tags, v->e->tagname,
								  v->e->tagval);

	if (!src) {
		if (get_option(v->e, "noauto", NULL, NULL) == 1)
			err_(v, ul_gettext("unreachable on boot required source: %s=%s"), v->e->tagname,
			     v->e->tagval);
		else
			warn_(v, ul_gettext("unreachable: %s=%s"), v->e->tagname, v->e->tagval);
	} else {
		ok_(v, ul_gettext("%s=%s translated to %s"), v->e->tagname, v->e->tagval, src);
	}
	return src;
}

static bool pseudo_or_net(const struct fstab_ent *e)
{
	return fstab_pseudo(e->fstype) || fstab_netfs(e->fstype);
}

static void check_source(struct vfy *v)
{
	const struct fstab_ent *e = v->e;
	char *dev = NULL, *t = NULL, *val = NULL;
	const char *src = e->source;
	struct stat st;
	bool isbind;

	if (e->tagname) {
		src = dev = check_tag(v);
		if (!src)
			return;
	} else if (!tags_parse(src, &t, &val) && stat(src, &st)) {
		err_(v, ul_gettext("unsupported source tag: %s"), src);
		goto done;
	}
	isbind = get_option(e, "bind", NULL, NULL) == 0;
	if (pseudo_or_net(e)) {
		ok_(v, ul_gettext("do not check %s source (pseudo/net)"), src);
	} else if (stat(src, &st)) {
		int err = errno;
		char f[256];

		warn_(v, ul_gettext_m(f, sizeof(f), "unreachable source: %s: %m"), src,
		      errstr(v, err));
	} else if ((S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)) && !isbind) {
		warn_(v, ul_gettext("non-bind mount source %s is a directory or regular file"), src);
	} else if (!S_ISBLK(st.st_mode) && !isbind) {
		warn_(v, ul_gettext("source %s is not a block device"), src);
	} else {
		ok_(v, ul_gettext("source %s exists"), src);
	}
done:
	free(dev);
	free(t);
	free(val);
}

static bool supported(const struct vfy *v, const char *name)
{
	for (size_t i = 0; i < v->nfs; i++)
		if (match_types(v->fs[i], name))
			return true;
	return false;
}

static int add_fs(struct vfy *v, const char *name)
{
	char **p;

	if (supported(v, name))
		return 0;
	p = realloc(v->fs, (v->nfs + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	v->fs = p;
	if (!(v->fs[v->nfs] = strdup(name)))
		return -ENOMEM;
	v->nfs++;
	return 0;
}

/* /proc/filesystems's names, then the kernel/fs/ modules of modules.dep */
static void read_filesystems(struct vfy *v)
{
	char buf[1024], *cp;
	struct utsname uts;
	FILE *f = fopen("/proc/filesystems", "re");

	while (f && fgets(buf, 80, f)) {
		cp = buf;
		if (!isspace((unsigned char)*cp))
			while (*cp && !isspace((unsigned char)*cp))
				cp++;
		while (*cp && isspace((unsigned char)*cp))
			cp++;
		cp[strcspn(cp, "\n\t ")] = '\0';
		if (add_fs(v, cp))
			break;
	}
	if (f)
		fclose(f);
	if (uname(&uts))
		return;
	snprintf(buf, sizeof(buf), "/lib/modules/%s/modules.dep", uts.release);
	f = fopen(buf, "re");
	while (f && fgets(buf, sizeof(buf), f)) {
		char *p, *name;

		if (strncmp(buf, "kernel/fs/", 10) || !strncmp(buf, "kernel/fs/nls/", 14))
			continue;
		if (!(p = strchr(buf, ':')))
			continue;
		*p = '\0';
		if (!(name = strrchr(buf, '/')))
			continue;
		name++;
		if (!(p = strstr(name, ".ko")))
			continue;
		*p = '\0';
		if (add_fs(v, name))
			break;
	}
	if (f)
		fclose(f);
}

/* libblkid's TYPE of dev; NULL with why in *why (the probe's errno, as findmnt) */
static char *ondisk_type(const struct vfy *v, const char *dev, const char **why)
{
	char *type;

	errno = 0;
	/* mnt_get_fstype() with findmnt's cache: what an earlier probe learned */
	type = tags_cache_value(v->a->cache->off ? NULL : v->a->cache->tags, dev, "TYPE");
	if (!type)
		*why = errno ? errstr(v, errno) : ul_gettext("reason unknown");
	return type;
}

static void check_fstype(struct vfy *v)
{
	const struct fstab_ent *e = v->e;
	char *src = pathcache_spec(v->a->cache, e->source), *real = NULL;
	const char *type = e->fstype, *why = NULL;
	bool isauto = false, isswap = false, none = !strcmp(type, "none");

	if (!src)
		return;
	if (pseudo_or_net(e)) {
		ok_(v, ul_gettext("do not check %s FS type (pseudo/net)"), src);
		goto done;
	}
	if (none && get_option(e, "bind", NULL, NULL) == 1 &&
	    get_option(e, "move", NULL, NULL) == 1) {
		warn_(v, ul_gettext("\"none\" FS type is recommended for bind or move oprations only"));
		goto done;
	}
	if (!strcmp(type, "auto"))
		isauto = true;
	else if (!strcmp(type, "swap"))
		isswap = true;
	else if (!strcmp(type, "xfs") || !strcmp(type, "btrfs"))
		v->no_fsck = true;
	if (!isswap && !isauto && !none && !supported(v, type))
		warn_(v, ul_gettext("%s seems unsupported by the current kernel"), type);
	real = ondisk_type(v, src, &why);
	if (!real) {
		if (isauto)
			err_(v, ul_gettext("cannot detect on-disk filesystem type (%s)"), why);
		else
			warn_(v, ul_gettext("cannot detect on-disk filesystem type (%s)"), why);
		goto done;
	}
	isswap = !strcmp(real, "swap");
	v->no_fsck = !strcmp(real, "xfs") || !strcmp(real, "btrfs");
	if (!isauto && strcmp(type, real))
		err_(v, ul_gettext("%s does not match with on-disk %s"), type, real);
	else if (!isswap && !supported(v, real))
		err_(v, ul_gettext("on-disk %s seems unsupported by the current kernel"), real);
	else
		ok_(v, ul_gettext("FS type is %s"), real);
done:
	free(src);
	free(real);
}

static void check_passno(struct vfy *v)
{
	if (!strcmp(v->e->target, "/") && v->e->passno != 1 && !v->no_fsck)
		warn_(v, ul_gettext("recommended root FS passno is 1 (current is %d)"), v->e->passno);
}

/* systemd still on an older fstab (findmnt built with systemd checks it) */
static void check_systemd(struct vfy *v)
{
	struct stat a, b;

	if (!stat("/run/systemd/systemd-units-load", &a) && !stat(FSTAB_PATH, &b) &&
	    (a.st_mtim.tv_sec < b.st_mtim.tv_sec ||
	     (a.st_mtim.tv_sec == b.st_mtim.tv_sec && a.st_mtim.tv_nsec < b.st_mtim.tv_nsec)))
		warn_(v, ul_gettext("your fstab has been modified, but systemd still uses "
				    "the old version;\n"
				    "       use 'systemctl daemon-reload' to reload"));
}

int fstab_verify(const struct fstab_args *a, const struct fstab *t)
{
	/* findmnt checks the order only when it lists every entry */
	bool all = fstab_listall(a->view);
	struct fstab_match mt;
	struct vfy v = { .a = a, .loc = a->view->out.cx.loc.env };

	read_filesystems(&v);
	/* findmnt's verify_table() walks forward whatever -d says, and stops after one with -f */
	fstab_match_init(&mt, a, t, false);
	for (long i; (i = fstab_match_next(&mt)) >= 0;) {
		v.e = &t->ent[i];
		v.target_printed = v.no_fsck = false;
		if (all)
			check_order(&v, t, (size_t)i);
		if (!strcmp(v.e->fstype, "swap")) {
			check_swaparea(&v);
		} else {
			check_target(&v);
			check_options(&v);
		}
		check_source(&v);
		check_fstype(&v);
		check_passno(&v);
		if (a->view->first_only)
			break;
		v.e = NULL;
	}
	/*
	 * as findmnt's verify_table(): the loop -f stopped keeps its entry,
	 * so the systemd warning prints that entry's target line first when
	 * the entry printed none yet; after the whole loop there is none
	 */
	check_systemd(&v);
	if (v.nerrors || t->nerrors || v.nwarnings) {
		/* findmnt's three plural forms, each in its own words */
		fputc('\n', stderr);
		fprintf(stderr, ul_ngettext("%d parse error", "%d parse errors", t->nerrors),
			(int)t->nerrors);
		fprintf(stderr, ul_ngettext(", %d error", ", %d errors", v.nerrors), v.nerrors);
		fprintf(stderr, ul_ngettext(", %d warning", ", %d warnings", v.nwarnings),
			v.nwarnings);
		fputc('\n', stderr);
	} else {
		printf("%s", ul_gettext("Success, no errors or warnings detected\n"));
	}
	for (size_t i = 0; i < v.nfs; i++)
		free(v.fs[i]);
	free(v.fs);
	return v.nerrors || t->nerrors ? 1 : 0;
}
