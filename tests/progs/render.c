// SPDX-License-Identifier: MIT
/*
 * The library's renderer as a program, for the tests that hold its output
 * against findmnt's and the CLI's: the table of a mountinfo file, or of
 * the caller's namespace (a capture), in one of mntsnap_render()'s formats.
 * The locale is the environment's (LC_CTYPE), as findmnt's and the CLI's.
 *
 * usage: render FORMAT [MOUNTINFO_FILE]
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mntsnap.h"

int main(int argc, char **argv)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = { 0 };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .error = &err,
		     .backend = argc > 2 ? MNTSNAP_BACKEND_MOUNTINFO : MNTSNAP_BACKEND_AUTO,
		     .mountinfo_path = argc > 2 ? argv[2] : NULL);
	int format, r;

	setlocale(LC_CTYPE, "");
	if (argc < 2 || (format = mntsnap_format_from_name(argv[1])) < 0) {
		fputs("usage: render tree|table|json|mountinfo [MOUNTINFO_FILE]\n", stderr);
		return 2;
	}
	r = mntsnap_capture(&o, &s);
	if (!r)
		r = mntsnap_render(s, format, stdout);
	if (r)
		fprintf(stderr, "render: %s%s%s\n", mntsnap_strerror(r), err.msg[0] ? ": " : "",
			err.msg);
	mntsnap_snapshot_free(s);
	return r ? 1 : 0;
}
