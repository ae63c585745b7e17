// SPDX-License-Identifier: MIT
/*
 * JSON rendering: a flat list like `findmnt --list --json`, with findmnt's
 * field names where findmnt has the field (target, source, fstype, options,
 * vfs-options, fs-options, fsroot, maj:min, id, parent, propagation,
 * uniq-id, uniq-parent) and snake_case names for what findmnt lacks.
 *
 * Paths are bytes, JSON is UTF-8: valid UTF-8 passes through, every other
 * byte b is written as \u00bb (its Latin-1 reading), so output is always
 * valid JSON and no byte is silently dropped.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "snapshot.h"

/* Length of a valid UTF-8 sequence at s (1..4), 0 if invalid. */
static int utf8_len(const unsigned char *s)
{
	int n;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		n = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* reject overlong forms, surrogates and out-of-range code points */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/* A JSON string literal for str (see the top of this file). */
void mntsnap_json_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		int n = utf8_len(s);

		if (n == 1 && *s >= 0x20 && *s != '"' && *s != '\\') {
			fputc(*s++, f);
		} else if (n == 1 && (*s == '"' || *s == '\\')) {
			fputc('\\', f);
			fputc(*s++, f);
		} else if (n > 1) {
			fwrite(s, 1, (size_t)n, f);
			s += n;
		} else {
			fprintf(f, "\\u%04x", *s++);
		}
	}
	fputc('"', f);
}

static void json_list(FILE *f, const char *list, uint32_t n)
{
	fputc('[', f);
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		mntsnap_json_str(f, list);
		list += strlen(list) + 1;
	}
	fputc(']', f);
}

static void key(FILE *f, const char *k)
{
	fprintf(f, ",\"%s\":", k);
}

static void propagation_str(const struct mntsnap_mount *m, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s",
		 m->propagation & MNTSNAP_PROP_SHARED ? "shared" : "",
		 (m->propagation & MNTSNAP_PROP_SHARED) && (m->propagation & MNTSNAP_PROP_SLAVE)
			 ? ","
			 : "",
		 m->propagation & MNTSNAP_PROP_SLAVE ? "slave" : "",
		 m->propagation & MNTSNAP_PROP_UNBINDABLE ? "unbindable"
		 : !(m->propagation & (MNTSNAP_PROP_SHARED | MNTSNAP_PROP_SLAVE)) ? "private"
										: "");
}

static void fs_options(const struct mntsnap_mount *m, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s%s%s", m->sb_flags & MNTSNAP_SB_RDONLY ? "ro" : "rw",
		 m->sb_flags & MNTSNAP_SB_SYNCHRONOUS ? ",sync" : "",
		 m->sb_flags & MNTSNAP_SB_DIRSYNC ? ",dirsync" : "",
		 m->sb_flags & MNTSNAP_SB_MANDLOCK ? ",mand" : "",
		 m->sb_flags & MNTSNAP_SB_LAZYTIME ? ",lazytime" : "",
		 m->options[0] ? "," : "", m->options);
}

static void key_u64(FILE *f, const char *k, uint64_t v)
{
	fprintf(f, ",\"%s\":%" PRIu64, k, v);
}

/* One record as a JSON object (shared with the snapshot export). */
int mntsnap_json_mount(FILE *f, const struct mntsnap_mount *m)
{
	char vfs[128], prop[40], *fso, *all;
	size_t fsolen = strlen(m->options) + 64;

	fso = malloc(fsolen);
	all = malloc(fsolen + sizeof(vfs) + 1);
	if (!fso || !all) {
		free(fso);
		free(all);
		return -ENOMEM;
	}
	mntsnap_vfs_options(m, vfs, sizeof(vfs));
	propagation_str(m, prop, sizeof(prop));
	fs_options(m, fso, fsolen);
	snprintf(all, fsolen + sizeof(vfs) + 1, "%s,%s", vfs, fso);

	fprintf(f, "{\"id\":%" PRIu32 ",\"parent\":%" PRIu32, m->id_old, m->parent_id_old);
	if (m->mask & MNTSNAP_F_ID) {
		key_u64(f, "uniq-id", m->id);
		key_u64(f, "uniq-parent", m->parent_id);
	}
	key(f, "target");
	mntsnap_json_str(f, m->mount_point);
	key(f, "source");
	mntsnap_json_str(f, m->mask & MNTSNAP_F_SOURCE ? m->source : "none");
	key(f, "fstype");
	mntsnap_json_str(f, m->fs_type);
	key(f, "options");
	mntsnap_json_str(f, all);
	key(f, "vfs-options");
	mntsnap_json_str(f, vfs);
	key(f, "fs-options");
	mntsnap_json_str(f, fso);
	key(f, "fsroot");
	mntsnap_json_str(f, m->root);
	fprintf(f, ",\"maj:min\":\"%" PRIu32 ":%" PRIu32 "\"", m->dev_major, m->dev_minor);
	key(f, "propagation");
	mntsnap_json_str(f, prop);
	/* what findmnt does not have */
	key_u64(f, "peer_group", m->peer_group);
	key_u64(f, "master", m->master);
	key_u64(f, "propagate_from", m->propagate_from);
	key_u64(f, "ns_id", m->ns_id);
	fprintf(f, ",\"sb_magic\":\"0x%" PRIx64 "\"", m->sb_magic);
	fprintf(f, ",\"sb_flags\":\"0x%" PRIx32 "\"", m->sb_flags);
	fprintf(f, ",\"attr\":\"0x%" PRIx32 "\"", m->attr);
	fprintf(f, ",\"mask\":\"0x%" PRIx32 "\"", m->mask);
	if (m->mask & MNTSNAP_F_FS_SUBTYPE) {
		key(f, "fs_subtype");
		mntsnap_json_str(f, m->fs_subtype);
	}
	if (m->mask & MNTSNAP_F_OPT_ARRAY) {
		key(f, "opt_array");
		json_list(f, m->opt_array, m->opt_num);
	}
	if (m->mask & MNTSNAP_F_OPT_SEC_ARRAY) {
		key(f, "opt_sec_array");
		json_list(f, m->opt_sec_array, m->opt_sec_num);
	}
	if (m->mask & MNTSNAP_F_UIDMAP) {
		key(f, "uidmap");
		json_list(f, m->uidmap, m->uidmap_num);
	}
	if (m->mask & MNTSNAP_F_GIDMAP) {
		key(f, "gidmap");
		json_list(f, m->gidmap, m->gidmap_num);
	}
	fputc('}', f);
	free(fso);
	free(all);
	return 0;
}

int mntsnap_render_json(const struct mntsnap_snapshot *snap, FILE *f)
{
	size_t n = mntsnap_snapshot_count(snap);
	struct mntsnap_mount m;
	int r = 0;

	fprintf(f, "{\"backend\":\"%s\",\"ns_id\":%" PRIu64 ",\"time_ns\":%" PRIu64
		   ",\"count\":%zu,\"filesystems\":[",
		mntsnap_backend_name(snap->backend), snap->ns_id, snap->time_ns, n);
	for (size_t i = 0; i < n && !r; i++) {
		mntsnap_snapshot_get(snap, i, &m);
		fputs(i ? ",\n  " : "\n  ", f);
		r = mntsnap_json_mount(f, &m);
		if (!r)
			r = mntsnap__record_written(f);
	}
	fputs("\n]}\n", f);
	return r;
}
