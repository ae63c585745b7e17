// SPDX-License-Identifier: MIT
/*
 * See tags.h. findmnt is the oracle, so libblkid is asked as findmnt and
 * libmount ask it:
 * - a tag is evaluated by blkid_evaluate_tag() (udev's link, else a scan
 *   through libblkid's default cache: $BLKID_FILE, blkid.conf's
 *   CACHE_FILE, else /run/blkid/blkid.tab), as libmount's
 *   mnt_resolve_tag(); of two devices with one tag (a cloned image) the
 *   one that cache lists first is named, as findmnt names it;
 * - SOURCES walks that default cache after blkid_probe_all(), as
 *   findmnt's get_data_col_sources(), so the devices come in its order;
 * - a device's own LABEL, UUID, ... are probed directly, as libmount's
 *   mnt_cache_read_tags(); within one run of list, show or stat (a
 *   struct tags_cache given) a device is probed once and what the run
 *   learned is asked first, as libmount's cache: a tag a lookup resolved
 *   to a device stays that device's value, and a tag read from a probed
 *   device (or image file) names it for a later lookup or -e;
 * - a device the caller may not open (not root) is matched against a
 *   tag the other way round, as libmount's mnt_fs_match_source() does:
 *   by the device the tag names, which libblkid takes from its cache
 *   file unprobed (it cannot verify what it cannot open);
 * - a run's evaluations share one blkid_cache (libmount's own, put at the
 *   run's end), so a tag that named no device, having libblkid scan and
 *   re-probe stale entries, changes which device a later one names, as
 *   in findmnt.
 *
 * A tag lookup (no run's cache) reads the cache file and releases it with
 * blkid_put_cache(), which rewrites the file when the scan changed it and
 * the caller may write it (root: /run/blkid/blkid.tab), as findmnt's
 * libmount cache does at its exit and as blkid(8) does; SOURCES keeps its
 * cache for one listing or one poll (struct tags_cache) and releases it
 * alike. The order written is the order read, the devices the scan found
 * added after them, so the next call (or findmnt) reads the same order.
 * Tests point $BLKID_FILE at a file of their own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tags.h"

int tags_parse(const char *spec, char **ret_name, char **ret_value)
{
	const char *eq = strchr(spec, '='), *v;
	size_t vlen;

	if (!eq)
		return -EINVAL;
	v = eq + 1;
	vlen = strlen(v);
	if (*v == '"' || *v == '\'') {
		const char *q = strrchr(v + 1, *v);

		if (!q)
			return -EINVAL;
		v++;
		vlen = (size_t)(q - v);
	}
	/* libblkid: an empty value is no tag */
	if (!vlen)
		return -EINVAL;
	*ret_name = strndup(spec, (size_t)(eq - spec));
	*ret_value = strndup(v, vlen);
	if (!*ret_name || !*ret_value) {
		free(*ret_name);
		free(*ret_value);
		return -ENOMEM;
	}
	return 0;
}

int tags_source(const char *spec, char **ret_name, char **ret_value)
{
	static const char *const names[] = { "ID", "UUID", "LABEL", "PARTUUID", "PARTLABEL" };
	int r = tags_parse(spec, ret_name, ret_value);

	if (r)
		return r;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i], *ret_name))
			return 0;
	free(*ret_name);
	free(*ret_value);
	*ret_name = *ret_value = NULL;
	return -EINVAL;
}

/* a kept cell: its bytes (a source's text may hold any), NUL-ended */
struct tags_kept {
	size_t len;
	char p[];
};

const char *tags_kept_cell(const struct tags_cache *c, uint32_t i, size_t col, size_t *len)
{
	const struct tags_kept *k;

	if (!c || i >= c->nkept || !c->kept[i] || col >= TAGS_KEPT_COLS)
		return NULL;
	k = c->kept[i][col];
	if (k)
		*len = k->len;
	return k ? k->p : NULL;
}

/* row i's cells, grown to hold it (NULL: no memory) */
static struct tags_kept **kept_row(struct tags_cache *c, uint32_t i)
{
	if (i >= c->nkept) {
		size_t want = (size_t)i + 1 > 2 * c->nkept ? (size_t)i + 1 : 2 * c->nkept;
		struct tags_kept ***k = realloc(c->kept, want * sizeof(*k));

		if (!k)
			return NULL;
		memset(k + c->nkept, 0, (want - c->nkept) * sizeof(*k));
		c->kept = k;
		c->nkept = want;
	}
	if (!c->kept[i])
		c->kept[i] = calloc(TAGS_KEPT_COLS, sizeof(**c->kept));
	return c->kept[i];
}

int tags_keep_cell(struct tags_cache *c, uint32_t i, size_t col, const char *cell, size_t n)
{
	struct tags_kept **row, *k;
	size_t len;

	if (col >= TAGS_KEPT_COLS)
		return -EINVAL;
	if (tags_kept_cell(c, i, col, &len))
		return 0;
	row = kept_row(c, i);
	if (!row)
		return -ENOMEM;
	/* an empty cell is kept too: the row printed it empty */
	k = malloc(sizeof(*k) + n + 1);
	if (!k)
		return -ENOMEM;
	k->len = n;
	if (n)
		memcpy(k->p, cell, n);
	k->p[n] = '\0';
	row[col] = k;
	return 0;
}

void tags_kept_clear(struct tags_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nkept; i++) {
		for (size_t col = 0; c->kept[i] && col < TAGS_KEPT_COLS; col++)
			free(c->kept[i][col]);
		free(c->kept[i]);
	}
	free(c->kept);
	c->kept = NULL;
	c->nkept = 0;
}

#ifdef MNTSNAP_HAVE_BLKID
#include <blkid.h>

bool tags_have(void)
{
	return true;
}

char *tags_evaluate(const char *name, const char *value)
{
	/* no cache given: libblkid opens the default one and releases it */
	return blkid_evaluate_tag(name, value, NULL);
}

/* libblkid's names of findmnt's columns */
static const char *probe_name(const char *name)
{
	if (!strcmp(name, "PARTUUID"))
		return "PART_ENTRY_UUID";
	if (!strcmp(name, "PARTLABEL"))
		return "PART_ENTRY_NAME";
	return name;
}

/*
 * dev probed for what findmnt's tag columns show (LABEL, UUID, TYPE and
 * the partition entry's), as mnt_cache_read_tags() probes; NULL when it
 * cannot be opened (*err: open()'s -errno, -EACCES for a caller that may
 * not read the device) or holds nothing libblkid knows (-ENODATA)
 */
static blkid_probe probe_tags(const char *dev, int *err)
{
	blkid_probe pr;

	errno = 0;
	pr = blkid_new_probe_from_filename(dev);
	if (!pr) {
		*err = errno ? -errno : -ENOMEM;
		return NULL;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_LABEL | BLKID_SUBLKS_UUID |
						      BLKID_SUBLKS_TYPE);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
	if (blkid_do_safeprobe(pr)) {
		blkid_free_probe(pr);
		*err = -ENODATA;
		return NULL;
	}
	*err = 0;
	return pr;
}

/* dev's NAME probed, or NULL (*err as probe_tags() says, 0 if probed) */
static char *device_value(const char *dev, const char *name, int *err)
{
	blkid_probe pr = probe_tags(dev, err);
	const char *data = NULL;
	char *v = NULL;

	if (!pr)
		return NULL;
	if (!blkid_probe_lookup_value(pr, probe_name(name), &data, NULL) && data && *data)
		v = strdup(data);
	blkid_free_probe(pr);
	return v;
}

char *tags_device_value(const char *dev, const char *name)
{
	int err;

	return device_value(dev, name, &err);
}

/* The devices of cache whose NAME is value, one a line (findmnt's loop). */
static char *cache_devices(blkid_cache cache, const char *name, const char *value)
{
	blkid_dev_iterate it = blkid_dev_iterate_begin(cache);
	blkid_dev dev;
	char *out = NULL;
	size_t len = 0;

	if (!it)
		return NULL;
	blkid_dev_set_search(it, name, value);
	while (blkid_dev_next(it, &dev) == 0) {
		const char *dn;
		char *p;

		dev = blkid_verify(cache, dev);
		if (!dev)
			continue;
		dn = blkid_dev_devname(dev);
		p = realloc(out, len + strlen(dn) + 2);
		if (!p)
			break;
		out = p;
		if (len)
			out[len++] = '\n';
		strcpy(out + len, dn);
		len += strlen(dn);
	}
	blkid_dev_iterate_end(it);
	return out;
}

/* findmnt's SOURCES cache: the default one, every device probed into it */
static blkid_cache sources_cache(struct tags_cache *c)
{
	blkid_cache cache = c ? c->blkid : NULL;

	if (cache)
		return cache;
	if (blkid_get_cache(&cache, NULL))
		return NULL;
	blkid_probe_all(cache);
	if (c)
		c->blkid = cache;
	return cache;
}

void tags_cache_release(struct tags_cache *c)
{
	/*
	 * findmnt leaves its SOURCES cache to exit, unwritten; put here, it
	 * may write the file (root), the order read kept, the scan's new
	 * devices after it
	 */
	tags_kept_clear(c);
	if (c->blkid)
		blkid_put_cache(c->blkid);
	c->blkid = NULL;
	/* libmount's own, put when findmnt frees its cache */
	if (c->eval)
		blkid_put_cache(c->eval);
	c->eval = NULL;
	for (size_t i = 0; i < c->n; i++) {
		free(c->ent[i].name);
		free(c->ent[i].value);
		free(c->ent[i].dev);
	}
	free(c->ent);
	c->ent = NULL;
	c->n = 0;
}

static int learn(struct tags_cache *c, const char *name, const char *value, const char *dev,
		 bool read)
{
	struct tags_ent *e = realloc(c->ent, (c->n + 1) * sizeof(*e));

	if (!e)
		return -ENOMEM;
	c->ent = e;
	e += c->n;
	e->name = strdup(name);
	e->value = strdup(value);
	e->dev = strdup(dev);
	e->read = read;
	if (!e->name || !e->value || !e->dev) {
		free(e->name), free(e->value), free(e->dev);
		return -ENOMEM;
	}
	c->n++;
	return 0;
}

/* libmount's cache_find_tag(): the first device learned for NAME=value */
static const char *find_tag(const struct tags_cache *c, const char *name, const char *value)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->ent[i].name, name) && !strcmp(c->ent[i].value, value))
			return c->ent[i].dev;
	return NULL;
}

/* cache_find_tag_value(): the first NAME learned for dev */
static const char *find_value(const struct tags_cache *c, const char *dev, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->ent[i].dev, dev) && !strcmp(c->ent[i].name, name))
			return c->ent[i].value;
	return NULL;
}

char *tags_cache_resolve(struct tags_cache *c, const char *name, const char *value)
{
	const char *d = c ? find_tag(c, name, value) : NULL;
	blkid_cache bc;
	char *dev;

	if (!c)
		return tags_evaluate(name, value);
	if (d)
		return strdup(d);
	bc = c->eval;
	dev = blkid_evaluate_tag(name, value, &bc);
	c->eval = bc;
	if (dev && learn(c, name, value, dev, false)) {
		free(dev);
		return NULL;
	}
	return dev;
}

/*
 * mnt_cache_read_tags(): 0 when dev's tags are in c (probed before, or
 * now and at least one learned), -EACCES when the caller may not open
 * dev, else nonzero; a name c holds for dev already is not learned
 * again, so a tag a lookup resolved to dev stays dev's value.
 */
static int read_tags(struct tags_cache *c, const char *dev)
{
	static const char *const names[] = { "LABEL", "UUID", "TYPE", "PARTUUID", "PARTLABEL" };
	blkid_probe pr;
	size_t learned = 0;
	int r = 0;

	for (size_t i = 0; i < c->n; i++)
		if (c->ent[i].read && !strcmp(c->ent[i].dev, dev))
			return 0;
	pr = probe_tags(dev, &r);
	if (!pr)
		return r == -EACCES ? r : -1;
	for (size_t i = 0; !r && i < sizeof(names) / sizeof(names[0]); i++) {
		const char *data;

		if (find_value(c, dev, names[i]) ||
		    blkid_probe_lookup_value(pr, probe_name(names[i]), &data, NULL))
			continue;
		r = learn(c, names[i], data, dev, true);
		learned += !r;
	}
	blkid_free_probe(pr);
	return r ? r : learned ? 0 : 1;
}

/*
 * A device the caller may not open (not root): libmount's
 * mnt_fs_match_source() and mnt_table_find_srcpath() ask instead whether
 * NAME=value names dev, which libblkid answers from udev's links or its
 * cache file, trusted unprobed (blkid_verify() of a device it cannot
 * open) - so as findmnt, a tag matches by what that cache says.
 */
static bool tag_names(struct tags_cache *c, const char *name, const char *value, const char *dev)
{
	char *x = tags_cache_resolve(c, name, value);
	bool ok = x && !strcmp(x, dev);

	free(x);
	return ok;
}

bool tags_cache_has(struct tags_cache *c, const char *dev, const char *name, const char *value)
{
	const char *d;
	char *v;
	bool ok;
	int r;

	if (c) {
		r = read_tags(c, dev);
		if (r == -EACCES)
			return tag_names(c, name, value, dev);
		if (r)
			return false;
		d = find_tag(c, name, value);
		return d && !strcmp(d, dev);
	}
	v = device_value(dev, name, &r);
	if (r == -EACCES)
		return tag_names(NULL, name, value, dev);
	ok = v && !strcmp(v, value);
	free(v);
	return ok;
}

bool tags_cache_peek_has(struct tags_cache *c, const char *dev, const char *name,
			 const char *value)
{
	const char *d;

	for (size_t i = 0; c && i < c->n; i++)
		if (c->ent[i].read && !strcmp(c->ent[i].dev, dev)) {
			d = find_tag(c, name, value);
			return d && !strcmp(d, dev);
		}
	return tags_cache_has(NULL, dev, name, value);
}

char *tags_cache_value(struct tags_cache *c, const char *dev, const char *name)
{
	const char *v;

	if (!c)
		return tags_device_value(dev, name);
	if (read_tags(c, dev))
		return NULL;
	v = find_value(c, dev, name);
	return v ? strdup(v) : NULL;
}

char *tags_devices(struct tags_cache *c, const char *name, const char *value)
{
	blkid_cache cache = sources_cache(c);
	char *out;

	if (!cache)
		return NULL;
	out = cache_devices(cache, name, value);
	if (!c)
		blkid_put_cache(cache);
	return out;
}

char *tags_uuid_devices(struct tags_cache *c, const char *dev)
{
	blkid_cache cache;
	char *uuid, *out = NULL;

	/*
	 * findmnt scans the block devices for any /dev/ source, also one
	 * that names no device (a trailing slash, a table from another
	 * machine): the scan finds nothing for it, but it is what libblkid's
	 * cache (root: its file) learns
	 */
	cache = sources_cache(c);
	if (!cache)
		return NULL;
	/* the cache's UUID of dev (findmnt: blkid_get_tag_value()), not a probe */
	uuid = blkid_get_tag_value(cache, "UUID", dev);
	if (uuid)
		out = cache_devices(cache, "UUID", uuid);
	free(uuid);
	if (!c)
		blkid_put_cache(cache);
	return out;
}

#else

bool tags_have(void)
{
	return false;
}

char *tags_evaluate(const char *name, const char *value)
{
	(void)name, (void)value;
	return NULL;
}

char *tags_device_value(const char *dev, const char *name)
{
	(void)dev, (void)name;
	return NULL;
}

void tags_cache_release(struct tags_cache *c)
{
	tags_kept_clear(c);
	c->blkid = NULL;
}

char *tags_cache_resolve(struct tags_cache *c, const char *name, const char *value)
{
	(void)c, (void)name, (void)value;
	return NULL;
}

bool tags_cache_has(struct tags_cache *c, const char *dev, const char *name, const char *value)
{
	(void)c, (void)dev, (void)name, (void)value;
	return false;
}

bool tags_cache_peek_has(struct tags_cache *c, const char *dev, const char *name,
			 const char *value)
{
	(void)c, (void)dev, (void)name, (void)value;
	return false;
}

char *tags_cache_value(struct tags_cache *c, const char *dev, const char *name)
{
	(void)c, (void)dev, (void)name;
	return NULL;
}

char *tags_devices(struct tags_cache *c, const char *name, const char *value)
{
	(void)c, (void)name, (void)value;
	return NULL;
}

char *tags_uuid_devices(struct tags_cache *c, const char *dev)
{
	(void)c, (void)dev;
	return NULL;
}

#endif

bool tags_is_devtag(const char *s)
{
	return !strncmp(s, "LABEL=", 6) || !strncmp(s, "UUID=", 5) ||
	       !strncmp(s, "PARTLABEL=", 10) || !strncmp(s, "PARTUUID=", 9);
}
