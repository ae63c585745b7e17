// SPDX-License-Identifier: MIT
/*
 * See tags.h. Devices are probed directly (blkid_probe), never through
 * libblkid's cache file: a listing must not write /run/blkid, and a scan
 * (tags_devices, and tags_evaluate when udev has no link) builds an
 * in-memory cache ("/dev/null" as its file) that lives for one call.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

#ifdef MNTSNAP_HAVE_BLKID
#include <blkid.h>

bool tags_have(void)
{
	return true;
}

char *tags_evaluate(const char *name, const char *value)
{
	blkid_cache cache = NULL;
	char *dev;

	if (blkid_get_cache(&cache, "/dev/null"))
		return NULL;
	dev = blkid_evaluate_tag(name, value, &cache);
	blkid_put_cache(cache);
	return dev;
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

char *tags_device_value(const char *dev, const char *name)
{
	blkid_probe pr = blkid_new_probe_from_filename(dev);
	const char *data = NULL;
	char *v = NULL;

	if (!pr)
		return NULL;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_LABEL | BLKID_SUBLKS_UUID |
						      BLKID_SUBLKS_TYPE);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
	if (!blkid_do_safeprobe(pr) && !blkid_probe_lookup_value(pr, probe_name(name), &data, NULL) &&
	    data && *data)
		v = strdup(data);
	blkid_free_probe(pr);
	return v;
}

char *tags_devices(const char *name, const char *value)
{
	blkid_cache cache = NULL;
	blkid_dev_iterate it;
	blkid_dev dev;
	char *out = NULL;
	size_t len = 0;

	if (blkid_get_cache(&cache, "/dev/null"))
		return NULL;
	blkid_probe_all(cache);
	it = blkid_dev_iterate_begin(cache);
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

char *tags_devices(const char *name, const char *value)
{
	(void)name, (void)value;
	return NULL;
}

#endif

bool tags_is_devtag(const char *s)
{
	return !strncmp(s, "LABEL=", 6) || !strncmp(s, "UUID=", 5) ||
	       !strncmp(s, "PARTLABEL=", 10) || !strncmp(s, "PARTUUID=", 9);
}
