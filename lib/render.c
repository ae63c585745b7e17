// SPDX-License-Identifier: MIT
/* Format dispatch for the renderers (render-*.c). */
#include <errno.h>
#include <string.h>

#include "render.h"

int mntsnap_render(const struct mntsnap_snapshot *snap, int format, FILE *f)
{
	int r;

	if (!snap || !f)
		return -EINVAL;
	switch (format) {
	case MNTSNAP_FORMAT_MOUNTINFO:
		r = mntsnap__render_mountinfo(snap, f);
		break;
	case MNTSNAP_FORMAT_JSON:
		r = mntsnap__render_json(snap, f);
		break;
	case MNTSNAP_FORMAT_TABLE:
		r = mntsnap__render_table(snap, f);
		break;
	case MNTSNAP_FORMAT_TREE:
		r = mntsnap__render_tree(snap, f);
		break;
	default:
		return -EINVAL;
	}
	return r ? r : mntsnap__stream_status(f);
}

int mntsnap__stream_status(FILE *f)
{
	errno = 0;
	if (!fflush(f) && !ferror(f))
		return 0;
	return errno ? -errno : -EIO;
}

int mntsnap_format_from_name(const char *name)
{
	static const char *const names[] = {
		[MNTSNAP_FORMAT_MOUNTINFO] = "mountinfo",
		[MNTSNAP_FORMAT_JSON] = "json",
		[MNTSNAP_FORMAT_TABLE] = "table",
		[MNTSNAP_FORMAT_TREE] = "tree",
	};

	if (!name)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return (int)i;
	return -EINVAL;
}
