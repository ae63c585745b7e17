// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the snapshot loader (lib/wire.c). Any input must be
 * rejected with an error or decode to a snapshot that every consumer can
 * walk. Each input is tried twice: as it is, and with its length field
 * and CRC32C trailer fixed up - otherwise nearly every mutation dies at
 * the checksum and the parser behind it is never reached. A decoded snapshot must re-encode to bytes that decode to the same
 * encoding again (the format is deterministic), diff equal to itself, and
 * render in every format.
 *
 *   fuzz-wire -max_total_time=60 CORPUS tests/fuzz/seed-wire
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mntsnap.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void consume(const struct mntsnap_snapshot *s)
{
	/* the harness's own sink; the library keeps no state */
	static FILE *null;
	struct mntsnap_order *o = NULL;
	struct mntsnap_diff *d = NULL;
	struct mntsnap_mount m;

	if (!null)
		null = fopen("/dev/null", "we");
	if (!null)
		abort();
	for (int f = MNTSNAP_FORMAT_MOUNTINFO; f <= MNTSNAP_FORMAT_TREE; f++)
		if (mntsnap_render(s, f, null))
			abort();
	for (size_t i = 0; i < mntsnap_snapshot_count(s); i++) {
		if (mntsnap_snapshot_get(s, i, &m) || mntsnap_snapshot_tree_index(s, i) < 0)
			abort();
	}
	if (mntsnap_diff(s, s, &d) || mntsnap_diff_count(d))
		abort();
	mntsnap_diff_render(d, MNTSNAP_DIFF_FORMAT_JSON, null);
	mntsnap_diff_free(d);
	if (!mntsnap_restore_order(s, &o) && mntsnap_order_count(o) != mntsnap_snapshot_count(s))
		abort();
	mntsnap_order_free(o);
}

static void one(const uint8_t *data, size_t size)
{
	struct mntsnap_snapshot *s = NULL, *t = NULL;
	struct mntsnap_error err = { 0 };
	void *b1 = NULL, *b2 = NULL;
	size_t n1, n2;
	int r = mntsnap__wire_decode(data, size, &err, &s);

	if (r) {
		/* every failure is one of the documented errors, with a message */
		if ((r != -EBADMSG && r != -EPROTO && r != -EOPNOTSUPP && r != -ENOMEM) ||
		    err.err != r || !err.msg[0] || s)
			abort();
		return;
	}
	consume(s);
	if (mntsnap__wire_encode(s, &b1, &n1) || mntsnap__wire_decode(b1, n1, NULL, &t) ||
	    mntsnap__wire_encode(t, &b2, &n2) || n1 != n2 || memcmp(b1, b2, n1))
		abort();
	free(b1);
	free(b2);
	mntsnap_snapshot_free(t);
	mntsnap_snapshot_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *c;
	uint32_t crc;

	one(data, size);
	if (size < 28)
		return 0;
	c = malloc(size); /* exact size: ASan sees any over-read */
	if (!c)
		return 0;
	memcpy(c, data, size);
	for (int i = 0; i < 8; i++)
		c[16 + i] = (uint8_t)((uint64_t)size >> (8 * i));
	crc = mntsnap__crc32c(0, c, size - 4);
	for (int i = 0; i < 4; i++)
		c[size - 4 + i] = (uint8_t)(crc >> (8 * i));
	one(c, size);
	free(c);
	return 0;
}
