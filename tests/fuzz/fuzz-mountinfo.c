// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the mountinfo parser.
 *
 * Any input must either parse, or fail with -EBADMSG and a line number
 * inside the input; never crash, leak or read out of bounds (run with
 * ASan). What parses must be stable: rendering it and parsing that again
 * renders the same text, and the first rendering of kernel-shaped text
 * reproduces it (the unit tests check the byte-exact part on real tables).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mntsnap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *render(const struct mntsnap_snapshot *s, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f || mntsnap_render(s, MNTSNAP_FORMAT_MOUNTINFO, f))
		abort();
	fclose(f);
	return buf;
}

static unsigned count_lines(const uint8_t *data, size_t size)
{
	unsigned n = 0;

	for (size_t i = 0; i < size; i++)
		n += data[i] == '\n';
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mntsnap_snapshot *s = NULL, *again = NULL;
	struct mntsnap_error e = {0};
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .error = &e);
	char *text, *text2;
	size_t len, len2;
	int r;

	r = mntsnap_parse_mountinfo((const char *)data, size, &o, &s);
	if (r) {
		/* a clear error naming a line of the input, nothing else */
		if (r != -EBADMSG || e.err != r || !e.msg[0] || s)
			abort();
		if (e.line > count_lines(data, size) + 1)
			abort();
		return 0;
	}
	text = render(s, &len);
	if (mntsnap_parse_mountinfo(text, len, &o, &again))
		abort();
	text2 = render(again, &len2);
	if (len != len2 || memcmp(text, text2, len))
		abort();
	if (mntsnap_snapshot_count(s) != count_lines(data, size))
		abort();
	free(text);
	free(text2);
	mntsnap_snapshot_free(again);
	mntsnap_snapshot_free(s);
	return 0;
}
