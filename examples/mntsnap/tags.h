/* SPDX-License-Identifier: MIT */
/*
 * Block device tags (LABEL=, UUID=, PARTUUID=, PARTLABEL=, ID=) for
 * findmnt's -e, -S TAG=value and its LABEL, UUID, PARTLABEL, PARTUUID and
 * SOURCES columns, and for its UUID column (findmnt shows libblkid's UUID
 * of the source device, never the filesystem's own). libblkid answers,
 * when the CLI is built with it (an optional dependency, like json-c: the
 * core library never needs it); without it tags_have() is false and every
 * lookup finds nothing.
 * Every string returned is malloc'd (free() it), NULL when none.
 */
#ifndef MNTSNAP_TAGS_H
#define MNTSNAP_TAGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Built with libblkid? */
bool tags_have(void);

/* The device NAME=value names (udev's links, else libblkid's default cache), or NULL. */
char *tags_evaluate(const char *name, const char *value);

/* "NAME=value" (value maybe quoted) split as libblkid does; 0 or -EINVAL. */
int tags_parse(const char *spec, char **ret_name, char **ret_value);

/*
 * A source libmount takes as a tag (blkid_parse_tag_string() and a name
 * mnt_valid_tagname() knows: LABEL, UUID, PARTUUID, PARTLABEL, ID), in any
 * table, fstab or mount; 0 (name and value malloc'd), -EINVAL or -ENOMEM.
 */
int tags_source(const char *spec, char **ret_name, char **ret_value);

/*
 * LABEL=, UUID=, PARTLABEL=, PARTUUID=: the tags findmnt's lookups resolve
 * to a device by their prefix alone (a path never starts so).
 */
bool tags_is_devtag(const char *s);

/* dev's tag NAME (LABEL, UUID, PARTLABEL, PARTUUID, TYPE), probed directly. */
char *tags_device_value(const char *dev, const char *name);

/*
 * findmnt's SOURCES cache: libblkid's default cache, scanned
 * (blkid_probe_all()) at its first use and kept for one listing or one
 * poll, as findmnt keeps it for its run. Zeroed to start;
 * tags_cache_release() ends it (as root that may write libblkid's cache
 * file, see tags.c).
 */
/* a cell kept for the printing (tags.c) */
struct tags_kept;

struct tags_cache {
	void *blkid; /* the blkid_cache, NULL until first used */
	/*
	 * libmount's cache (struct libmnt_cache) for one run of list, show
	 * or stat: the blkid_cache its evaluations share (NULL until one
	 * scans), and each tag it learned for a device, in the order
	 * learned - a tag a lookup resolved, then the tags read when a
	 * device was probed (read: the probe's) - which later lookups and
	 * the columns ask first, as findmnt's do.
	 */
	void *eval;
	struct tags_ent {
		char *name, *value, *dev;
		bool read;
	} *ent;
	size_t n;
	/*
	 * The cells of the rows found so far in this listing that depend on
	 * the caches (col_keeps()), by storage index, then by the column's
	 * place in the -o list (NULL: none kept), as computed when the row
	 * was found (out_prime_row()): findmnt computes a row's cells then,
	 * so what a later row teaches the caches (an image file probed, a
	 * device renamed by libblkid) never shows in an earlier row.
	 * Emptied after each listing.
	 */
	struct tags_kept ***kept;
	size_t nkept;
};

/* a kept row's columns at most (output's COLS_MAX fits) */
#define TAGS_KEPT_COLS 64

void tags_cache_release(struct tags_cache *c);

/*
 * The cell kept for storage index i, column col (tags_keep_cell()), its
 * length at *len, or NULL (none; c NULL). tags_keep_cell() keeps n bytes
 * of cell for (i, col) unless it has one already (a row is computed
 * once); 0, -ENOMEM, or -EINVAL for col past TAGS_KEPT_COLS.
 * tags_kept_clear() drops them all (c NULL: none), at the end of a listing.
 */
const char *tags_kept_cell(const struct tags_cache *c, uint32_t i, size_t col, size_t *len);
int tags_keep_cell(struct tags_cache *c, uint32_t i, size_t col, const char *cell, size_t n);
void tags_kept_clear(struct tags_cache *c);

/*
 * mnt_resolve_tag(): the device of the first tag c learned as NAME=value,
 * else libblkid's evaluation (c's blkid_cache reused), learned; malloc'd.
 * c NULL: tags_evaluate().
 */
char *tags_cache_resolve(struct tags_cache *c, const char *name, const char *value);

/*
 * mnt_cache_device_has_tag() after mnt_cache_read_tags(): dev probed once
 * (its tags learned, but a name already learned for it), then is the
 * first NAME=value c learned dev's? c NULL: dev probed. A dev the caller
 * may not open (EACCES: not root) has the tag when NAME=value resolves
 * to it (tags_cache_resolve(); libblkid's cache trusted), as libmount's
 * mnt_fs_match_source() and mnt_table_find_srcpath() then ask.
 */
bool tags_cache_has(struct tags_cache *c, const char *dev, const char *name, const char *value);

/*
 * tags_cache_has() for a record findmnt never looks up (its match_func()
 * turned it away before the source): c's answer when dev was probed
 * before, else the device's own tags, and c learns nothing (a tag's
 * later evaluation, -e or SOURCES, then finds what findmnt's would).
 */
bool tags_cache_peek_has(struct tags_cache *c, const char *dev, const char *name,
			 const char *value);

/*
 * mnt_cache_find_tag_value(): dev probed once as above, then the first
 * value of NAME c learned for dev (malloc'd) or NULL. c NULL: dev probed.
 */
char *tags_cache_value(struct tags_cache *c, const char *dev, const char *name);

/*
 * Every device whose NAME is value, one a line, in c's order (c NULL: a
 * cache of this call's own).
 */
char *tags_devices(struct tags_cache *c, const char *name, const char *value);

/* Every device with dev's UUID (as c has it), one a line; c as above. */
char *tags_uuid_devices(struct tags_cache *c, const char *dev);

#endif
