// SPDX-License-Identifier: MIT
/*
 * The library's side of tests/history-eq.py (the differential harness):
 * a co-process that keeps three snapshots of the caller's namespace
 * across the steps of a mount history, so that repeated refreshes are
 * checked, not one refresh of a fresh capture.
 *
 * For every "step" line on stdin it captures the table (every field,
 * statmount) and prints one JSON line:
 *   "diff":    mntsnap_diff(previous capture, this capture): entries as
 *              [kind, /proc id, change bits], kind "A", "R" or "C";
 *   "refresh": mntsnap_refresh() of a snapshot kept since the start:
 *              its return value, and what mntsnap_diff(refreshed,
 *              capture) still finds (must be nothing but the documented
 *              blind spots; after any entry the snapshot is captured
 *              afresh so that one miss is reported once);
 *   "idsonly": the same with MNTSNAP_CAPTURE_REFRESH_IDS_ONLY, never
 *              captured afresh (its kept records are documented to go
 *              stale; mounts it fetched must not be);
 *   "n":       mounts in the capture.
 * The harness compares these with what the kernel's mountinfo text says.
 * An error prints {"error": "..."} and the helper goes on.
 *
 * usage: history-lib   (lines on stdin: "step" or "quit")
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "mntsnap.h"

static int capture(uint32_t flags, struct mntsnap_snapshot **ret)
{
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .mask = MNTSNAP_F_ALL, .flags = flags,
		     .backend = MNTSNAP_BACKEND_STATMOUNT);

	return mntsnap_capture(&o, ret);
}

/* The /proc id of record i of s (the harness pairs with the text by it). */
static uint32_t old_id(const struct mntsnap_snapshot *s, long i)
{
	struct mntsnap_mount m;

	return mntsnap_snapshot_get(s, (size_t)i, &m) ? 0 : m.id_old;
}

/* Print the entries of diff(a, b) as a JSON array; 0 or -errno. */
static int print_diff(const struct mntsnap_snapshot *a, const struct mntsnap_snapshot *b)
{
	struct mntsnap_diff *d;
	int r = mntsnap_diff(a, b, &d);

	if (r) {
		fputs("null", stdout); /* the line stays JSON */
		return r;
	}
	putchar('[');
	for (size_t i = 0; i < mntsnap_diff_count(d); i++) {
		struct mntsnap_diff_entry e;

		if (mntsnap_diff_get(d, i, &e))
			break;
		printf("%s[\"%s\",%" PRIu32 ",%" PRIu32 "]", i ? "," : "",
		       e.kind == MNTSNAP_DIFF_ADDED ? "A" : e.kind == MNTSNAP_DIFF_REMOVED ? "R" : "C",
		       e.kind == MNTSNAP_DIFF_REMOVED ? old_id(a, e.old_index) : old_id(b, e.new_index),
		       e.changed);
	}
	putchar(']');
	mntsnap_diff_free(d);
	return 0;
}

static int refresh_part(const char *name, struct mntsnap_snapshot **s, uint32_t flags,
			const struct mntsnap_snapshot *cap, int recapture)
{
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .flags = flags);
	struct mntsnap_diff *d;
	int n = mntsnap_refresh_with(*s, &o), r;

	printf(",\"%s\":{\"ret\":%d,\"left\":", name, n);
	r = print_diff(*s, cap);
	putchar('}');
	if (r || !recapture || (r = mntsnap_diff(*s, cap, &d)))
		return r;
	if (mntsnap_diff_count(d)) {
		mntsnap_snapshot_free(*s);
		*s = NULL;
		r = capture(0, s);
	}
	mntsnap_diff_free(d);
	return r;
}

static int step(struct mntsnap_snapshot **prev, struct mntsnap_snapshot **checked,
		struct mntsnap_snapshot **idsonly)
{
	struct mntsnap_snapshot *cap;
	int r = capture(0, &cap);

	if (r) {
		printf("{\"error\":\"capture: %s\"}\n", mntsnap_strerror(r));
		return r;
	}
	printf("{\"n\":%zu,\"diff\":", mntsnap_snapshot_count(cap));
	r = print_diff(*prev, cap);
	if (!r)
		r = refresh_part("refresh", checked, 0, cap, 1);
	if (!r)
		r = refresh_part("idsonly", idsonly, MNTSNAP_CAPTURE_REFRESH_IDS_ONLY, cap, 0);
	/* one line per step whatever failed: the harness reads line by line */
	if (r)
		printf(",\"error\":\"%s\"", mntsnap_strerror(r));
	printf("}\n");
	mntsnap_snapshot_free(*prev);
	*prev = cap;
	return r;
}

int main(void)
{
	struct mntsnap_snapshot *prev = NULL, *checked = NULL, *idsonly = NULL;
	char line[64];
	int r = capture(0, &prev);

	if (!r)
		r = capture(0, &checked);
	if (!r)
		r = capture(0, &idsonly);
	if (r) {
		printf("{\"error\":\"capture: %s\"}\n", mntsnap_strerror(r));
		return 1;
	}
	printf("{\"ready\":%zu}\n", mntsnap_snapshot_count(prev));
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) && strcmp(line, "quit\n")) {
		r = step(&prev, &checked, &idsonly);
		fflush(stdout);
		if (r && (!prev || !checked || !idsonly))
			break;
	}
	mntsnap_snapshot_free(prev);
	mntsnap_snapshot_free(checked);
	mntsnap_snapshot_free(idsonly);
	return r ? 1 : 0;
}
