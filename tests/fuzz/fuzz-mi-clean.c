// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the CLI's reader of hand-made mountinfo lines
 * (list -F FILE), which once read past a field's end.
 *
 * Each input line is cleaned into a buffer of exactly the size the
 * function asks for (ASan catches a byte past it). A line it splits is
 * stable: cleaning the result again gives it back byte for byte, with one
 * space before each field, and the library's reader then reads it or
 * refuses it with a clear error naming line 1, never more. A line it cannot
 * split says why, in the library's words.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mntsnap.h"
#include "mi-clean.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *clean(const char *s, size_t *k, const char **why)
{
	size_t n = strlen(s);
	char *out = malloc(2 * n + 2);

	if (!out)
		abort();
	*k = cli_mi_clean_line(s, out, why);
	if (*k > 2 * n + 1)
		abort();
	out[*k] = '\0';
	return out;
}

static void check_line(const char *line)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error e = { 0 };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .error = &e);
	const char *why = NULL, *why2 = NULL;
	char *out, *again;
	size_t k, k2;
	int r;

	out = clean(line, &k, &why);
	if (!k) {
		if (!why || !strchr(why, ':'))
			abort();
		free(out);
		return;
	}
	again = clean(out, &k2, &why2);
	if (k2 != k || memcmp(again, out, k))
		abort();
	out[k] = '\n';
	r = mntsnap_parse_mountinfo(out, k + 1, &o, &s);
	if (r && (r != -EBADMSG || !e.msg[0] || e.line != 1 || s))
		abort();
	mntsnap_snapshot_free(s);
	free(again);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *line, *nl;

	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	/* a line as the CLI hands it over: no newline, up to a NUL */
	for (line = text; line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		check_line(line);
	}
	free(text);
	return 0;
}
