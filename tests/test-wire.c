// SPDX-License-Identifier: MIT
/*
 * The binary snapshot format: capture -> save -> load -> render equals the
 * capture's own rendering for several mount setups; JSON export is valid;
 * every kind of corruption gives the documented error; saving is atomic.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "helpers.h"
#include "mntsnap.h"
#include "snapshot.h"
#include "wire.h"

#define BASE "/tmp/mntsnap-wire"

static struct mntsnap_snapshot *capture_mask(uint32_t mask)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = { 0 };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_STATMOUNT,
		     .mask = mask, .error = &err);
	int r = mntsnap_capture(&o, &s);

	cr_assert_eq(r, 0, "capture: %s (%s)", strerror(-r), err.msg);
	return s;
}

static void do_mount(const char *src, const char *dst, const char *type, unsigned long fl,
		     const char *data)
{
	ms_mkdir_p(dst);
	cr_assert_eq(mount(src, dst, type, fl, data), 0, "mount %s on %s: %s", src ? src : "-",
		     dst, strerror(errno));
}

/* Save to a file, load it back, compare every rendering and the bytes. */
static void assert_round_trip(struct mntsnap_snapshot *s)
{
	static const int formats[] = { MNTSNAP_FORMAT_MOUNTINFO, MNTSNAP_FORMAT_JSON,
				       MNTSNAP_FORMAT_TABLE, MNTSNAP_FORMAT_TREE };
	struct mntsnap_snapshot *l = NULL;
	struct mntsnap_error err = { 0 };
	void *b1, *b2;
	size_t n1, n2;
	int r;

	cr_assert_eq(mntsnap_snapshot_save(s, BASE "/snap.bin"), 0);
	r = mntsnap_snapshot_load(BASE "/snap.bin", &err, &l);
	cr_assert_eq(r, 0, "load: %s (%s)", strerror(-r), err.msg);
	cr_assert_eq(mntsnap_snapshot_count(l), mntsnap_snapshot_count(s));
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		char *a = ms_render(s, formats[i]), *b = ms_render(l, formats[i]);

		ms_assert_text_eq(b, a, "loaded rendering vs captured rendering");
		free(a);
		free(b);
	}
	cr_assert_eq(mntsnap_snapshot_ns_id(l), mntsnap_snapshot_ns_id(s));
	cr_assert_eq(mntsnap_snapshot_time(l), mntsnap_snapshot_time(s));
	cr_assert_eq(mntsnap_snapshot_mask(l), mntsnap_snapshot_mask(s));
	cr_assert_eq(mntsnap_snapshot_backend(l), mntsnap_snapshot_backend(s));
	cr_assert_str_eq(mntsnap_snapshot_kernel_release(l), mntsnap_snapshot_kernel_release(s));
	cr_assert_eq(mntsnap_snapshot_kernel_supported_mask(l),
		     mntsnap_snapshot_kernel_supported_mask(s));
	/* encoding is deterministic, so a re-save is byte-identical */
	cr_assert_eq(mntsnap__wire_encode(s, &b1, &n1), 0);
	cr_assert_eq(mntsnap__wire_encode(l, &b2, &n2), 0);
	cr_assert_eq(n1, n2);
	cr_assert(!memcmp(b1, b2, n1), "re-encoded bytes differ");
	free(b1);
	free(b2);
	mntsnap_snapshot_free(l);
}

static void round_trip_now(uint32_t mask)
{
	struct mntsnap_snapshot *s = capture_mask(mask);

	assert_round_trip(s);
	mntsnap_snapshot_free(s);
}

Test(wire, crc32c_check_value)
{
	cr_assert_eq(mntsnap__crc32c(0, "123456789", 9), 0xe3069283U);
	cr_assert_eq(mntsnap__crc32c(mntsnap__crc32c(0, "1234", 4), "56789", 5), 0xe3069283U);
}

Test(wire, round_trip_plain)
{
	ms_private_ns(BASE);
	round_trip_now(0);
	round_trip_now(MNTSNAP_MASK_FULL);
}

/*
 * The kernel facts kept with a capture, saved and loaded back, against the
 * kernel's own answers: uname's release and the supported mask a fresh
 * statmount reports. A loaded snapshot reports the backend that captured it.
 */
Test(wire, kernel_facts_saved)
{
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_STATMOUNT,
		     .mask = MNTSNAP_MASK_FULL);
	struct mntsnap_snapshot *s = NULL, *l = NULL;
	uint64_t kmask = mntsnap_kernel_supported_mask();
	struct utsname u;

	ms_private_ns(BASE);
	cr_assert_eq(uname(&u), 0);
	cr_assert_eq(mntsnap_capture(&o, &s), 0);
	cr_assert_str_eq(mntsnap_snapshot_kernel_release(s), u.release);
	cr_assert_eq(mntsnap_snapshot_kernel_supported_mask(s), kmask, "%#llx vs kernel %#llx",
		     (unsigned long long)mntsnap_snapshot_kernel_supported_mask(s),
		     (unsigned long long)kmask);
	cr_assert_eq(mntsnap_snapshot_save(s, BASE "/facts.bin"), 0);
	cr_assert_eq(mntsnap_snapshot_load(BASE "/facts.bin", NULL, &l), 0);
	cr_assert_str_eq(mntsnap_snapshot_kernel_release(l), u.release);
	cr_assert_eq(mntsnap_snapshot_kernel_supported_mask(l), kmask);
	cr_assert_eq(mntsnap_snapshot_backend(l), MNTSNAP_BACKEND_STATMOUNT);
	cr_assert_str_eq(mntsnap_snapshot_kernel_release(NULL), "");
	cr_assert_eq(mntsnap_snapshot_kernel_supported_mask(NULL), 0);
	mntsnap_snapshot_free(l);
	mntsnap_snapshot_free(s);
}

Test(wire, round_trip_tmpfs_options)
{
	ms_private_ns(BASE);
	do_mount("src", BASE "/a", "tmpfs",
		 MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_SYNCHRONOUS |
			 MS_DIRSYNC | MS_LAZYTIME,
		 "size=1m,mode=700,uid=1,gid=2");
	do_mount("src2", BASE "/b", "tmpfs", MS_STRICTATIME | MS_NODIRATIME, "nr_inodes=77");
	round_trip_now(0);
	round_trip_now(MNTSNAP_MASK_FULL);
}

Test(wire, round_trip_binds_and_propagation)
{
	ms_private_ns(BASE);
	do_mount("t", BASE "/t", "tmpfs", 0, NULL);
	ms_mkdir_p(BASE "/t/sub/deeper");
	do_mount(BASE "/t", BASE "/shared", NULL, MS_BIND, NULL);
	cr_assert_eq(mount(NULL, BASE "/shared", NULL, MS_SHARED, NULL), 0);
	do_mount(BASE "/shared", BASE "/peer", NULL, MS_BIND, NULL);
	do_mount(BASE "/shared", BASE "/slave", NULL, MS_BIND, NULL);
	cr_assert_eq(mount(NULL, BASE "/slave", NULL, MS_SLAVE, NULL), 0);
	do_mount(BASE "/t/sub", BASE "/unb", NULL, MS_BIND, NULL);
	cr_assert_eq(mount(NULL, BASE "/unb", NULL, MS_UNBINDABLE, NULL), 0);
	do_mount(BASE "/t/sub/deeper", BASE "/ro", NULL, MS_BIND, NULL);
	cr_assert_eq(mount(NULL, BASE "/ro", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL), 0);
	/* propagates to the peer and the slave */
	do_mount("x", BASE "/shared/sub", "tmpfs", 0, NULL);
	/* stacked on the same mount point */
	do_mount("s1", BASE "/stack", "tmpfs", 0, NULL);
	do_mount("s2", BASE "/stack", "tmpfs", 0, NULL);
	round_trip_now(0);
	round_trip_now(MNTSNAP_MASK_FULL);
}

Test(wire, round_trip_odd_names)
{
	static const char *const names[] = { "sp ace", "tab\there", "new\nline",
					     "back\\slash", "\xc3\xbcn\xc3\xaf",
					     "bad\xff\xfeutf8", "hash#colon:" };
	char path[512];

	ms_private_ns(BASE);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), BASE "/%s", names[i]);
		do_mount(names[i], path, "tmpfs", 0, NULL);
	}
	round_trip_now(0);
	round_trip_now(MNTSNAP_MASK_FULL);
}

Test(wire, round_trip_long_path)
{
	char path[4000];
	size_t n;

	ms_private_ns(BASE);
	n = (size_t)snprintf(path, sizeof(path), "%s", BASE);
	while (n < 3000) {
		memcpy(path + n, "/", 1);
		memset(path + n + 1, 'x', 200);
		n += 201;
		path[n] = '\0';
	}
	do_mount("long", path, "tmpfs", 0, NULL);
	round_trip_now(0);
}

Test(wire, json_export_is_valid_json)
{
	struct mntsnap_snapshot *s;
	char *json;
	FILE *p;

	ms_private_ns(BASE);
	do_mount("new\nline \"q\" \\ \xff", BASE "/o\tdd", "tmpfs", 0, NULL);
	s = capture_mask(MNTSNAP_MASK_FULL);
	json = ms_render(s, MNTSNAP_FORMAT_JSON);
	p = popen("python3 -c 'import json,sys; d=json.load(sys.stdin); "
		  "sys.exit(0 if d else 3)'",
		  "w");
	if (!p)
		cr_skip_test("no python3");
	fputs(json, p);
	cr_assert_eq(pclose(p), 0, "python3 json.load rejected the export");
	free(json);
	mntsnap_snapshot_free(s);
}

/* ---- compactness ------------------------------------------------------- */

Test(wire, compact_1000_binds)
{
	struct mntsnap_snapshot *s;
	size_t text_len, bin_len;
	char path[256], *text;
	void *buf;
	double ratio;

	ms_private_ns(BASE);
	do_mount("t", BASE "/t", "tmpfs", 0, "size=1m");
	ms_mkdir_p(BASE "/t/src");
	for (int i = 0; i < 1000; i++) {
		snprintf(path, sizeof(path), BASE "/b/%d", i);
		do_mount(BASE "/t/src", path, NULL, MS_BIND, NULL);
	}
	s = capture_mask(0);
	text = ms_read_file("/proc/self/mountinfo", &text_len);
	cr_assert_eq(mntsnap__wire_encode(s, &buf, &bin_len), 0);
	ratio = (double)bin_len / (double)text_len;
	cr_log_info("1000 binds: %zu mounts, mountinfo %zu bytes, snapshot %zu bytes, ratio %.3f",
		    mntsnap_snapshot_count(s), text_len, bin_len, ratio);
	fprintf(stderr, "wire: 1000 binds: mountinfo %zu bytes, snapshot %zu bytes, ratio %.3f\n",
		text_len, bin_len, ratio);
	cr_assert_leq(ratio, 0.6);
	free(buf);
	free(text);
	mntsnap_snapshot_free(s);
}

/* ---- atomic save ------------------------------------------------------- */

static int count_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	cr_assert(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

Test(wire, atomic_save_no_temp_files)
{
	struct mntsnap_snapshot *s, *l = NULL;
	int fds;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/out");
	s = capture_mask(0);
	fds = ms_count_fds();
	for (int i = 0; i < 3; i++)
		cr_assert_eq(mntsnap_snapshot_save(s, BASE "/out/s.bin"), 0);
	cr_assert_eq(count_dir(BASE "/out"), 1, "temp files left behind");
	cr_assert_eq(ms_count_fds(), fds, "fd leak");
	cr_assert_eq(mntsnap_snapshot_load(BASE "/out/s.bin", NULL, &l), 0);
	mntsnap_snapshot_free(l);
	/* relative path, in the current directory */
	cr_assert_eq(chdir(BASE "/out"), 0);
	cr_assert_eq(mntsnap_snapshot_save(s, "rel.bin"), 0);
	cr_assert_eq(count_dir(BASE "/out"), 2);
	cr_assert_eq(mntsnap_snapshot_save(s, BASE "/out/"), -EISDIR);
	cr_assert_eq(mntsnap_snapshot_save(s, BASE "/nodir/x.bin"), -ENOENT);
	mntsnap_snapshot_free(s);
}

Test(wire, failed_save_keeps_old_file)
{
	struct mntsnap_snapshot *s, *l = NULL;
	size_t len1, len2;
	char *a, *b;

	ms_private_ns(BASE);
	/* an 8 KiB filesystem: the second, larger snapshot cannot fit */
	do_mount("small", BASE "/small", "tmpfs", 0, "size=8k");
	for (int i = 0; i < 10; i++) {
		char p[128];

		snprintf(p, sizeof(p), BASE "/m/%d", i);
		do_mount("m", p, "tmpfs", 0, NULL);
	}
	s = capture_mask(0);
	cr_assert_eq(mntsnap_snapshot_save(s, BASE "/small/s.bin"), 0);
	a = ms_read_file(BASE "/small/s.bin", &len1);
	mntsnap_snapshot_free(s);
	for (int i = 0; i < 800; i++) {
		char p[128];

		snprintf(p, sizeof(p), BASE "/many/%0100d", i);
		do_mount("m", p, "tmpfs", 0, NULL);
	}
	s = capture_mask(MNTSNAP_MASK_FULL);
	{
		void *buf;
		size_t n;

		cr_assert_eq(mntsnap__wire_encode(s, &buf, &n), 0);
		cr_assert_gt(n, 8192, "test needs a snapshot larger than the fs");
		free(buf);
	}
	cr_assert_eq(mntsnap_snapshot_save(s, BASE "/small/s.bin"), -ENOSPC);
	b = ms_read_file(BASE "/small/s.bin", &len2);
	cr_assert(len1 == len2 && !memcmp(a, b, len1), "old file damaged");
	cr_assert_eq(count_dir(BASE "/small"), 1, "temp file left behind");
	cr_assert_eq(mntsnap_snapshot_load(BASE "/small/s.bin", NULL, &l), 0);
	mntsnap_snapshot_free(l);
	mntsnap_snapshot_free(s);
	free(a);
	free(b);
}

/* ---- corruption ---------------------------------------------------------- */

static void *encode_now(size_t *len)
{
	struct mntsnap_snapshot *s = capture_mask(0);
	void *buf;

	cr_assert_eq(mntsnap__wire_encode(s, &buf, len), 0);
	mntsnap_snapshot_free(s);
	return buf;
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void fix_crc(uint8_t *b, size_t len)
{
	put_le(b + len - 4, mntsnap__crc32c(0, b, len - 4), 4);
}

static void expect(const void *b, size_t len, int want, const char *msg_part)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error e = { 0 };
	int r = mntsnap_snapshot_load_buf(b, len, &e, &s);

	cr_assert_eq(r, want, "want %s got %d (%s)", strerror(-want), r, e.msg);
	cr_assert_null(s);
	cr_assert_eq(e.err, want);
	if (msg_part)
		cr_assert(strstr(e.msg, msg_part), "message '%s' lacks '%s'", e.msg, msg_part);
}

Test(wire, every_truncation_is_rejected)
{
	size_t len;
	uint8_t *b = encode_now(&len);

	for (size_t n = 0; n < len; n++) {
		uint8_t *c = malloc(n + 1); /* exact-size copy: ASan/valgrind see over-reads */

		memcpy(c, b, n);
		expect(c, n, -EBADMSG, NULL);
		free(c);
	}
	expect(b, len - 1, -EBADMSG, "truncated");
	free(b);
}

Test(wire, every_bit_flip_is_rejected)
{
	size_t len;
	uint8_t *b = encode_now(&len);

	for (size_t i = 0; i < len; i++) {
		for (int bit = 0; bit < 8; bit += 3) {
			struct mntsnap_snapshot *s = NULL;
			int r;

			b[i] ^= (uint8_t)(1 << bit);
			r = mntsnap_snapshot_load_buf(b, len, NULL, &s);
			cr_assert(r < 0, "flip at %zu bit %d accepted", i, bit);
			b[i] ^= (uint8_t)(1 << bit);
		}
	}
	free(b);
}

Test(wire, bad_magic_checksum_version_features)
{
	size_t len;
	uint8_t *b = encode_now(&len);

	b[0] = 'X';
	expect(b, len, -EBADMSG, "magic");
	b[0] = 'M';
	b[len / 2] ^= 0x40;
	expect(b, len, -EBADMSG, "checksum");
	b[len / 2] ^= 0x40;
	put_le(b + 8, 2, 2);
	expect(b, len, -EPROTO, "newer");
	put_le(b + 8, 0, 2);
	expect(b, len, -EBADMSG, "version");
	put_le(b + 8, 1, 2);
	put_le(b + 12, 0x80, 4);
	fix_crc(b, len);
	expect(b, len, -EOPNOTSUPP, "features");
	put_le(b + 12, 0, 4);
	put_le(b + 16, len + 10, 8);
	fix_crc(b, len);
	expect(b, len, -EBADMSG, "truncated");
	put_le(b + 16, len, 8);
	fix_crc(b, len);
	{
		struct mntsnap_snapshot *s = NULL;

		cr_assert_eq(mntsnap_snapshot_load_buf(b, len, NULL, &s), 0);
		mntsnap_snapshot_free(s);
	}
	free(b);
}

/* Insert a section right after the header; fix length and checksum. */
static uint8_t *with_section(const uint8_t *b, size_t len, unsigned type, unsigned flags,
			     size_t *ret_len)
{
	static const char payload[] = "future data";
	size_t add = 8 + sizeof(payload), n = len + add;
	uint8_t *c = malloc(n);

	memcpy(c, b, 24);
	put_le(c + 24, type, 2);
	put_le(c + 26, flags, 2);
	put_le(c + 28, sizeof(payload), 4);
	memcpy(c + 32, payload, sizeof(payload));
	memcpy(c + 24 + add, b + 24, len - 24);
	put_le(c + 16, n, 8);
	fix_crc(c, n);
	*ret_len = n;
	return c;
}

Test(wire, unknown_sections)
{
	struct mntsnap_snapshot *s = NULL;
	size_t len, n;
	uint8_t *b = encode_now(&len), *c;

	c = with_section(b, len, 77, 0, &n);
	cr_assert_eq(mntsnap_snapshot_load_buf(c, n, NULL, &s), 0, "optional section not skipped");
	mntsnap_snapshot_free(s);
	free(c);
	c = with_section(b, len, 77, 1, &n);
	expect(c, n, -EOPNOTSUPP, "unknown required section");
	free(c);
	c = with_section(b, len, 2, 1, &n); /* a second STRINGS section */
	expect(c, n, -EBADMSG, "duplicate section");
	free(c);
	free(b);
}

/*
 * Hand-built files (the documented layout, independent of the encoder):
 * two records, mask ID|ROOT|MOUNT_POINT, one empty superblock, no idmaps.
 */
struct hand {
	uint8_t strings[16];
	size_t nstrings;
	uint8_t recs[64];
	size_t nrecs;
};

static size_t hand_build(const struct hand *h, uint8_t *out)
{
	/* backend 1, mask 0x301, ns 0, time 0, supported 0, unknown, 1 attempt, "" */
	static const uint8_t meta[] = { 1, 0x81, 0x06, 0, 0, 0, 0, 1, 0 };
	static const uint8_t sbs[] = { 1, 0 };
	static const uint8_t idmaps[] = { 0 };
	const struct {
		unsigned type;
		const uint8_t *p;
		size_t len;
	} secs[] = { { 1, meta, sizeof(meta) },
		     { 2, h->strings, h->nstrings },
		     { 3, sbs, sizeof(sbs) },
		     { 4, idmaps, sizeof(idmaps) },
		     { 5, h->recs, h->nrecs } };
	size_t n = 24;

	memcpy(out, "MNTSNAP\x1a", 8);
	put_le(out + 8, 1, 2);
	put_le(out + 10, 24, 2);
	put_le(out + 12, 0, 4);
	for (size_t i = 0; i < 5; i++) {
		put_le(out + n, secs[i].type, 2);
		put_le(out + n + 2, 1, 2);
		put_le(out + n + 4, secs[i].len, 4);
		memcpy(out + n + 8, secs[i].p, secs[i].len);
		n += 8 + secs[i].len;
	}
	put_le(out + 16, n + 4, 8);
	fix_crc(out, n + 4);
	return n + 4;
}

/*
 * strings "", "/", "/a"; record 0: root, id 100, root "/", mount point "/";
 * record 1: id 101, parent record 0, root "/", mount point "/a".
 */
static const struct hand good = {
	.strings = { 0, '/', 0, '/', 'a', 0 },
	.nstrings = 6,
	.recs = { 2,
		  /* rec 0 [1..12]: link, flags, mask, id, parent, sb, root, mp */
		  0, 1, 0x81, 0x06, 0xc8, 0x01, 0, 0, 1, 0, 1, '/',
		  /* rec 1 [13..21]: link, flags, mask ^ prev, id, sb, root, mp */
		  2, 0, 0, 2, 0, 1, 1, 1, 'a' },
	.nrecs = 22,
};

Test(wire, hand_built_valid)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_mount m;
	struct mntsnap_error e = { 0 };
	uint8_t buf[256];
	size_t n = hand_build(&good, buf);

	cr_assert_eq(mntsnap_snapshot_load_buf(buf, n, &e, &s), 0, "%s", e.msg);
	cr_assert_eq(mntsnap_snapshot_count(s), 2);
	cr_assert_eq(mntsnap_snapshot_get(s, 1, &m), 0);
	cr_assert_eq(m.id, 101);
	cr_assert_eq(m.parent_id, 100);
	cr_assert_eq(m.parent_index, 0);
	cr_assert_str_eq(m.mount_point, "/a");
	cr_assert_str_eq(m.root, "/");
	cr_assert_eq(m.mask, MNTSNAP_F_ID | MNTSNAP_F_ROOT | MNTSNAP_F_MOUNT_POINT);
	mntsnap_snapshot_free(s);
}

static void expect_hand(const struct hand *h, const char *msg_part)
{
	uint8_t buf[256];
	size_t n = hand_build(h, buf);
	uint8_t *c = malloc(n);

	memcpy(c, buf, n);
	expect(c, n, -EBADMSG, msg_part);
	free(c);
}

static void hand_recs(struct hand *h, const uint8_t *recs, size_t n)
{
	*h = good;
	memcpy(h->recs, recs, n);
	h->nrecs = n;
}

Test(wire, hand_built_corruptions)
{
	static const uint8_t cycle[] = { 2, 1, 0, 0x81, 0x06, 0xc8, 0x01, 0, 1, 0, 1, '/',
					 2, 0, 0, 2, 0, 1, 1, 1, 'a' };
	static const uint8_t root_with_parent[] = { 2, 0, 1, 0x81, 0x06, 0xc8, 0x01, 0, 0, 1,
						    0, 1, '/', 0, 1, 0, 2, 2, 0, 1, 1, 1, 'a' };
	struct hand h;

	h = good, h.recs[18] = 9;           /* root string offset 9 > 6 */
	expect_hand(&h, "outside the string table");
	h = good, h.strings[5] = 'x';       /* table no longer ends in NUL */
	expect_hand(&h, "NUL");
	h = good, h.recs[13] = 10;          /* link +5: before record 0 */
	expect_hand(&h, "points nowhere");
	h = good, h.recs[13] = 3;           /* link -2 -> index 3: past the end */
	expect_hand(&h, "points nowhere");
	h = good, h.recs[16] = 0;           /* id delta 0: duplicate id 100 */
	expect_hand(&h, "duplicate");
	h = good, h.recs[0] = 0x7f;         /* 127 records in 21 bytes */
	expect_hand(&h, "count");
	h = good, h.recs[0] = 0xff, h.recs[1] = 0xff; /* count needing > 32 bits... */
	expect_hand(&h, NULL);
	hand_recs(&h, cycle, sizeof(cycle)); /* 0 -> 1 -> 0 */
	expect_hand(&h, "cycle");
	h = good, h.recs[17] = 5;           /* superblock 5 of 1 */
	expect_hand(&h, "superblock index");
	h = good, h.recs[3] = 0xff, h.recs[4] = 0xff; /* mask with unknown bits */
	expect_hand(&h, "unknown bits");
	h = good, h.recs[10] = 5;           /* prefix longer than the previous mount point */
	expect_hand(&h, "shares more");
	h = good, h.recs[21] = 0;           /* NUL inside a mount point */
	expect_hand(&h, "contains a NUL");
	h = good, h.recs[20] = 100;         /* mount point longer than the section */
	expect_hand(&h, "runs past");
	hand_recs(&h, root_with_parent, sizeof(root_with_parent));
	expect_hand(&h, "root has a parent");
	h = good, h.nrecs = 20;             /* record cut short */
	expect_hand(&h, "truncated");
	h = good, h.recs[h.nrecs++] = 0;    /* trailing byte */
	expect_hand(&h, "trailing");
	h = good, h.recs[7] = 2;            /* a root whose parent (id 99) is absent: fine */
	{
		uint8_t buf[256];
		size_t n = hand_build(&h, buf);
		struct mntsnap_snapshot *s = NULL;

		cr_assert_eq(mntsnap_snapshot_load_buf(buf, n, NULL, &s), 0);
		mntsnap_snapshot_free(s);
	}
}

/*
 * Every offset in bounds, yet quadratic: mount points that each share
 * the whole previous one and add a byte. The expansion budget stops it.
 */
Test(wire, expansion_is_bounded)
{
	size_t nrec = 60000, cap = 24 + 5 * 8 + 64 + nrec * 16 + 4, n = 0, sec;
	uint8_t *b = calloc(1, cap), *p;
	static const uint8_t meta[] = { 1, 0x81, 0x04, 0, 0, 0, 0, 1, 0 };
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error e = { 0 };
	uint64_t id = 100;

	memcpy(b, "MNTSNAP\x1a", 8);
	put_le(b + 8, 1, 2);
	put_le(b + 10, 24, 2);
	n = 24;
#define SEC(type, bytes, len)                                                  \
	do {                                                                   \
		put_le(b + n, type, 2);                                        \
		put_le(b + n + 2, 1, 2);                                       \
		put_le(b + n + 4, len, 4);                                     \
		memcpy(b + n + 8, bytes, len);                                 \
		n += 8 + (len);                                                \
	} while (0)
	SEC(1, meta, sizeof(meta));
	SEC(2, "", 1);
	SEC(3, "\x01\x00", 2);
	SEC(4, "", 1);
	/* records: count, then link 0, flags 1, mask ID|MOUNT_POINT, ... */
	put_le(b + n, 5, 2);
	put_le(b + n + 2, 1, 2);
	sec = n;
	p = b + n + 8;
	*p++ = 0xe0, *p++ = 0xd4, *p++ = 0x03; /* 60000 */
	for (size_t i = 0; i < nrec; i++) {
		size_t k = i; /* share everything so far, add one byte */

		*p++ = 0;              /* link: root */
		*p++ = 1;              /* parent ids written */
		if (i) {
			*p++ = 0;      /* mask unchanged */
		} else {
			*p++ = 0x81;   /* mask 0x201 */
			*p++ = 0x04;
		}
		*p++ = 2;              /* id + 1 */
		*p++ = 0;              /* parent = self */
		*p++ = 0;              /* sb 0 */
		do {                   /* varint k */
			*p++ = (uint8_t)((k & 0x7f) | (k > 0x7f ? 0x80 : 0));
			k >>= 7;
		} while (k);
		*p++ = 1, *p++ = 'x';
		id++;
	}
	put_le(b + sec + 4, (uint64_t)(p - (b + sec + 8)), 4);
	n = (size_t)(p - b) + 4;
	put_le(b + 16, n, 8);
	fix_crc(b, n);
	cr_assert_eq(mntsnap_snapshot_load_buf(b, n, &e, &s), -EBADMSG);
	cr_assert(strstr(e.msg, "expand"), "%s", e.msg);
	free(b);
}

/* ---- fields this reader does not know ------------------------------------ */

/*
 * The field table with one more superblock field (the magic again under
 * wire tag 0xfe00), as a newer build would have it; the same row as
 * tests/progs/wire-files.c writes the checked-in files with.
 */
#define MNTSNAP_F_TEST_EXTRA (1U << 31)
#define MNTSNAP_FIELDS_EXTRA(X)                                                                    \
	X(TEST_EXTRA, SB, U64, sb_magic, sb_magic, 0, 0, mask, mask, "test-extra", 1, 0, 0,        \
	  EXTRA_TAG, EXTRA_REQUIRED)
#include "fields.h"
#include "uapi.h"

#define EXTRA_TAG 0xfe00
#define EXTRA_REQUIRED 0
static const struct mntsnap_field tab_optional[] = { MNTSNAP_FIELDS(MNTSNAP__FIELD_ROW) };
#undef EXTRA_REQUIRED
#define EXTRA_REQUIRED 1
static const struct mntsnap_field tab_required[] = { MNTSNAP_FIELDS(MNTSNAP__FIELD_ROW) };
/* a u64 under the UUID's tag: a field of another shape than this reader's */
#undef EXTRA_TAG
#define EXTRA_TAG 1
static const struct mntsnap_field tab_clash[] = { MNTSNAP_FIELDS(MNTSNAP__FIELD_ROW) };
#define NTAB ((int)(sizeof(tab_optional) / sizeof(tab_optional[0])))

static void *data_file(const char *name, size_t *len)
{
	char path[512];
	void *b;

	snprintf(path, sizeof(path), "%s/%s", WIRE_DATA_DIR, name);
	b = ms_read_file(path, len);
	cr_assert_not_null(b, "%s", path);
	return b;
}

/* The newer build's file: every superblock and record has the extra field. */
static void encode_with_extra(struct mntsnap_snapshot *s, const struct mntsnap_field *tab,
			      void **buf, size_t *len)
{
	for (uint32_t i = 0; i < s->nsbs; i++)
		s->sbs[i].mask |= MNTSNAP_F_TEST_EXTRA;
	for (uint32_t i = 0; i < s->nrecs; i++)
		s->recs[i].mask |= MNTSNAP_F_TEST_EXTRA;
	s->mask |= MNTSNAP_F_TEST_EXTRA;
	cr_assert_eq(mntsnap__wire_encode_fields(s, tab, NTAB, buf, len), 0);
	for (uint32_t i = 0; i < s->nsbs; i++)
		s->sbs[i].mask &= ~MNTSNAP_F_TEST_EXTRA;
	for (uint32_t i = 0; i < s->nrecs; i++)
		s->recs[i].mask &= ~MNTSNAP_F_TEST_EXTRA;
	s->mask &= ~MNTSNAP_F_TEST_EXTRA;
}

/* Loaded and encoded again by this build: exactly want (want_len bytes). */
static void assert_loads_as(const void *b, size_t len, const void *want, size_t want_len)
{
	struct mntsnap_snapshot *l = NULL;
	struct mntsnap_error e = { 0 };
	void *again;
	size_t n;

	cr_assert_eq(mntsnap_snapshot_load_buf(b, len, &e, &l), 0, "%s", e.msg);
	cr_assert_eq(mntsnap__wire_encode(l, &again, &n), 0);
	cr_assert(n == want_len && !memcmp(again, want, n),
		  "the unknown field was not simply skipped (%zu vs %zu bytes)", n, want_len);
	free(again);
	mntsnap_snapshot_free(l);
}

Test(wire, unknown_field_of_a_live_capture)
{
	struct mntsnap_snapshot *s = capture_mask(MNTSNAP_MASK_FULL);
	void *plain, *opt, *req;
	size_t np, no, nr;

	cr_assert_eq(mntsnap__wire_encode(s, &plain, &np), 0);
	encode_with_extra(s, tab_optional, &opt, &no);
	encode_with_extra(s, tab_required, &req, &nr);
	cr_assert_gt(no, np, "the extra field was not written");
	assert_loads_as(opt, no, plain, np);
	expect(req, nr, -EOPNOTSUPP, "does not know (field tag 65024");
	free(plain);
	free(opt);
	free(req);
	mntsnap_snapshot_free(s);
}

Test(wire, known_field_of_another_shape_is_corrupt)
{
	struct mntsnap_snapshot *s = capture_mask(0); /* no UUID: only the clash has tag 1 */
	void *b;
	size_t n;

	cr_assert_eq(mntsnap__field_of(MNTSNAP_F_UUID)->wire, 1);
	encode_with_extra(s, tab_clash, &b, &n);
	expect(b, n, -EBADMSG, "field UUID: section of another shape");
	free(b);
	mntsnap_snapshot_free(s);
}

/* The UUID's field section, as written and read by this build. */
Test(wire, uuid_field_round_trip)
{
	struct mntsnap_snapshot *s, *l = NULL;
	struct mntsnap_mount m;
	void *b;
	size_t n;

	ms_private_ns(BASE);
	s = capture_mask(MNTSNAP_MASK_FULL);

	/* whatever the host has: give the first superblock a UUID of its own */
	s->sbs[0].uuid = (uint32_t)mntsnap__snap_str(s, "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0", 36);
	s->sbs[0].mask |= MNTSNAP_F_UUID;
	for (uint32_t i = 0; i < s->nrecs; i++)
		if (s->recs[i].sb == 0)
			s->recs[i].mask |= MNTSNAP_F_UUID;
	assert_round_trip(s);
	cr_assert_eq(mntsnap__wire_encode(s, &b, &n), 0);
	cr_assert_eq(mntsnap_snapshot_load_buf(b, n, NULL, &l), 0);
	cr_assert(l->mask & MNTSNAP_F_UUID, "asked-for bit lost");
	for (size_t i = 0; i < mntsnap_snapshot_count(l); i++) {
		cr_assert_eq(mntsnap_snapshot_get(l, i, &m), 0);
		if (s->recs[i].sb == 0) {
			cr_assert(m.mask & MNTSNAP_F_UUID);
			cr_assert_str_eq(m.uuid, "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
		}
	}
	free(b);
	mntsnap_snapshot_free(l);
	mntsnap_snapshot_free(s);
}

/*
 * The checked-in files: v1.mntsnap was written by the library before the
 * field table (commit ba7117c); the extra-* ones by a build with one more
 * field. The program that wrote them writes the same bytes now.
 */
Test(wire, saved_files_old_and_newer)
{
	const char *names[] = { "v1.mntsnap", "extra-optional.mntsnap", "extra-required.mntsnap" };
	const char *prog = getenv("MNTSNAP_WIRE_FILES");
	char dir[] = "/tmp/mntsnap-wire-files.XXXXXX", cmd[1024];
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_mount m;
	size_t n1, no, nr;
	void *v1 = data_file("v1.mntsnap", &n1);
	void *opt = data_file("extra-optional.mntsnap", &no);
	void *req = data_file("extra-required.mntsnap", &nr);

	cr_assert_eq(mntsnap_snapshot_load_buf(v1, n1, NULL, &s), 0);
	cr_assert_eq(mntsnap_snapshot_count(s), 3);
	cr_assert_eq(mntsnap_snapshot_get(s, 2, &m), 0);
	cr_assert_str_eq(m.fs_type, "ext4");
	cr_assert_str_eq(m.mount_point, "/mnt/a/disk");
	cr_assert_eq(m.uidmap_num, 1);
	cr_assert_str_eq(m.uidmap, "0 1000 1");
	cr_assert_eq(m.dev_major, 8);
	cr_assert_eq(m.sb_magic, 0xef53);
	mntsnap_snapshot_free(s);
	assert_loads_as(v1, n1, v1, n1);
	assert_loads_as(opt, no, v1, n1);
	expect(req, nr, -EOPNOTSUPP, "does not know (field tag 65024");

	cr_assert_not_null(prog, "MNTSNAP_WIRE_FILES not set");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "%s %s", prog, dir);
	cr_assert_eq(system(cmd), 0);
	for (size_t i = 0; i < 3; i++) {
		char path[512];
		size_t a, b;
		void *x = data_file(names[i], &a), *y;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		y = ms_read_file(path, &b);
		cr_assert(y && a == b && !memcmp(x, y, a), "%s: not what the writer writes now",
			  names[i]);
		unlink(path);
		free(x);
		free(y);
	}
	rmdir(dir);
	free(v1);
	free(opt);
	free(req);
}

/*
 * A snapshot file is input: one whose strings hold a newline (options and
 * optional fields, kept verbatim from the kernel, too) never makes the
 * mountinfo rendering break a record in two. Crafted by writing "QQ" in
 * every string of a parsed line and turning each into '\n' in the file
 * (optional fields, "ZZ": refused at load).
 */
Test(wire, crafted_newlines_never_split_a_mountinfo_record)
{
	static const char line[] =
		"21 1 0:40 /rQQ /mQQ rw,relatime shared:1 xZZ:3 - tQQ sQQ rw,oQQ=1\n"
		"22 21 0:41 / /mQQ/b rw - tmpfs none rw\n";
	struct mntsnap_snapshot *s, *l, *back;
	size_t len, n = 0;
	uint8_t *buf;
	char *text;

	cr_assert_eq(mntsnap_parse_mountinfo(line, sizeof(line) - 1, NULL, &s), 0);
	cr_assert_eq(mntsnap__wire_encode(s, (void **)&buf, &len), 0);
	for (size_t i = 0; i + 1 < len; i++)
		if (buf[i] == 'Q' && buf[i + 1] == 'Q') {
			buf[i] = '\n';
			buf[i + 1] = '\n';
			n++;
		}
	cr_assert_geq(n, 5, "every string carries the marker");
	fix_crc(buf, len);
	{
		uint8_t *z = malloc(len);

		memcpy(z, buf, len);
		for (size_t i = 0; i + 1 < len; i++)
			if (z[i] == 'Z' && z[i + 1] == 'Z')
				z[i] = '\n';
		fix_crc(z, len);
		expect(z, len, -EBADMSG, "optional fields");
		free(z);
	}
	struct mntsnap_error e = { 0 };
	int r = mntsnap_snapshot_load_buf(buf, len, &e, &l);
	cr_assert_eq(r, 0, "%d %s", r, e.msg);
	text = ms_render(l, MNTSNAP_FORMAT_MOUNTINFO);
	n = 0;
	for (const char *p = text; *p; p++)
		n += *p == '\n';
	cr_assert_eq(n, 2, "one line per record:\n%s", text);
	/* and the text reads back as the same two records */
	cr_assert_eq(mntsnap_parse_mountinfo(text, strlen(text), NULL, &back), 0, "%s", text);
	cr_assert_eq(mntsnap_snapshot_count(back), 2);
	mntsnap_snapshot_free(back);
	free(text);
	mntsnap_snapshot_free(l);
	mntsnap_snapshot_free(s);
	free(buf);
}
