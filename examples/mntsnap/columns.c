// SPDX-License-Identifier: MIT
/*
 * The column table. For every name findmnt (util-linux 2.38) also has,
 * the value is the one findmnt prints for the same mountinfo line:
 *  - strings are unescaped as libmount unescapes them (\ooo only);
 *  - SOURCE carries "[FSROOT]" when the mount's root is not "/";
 *  - FSTYPE is "type.subtype" (fuse.sshfs);
 *  - OPTIONS, VFS-OPTIONS, FS-OPTIONS come from mntsnap_mount_options()
 *    (libmount's merge: the FS rw/ro dropped, one rw/ro in front);
 *  - PROPAGATION is "shared" or "private", then ",slave", ",unbindable";
 *  - ID and PARENT are the /proc ids.
 * The rest are mntsnap's own and named in the same style.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sys/stat.h>
#include <sys/statvfs.h>

#include "columns.h"
#include "fstab.h"
#include "pathcache.h"
#include "tags.h"
#include "vfs-all.h"

int ob_grow(struct obuf *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *p;

	if (b->err)
		return b->err;
	while (cap < b->len + more)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p)
		return b->err = -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

void ob_free(struct obuf *b)
{
	free(b->p);
	*b = (struct obuf){ 0 };
}

void ob_puts(struct obuf *b, const char *s)
{
	ob_put(b, s, strlen(s));
}

void ob_u64(struct obuf *b, uint64_t v)
{
	char tmp[24];
	int i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	ob_put(b, tmp + i, sizeof(tmp) - (size_t)i);
}

static void ob_hex(struct obuf *b, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	char tmp[18];
	int i = sizeof(tmp);

	do {
		tmp[--i] = hex[v & 15];
		v >>= 4;
	} while (v);
	tmp[--i] = 'x';
	tmp[--i] = '0';
	ob_put(b, tmp + i, sizeof(tmp) - (size_t)i);
}

static void get_target(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	(void)cx;
	ob_puts(b, m->mount_point);
}

/* The kernel shows a mount without a source as "none". */
static const char *source_of(const struct mntsnap_mount *m)
{
	return m->mask & MNTSNAP_F_SOURCE ? m->source : "none";
}

/* libmount's tags: a source naming a device by them is not a path */
static bool is_tag(const char *s)
{
	static const char *const tags[] = { "LABEL=", "UUID=", "PARTLABEL=", "PARTUUID=",
					    "ID=" };

	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (!strncmp(s, tags[i], strlen(tags[i])))
			return true;
	return false;
}

/*
 * libmount's canonicalize_path(): src as a path resolved on this file
 * system (relative to the working directory, as realpath(3) takes it), a
 * device-mapper node by its /dev/mapper name. NULL when it resolves to
 * nothing (or is a tag): the caller uses the text as it is.
 */
char *col_canonical(const char *src)
{
	return is_tag(src) ? NULL : col_resolve(src);
}

char *col_resolve(const char *src)
{
	char *p = realpath(src, NULL);
	char name[256];
	FILE *f;

	if (!p)
		return NULL;
	if (!strncmp(p, "/dev/dm-", 8) && strlen(p) < 64) {
		char sys[96];

		snprintf(sys, sizeof(sys), "/sys/block/%s/dm/name", p + 5);
		f = fopen(sys, "re");
		if (f && fgets(name, sizeof(name), f) && name[0] && name[0] != '\n') {
			name[strcspn(name, "\n")] = '\0';
			free(p);
			p = NULL;
			if (asprintf(&p, "/dev/mapper/%s", name) < 0)
				p = NULL;
		}
		if (f)
			fclose(f);
	}
	return p;
}

/*
 * A source path resolved: through -p's cache when there is one
 * (cx->paths, mnt_resolve_path()), else afresh (malloc'd; NULL: it
 * resolves to nothing, or no memory)
 */
static char *col_resolve_cx(const struct col_ctx *cx, const char *src)
{
	const char *p;

	if (!cx->paths || cx->paths->off)
		return col_canonical(src);
	p = pathcache_path(cx->paths, src);
	return p ? strdup(p) : NULL;
}

/* findmnt -c: the source resolved, the text as it is when it resolves to nothing */
static void put_canonical(struct obuf *b, const char *src, const struct col_ctx *cx)
{
	char *p = col_resolve_cx(cx, src);

	ob_puts(b, p ? p : src);
	free(p);
}

/*
 * libmount's tag of a record (mnt_fs_get_tag()): an fstab entry's, or a
 * mount's source when it reads NAME=value with a name libmount knows (the
 * kernel keeps whatever source text mount(2) was given, and libmount
 * parses every table's sources alike). 0 (malloc'd), -EINVAL or -ENOMEM.
 */
static int record_tag(const struct mntsnap_mount *m, const struct col_ctx *cx, char **name,
		      char **value)
{
	const struct fstab_ent *e = cx->fstab ? fstab_of(m) : NULL;

	if (!e)
		return m->mask & MNTSNAP_F_SOURCE ? tags_source(m->source, name, value) : -EINVAL;
	if (!e->tagname)
		return -EINVAL;
	*name = strdup(e->tagname);
	*value = strdup(e->tagval);
	if (*name && *value)
		return 0;
	free(*name);
	free(*value);
	return -ENOMEM;
}

/*
 * -e: the device a tag names, NULL if none. findmnt resolves it when the
 * column is printed (an fstab entry's too), so through the run's cache it
 * sees what the columns and rows before it probed (an image file's tags).
 */
static char *tag_device(const struct col_ctx *cx, const char *name, const char *value)
{
	return tags_cache_resolve(cx->tags, name, value);
}

/*
 * findmnt's SOURCE: a path (-c: resolved), else the tag; with -e the
 * tag's device, and nothing at all (no [root] either) when no device has
 * it; then the fsroot in brackets.
 */
static void get_source(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	char *tn = NULL, *tv = NULL, *dev = NULL;
	int r = record_tag(m, cx, &tn, &tv);

	if (r == -ENOMEM) {
		b->err = r;
		return;
	}
	if (!r && cx->evaluate) {
		dev = tag_device(cx, tn, tv);
		if (!dev)
			goto out;
		ob_puts(b, dev);
	} else if (r && cx->canonicalize && (m->mask & MNTSNAP_F_SOURCE) && cx->cache) {
		/*
		 * not an empty source: libmount's cache takes "" for a "/"
		 * looked up before and prints "/"; here it stays empty (kept,
		 * README)
		 */
		const char *p = m->source[0] ? pathcache_path(cx->cache, m->source) : NULL;

		ob_puts(b, p ? p : m->source);
	} else if (r && cx->canonicalize && (m->mask & MNTSNAP_F_SOURCE)) {
		put_canonical(b, m->source, cx);
	} else {
		ob_puts(b, source_of(m));
	}
	if (!cx->nofsroot && m->root[0] && strcmp(m->root, "/")) {
		ob_putc(b, '[');
		ob_puts(b, m->root);
		ob_putc(b, ']');
	}
out:
	free(dev);
	free(tn);
	free(tv);
}

static void get_fstype(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	(void)cx;
	ob_puts(b, m->fs_type);
	if ((m->mask & MNTSNAP_F_FS_SUBTYPE) && m->fs_subtype[0]) {
		ob_putc(b, '.');
		ob_puts(b, m->fs_subtype);
	}
}

/* The library writes findmnt's option strings (libmount's merge included). */
static void put_options(struct obuf *b, const struct mntsnap_mount *m, int which)
{
	size_t room;
	long n;

	if (b->cap - b->len < 256 && ob_grow(b, 256))
		return;
	room = b->cap - b->len;
	n = mntsnap_mount_options(m, which, b->p + b->len, room);
	if (n >= 0 && (size_t)n >= room) {
		if (ob_grow(b, (size_t)n + 1))
			return;
		n = mntsnap_mount_options(m, which, b->p + b->len, b->cap - b->len);
	}
	if (n < 0) {
		b->err = (int)n;
		return;
	}
	b->len += (size_t)n;
}

void col_merged_options(struct obuf *b, const struct mntsnap_mount *m)
{
	put_options(b, m, MNTSNAP_OPTIONS_ALL);
}

/* fstab: the options as written, and libmount's split of them */
static void put_fstab(struct obuf *b, const char *s)
{
	if (s)
		ob_puts(b, s);
}

static void get_options(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	const char *u = cx->user_opts ? cx->user_opts[m->index] : NULL;
	size_t start = b->len;

	if (cx->fstab) {
		put_fstab(b, fstab_of(m)->options);
		return;
	}
	put_options(b, m, MNTSNAP_OPTIONS_ALL);
	/* findmnt -m: utab's userspace options after the kernel's */
	if (u && *u) {
		if (b->len > start)
			ob_putc(b, ',');
		ob_puts(b, u);
	}
}

/*
 * --vfs-all: what the options findmnt's OPTIONS column is made of amount
 * to (an fstab entry: its options as written; none written, no value)
 */
static void put_vfs_all(struct obuf *b, const struct mntsnap_mount *m,
			const struct col_ctx *cx)
{
	struct obuf all = { 0 };
	const char *o;

	if (cx->fstab) {
		o = fstab_of(m)->options;
		if (o)
			vfs_all_options(b, o, strlen(o));
		return;
	}
	get_options(&all, m, cx);
	if (all.err)
		b->err = all.err;
	else
		vfs_all_options(b, all.p ? all.p : "", all.len);
	ob_free(&all);
}

/*
 * findmnt -m: libmount appends utab's OPTS= to the mount by its option
 * maps (mnt_fs_append_options()): the VFS-map words to VFS-OPTIONS, the
 * unknown ones to FS-OPTIONS (the userspace ones only to OPTIONS and -x's
 * userspace options), each after the kernel's.
 */
static void put_utab_part(struct obuf *b, const struct mntsnap_mount *m,
			  const struct col_ctx *cx, int which)
{
	const char *u = cx->user_opts ? cx->user_opts[m->index] : NULL;
	char *vfs = NULL, *fs = NULL, *user = NULL;
	const char *part;

	if (!u || !*u)
		return;
	if (fstab_split_options(u, &vfs, &fs, &user)) {
		b->err = -ENOMEM;
	} else {
		part = which == MNTSNAP_OPTIONS_VFS ? vfs : fs;
		if (part) {
			ob_putc(b, ',');
			ob_puts(b, part);
		}
	}
	free(vfs), free(fs), free(user);
}

static void get_vfs_options(struct obuf *b, const struct mntsnap_mount *m,
			    const struct col_ctx *cx)
{
	if (cx->vfs_all) {
		put_vfs_all(b, m, cx);
	} else if (cx->fstab) {
		put_fstab(b, fstab_of(m)->vfs_opts);
	} else {
		put_options(b, m, MNTSNAP_OPTIONS_VFS);
		put_utab_part(b, m, cx, MNTSNAP_OPTIONS_VFS);
	}
}

static void get_fs_options(struct obuf *b, const struct mntsnap_mount *m,
			   const struct col_ctx *cx)
{
	if (cx->fstab) {
		put_fstab(b, fstab_of(m)->fs_opts);
	} else {
		put_options(b, m, MNTSNAP_OPTIONS_FS);
		put_utab_part(b, m, cx, MNTSNAP_OPTIONS_FS);
	}
}

static void get_fsroot(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	(void)cx;
	ob_puts(b, m->root);
}

static void get_majmin(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	size_t start = b->len, w;

	/* libmount: no device number (0:0) is no value */
	if (!m->dev_major && !m->dev_minor)
		return;
	ob_u64(b, m->dev_major);
	w = b->len - start;
	if (cx->aligned && w < 3 && !b->err) {
		/* right-align the major in 3 cells */
		ob_put(b, "  ", 3 - w);
		if (b->err)
			return;
		memmove(b->p + start + 3 - w, b->p + start, w);
		memset(b->p + start, ' ', 3 - w);
	}
	ob_putc(b, ':');
	start = b->len;
	ob_u64(b, m->dev_minor);
	w = b->len - start;
	if (cx->aligned && w < 3)
		ob_put(b, "  ", 3 - w);
}

/*
 * A 32-bit mount id as findmnt prints it: libmount keeps it in an int and
 * prints "%d", so a file's 2147483648 is -2147483648 and 4294967295 is -1
 * (the kernel's own ids stay below 2^31).
 */
static void ob_id(struct obuf *b, uint32_t id)
{
	if (id > INT32_MAX) {
		ob_putc(b, '-');
		id = (uint32_t)(-(uint64_t)id); /* |(int32_t)id|, 2^31 included */
	}
	ob_u64(b, id);
}

static void get_id(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	(void)cx;
	/* 0 is libmount's "no id" (a parsed line that had none) */
	if (m->id_old)
		ob_id(b, m->id_old);
}

static void get_parent(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	uint32_t pid = cx->parent_ids ? cx->parent_ids[m->index] : m->parent_id_old;

	if (pid)
		ob_id(b, pid);
}

static void get_propagation(struct obuf *b, const struct mntsnap_mount *m,
			    const struct col_ctx *cx)
{
	/* findmnt shows a kernel entry's flags: none read from /proc/mounts */
	if (cx->fstab && fstab_of(m)->fs_kernel && !(m->mask & MNTSNAP_F_PROPAGATION)) {
		ob_puts(b, "private");
		return;
	}
	if (!(m->mask & MNTSNAP_F_PROPAGATION))
		return;
	ob_puts(b, m->propagation & MNTSNAP_PROP_SHARED ? "shared" : "private");
	if (m->propagation & MNTSNAP_PROP_SLAVE)
		ob_puts(b, ",slave");
	if (m->propagation & MNTSNAP_PROP_UNBINDABLE)
		ob_puts(b, ",unbindable");
}

/* mountinfo's optional fields, space-separated, in the kernel's order. */
static void get_opt_fields(struct obuf *b, const struct mntsnap_mount *m,
			   const struct col_ctx *cx)
{
	size_t start = b->len;

	(void)cx;
	/* parsed text with a tag this build does not know: as the line had it */
	if (m->opt_fields && m->opt_fields[0]) {
		ob_puts(b, m->opt_fields);
		return;
	}
	if (m->propagation & MNTSNAP_PROP_SHARED) {
		ob_puts(b, " shared:");
		ob_u64(b, m->peer_group);
	}
	if (m->propagation & MNTSNAP_PROP_SLAVE) {
		ob_puts(b, " master:");
		ob_u64(b, m->master);
		if (m->propagate_from && m->propagate_from != m->master) {
			ob_puts(b, " propagate_from:");
			ob_u64(b, m->propagate_from);
		}
	}
	if (m->propagation & MNTSNAP_PROP_UNBINDABLE)
		ob_puts(b, " unbindable");
	if (b->len > start && !b->err) {
		memmove(b->p + start, b->p + start + 1, b->len - start - 1);
		b->len--;
	}
}

/*
 * FREQ and PASSNO exist only in fstab (0 when missing): empty for every mount
 * table, and for the lines of /proc/mounts, which libmount calls the kernel's.
 */
static void put_int(struct obuf *b, int v)
{
	if (v < 0)
		ob_putc(b, '-');
	ob_u64(b, v < 0 ? -(uint64_t)v : (uint64_t)v);
}

/* a pid_t, as findmnt prints it ("%d": a file's directory may say -5) */
static void get_tid(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	long tid = cx->tids ? cx->tids[m->index] : cx->tid;

	if (tid)
		put_int(b, (int)tid);
}

static void get_freq(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	if (cx->fstab && !fstab_of(m)->fs_kernel)
		put_int(b, fstab_of(m)->freq);
}

static void get_passno(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	if (cx->fstab && !fstab_of(m)->fs_kernel)
		put_int(b, fstab_of(m)->passno);
}

/* Tag NAME of a source NAME2=value: its own value, else (with the cache) its device's. */
static char *tag_of_tag(const char *src, const char *name, const struct col_ctx *cx)
{
	char *tn = NULL, *tv = NULL, *v = NULL, *dev;

	if (tags_parse(src, &tn, &tv))
		return NULL;
	if (!strcmp(tn, name)) {
		v = tv, tv = NULL;
	} else if (!cx->nocache && (dev = tags_cache_resolve(cx->tags, tn, tv))) {
		v = tags_cache_value(cx->tags, dev, name);
		free(dev);
	}
	free(tn), free(tv);
	return v;
}

/*
 * Tag NAME of a path source, as libmount's: the path resolved (relative
 * to the working directory, as mnt_resolve_path()), then probed. libmount
 * probes whatever file that is; only a block device or a regular file (an
 * image) holds a filesystem, so nothing else is opened (a FIFO or a
 * character device a mount's source text happens to name).
 */
static char *path_tag(const char *src, const char *name, const struct col_ctx *cx)
{
	char *p = col_resolve_cx(cx, src), *v = NULL;
	struct stat st;

	if (!stat(p ? p : src, &st) && (S_ISBLK(st.st_mode) || S_ISREG(st.st_mode)))
		v = tags_cache_value(cx->tags, p ? p : src, name);
	free(p);
	return v;
}

/*
 * LABEL, UUID, PARTLABEL, PARTUUID as findmnt's get_tag(): an fstab
 * entry's own tag of that name, else what libblkid says of the source
 * device (nothing in a build without libblkid).
 */
static void put_tag(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx,
		    const char *name)
{
	char *v = NULL;

	if (cx->fstab && fstab_of(m)->tagname) {
		if (!strcmp(fstab_of(m)->tagname, name)) {
			ob_puts(b, fstab_of(m)->tagval);
			return;
		}
		/* a tag of another name: its device's value, through the run's cache */
		if (!cx->nocache)
			v = tags_cache_resolve(cx->tags, fstab_of(m)->tagname, fstab_of(m)->tagval);
		if (v) {
			char *dv = tags_cache_value(cx->tags, v, name);

			free(v);
			v = dv;
		}
	} else if ((m->mask & MNTSNAP_F_SOURCE) && is_tag(m->source)) {
		/* a tag as a mount's source (libmount keeps it as one) */
		v = tag_of_tag(m->source, name, cx);
	} else if (!cx->nocache && (m->mask & MNTSNAP_F_SOURCE) && m->source[0]) {
		v = path_tag(m->source, name, cx);
	}
	if (v)
		ob_puts(b, v);
	free(v);
}

static void get_label(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	put_tag(b, m, cx, "LABEL");
}

static void get_partlabel(struct obuf *b, const struct mntsnap_mount *m,
			  const struct col_ctx *cx)
{
	put_tag(b, m, cx, "PARTLABEL");
}

static void get_partuuid(struct obuf *b, const struct mntsnap_mount *m,
			 const struct col_ctx *cx)
{
	put_tag(b, m, cx, "PARTUUID");
}

/*
 * The table's own UUID for m (a live capture's, the superblock's; a
 * snapshot's saved with --full), NULL where it has none: a table read
 * from a file then asks libblkid (file_uuid).
 */
static const char *table_uuid(const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	return !cx->fstab && (m->mask & MNTSNAP_F_UUID) ? m->uuid : NULL;
}

/*
 * SOURCES as findmnt: every device with the entry's tag (with -e) or with
 * the UUID of a /dev/ source (libblkid's; a table from a file: the UUID
 * column's, so a snapshot's saved one first), one a line; else SOURCE's
 * value.
 */
static void get_sources(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	char *v = NULL, *tn = NULL, *tv = NULL;
	int r = record_tag(m, cx, &tn, &tv);

	if (r == -ENOMEM) {
		b->err = r;
		return;
	}
	if (!r) {
		if (cx->evaluate)
			v = tags_devices(cx->tags, tn, tv);
	} else if ((m->mask & MNTSNAP_F_SOURCE) && !strncmp(m->source, "/dev/", 5)) {
		/* the UUID column's: a saved one (show of save --full) wins */
		const char *saved = cx->file_uuid ? table_uuid(m, cx) : NULL;

		if (!saved)
			v = tags_uuid_devices(cx->tags, m->source);
		else if (*saved)
			v = tags_devices(cx->tags, "UUID", saved);
	}
	if (v && *v)
		ob_puts(b, v);
	else
		get_source(b, m, cx);
	free(v);
	free(tn);
	free(tv);
}

static void get_uniq_id(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	(void)cx;
	if (m->mask & MNTSNAP_F_ID)
		ob_u64(b, m->id);
}

static void get_uniq_parent(struct obuf *b, const struct mntsnap_mount *m,
			    const struct col_ctx *cx)
{
	(void)cx;
	if (m->mask & MNTSNAP_F_ID)
		ob_u64(b, m->parent_id);
}

static void get_ns_id(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	(void)cx;
	if ((m->mask & MNTSNAP_F_NS_ID) && m->ns_id)
		ob_u64(b, m->ns_id);
}

static void get_peer_group(struct obuf *b, const struct mntsnap_mount *m,
			   const struct col_ctx *cx)
{
	(void)cx;
	if (m->propagation & MNTSNAP_PROP_SHARED)
		ob_u64(b, m->peer_group);
}

static void get_master(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	(void)cx;
	if (m->propagation & MNTSNAP_PROP_SLAVE)
		ob_u64(b, m->master);
}

static void get_propagate_from(struct obuf *b, const struct mntsnap_mount *m,
			       const struct col_ctx *cx)
{
	(void)cx;
	if (m->propagate_from)
		ob_u64(b, m->propagate_from);
}

static void get_sb_magic(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	(void)cx;
	if (m->mask & MNTSNAP_F_SB_MAGIC)
		ob_hex(b, m->sb_magic);
}

static void get_sb_flags(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	(void)cx;
	if (m->mask & MNTSNAP_F_SB_FLAGS)
		ob_hex(b, m->sb_flags);
}

static void get_attr(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	(void)cx;
	if (m->mask & MNTSNAP_F_ATTR)
		ob_hex(b, m->attr);
}

static void get_fs_subtype(struct obuf *b, const struct mntsnap_mount *m,
			   const struct col_ctx *cx)
{
	(void)cx;
	if (m->mask & MNTSNAP_F_FS_SUBTYPE)
		ob_puts(b, m->fs_subtype);
}

static void put_list(struct obuf *b, const char *list, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			ob_putc(b, ',');
		ob_puts(b, list);
		list += strlen(list) + 1;
	}
}

static void get_sec_options(struct obuf *b, const struct mntsnap_mount *m,
			    const struct col_ctx *cx)
{
	(void)cx;
	if (m->mask & MNTSNAP_F_OPT_SEC_ARRAY)
		put_list(b, m->opt_sec_array, m->opt_sec_num);
}

static void get_uidmap(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	(void)cx;
	if (m->mask & MNTSNAP_F_UIDMAP)
		put_list(b, m->uidmap, m->uidmap_num);
}

/*
 * findmnt's UUID is libblkid's for the source device (get_tag()), never
 * the filesystem's own: a cloned btrfs mounted beside its original runs
 * with a temporary fsid (Linux 6.7+, FS_IOC_GETFSUUID answers it), and
 * findmnt still shows the on-disk UUID; a source that names no device
 * (tmpfs, overlay, a device outside this mount namespace) has none. So a
 * CLI built with libblkid asks it for a live table too. Built without,
 * the live table's UUID is the library's (the superblock's, else udev's
 * link): where findmnt shows one it is the same, save such a clone's.
 * A table from a file or a snapshot shows what it holds, else libblkid's.
 */
static void get_uuid(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	const char *u = tags_have() && !cx->file_uuid ? NULL : table_uuid(m, cx);

	if (u) {
		if (!cx->nocache)
			ob_puts(b, u);
	} else if (cx->fstab || cx->file_uuid || tags_have()) {
		put_tag(b, m, cx, "UUID");
	}
}

static void get_gidmap(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	(void)cx;
	if (m->mask & MNTSNAP_F_GIDMAP)
		put_list(b, m->gidmap, m->gidmap_num);
}

/*
 * SIZE, AVAIL, USED, USE%: statvfs(2) of the mount point as this process
 * sees it, as findmnt does (also for a table read from a file or another
 * namespace, where the path may name something else or nothing).
 */
enum size_kind { SZ_SIZE, SZ_AVAIL, SZ_USED, SZ_USEPERC };

/*
 * util-linux's size_to_human_string(SIZE_SUFFIX_1LETTER): "4K", "23.5G",
 * with the decimal point of findmnt's LC_NUMERIC ("23,5G" in de_DE)
 */
static void put_human(struct obuf *b, uint64_t bytes, const char *decimal_point)
{
	static const char letters[] = "BKMGTPE";
	const char *dp = *decimal_point ? decimal_point : ".";
	int exp = 0;
	uint64_t dec, frac;
	char tmp[48];

	while (exp < 60 && bytes >= (1ULL << (exp + 10)))
		exp += 10;
	dec = exp ? bytes >> exp : bytes;
	frac = exp ? bytes & ((1ULL << exp) - 1) : 0;
	if (frac) {
		/* three digits after the point, rounded to one */
		if (frac >= UINT64_MAX / 1000)
			frac = ((frac / 1024) * 1000) / (1ULL << (exp - 10));
		else
			frac = (frac * 1000) / (1ULL << exp);
		frac = ((frac + 50) / 100) * 10;
		if (frac == 100) {
			dec++;
			frac = 0;
		}
	}
	if (frac) {
		int len = snprintf(tmp, sizeof(tmp), "%" PRIu64 "%s%02" PRIu64, dec, dp, frac);

		if (len > 0 && tmp[len - 1] == '0')
			len--;
		ob_put(b, tmp, (size_t)len);
	} else {
		ob_u64(b, dec);
	}
	ob_putc(b, letters[exp / 10]);
}

static void put_size(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx,
		     enum size_kind k)
{
	struct statvfs st;
	uint64_t v = 0;

	if (statvfs(m->mount_point, &st))
		return;
	switch (k) {
	case SZ_SIZE:
		v = (uint64_t)st.f_frsize * st.f_blocks;
		break;
	case SZ_AVAIL:
		v = (uint64_t)st.f_frsize * st.f_bavail;
		break;
	case SZ_USED:
		v = (uint64_t)st.f_frsize * (st.f_blocks - st.f_bfree);
		break;
	case SZ_USEPERC: {
		char tmp[16];

		if (!st.f_blocks) {
			ob_putc(b, '-');
			return;
		}
		snprintf(tmp, sizeof(tmp), "%.0f%%",
			 (double)(st.f_blocks - st.f_bfree) / (double)st.f_blocks * 100);
		ob_puts(b, tmp);
		return;
	}
	}
	if (!v)
		ob_putc(b, '0');
	else if (cx->bytes)
		ob_u64(b, v);
	else
		put_human(b, v, cx->loc.decimal_point);
}

static void get_size(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	put_size(b, m, cx, SZ_SIZE);
}

static void get_avail(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	put_size(b, m, cx, SZ_AVAIL);
}

static void get_used(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	put_size(b, m, cx, SZ_USED);
}

static void get_useperc(struct obuf *b, const struct mntsnap_mount *m,
			const struct col_ctx *cx)
{
	put_size(b, m, cx, SZ_USEPERC);
}

#define A COL_JSON_ARRAY
#define Z COL_JSON_SIZE
#define S COL_JSON_STRING
#define N COL_JSON_NUMBER
#define U COL_JSON_U64
const struct column cols_all[] = {
	/* findmnt's names and meanings */
	{ "target", "TARGET", "mountpoint", S, 0, 0, get_target },
	{ "source", "SOURCE", "source device, [FSROOT] appended for a bind mount", S, 0, 0,
	  get_source },
	{ "fstype", "FSTYPE", "filesystem type (type.subtype)", S, 0, 0, get_fstype },
	{ "options", "OPTIONS", "all mount options (VFS and FS, one rw/ro)", S, 0, 0,
	  get_options },
	{ "vfs-options", "VFS-OPTIONS", "VFS specific mount options", S, 0, 0, get_vfs_options },
	{ "fs-options", "FS-OPTIONS", "FS specific mount options", S, 0, 0, get_fs_options },
	{ "opt-fields", "OPT-FIELDS", "optional mount fields", S, 0, 0, get_opt_fields },
	{ "uuid", "UUID", "filesystem UUID", S, 0, 36, get_uuid, MNTSNAP_F_UUID },
	{ "fsroot", "FSROOT", "filesystem root", S, 0, 0, get_fsroot },
	{ "maj:min", "MAJ:MIN", "major:minor device number", S, 0, 6, get_majmin },
	{ "id", "ID", "mount ID", N, COL_RIGHT, 2, get_id },
	{ "parent", "PARENT", "mount parent ID", N, COL_RIGHT, 0, get_parent },
	{ "propagation", "PROPAGATION", "VFS propagation flags", S, 0, 0, get_propagation },
	{ "tid", "TID", "task ID (-N/--pid)", N, COL_RIGHT, 4, get_tid },
	{ "freq", "FREQ", "dump(8) period in days [fstab only]", N, COL_RIGHT, 0, get_freq },
	{ "size", "SIZE", "filesystem size (statvfs of the mountpoint)", Z, COL_RIGHT, 5,
	  get_size },
	{ "avail", "AVAIL", "filesystem size available", Z, COL_RIGHT, 5, get_avail },
	{ "used", "USED", "filesystem size used", Z, COL_RIGHT, 5, get_used },
	{ "use%", "USE%", "filesystem use percentage", S, COL_RIGHT, 3, get_useperc },
	{ "passno", "PASSNO", "pass number on parallel fsck(8) [fstab only]", N, COL_RIGHT, 0,
	  get_passno },
	{ "sources", "SOURCES", "all possible source devices (libblkid)", A, 0, 0, get_sources },
	{ "label", "LABEL", "filesystem label (libblkid)", S, 0, 0, get_label },
	{ "partlabel", "PARTLABEL", "partition label (libblkid)", S, 0, 0, get_partlabel },
	{ "partuuid", "PARTUUID", "partition UUID (libblkid)", S, 0, 36, get_partuuid },
	/* mntsnap's own */
	{ "uniq-id", "UNIQ-ID", "64-bit unique mount ID", U, COL_RIGHT, 0, get_uniq_id },
	{ "uniq-parent", "UNIQ-PARENT", "64-bit unique parent mount ID", U, COL_RIGHT, 0,
	  get_uniq_parent },
	{ "ns-id", "NS-ID", "mount namespace ID", U, COL_RIGHT, 0, get_ns_id },
	{ "peer-group", "PEER-GROUP", "shared:N peer group", N, COL_RIGHT, 0, get_peer_group },
	{ "master", "MASTER", "master:N peer group of the master", N, COL_RIGHT, 0, get_master },
	{ "propagate-from", "PROPAGATE-FROM", "propagate_from:N", N, COL_RIGHT, 0,
	  get_propagate_from },
	{ "fs-subtype", "FS-SUBTYPE", "filesystem subtype (FUSE)", S, 0, 0, get_fs_subtype },
	{ "sb-magic", "SB-MAGIC", "superblock magic (statfs f_type)", S, 0, 0, get_sb_magic },
	{ "sb-flags", "SB-FLAGS", "superblock flags (SB_RDONLY ...)", S, 0, 0, get_sb_flags },
	{ "attr", "ATTR", "mount attributes (MOUNT_ATTR_*)", S, 0, 0, get_attr },
	{ "sec-options", "SEC-OPTIONS", "security (LSM) mount options", S, 0, 0,
	  get_sec_options, MNTSNAP_F_OPT_SEC_ARRAY },
	{ "uidmap", "UIDMAP", "idmapped mount uid map", S, 0, 0, get_uidmap, MNTSNAP_F_UIDMAP },
	{ "gidmap", "GIDMAP", "idmapped mount gid map", S, 0, 0, get_gidmap, MNTSNAP_F_GIDMAP },
};
#undef A
#undef Z
#undef S
#undef N
#undef U
const size_t cols_all_count = sizeof(cols_all) / sizeof(cols_all[0]);

bool col_is_blkid(const struct column *c)
{
	return !strcmp(c->name, "label") || !strcmp(c->name, "partlabel") ||
	       !strcmp(c->name, "partuuid") || !strcmp(c->name, "sources");
}

bool col_keeps(const struct column *c, const struct col_ctx *cx)
{
	if (!strcmp(c->name, "source"))
		return cx->evaluate || cx->canonicalize;
	return col_is_blkid(c) || !strcmp(c->name, "uuid");
}

/*
 * findmnt's column_name_to_id(): strncasecmp() against the upper-case
 * name, in the process's LC_CTYPE. So "options" is OPTIONS in C, but in
 * tr_TR, where 'i' and 'I' are no case pair, only "OPTIONS" is (and our
 * own upper-case lists, COLS_DEFAULT and the rest, always are).
 */
bool col_name_is(const char *header, const char *name, size_t len)
{
	/*
	 * strncasecmp()'s compare spelled out with tolower(), which reads the
	 * locale's table: a sanitizer build's strncasecmp() interceptor folds
	 * ASCII case whatever the locale, so the same binary would answer
	 * otherwise under AddressSanitizer
	 */
	if (strlen(header) != len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (tolower((unsigned char)header[i]) != tolower((unsigned char)name[i]))
			return false;
	return true;
}

const struct column *col_find(const char *name, size_t len)
{
	for (size_t i = 0; i < cols_all_count; i++)
		if (col_name_is(cols_all[i].header, name, len))
			return &cols_all[i];
	return NULL;
}

int col_walk(const char *list, size_t k, size_t max,
	     int (*fn)(void *arg, const char *name, size_t len), void *arg)
{
	const char *begin = NULL;
	int r;

	if (!*list)
		return 1;
	for (const char *p = list; *p; p++) {
		const char *end = NULL;

		if (k >= max)
			return -E2BIG;
		if (!begin)
			begin = p;
		if (*p == ',')
			end = p;
		if (!p[1])
			end = p + 1;
		if (!end)
			continue;
		if (end <= begin)
			return 1;
		r = fn(arg, begin, (size_t)(end - begin));
		if (r)
			return r;
		k++;
		begin = NULL;
	}
	return 0;
}

struct col_parse_state {
	const struct column **out;
	size_t k;
	const char **bad;
	size_t *badlen;
};

static int col_parse_one(void *arg, const char *name, size_t len)
{
	struct col_parse_state *st = arg;
	const struct column *c = col_find(name, len);

	*st->bad = name;
	*st->badlen = len;
	if (!c)
		return -EINVAL;
	st->out[st->k++] = c;
	return 0;
}

/* "+LIST" extends the columns already chosen, otherwise it replaces them */
int col_parse(const char *spec, const struct column **out, size_t *n, size_t max,
	      const char **bad, size_t *badlen)
{
	bool plus = *spec == '+';
	struct col_parse_state st = { .out = out, .k = plus ? *n : 0, .bad = bad,
				      .badlen = badlen };
	int r = col_walk(spec + plus, st.k, max, col_parse_one, &st);

	if (r)
		return r == 1 ? -ENODATA : r;
	*n = st.k;
	return 0;
}

static int col_count_one(void *arg, const char *name, size_t len)
{
	(void)arg, (void)name, (void)len;
	return 0;
}

bool col_overflow(const char *spec, size_t n, size_t max)
{
	bool plus = *spec == '+';

	/* col_parse()'s walk, names counted, not looked up */
	return col_walk(spec + plus, plus ? n : 0, max, col_count_one, NULL) == -E2BIG;
}

const char *col_shellvar(const char *name, char *buf, size_t size)
{
	size_t k = 0, n = strlen(name);

	/* libsmartcols: "1FOO%" -> "_1FOO_PCT" */
	if (n + 5 > size)
		return name;
	if (!((name[0] | 32) >= 'a' && (name[0] | 32) <= 'z'))
		buf[k++] = '_';
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		bool alnum = ((c | 32) >= 'a' && (c | 32) <= 'z') || (c >= '0' && c <= '9');

		buf[k++] = alnum ? c : '_';
	}
	if (n && name[n - 1] == '%')
		memcpy(buf + k, "PCT", 3), k += 3;
	buf[k] = '\0';
	return buf;
}

void col_help(FILE *f)
{
	for (size_t i = 0; i < cols_all_count; i++)
		fprintf(f, "  %14s  %s\n", cols_all[i].header, cols_all[i].help);
}
