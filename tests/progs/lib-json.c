// SPDX-License-Identifier: MIT
/*
 * The library's own view of a mount table, for the CLI's column checks:
 * a capture of the caller's namespace with every field, written by
 * mntsnap_render(MNTSNAP_FORMAT_JSON), so no CLI code is involved.
 *
 * usage: lib-json [statmount|mountinfo]
 */
#include <stdio.h>
#include <string.h>

#include "mntsnap.h"

int main(int argc, char **argv)
{
	int backend = MNTSNAP_BACKEND_AUTO;
	struct mntsnap_snapshot *s = NULL;
	int r;

	if (argc > 1 && !strcmp(argv[1], "statmount"))
		backend = MNTSNAP_BACKEND_STATMOUNT;
	else if (argc > 1 && !strcmp(argv[1], "mountinfo"))
		backend = MNTSNAP_BACKEND_MOUNTINFO;
	{
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = backend,
			     .mask = MNTSNAP_MASK_FULL);

		r = mntsnap_capture(&o, &s);
	}
	if (r) {
		fprintf(stderr, "lib-json: capture: %s\n", mntsnap_strerror(r));
		return 2;
	}
	r = mntsnap_render(s, MNTSNAP_FORMAT_JSON, stdout);
	mntsnap_snapshot_free(s);
	return r ? 2 : 0;
}
