// SPDX-License-Identifier: MIT
/*
 * The format table: mntsnap_render() and mntsnap_format_from_name() read
 * one row per format; a new format is one leaf renderer and one row.
 */
#include <errno.h>
#include <string.h>

#include "render.h"

/* One row per output format: its name and its renderer. */
static const struct {
	const char *name;
	int (*render)(const struct mntsnap_snapshot *snap, FILE *f);
} formats[] = {
	[MNTSNAP_FORMAT_MOUNTINFO] = { "mountinfo", mntsnap__render_mountinfo },
	[MNTSNAP_FORMAT_JSON] = { "json", mntsnap__render_json },
	[MNTSNAP_FORMAT_TABLE] = { "table", mntsnap__render_table },
	[MNTSNAP_FORMAT_TREE] = { "tree", mntsnap__render_tree },
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

int mntsnap_render(const struct mntsnap_snapshot *snap, int format, FILE *f)
{
	int r;

	if (!snap || !f || format < 0 || (size_t)format >= NFORMATS || !formats[format].render)
		return -EINVAL;
	r = formats[format].render(snap, f);
	return r ? r : mntsnap__stream_status(f);
}

int mntsnap_format_from_name(const char *name)
{
	if (!name)
		return -EINVAL;
	for (size_t i = 0; i < NFORMATS; i++)
		if (formats[i].name && !strcmp(name, formats[i].name))
			return (int)i;
	return -EINVAL;
}
