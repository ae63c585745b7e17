// SPDX-License-Identifier: MIT
/*
 * Writes the saved-snapshot files of tests/data/wire (see its README) from
 * one fixed, made-up three-mount table, so they can be written again byte
 * for byte by any version of the library:
 *   v1.mntsnap                  this build's own fields
 *   extra-optional.mntsnap      as written by a build whose field table has
 *   extra-required.mntsnap      one more superblock field (tag 0xfe00), marked
 *                               optional / required
 * Built against a library before the field table existed
 * (-DWIRE_FILES_BASELINE), it writes v1.mntsnap only.
 *
 * usage: wire-files OUTDIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mntsnap.h"
#include "snapshot.h"
#include "uapi.h"
#include "wire.h"

#ifndef WIRE_FILES_BASELINE
/* the extra field: a superblock u64 (the magic again), tag 0xfe00 */
#define MNTSNAP_F_TEST_EXTRA (1U << 31)
#define MNTSNAP_FIELDS_EXTRA(X)                                                                    \
	X(TEST_EXTRA, SB, U64, sb_magic, sb_magic, 0, 0, mask, mask, "test-extra", 1, 0, 0,        \
	  0xfe00, EXTRA_REQUIRED)
#include "fields.h"

#define EXTRA_REQUIRED 0
static const struct mntsnap_field tab_optional[] = { MNTSNAP_FIELDS(MNTSNAP__FIELD_ROW) };
#undef EXTRA_REQUIRED
#define EXTRA_REQUIRED 1
static const struct mntsnap_field tab_required[] = { MNTSNAP_FIELDS(MNTSNAP__FIELD_ROW) };
#define NTAB ((int)(sizeof(tab_optional) / sizeof(tab_optional[0])))
#endif

#define CORE_MASK ((1U << 19) - 1)

static struct mntsnap_snapshot *table(void)
{
	struct mntsnap_snapshot *s = mntsnap__snap_new(MNTSNAP_BACKEND_STATMOUNT, CORE_MASK);
	struct mntsnap_mount m[3] = {
		{ .id = 0x200000001, .parent_id = 0x200000001, .id_old = 21, .parent_id_old = 1,
		  .dev_major = 0, .dev_minor = 22, .sb_magic = 0x01021994, .propagation = 1U << 20,
		  .peer_group = 1, .root = "/", .mount_point = "/", .fs_type = "tmpfs",
		  .source = "none", .options = "size=1024k", .opt_array = "size=1024k",
		  .opt_num = 1 },
		{ .id = 0x200000002, .parent_id = 0x200000001, .id_old = 22, .parent_id_old = 21,
		  .dev_major = 0, .dev_minor = 22, .sb_magic = 0x01021994, .propagation = 1U << 20,
		  .peer_group = 1, .root = "/sub", .mount_point = "/mnt/a", .fs_type = "tmpfs",
		  .source = "none", .options = "size=1024k", .opt_array = "size=1024k",
		  .opt_num = 1, .attr = 0x1 },
		{ .id = 0x200000003, .parent_id = 0x200000002, .id_old = 23, .parent_id_old = 22,
		  .dev_major = 8, .dev_minor = 1, .sb_magic = 0xef53, .sb_flags = 0x1,
		  .propagation = 1U << 18, .root = "/", .mount_point = "/mnt/a/disk",
		  .fs_type = "ext4", .source = "/dev/sda1", .options = "errors=remount-ro",
		  .opt_array = "errors=remount-ro", .opt_num = 1, .attr = 0x100001,
		  .uidmap = "0 1000 1", .uidmap_num = 1, .gidmap = "0 1000 1", .gidmap_num = 1 },
	};

	if (!s)
		return NULL;
	for (int i = 0; i < 3; i++) {
		m[i].mask = CORE_MASK & ~(uint32_t)(MNTSNAP_F_FS_SUBTYPE | MNTSNAP_F_OPT_SEC_ARRAY);
		if (i < 2)
			m[i].mask &= ~(uint32_t)(MNTSNAP_F_UIDMAP | MNTSNAP_F_GIDMAP);
		m[i].ns_id = 0x3000;
		m[i].fs_subtype = m[i].opt_sec_array = "";
		if (!m[i].uidmap)
			m[i].uidmap = m[i].gidmap = "";
		if (mntsnap__snap_add(s, &m[i]) < 0)
			return NULL;
	}
	s->time_ns = 1700000000000000000ULL;
	s->attempts = 1;
	s->consistent = 1;
	strcpy(s->kernel_release, "6.18.0-test");
	return mntsnap__snap_finish(s) ? NULL : s;
}

static int put(const char *dir, const char *name, const void *b, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wbe");
	if (!f || fwrite(b, 1, n, f) != n || fclose(f)) {
		perror(path);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct mntsnap_snapshot *s = table();
	void *b;
	size_t n;
	int r = 0;

	if (argc != 2 || !s) {
		fprintf(stderr, "usage: wire-files OUTDIR\n");
		return 2;
	}
	if (mntsnap__wire_encode(s, &b, &n))
		return 1;
	r |= put(argv[1], "v1.mntsnap", b, n);
	free(b);
#ifndef WIRE_FILES_BASELINE
	/* what the build with the extra field would have stored */
	for (uint32_t i = 0; i < s->nsbs; i++)
		s->sbs[i].mask |= MNTSNAP_F_TEST_EXTRA;
	for (uint32_t i = 0; i < s->nrecs; i++)
		s->recs[i].mask |= MNTSNAP_F_TEST_EXTRA;
	s->mask |= MNTSNAP_F_TEST_EXTRA;
	if (mntsnap__wire_encode_fields(s, tab_optional, NTAB, &b, &n))
		return 1;
	r |= put(argv[1], "extra-optional.mntsnap", b, n);
	free(b);
	if (mntsnap__wire_encode_fields(s, tab_required, NTAB, &b, &n))
		return 1;
	r |= put(argv[1], "extra-required.mntsnap", b, n);
	free(b);
#endif
	mntsnap_snapshot_free(s);
	return r;
}
