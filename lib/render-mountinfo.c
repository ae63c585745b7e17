// SPDX-License-Identifier: MIT
/*
 * Render records as /proc/PID/mountinfo text, byte for byte what the
 * kernel's show_mountinfo() (fs/proc_namespace.c) prints:
 *
 *   id parent major:minor root mount_point mnt_opts [optional...] - type source sb_opts
 *
 * statmount returns root, mount point and source unescaped; the kernel's
 * text escapes " \t\n\\" as \ooo in paths and additionally "#" in the fs
 * type and a plain source (mangle()). A filesystem with its own
 * ->show_devname escapes its source itself (see devname_esc()). mnt_opts
 * comes back already escaped by the filesystem and is used verbatim, but
 * for a raw newline (see put_sb_opts()).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mntsnap.h"
#include "render.h"
#include "snapshot.h"

struct out {
	char *buf;
	size_t len, pos;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->pos < o->len) {
		size_t room = o->len - o->pos;

		memcpy(o->buf + o->pos, s, n < room ? n : room);
	}
	o->pos += n;
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void put_u64(struct out *o, uint64_t v)
{
	char tmp[24];
	int i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(o, tmp + i, sizeof(tmp) - (size_t)i);
}

/* Escape exactly like seq_escape(ESCAPE_OCTAL, only=esc). */
static void put_escaped(struct out *o, const char *s, const char *esc)
{
	const char *run = s;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char oct[4];

		if (!strchr(esc, c))
			continue;
		put(o, run, (size_t)(s - run));
		oct[0] = '\\';
		oct[1] = (char)('0' + ((c >> 6) & 7));
		oct[2] = (char)('0' + ((c >> 3) & 7));
		oct[3] = (char)('0' + (c & 7));
		put(o, oct, 4);
		run = s + 1;
	}
	put(o, run, (size_t)(s - run));
}

#define ESC_PATH " \t\n\\"
#define ESC_MANGLE " \t\n\\#"
#define ESC_OPTS "\n"

/*
 * show_mountinfo() prints the source with sb->s_op->show_devname() when the
 * filesystem has one, else mangle(mnt_devname ?: "none"), which escapes
 * '#' too. The filesystems in mainline (6.18) with a ->show_devname, and
 * what each escapes:
 *
 *   nfs, nfs4      nfs_show_devname():   seq_escape(" \t\n\\")
 *   btrfs          btrfs_show_devname(): seq_escape(" \t\n\\")
 *   cifs, smb3     cifs_show_devname():  '\\' turned into '/', then
 *                                        seq_escape(" \t")
 *   afs            afs_show_devname():   seq_printf, nothing escaped; the
 *                                        source starts with '%' or '#'
 *                                        ("#cell:root.cell.")
 *
 * None of them escapes '#', so none gets ESC_MANGLE. For cifs and afs the
 * kernel escapes less than ESC_PATH, but the extra bytes cannot reach
 * their sources there (cifs has no '\\' left, cell and volume names hold
 * no whitespace or backslash), and escaping them keeps any text that
 * parsed renderable as text that parses again. ceph, 9p, fuse, overlay
 * and the rest have no ->show_devname: mangle().
 */
static const char *devname_esc(const char *fs_type)
{
	static const char *const own[] = { "nfs", "nfs4", "btrfs", "cifs", "smb3", "afs" };

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!strcmp(fs_type, own[i]))
			return ESC_PATH;
	return ESC_MANGLE;
}

static void put_mnt_opts(struct out *o, const struct mntsnap_mount *m)
{
	/*
	 * show_mountinfo() prints the mount's own MNT_READONLY here; a read-only
	 * superblock shows only in the super options (checked on 6.18: a rw
	 * bind of a tmpfs remounted ro reads "rw ... - tmpfs src ro").
	 */
	bool ro = m->attr & MNTSNAP_ATTR_RDONLY;
	uint32_t atime = m->attr & MNTSNAP_ATTR__ATIME;

	/* parsed text this build could not write from attr: as it was */
	if (m->mnt_opts_text && m->mnt_opts_text[0]) {
		puts_(o, m->mnt_opts_text);
		return;
	}
	puts_(o, ro ? "ro" : "rw");
	if (m->attr & MNTSNAP_ATTR_NOSUID)
		puts_(o, ",nosuid");
	if (m->attr & MNTSNAP_ATTR_NODEV)
		puts_(o, ",nodev");
	if (m->attr & MNTSNAP_ATTR_NOEXEC)
		puts_(o, ",noexec");
	if (atime == MNTSNAP_ATTR_NOATIME)
		puts_(o, ",noatime");
	if (m->attr & MNTSNAP_ATTR_NODIRATIME)
		puts_(o, ",nodiratime");
	if (atime == MNTSNAP_ATTR_RELATIME)
		puts_(o, ",relatime");
	if (m->attr & MNTSNAP_ATTR_NOSYMFOLLOW)
		puts_(o, ",nosymfollow");
	if (m->attr & MNTSNAP_ATTR_IDMAP)
		puts_(o, ",idmapped");
}

/*
 * libmount's unmangle() in place: \ooo becomes its byte (the low 8 bits:
 * "\401" is byte 1), anything else stays. A decoded NUL ends the string,
 * as it ends libmount's. Returns the new length.
 */
static size_t unmangle_in_place(char *s)
{
	char *w = s, *start = s;

	for (; *s; s++, w++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w = (char)(((s[1] - '0') << 6) | ((s[2] - '0') << 3) | (s[3] - '0'));
			s += 3;
		} else {
			*w = *s;
		}
	}
	*w = '\0';
	return strnlen(start, (size_t)(w - start));
}

/*
 * VFS-OPTIONS as findmnt shows it: column 6 with \ooo unmangled, as
 * libmount unmangles every field. No kernel escapes this field, but kept
 * text (a hand-made or later kernel's line) may hold an escape; the
 * mountinfo renderer writes that text back as it was (put_mnt_opts).
 * Kept text has no length limit (neither has the kernel's column), so
 * this returns the length as snprintf() does: below len, the text is in
 * buf whole; else buf holds a cut-off prefix, and a buffer of the
 * returned length + 1 holds it all (the count is taken before the
 * unmangling, which only shrinks the text).
 */
size_t mntsnap__vfs_options(const struct mntsnap_mount *m, char *buf, size_t len)
{
	struct out o = { .buf = buf, .len = len };

	put_mnt_opts(&o, m);
	if (!len)
		return o.pos;
	buf[o.pos < len ? o.pos : len - 1] = '\0';
	if (o.pos >= len)
		return o.pos;
	if (m->mnt_opts_text && m->mnt_opts_text[0])
		return unmangle_in_place(buf);
	return o.pos;
}

static void put_optional(struct out *o, const struct mntsnap_mount *m)
{
	if (m->propagation & MNTSNAP_PROP_SHARED) {
		puts_(o, " shared:");
		put_u64(o, m->peer_group);
	}
	if (m->propagation & MNTSNAP_PROP_SLAVE) {
		puts_(o, " master:");
		put_u64(o, m->master);
		if (m->propagate_from && m->propagate_from != m->master) {
			puts_(o, " propagate_from:");
			put_u64(o, m->propagate_from);
		}
	}
	if (m->propagation & MNTSNAP_PROP_UNBINDABLE)
		puts_(o, " unbindable");
}

static void put_sb_opts(struct out *o, const struct mntsnap_mount *m)
{
	/* parsed text the fields below would not give back ("rw,") */
	if (m->sb_opts_text && m->sb_opts_text[0]) {
		puts_(o, " ");
		put_escaped(o, m->sb_opts_text, ESC_OPTS);
		return;
	}
	puts_(o, m->sb_flags & MNTSNAP_SB_RDONLY ? " ro" : " rw");
	if (m->sb_flags & MNTSNAP_SB_SYNCHRONOUS)
		puts_(o, ",sync");
	if (m->sb_flags & MNTSNAP_SB_DIRSYNC)
		puts_(o, ",dirsync");
	if (m->sb_flags & MNTSNAP_SB_MANDLOCK)
		puts_(o, ",mand");
	if (m->sb_flags & MNTSNAP_SB_LAZYTIME)
		puts_(o, ",lazytime");
	/*
	 * Options come escaped by the filesystem, so they go out verbatim,
	 * backslashes included; some filesystems print raw spaces (cifs's
	 * unc= on older kernels, kept as the kernel wrote it). A newline never
	 * comes from a line of text, but a loaded file is input and would
	 * split the record: it, and only it, is escaped.
	 */
	if ((m->mask & MNTSNAP_F_OPTS) && m->options[0]) {
		/* a parsed line's text after a bare ro/rw starts with its space */
		if (m->options[0] != ' ')
			puts_(o, ",");
		put_escaped(o, m->options, ESC_OPTS);
	}
}

long mntsnap_render_mountinfo_line(const struct mntsnap_mount *m, char *buf, size_t len)
{
	struct out o = { .buf = buf, .len = len };

	if (!m || (!buf && len))
		return -EINVAL;
	put_u64(&o, m->id_old);
	puts_(&o, " ");
	put_u64(&o, m->parent_id_old);
	puts_(&o, " ");
	put_u64(&o, m->dev_major);
	puts_(&o, ":");
	put_u64(&o, m->dev_minor);
	puts_(&o, " ");
	put_escaped(&o, m->root, ESC_PATH);
	puts_(&o, " ");
	put_escaped(&o, m->mount_point, ESC_PATH);
	puts_(&o, " ");
	put_mnt_opts(&o, m);
	/* parsed text with a tag we do not know: its fields as they were */
	if (m->opt_fields && m->opt_fields[0]) {
		puts_(&o, " ");
		puts_(&o, m->opt_fields);
	} else {
		put_optional(&o, m);
	}
	puts_(&o, " - ");
	put_escaped(&o, m->fs_type, ESC_MANGLE);
	if ((m->mask & MNTSNAP_F_FS_SUBTYPE) && m->fs_subtype[0]) {
		puts_(&o, ".");
		put_escaped(&o, m->fs_subtype, ESC_MANGLE);
	}
	puts_(&o, " ");
	/* no source at all: the kernel prints mangle(mnt_devname ?: "none") */
	if (m->mask & MNTSNAP_F_SOURCE)
		put_escaped(&o, m->source, devname_esc(m->fs_type));
	else
		puts_(&o, "none");
	put_sb_opts(&o, m);
	puts_(&o, "\n");
	if (len)
		buf[o.pos < len ? o.pos : len - 1] = '\0';
	return (long)o.pos;
}

int mntsnap__render_mountinfo(const struct mntsnap_snapshot *snap, FILE *f)
{
	size_t n = mntsnap__snapshot_count(snap);
	char stack[1024], *line = stack, *big = NULL;
	size_t cap = sizeof(stack);
	struct mntsnap_mount m;
	int r = 0;

	for (size_t i = 0; i < n; i++) {
		long len;

		mntsnap__snapshot_get(snap, i, &m);
		len = mntsnap_render_mountinfo_line(&m, line, cap);
		if ((size_t)len >= cap) {
			char *nb = realloc(big, (size_t)len + 1);

			if (!nb) {
				r = -ENOMEM;
				break;
			}
			big = line = nb;
			cap = (size_t)len + 1;
			len = mntsnap_render_mountinfo_line(&m, line, cap);
		}
		if (fwrite(line, 1, (size_t)len, f) != (size_t)len) {
			r = errno ? -errno : -EIO; /* a full disk is not an I/O error */
			break;
		}
	}
	free(big);
	return r;
}
