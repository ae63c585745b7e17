// SPDX-License-Identifier: MIT
/*
 * The binary snapshot format, version 1: files written by
 * mntsnap_snapshot_save() and read by mntsnap_snapshot_load(). (A namespace
 * helper shares the caller's memory and hands its snapshot over as is.)
 *
 * Integers are little-endian. "varint" is unsigned LEB128 (at most 10
 * bytes, must fit 64 bits), "zz" a zigzag-coded signed varint, "off" a
 * varint offset into the STRINGS section. Fields a record or superblock
 * does not have (per its mask) are not written at all.
 *
 *   header, 24 bytes
 *      0 magic      "MNTSNAP\x1a"  (0x1a catches text-mode mangling)
 *      8 version    u16, 1. A newer version is refused with -EPROTO.
 *     10 hdr_len    u16, >= 24. Bytes past the ones a reader knows are skipped,
 *                   so later versions may grow the header.
 *     12 features   u32 REQUIRED feature bits. v1 defines none; a reader
 *                   refuses any bit it does not know with -EOPNOTSUPP.
 *     16 total_len  u64, length of everything including the trailer.
 *   sections, back to back up to the trailer, each:
 *      u16 type, u16 flags (bit 0 = REQUIRED), u32 payload length, payload.
 *      A reader skips a type it does not know unless it is REQUIRED
 *      (-EOPNOTSUPP). Each known type appears exactly once.
 *   trailer
 *      u32 CRC32C (Castagnoli) of every byte before it.
 *
 *   1 META     varint backend, mask, ns_id, time_ns (CLOCK_REALTIME ns),
 *              kernel_supported_mask, consistent + 1 (0 = unknown),
 *              attempts, then varint length + bytes of the kernel release
 *   2 STRINGS  NUL-terminated strings end to end, each distinct string
 *              once; starts with "" (offset 0) and ends with a NUL
 *   3 SBS      varint count, then per interned superblock: varint mask
 *              (sb-level MNTSNAP_F_* bits), DEV: major, minor; SB_MAGIC;
 *              SB_FLAGS; FS_TYPE off; FS_SUBTYPE off; SOURCE off; OPTS off;
 *              OPT_ARRAY: num, off; OPT_SEC_ARRAY: num, off (a list is num
 *              strings end to end)
 *   4 IDMAPS   varint count, then uidmap num, off, gidmap num, off
 *   5 RECORDS  varint count, then per mount in storage order:
 *              zz link: 0 = a root of the snapshot (its parent is not in
 *                 it), else index - parent's index
 *              varint flags: bit 0 parent ids written, bit 1 has an idmap
 *              varint mask (MNTSNAP_F_*) XOR the previous record's mask
 *              ID: zz id - previous id;  ID_OLD: zz id_old - previous id_old
 *              flags bit 0: ID: zz id - parent_id; ID_OLD: zz id_old -
 *                 parent_id_old (else they are the linked parent's ids)
 *              ATTR: attr; PROPAGATION: propagation rotated right by 17
 *              (MS_SHARED etc. become small), peer_group, master;
 *              PROPAGATE_FROM: propagate_from; varint sb index;
 *              ROOT: off; MOUNT_POINT: front-coded against the previous
 *              record's mount point: varint length of the shared prefix,
 *              varint length of the rest, the rest (no NUL);
 *              flags bit 1: varint idmap index
 *   6 OPTFIELDS (optional: written without the REQUIRED flag, so a reader
 *              that does not know it skips it) varint count, then per
 *              record that has unknown optional fields (parsed text, see
 *              struct mntsnap_mount opt_fields), in storage order: varint
 *              record index - previous such index (the first: the index),
 *              off of the fields as the text had them
 *   7 MNTOPTS  (optional, as OPTFIELDS) the same shape for the per-mount
 *              option text of parsed lines holding an option this build
 *              did not know (struct mntsnap_mount mnt_opts_text); a reader
 *              that skips it still has every known option in ATTR
 *   8 SBOPTS   (optional, as OPTFIELDS) the same shape for the super
 *              option text of parsed lines that sb_flags and options do
 *              not render back ("rw,", "size=1k,rw": struct mntsnap_mount
 *              sb_opts_text);
 *              a reader that skips it still has their sb flags and options
 *   0x100 + tag  FIELD: one record field added after version 1 (fields.h
 *              rows with a wire tag; the first is the UUID). Its bit is
 *              never set in the masks of META, SBS or RECORDS, which carry
 *              the version-1 fields only, so readers that predate it read
 *              everything else unchanged. Flags: REQUIRED when the field's
 *              row says so (WIRE_REQUIRED), else optional. A reader that
 *              does not know the tag skips an optional field section and
 *              refuses a required one with -EOPNOTSUPP (never -EBADMSG).
 *              Payload: varint level (0 = per record, 1 = per superblock),
 *              varint kind (0 u32, 1 u64, 2 string, 3 list, 4 u32 pair),
 *              varint asked (1 if the capture asked for the field: META's
 *              mask gets the bit), varint count, then per superblock or
 *              record that has the field, in order: varint index -
 *              previous such index (the first: the index), the value
 *              (numbers as varints, a string as off, a list as num, off).
 *              A known tag whose level or kind differ from the table's is
 *              corrupt.
 *
 * Why this shape: ids ascend, so deltas are one or two bytes; parents are
 * nearly always a few records back; masks rarely change; superblock data
 * is shared by every bind mount of a filesystem; other strings are stored
 * once; mount points, the one string every record has, share long
 * prefixes with their neighbour in id order. A 1,000-bind-mount table
 * comes to about a quarter of its mountinfo text.
 *
 * The decoder trusts nothing: the checksum is checked first, then every
 * length, count (bounded by the bytes that remain, so no count can make an
 * allocation overflow), offset and list, then ids (no duplicates) and the
 * parent links (they must agree with the ids; cycles are refused).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backends.h"
#include "fields.h"
#include "hash.h"
#include "opts.h"
#include "snapshot.h"
#include "wire.h"

#define WIRE_MAGIC "MNTSNAP\x1a"
#define WIRE_HDR_LEN 24
#define WIRE_SEC_HDR 8
#define WIRE_TRAILER 4
#define WIRE_FEATURES_KNOWN 0U
#define WIRE_SEC_REQUIRED 1U
/* a loaded file larger than this is refused rather than read into memory */
#define WIRE_MAX_FILE (1ULL << 31)

enum {
	SEC_META = 1,
	SEC_STRINGS = 2,
	SEC_SBS = 3,
	SEC_IDMAPS = 4,
	SEC_RECORDS = 5,
	SEC_OPTFIELDS = 6, /* optional */
	SEC_MNTOPTS = 7,   /* optional */
	SEC_SBOPTS = 8,    /* optional */
	SEC__KNOWN = 9,
};

/*
 * Field sections: type FIELD_BASE + the field's wire tag (fields.h). The
 * section's REQUIRED flag is the field's WIRE_REQUIRED.
 */
#define SEC_FIELD_BASE 0x100U

enum {
	RF_PARENT_IDS = 1U << 0,
	RF_IDMAP = 1U << 1,
	RF__ALL = (1U << 2) - 1,
};

/* the bits version-1 sections carry inline; later fields have sections */
#define CORE_FIELDS MNTSNAP__FIELDS_CORE_BITS
#define SB_FIELDS (MNTSNAP__FIELDS_SB & CORE_FIELDS)

/* ---- CRC32C --------------------------------------------------------------- */

static uint32_t crc32c_sw(uint32_t crc, const unsigned char *p, size_t len)
{
	uint32_t t[256];

	/* 256 entries on the stack: cheap next to any real input, no globals */
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78U : c >> 1;
		t[i] = c;
	}
	while (len--)
		crc = t[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/*
 * SSE4.2 has a CRC32C instruction (same polynomial): 8 bytes a cycle
 * instead of one. The checksum was a third of encode+decode time, which
 * every save and load pays.
 */
__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t crc,
							      const unsigned char *p,
							      size_t len)
{
	uint64_t c = crc;

	for (; len >= 8; p += 8, len -= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
	}
	crc = (uint32_t)c;
	for (; len; p++, len--)
		crc = __builtin_ia32_crc32qi(crc, *p);
	return crc;
}

static bool have_sse42(void)
{
	return __builtin_cpu_supports("sse4.2");
}
#endif

uint32_t mntsnap__crc32c(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	crc = ~crc;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (have_sse42())
		return ~crc32c_hw(crc, p, len);
#endif
	return ~crc32c_sw(crc, p, len);
}

/* ---- writing -------------------------------------------------------------- */

struct wbuf {
	uint8_t *p;
	size_t len, cap;
	int err;
};

static void w_reserve(struct wbuf *w, size_t n)
{
	size_t ncap;
	uint8_t *np;

	if (w->err || w->cap - w->len >= n)
		return;
	ncap = w->cap ? w->cap : 4096;
	while (ncap - w->len < n) {
		if (ncap > SIZE_MAX / 2) {
			w->err = -ENOMEM;
			return;
		}
		ncap *= 2;
	}
	np = realloc(w->p, ncap);
	if (!np) {
		w->err = -ENOMEM;
		return;
	}
	w->p = np;
	w->cap = ncap;
}

static void w_bytes(struct wbuf *w, const void *b, size_t n)
{
	w_reserve(w, n);
	if (w->err)
		return;
	memcpy(w->p + w->len, b, n);
	w->len += n;
}

static void w_le(struct wbuf *w, uint64_t v, int n)
{
	uint8_t b[8];

	for (int i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	w_bytes(w, b, (size_t)n);
}

static void w_var(struct wbuf *w, uint64_t v)
{
	uint8_t b[10];
	int n = 0;

	do {
		b[n] = v & 0x7f;
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	w_bytes(w, b, (size_t)n);
}

static void w_zz(struct wbuf *w, int64_t v)
{
	w_var(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static uint32_t rotr17(uint32_t v)
{
	return v >> 17 | v << 15;
}

static uint32_t rotl17(uint32_t v)
{
	return v << 17 | v >> 15;
}

/* String interning for the output string table. */
struct strpool {
	struct wbuf tab;
	uint32_t *slot; /* out offset + 1, 0 = empty */
	uint32_t *slot_len;
	uint32_t cap, n;
};

static uint32_t fnv(const char *p, size_t len)
{
	return mntsnap_hash_bytes(MNTSNAP_HASH_INIT, p, len);
}

static int pool_grow(struct strpool *sp)
{
	uint32_t ncap = sp->cap ? sp->cap * 2 : 1024;
	uint32_t *ns = calloc(ncap, sizeof(*ns)), *nl = calloc(ncap, sizeof(*nl));

	if (!ns || !nl || ncap < sp->cap) {
		free(ns);
		free(nl);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < sp->cap; i++) {
		uint32_t h;

		if (!sp->slot[i])
			continue;
		h = fnv((char *)sp->tab.p + sp->slot[i] - 1, sp->slot_len[i]) & (ncap - 1);
		while (ns[h])
			h = (h + 1) & (ncap - 1);
		ns[h] = sp->slot[i];
		nl[h] = sp->slot_len[i];
	}
	free(sp->slot);
	free(sp->slot_len);
	sp->slot = ns;
	sp->slot_len = nl;
	sp->cap = ncap;
	return 0;
}

/* Offset of bytes (len of them, a NUL is appended) in the output table. */
static uint64_t pool_add(struct strpool *sp, const char *b, size_t len)
{
	uint32_t h, off;

	if (!len || sp->tab.err)
		return 0;
	if (len > UINT32_MAX / 2 || sp->tab.len + len + 1 > UINT32_MAX) {
		sp->tab.err = -EOVERFLOW;
		return 0;
	}
	if ((sp->n + 1) * 2 > sp->cap && pool_grow(sp)) {
		sp->tab.err = -ENOMEM;
		return 0;
	}
	h = fnv(b, len) & (sp->cap - 1);
	for (; sp->slot[h]; h = (h + 1) & (sp->cap - 1))
		if (sp->slot_len[h] == len && !memcmp(sp->tab.p + sp->slot[h] - 1, b, len))
			return sp->slot[h] - 1;
	off = (uint32_t)sp->tab.len;
	w_bytes(&sp->tab, b, len);
	w_bytes(&sp->tab, "", 1);
	if (sp->tab.err)
		return 0;
	sp->slot[h] = off + 1;
	sp->slot_len[h] = (uint32_t)len;
	sp->n++;
	return off;
}

static uint64_t pool_str(struct strpool *sp, const struct mntsnap_snapshot *s, uint32_t off)
{
	const char *p = s->strtab + off;

	return pool_add(sp, p, strlen(p));
}

static uint64_t pool_list(struct strpool *sp, const struct mntsnap_snapshot *s, uint32_t off,
			  uint32_t n)
{
	const char *p = s->strtab + off;

	if (!n)
		return 0;
	return pool_add(sp, p, mntsnap__strlist_len(p, n) - 1);
}

static void enc_meta(struct wbuf *w, const struct mntsnap_snapshot *s)
{
	size_t rl = strnlen(s->kernel_release, sizeof(s->kernel_release) - 1);

	w_var(w, (uint64_t)(unsigned)s->backend);
	w_var(w, s->mask & CORE_FIELDS);
	w_var(w, s->ns_id);
	w_var(w, s->time_ns);
	w_var(w, s->kernel_supported_mask);
	w_var(w, (uint64_t)(s->consistent < 0 ? 0 : s->consistent + 1));
	w_var(w, s->attempts);
	w_var(w, rl);
	w_bytes(w, s->kernel_release, rl);
}

/*
 * One inline (core) field of a level's storage st, per the table: numbers
 * as varints, strings as offsets, lists as count and offset.
 */
static void enc_field(struct wbuf *w, struct strpool *sp, const struct mntsnap_snapshot *s,
		      const struct mntsnap_field *f, const void *st)
{
	switch (f->kind) {
	case MNTSNAP_FK_U32:
		w_var(w, mntsnap__fu32(st, f->st_off));
		break;
	case MNTSNAP_FK_U64:
		w_var(w, mntsnap__fu64(st, f->st_off));
		break;
	case MNTSNAP_FK_PAIR:
		w_var(w, mntsnap__fu32(st, f->st_off));
		w_var(w, mntsnap__fu32(st, f->st_num_off));
		break;
	case MNTSNAP_FK_STR:
		w_var(w, pool_str(sp, s, mntsnap__fu32(st, f->st_off)));
		break;
	case MNTSNAP_FK_LIST:
		w_var(w, mntsnap__fu32(st, f->st_num_off));
		w_var(w, pool_list(sp, s, mntsnap__fu32(st, f->st_off),
				   mntsnap__fu32(st, f->st_num_off)));
		break;
	}
}

/* The core fields of one level that mask has, in the table's (bit) order. */
static void enc_level(struct wbuf *w, struct strpool *sp, const struct mntsnap_snapshot *s,
		      int level, uint32_t mask, const void *st)
{
	for (int i = 0; i < MNTSNAP_NFIELDS; i++) {
		const struct mntsnap_field *f = &mntsnap__fields[i];

		if (f->level == level && (f->bit & mask & CORE_FIELDS))
			enc_field(w, sp, s, f, st);
	}
}

static void enc_sbs(struct wbuf *w, struct strpool *sp, const struct mntsnap_snapshot *s)
{
	w_var(w, s->nsbs);
	for (uint32_t i = 0; i < s->nsbs; i++) {
		const struct mntsnap_sb *sb = &s->sbs[i];
		uint32_t m = sb->mask & SB_FIELDS;

		w_var(w, m);
		enc_level(w, sp, s, MNTSNAP_FL_SB, m, sb);
	}
}

/* Every id map has both lists, empty ones with count 0. */
static void enc_idmaps(struct wbuf *w, struct strpool *sp, const struct mntsnap_snapshot *s)
{
	w_var(w, s->nidmaps);
	for (uint32_t i = 0; i < s->nidmaps; i++)
		enc_level(w, sp, s, MNTSNAP_FL_IDMAP, MNTSNAP__FIELDS_IDMAP, &s->idmaps[i]);
}

/* Parent ids can be left out when they are exactly the linked parent's. */
static bool parent_implied(const struct mntsnap_rec *r, const struct mntsnap_rec *p)
{
	if ((r->mask & MNTSNAP_F_ID) &&
	    (!(p->mask & MNTSNAP_F_ID) || p->id != r->parent_id))
		return false;
	if ((r->mask & MNTSNAP_F_ID_OLD) &&
	    (!(p->mask & MNTSNAP_F_ID_OLD) || p->id_old != r->parent_id_old))
		return false;
	return true;
}

/* What the previous record left for delta and front coding. */
struct prev {
	uint64_t id;
	uint32_t id_old;
	uint32_t mask;
	const char *mp;
	size_t mp_len;
};

static void enc_mount_point(struct wbuf *w, struct prev *pv, const char *mp)
{
	size_t len = strlen(mp), k = 0;

	while (k < len && k < pv->mp_len && mp[k] == pv->mp[k])
		k++;
	w_var(w, k);
	w_var(w, len - k);
	w_bytes(w, mp + k, len - k);
	pv->mp = mp;
	pv->mp_len = len;
}

static void enc_rec(struct wbuf *w, struct strpool *sp, const struct mntsnap_snapshot *s,
		    uint32_t i, struct prev *pv)
{
	const struct mntsnap_rec *r = &s->recs[i];
	bool root = r->parent == i || r->parent >= s->nrecs;
	uint32_t m = r->mask & CORE_FIELDS, flags = 0;

	if (root || !parent_implied(r, &s->recs[r->parent]))
		flags |= RF_PARENT_IDS;
	if (r->idmap != MNTSNAP_NONE)
		flags |= RF_IDMAP;
	w_zz(w, root ? 0 : (int64_t)i - (int64_t)r->parent);
	w_var(w, flags);
	w_var(w, m ^ pv->mask);
	pv->mask = m;
	if (m & MNTSNAP_F_ID) {
		w_zz(w, (int64_t)(r->id - pv->id));
		pv->id = r->id;
	}
	if (m & MNTSNAP_F_ID_OLD) {
		w_zz(w, (int64_t)r->id_old - (int64_t)pv->id_old);
		pv->id_old = r->id_old;
	}
	if (flags & RF_PARENT_IDS) {
		if (m & MNTSNAP_F_ID)
			w_zz(w, (int64_t)(r->id - r->parent_id));
		if (m & MNTSNAP_F_ID_OLD)
			w_zz(w, (int64_t)r->id_old - (int64_t)r->parent_id_old);
	}
	if (m & MNTSNAP_F_ATTR)
		w_var(w, r->attr);
	if (m & MNTSNAP_F_PROPAGATION) {
		w_var(w, rotr17(r->propagation));
		w_var(w, r->peer_group);
		w_var(w, r->master);
	}
	if (m & MNTSNAP_F_PROPAGATE_FROM)
		w_var(w, r->propagate_from);
	w_var(w, r->sb);
	if (m & MNTSNAP_F_ROOT)
		w_var(w, pool_str(sp, s, r->root));
	if (m & MNTSNAP_F_MOUNT_POINT)
		enc_mount_point(w, pv, s->strtab + r->mount_point);
	if (flags & RF_IDMAP)
		w_var(w, r->idmap);
}

static void enc_section_flags(struct wbuf *out, unsigned type, unsigned flags,
			      const struct wbuf *payload);

static void enc_section(struct wbuf *out, unsigned type, const struct wbuf *payload)
{
	enc_section_flags(out, type, WIRE_SEC_REQUIRED, payload);
}

/* A record's rare text of section sec (OPTFIELDS, MNTOPTS, SBOPTS): 0 if none. */
static uint32_t rare_text(const struct mntsnap_snapshot *s, uint32_t i, int sec)
{
	const struct mntsnap_rec *r = &s->recs[i];
	const struct mntsnap_idmap *im;

	if (r->idmap == MNTSNAP_NONE)
		return 0;
	im = &s->idmaps[r->idmap];
	return sec == SEC_OPTFIELDS ? im->opt_fields : sec == SEC_MNTOPTS ? im->mnt_opts : im->sb_opts;
}

/* Unknown optional fields or option text of parsed text; false if none. */
static bool enc_rare(struct wbuf *w, struct strpool *sp, const struct mntsnap_snapshot *s,
		     int sec)
{
	uint32_t n = 0, prev = 0;

	for (uint32_t i = 0; i < s->nrecs; i++)
		n += rare_text(s, i, sec) != 0;
	if (!n)
		return false;
	w_var(w, n);
	for (uint32_t i = 0; i < s->nrecs; i++) {
		uint32_t off = rare_text(s, i, sec);

		if (!off)
			continue;
		w_var(w, i - prev);
		w_var(w, pool_str(sp, s, off));
		prev = i;
	}
	return true;
}

/* One record's or superblock's storage for a field section entry. */
static const void *field_store(const struct mntsnap_snapshot *s, int level, uint32_t i,
			       uint32_t *ret_mask)
{
	if (level == MNTSNAP_FL_SB) {
		*ret_mask = s->sbs[i].mask;
		return &s->sbs[i];
	}
	*ret_mask = s->recs[i].mask;
	return &s->recs[i];
}

/*
 * A field section (see the format above) for row f, of the superblocks or
 * records that have it; false (nothing to write) when none has it and the
 * capture did not ask for it either.
 */
static bool enc_field_section(struct wbuf *w, struct strpool *sp, const struct mntsnap_snapshot *s,
			      const struct mntsnap_field *f)
{
	uint32_t n = f->level == MNTSNAP_FL_SB ? s->nsbs : s->nrecs, count = 0, prev = 0, m;

	for (uint32_t i = 0; i < n; i++) {
		field_store(s, f->level, i, &m);
		count += !!(m & f->bit);
	}
	if (!count && !(s->mask & f->bit))
		return false;
	w_var(w, f->level);
	w_var(w, f->kind);
	w_var(w, !!(s->mask & f->bit));
	w_var(w, count);
	for (uint32_t i = 0; i < n; i++) {
		const void *st = field_store(s, f->level, i, &m);

		if (!(m & f->bit))
			continue;
		w_var(w, i - prev);
		prev = i;
		enc_field(w, sp, s, f, st);
	}
	return true;
}

static void enc_section_flags(struct wbuf *out, unsigned type, unsigned flags,
			      const struct wbuf *payload)
{
	if (payload->err) {
		out->err = out->err ? out->err : payload->err;
		return;
	}
	if (payload->len > UINT32_MAX) {
		out->err = -EOVERFLOW;
		return;
	}
	w_le(out, type, 2);
	w_le(out, flags, 2);
	w_le(out, payload->len, 4);
	w_bytes(out, payload->p, payload->len);
}

int mntsnap__wire_encode(const struct mntsnap_snapshot *s, void **ret_buf, size_t *ret_len)
{
	return mntsnap__wire_encode_fields(s, mntsnap__fields, MNTSNAP_NFIELDS, ret_buf, ret_len);
}

int mntsnap__wire_encode_fields(const struct mntsnap_snapshot *s, const struct mntsnap_field *tab,
				int ntab, void **ret_buf, size_t *ret_len)
{
	struct wbuf fsec = { 0 };
	struct wbuf sec[SEC__KNOWN] = { { 0 } }, out = { 0 };
	struct strpool sp = { { 0 } };
	struct prev pv = { .mp = "" };
	bool optf, mnto, sbo;
	int r;

	if (!s || !ret_buf || !ret_len)
		return -EINVAL;
	w_bytes(&sp.tab, "", 1); /* offset 0 is "" */
	enc_meta(&sec[SEC_META], s);
	enc_sbs(&sec[SEC_SBS], &sp, s);
	enc_idmaps(&sec[SEC_IDMAPS], &sp, s);
	w_var(&sec[SEC_RECORDS], s->nrecs);
	for (uint32_t i = 0; i < s->nrecs; i++)
		enc_rec(&sec[SEC_RECORDS], &sp, s, i, &pv);
	optf = enc_rare(&sec[SEC_OPTFIELDS], &sp, s, SEC_OPTFIELDS);
	mnto = enc_rare(&sec[SEC_MNTOPTS], &sp, s, SEC_MNTOPTS);
	sbo = enc_rare(&sec[SEC_SBOPTS], &sp, s, SEC_SBOPTS);
	/* field sections first, into one buffer: they add to the strings */
	for (int i = 0; i < ntab; i++) {
		struct wbuf one = { 0 };

		if (tab[i].wire && enc_field_section(&one, &sp, s, &tab[i]))
			enc_section_flags(&fsec, SEC_FIELD_BASE + tab[i].wire,
					  tab[i].wire_required ? WIRE_SEC_REQUIRED : 0, &one);
		free(one.p);
	}
	sec[SEC_STRINGS] = sp.tab;

	w_bytes(&out, WIRE_MAGIC, 8);
	w_le(&out, MNTSNAP_WIRE_VERSION, 2);
	w_le(&out, WIRE_HDR_LEN, 2);
	w_le(&out, WIRE_FEATURES_KNOWN, 4);
	w_le(&out, 0, 8); /* total_len, patched below */
	/* strings first: a streaming reader can resolve offsets as it goes */
	enc_section(&out, SEC_META, &sec[SEC_META]);
	enc_section(&out, SEC_STRINGS, &sec[SEC_STRINGS]);
	enc_section(&out, SEC_SBS, &sec[SEC_SBS]);
	enc_section(&out, SEC_IDMAPS, &sec[SEC_IDMAPS]);
	enc_section(&out, SEC_RECORDS, &sec[SEC_RECORDS]);
	if (optf)
		enc_section_flags(&out, SEC_OPTFIELDS, 0, &sec[SEC_OPTFIELDS]);
	if (mnto)
		enc_section_flags(&out, SEC_MNTOPTS, 0, &sec[SEC_MNTOPTS]);
	if (sbo)
		enc_section_flags(&out, SEC_SBOPTS, 0, &sec[SEC_SBOPTS]);
	if (fsec.err)
		out.err = out.err ? out.err : fsec.err;
	else if (fsec.len)
		w_bytes(&out, fsec.p, fsec.len);
	w_reserve(&out, WIRE_TRAILER);
	r = out.err;
	if (!r) {
		uint64_t total = out.len + WIRE_TRAILER;

		for (int i = 0; i < 8; i++)
			out.p[16 + i] = (uint8_t)(total >> (8 * i));
		w_le(&out, mntsnap__crc32c(0, out.p, out.len), 4);
	}
	for (int i = 0; i < SEC__KNOWN; i++)
		free(sec[i].p);
	free(fsec.p);
	free(sp.slot);
	free(sp.slot_len);
	if (r) {
		free(out.p);
		return r;
	}
	*ret_buf = out.p;
	*ret_len = out.len;
	return 0;
}

/* ---- reading -------------------------------------------------------------- */

struct rd {
	const uint8_t *base; /* start of the whole buffer, for messages */
	const uint8_t *p, *end;
	struct mntsnap_error *err;
	int r;               /* first error, sticky */
	/*
	 * Bytes the decoder may expand into: list walks and front-coded
	 * mount points. Every offset being in bounds is not enough - 100k
	 * superblocks naming one huge list, or mount points that each grow
	 * by a byte, would cost quadratic time and memory. Real snapshots
	 * expand to a few times their size (long shared prefixes: ~40x).
	 */
	uint64_t budget;
};

#define WIRE_EXPANSION 256
#define WIRE_EXPANSION_MIN (1U << 20)

static bool spend(struct rd *d, uint64_t bytes)
{
	if (bytes > d->budget)
		return false;
	d->budget -= bytes;
	return true;
}

__attribute__((format(printf, 2, 3))) static int bad(struct rd *d, const char *fmt, ...);

static int bad_v(struct rd *d, int err, const char *what, size_t at)
{
	if (!d->r) {
		d->r = err;
		mntsnap__set_error(d->err, err, 0, "snapshot: %s (at byte %zu)", what, at);
	}
	return d->r;
}

static int bad(struct rd *d, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return bad_v(d, -EBADMSG, msg, (size_t)(d->p - d->base));
}

static uint64_t r_var(struct rd *d)
{
	uint64_t v = 0;

	for (int shift = 0; !d->r; shift += 7) {
		uint8_t b;

		if (d->p >= d->end) {
			bad(d, "truncated number");
			return 0;
		}
		b = *d->p++;
		/* the 10th byte may only carry the top bit of a u64 */
		if (shift == 63 && b > 1) {
			bad(d, "number does not fit 64 bits");
			return 0;
		}
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	return 0;
}

static int64_t r_zz(struct rd *d)
{
	uint64_t v = r_var(d);

	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static uint32_t r_u32(struct rd *d, const char *what)
{
	uint64_t v = r_var(d);

	if (v > UINT32_MAX) {
		bad(d, "%s %" PRIu64 " out of range", what, v);
		return 0;
	}
	return (uint32_t)v;
}

/* A count of entries, each at least min_bytes long, must fit what is left. */
static uint32_t r_count(struct rd *d, unsigned min_bytes, const char *what)
{
	uint64_t n = r_var(d);

	if (!d->r && n > (uint64_t)(d->end - d->p) / min_bytes)
		bad(d, "%s count %" PRIu64 " exceeds the section", what, n);
	return d->r ? 0 : (uint32_t)n;
}

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

struct strtab {
	const char *p;
	uint32_t len;
};

/* A string offset: inside the table (which ends in a NUL, so terminated). */
static const char *r_str(struct rd *d, const struct strtab *t, const char *what)
{
	uint64_t off = r_var(d);

	if (d->r)
		return "";
	if (off >= t->len) {
		bad(d, "%s string offset %" PRIu64 " outside the string table (%u bytes)", what,
		    off, t->len);
		return "";
	}
	return t->p + off;
}

/* A list of n strings: each must end inside the table. */
static const char *r_list(struct rd *d, const struct strtab *t, uint32_t n, const char *what)
{
	const char *s = r_str(d, t, what);
	size_t pos = (size_t)(s - t->p);

	if (d->r)
		return "";
	if (n > t->len) {
		bad(d, "%s list of %u strings is longer than the string table", what, n);
		return "";
	}
	for (uint32_t i = 0; i < n; i++) {
		const char *nul = pos < t->len ? memchr(t->p + pos, '\0', t->len - pos) : NULL;

		if (!nul) {
			bad(d, "%s list runs past the string table", what);
			return "";
		}
		if (!spend(d, (uint64_t)(nul - (t->p + pos)) + 1)) {
			bad(d, "%s lists expand beyond %dx the input", what, WIRE_EXPANSION);
			return "";
		}
		pos = (size_t)(nul - t->p) + 1;
	}
	return s;
}

struct sec {
	const uint8_t *p;
	uint32_t len;
	size_t at;
};

/* The table row of a field section's tag, -1 if this reader has none. */
static int field_row(unsigned tag)
{
	for (int i = 0; i < MNTSNAP_NFIELDS; i++)
		if (mntsnap__fields[i].wire && mntsnap__fields[i].wire == tag)
			return i;
	return -1;
}

/* Header, checksum and section directory. */
static int parse_frame(struct rd *d, size_t len, struct sec secs[SEC__KNOWN],
		       struct sec fsecs[MNTSNAP_NFIELDS])
{
	const uint8_t *b = d->base;
	uint64_t version, hdr_len, features, total;
	size_t pos;

	if (len < 8 || memcmp(b, WIRE_MAGIC, 8))
		return bad_v(d, -EBADMSG, "not a mntsnap snapshot (bad magic)", 0);
	if (len < WIRE_HDR_LEN + WIRE_TRAILER)
		return bad_v(d, -EBADMSG, "truncated header", len);
	version = le(b + 8, 2);
	hdr_len = le(b + 10, 2);
	features = le(b + 12, 4);
	total = le(b + 16, 8);
	if (version == 0)
		return bad_v(d, -EBADMSG, "format version 0 is invalid", 8);
	if (version > MNTSNAP_WIRE_VERSION) {
		char m[120];

		snprintf(m, sizeof(m), "format version %" PRIu64 " is newer than this reader (%d)",
			 version, MNTSNAP_WIRE_VERSION);
		return bad_v(d, -EPROTO, m, 8);
	}
	if (total != len) {
		char m[120];

		snprintf(m, sizeof(m), "%s: header says %" PRIu64 " bytes, got %zu",
			 total > len ? "truncated" : "length mismatch", total, len);
		return bad_v(d, -EBADMSG, m, len);
	}
	if (hdr_len < WIRE_HDR_LEN || hdr_len > len - WIRE_TRAILER)
		return bad_v(d, -EBADMSG, "bad header length", 10);
	if (le(b + len - WIRE_TRAILER, 4) != mntsnap__crc32c(0, b, len - WIRE_TRAILER))
		return bad_v(d, -EBADMSG, "checksum mismatch (corrupted)", len - WIRE_TRAILER);
	if (features & ~(uint64_t)WIRE_FEATURES_KNOWN) {
		char m[120];

		snprintf(m, sizeof(m), "requires unknown features 0x%" PRIx64 " (newer writer)",
			 features & ~(uint64_t)WIRE_FEATURES_KNOWN);
		return bad_v(d, -EOPNOTSUPP, m, 12);
	}
	for (pos = hdr_len; pos < len - WIRE_TRAILER;) {
		unsigned type, flags;
		uint64_t sl;

		if (len - WIRE_TRAILER - pos < WIRE_SEC_HDR)
			return bad_v(d, -EBADMSG, "truncated section header", pos);
		type = (unsigned)le(b + pos, 2);
		flags = (unsigned)le(b + pos + 2, 2);
		sl = le(b + pos + 4, 4);
		if (sl > len - WIRE_TRAILER - pos - WIRE_SEC_HDR)
			return bad_v(d, -EBADMSG, "section runs past the end", pos);
		if (type > 0 && type < SEC__KNOWN) {
			if (secs[type].p)
				return bad_v(d, -EBADMSG, "duplicate section", pos);
			secs[type] = (struct sec){ b + pos + WIRE_SEC_HDR, (uint32_t)sl, pos };
		} else if (type > SEC_FIELD_BASE && field_row(type - SEC_FIELD_BASE) >= 0) {
			struct sec *f = &fsecs[field_row(type - SEC_FIELD_BASE)];

			if (f->p)
				return bad_v(d, -EBADMSG, "duplicate field section", pos);
			*f = (struct sec){ b + pos + WIRE_SEC_HDR, (uint32_t)sl, pos };
		} else if (type > SEC_FIELD_BASE && (flags & WIRE_SEC_REQUIRED)) {
			char m[160];

			snprintf(m, sizeof(m),
				 "requires a record field this reader does not know (field tag %u, "
				 "written by a newer version)",
				 type - SEC_FIELD_BASE);
			return bad_v(d, -EOPNOTSUPP, m, pos);
		} else if (flags & WIRE_SEC_REQUIRED) {
			char m[120];

			snprintf(m, sizeof(m), "unknown required section type %u (newer writer)",
				 type);
			return bad_v(d, -EOPNOTSUPP, m, pos);
		}
		pos += WIRE_SEC_HDR + sl;
	}
	for (int t = 1; t <= SEC_RECORDS; t++)
		if (!secs[t].p)
			return bad_v(d, -EBADMSG, "a required section is missing", len);
	return 0;
}

static void rd_at(struct rd *d, const struct sec *s)
{
	d->p = s->p;
	d->end = s->p + s->len;
}

static void rd_done(struct rd *d, const char *what)
{
	if (!d->r && d->p != d->end)
		bad(d, "%s section has %td trailing bytes", what, d->end - d->p);
}

static int dec_meta(struct rd *d, const struct sec *sec, struct mntsnap_snapshot *s)
{
	uint64_t backend, consistent, rl;

	rd_at(d, sec);
	backend = r_var(d);
	s->mask = r_u32(d, "mask");
	s->ns_id = r_var(d);
	s->time_ns = r_var(d);
	s->kernel_supported_mask = r_var(d);
	consistent = r_var(d);
	s->attempts = r_u32(d, "attempts");
	rl = r_var(d);
	if (d->r)
		return d->r;
	if (backend > MNTSNAP_BACKEND_FILE)
		return bad(d, "unknown backend %" PRIu64, backend);
	if (consistent > 2)
		return bad(d, "bad consistency value %" PRIu64, consistent);
	if (s->mask & ~(uint32_t)CORE_FIELDS)
		return bad(d, "mask 0x%x has unknown bits", s->mask);
	if (rl >= sizeof(s->kernel_release) || rl > (uint64_t)(d->end - d->p))
		return bad(d, "bad kernel release length %" PRIu64, rl);
	s->backend = (int)backend;
	s->consistent = (int)consistent - 1;
	memcpy(s->kernel_release, d->p, rl);
	s->kernel_release[rl] = '\0';
	if (memchr(s->kernel_release, '\0', rl))
		return bad(d, "kernel release contains a NUL");
	d->p += rl;
	rd_done(d, "META");
	return d->r;
}

static int dec_strings(struct rd *d, const struct sec *sec, struct strtab *t)
{
	d->p = sec->p;
	if (!sec->len || sec->p[0] || sec->p[sec->len - 1])
		return bad(d, "string table must start and end with a NUL");
	t->p = (const char *)sec->p;
	t->len = sec->len;
	return 0;
}

/* One field into a record, the decoder's counterpart of enc_field(). */
static void dec_field(struct rd *d, const struct strtab *t, const struct mntsnap_field *f,
		      struct mntsnap_mount *m)
{
	uint32_t n;

	switch (f->kind) {
	case MNTSNAP_FK_U32:
		mntsnap__fset_u32(m, f->off, r_u32(d, f->name));
		break;
	case MNTSNAP_FK_U64:
		mntsnap__fset_u64(m, f->off, r_var(d));
		break;
	case MNTSNAP_FK_PAIR:
		mntsnap__fset_u32(m, f->off, r_u32(d, f->name));
		mntsnap__fset_u32(m, f->num_off, r_u32(d, f->name));
		break;
	case MNTSNAP_FK_STR:
		mntsnap__fset_str(m, f, r_str(d, t, f->name));
		break;
	case MNTSNAP_FK_LIST:
		n = r_u32(d, f->name);
		mntsnap__fset_u32(m, f->num_off, n);
		mntsnap__fset_str(m, f, r_list(d, t, n, f->name));
		break;
	}
}

/* The core fields of one level: those in mask, the others "" or 0. */
static void dec_level(struct rd *d, const struct strtab *t, int level, uint32_t mask,
		      struct mntsnap_mount *m)
{
	for (int i = 0; i < MNTSNAP_NFIELDS; i++) {
		const struct mntsnap_field *f = &mntsnap__fields[i];

		if (f->level != level)
			continue;
		if (f->kind == MNTSNAP_FK_STR || f->kind == MNTSNAP_FK_LIST)
			mntsnap__fset_str(m, f, "");
		if (f->bit & mask & CORE_FIELDS)
			dec_field(d, t, f, m);
	}
}

/*
 * dec_level() for superblocks, generated from the table: a table of many
 * filesystems decodes one per mount.
 */
#define DS_U32(N, M, NU) m->M = r_u32(d, #N);
#define DS_U64(N, M, NU) m->M = r_var(d);
#define DS_PAIR(N, M, NU) m->M = r_u32(d, #N), m->NU = r_u32(d, #N);
#define DS_STR(N, M, NU) m->M = r_str(d, t, #N);
#define DS_LIST(N, M, NU) m->NU = r_u32(d, #N), m->M = r_list(d, t, m->NU, #N);
#define DS_SPECIAL(N, M, NU)
#define DS_EMPTY_U32(M)
#define DS_EMPTY_U64(M)
#define DS_EMPTY_PAIR(M)
#define DS_EMPTY_STR(M) m->M = "";
#define DS_EMPTY_LIST(M) m->M = "";
#define DS_EMPTY_SPECIAL(M)
#define DS_SB(N, K, M, NU)                                                                         \
	DS_EMPTY_##K(M) if (mask & MNTSNAP_F_##N)                                                  \
	{                                                                                          \
		DS_##K(N, M, NU)                                                                   \
	}
#define DS_MOUNT(N, K, M, NU)
#define DS_IDMAP(N, K, M, NU)
#define DS_SNAP(N, K, M, NU)
#define DS_ROW(N, L, K, M, NU, ...) DS_##L(N, K, M, NU)

static void dec_sb(struct rd *d, const struct strtab *t, uint32_t mask, struct mntsnap_mount *m)
{
	mask &= CORE_FIELDS; /* later fields come in field sections */
	MNTSNAP_FIELDS(DS_ROW)
}

static int dec_sbs(struct rd *d, const struct sec *sec, const struct strtab *t,
		   struct mntsnap_mount **ret, uint32_t *ret_n)
{
	struct mntsnap_mount *sbs;
	uint32_t n;

	rd_at(d, sec);
	n = r_count(d, 1, "superblock");
	if (d->r)
		return d->r;
	sbs = calloc((size_t)n + 1, sizeof(*sbs));
	if (!sbs)
		return bad_v(d, -ENOMEM, "out of memory", 0);
	*ret = sbs;
	for (uint32_t i = 0; i < n && !d->r; i++) {
		struct mntsnap_mount *m = &sbs[i];

		m->mask = r_u32(d, "sb mask");
		if (m->mask & ~(uint32_t)SB_FIELDS)
			return bad(d, "superblock %u: mask 0x%x has non-superblock bits", i,
				   m->mask);
		dec_sb(d, t, m->mask, m);
	}
	*ret_n = n;
	rd_done(d, "SBS");
	return d->r;
}

static int dec_idmaps(struct rd *d, const struct sec *sec, const struct strtab *t,
		      struct mntsnap_mount **ret, uint32_t *ret_n)
{
	struct mntsnap_mount *ims;
	uint32_t n;

	rd_at(d, sec);
	n = r_count(d, 4, "idmap");
	if (d->r)
		return d->r;
	ims = calloc((size_t)n + 1, sizeof(*ims));
	if (!ims)
		return bad_v(d, -ENOMEM, "out of memory", 0);
	*ret = ims;
	for (uint32_t i = 0; i < n && !d->r; i++)
		dec_level(d, t, MNTSNAP_FL_IDMAP, MNTSNAP__FIELDS_IDMAP, &ims[i]);
	*ret_n = n;
	rd_done(d, "IDMAPS");
	return d->r;
}

/*
 * A known field's section onto the decoded superblocks or records (n of
 * them, at stride bytes from each other): each entry's index, its value,
 * its bit. The section must say the level and kind the table says: a
 * field of another shape under the same tag is not this field.
 */
static int dec_field_section(struct rd *d, const struct sec *sec, const struct strtab *t,
			     const struct mntsnap_field *f, struct mntsnap_mount *first,
			     size_t stride, uint32_t n, uint32_t *snap_mask)
{
	uint64_t level, kind, asked, at = 0;
	uint32_t count;

	if (!sec->p)
		return 0;
	rd_at(d, sec);
	level = r_var(d);
	kind = r_var(d);
	asked = r_var(d);
	count = r_count(d, 2, f->name);
	if (d->r)
		return d->r;
	if (level != f->level || kind != f->kind || asked > 1)
		return bad(d, "field %s: section of another shape (level %" PRIu64 ", kind %" PRIu64
			   ")", f->name, level, kind);
	if (asked)
		*snap_mask |= f->bit;
	for (uint32_t i = 0; i < count && !d->r; i++) {
		uint64_t delta = r_var(d);
		struct mntsnap_mount *m;

		if (d->r)
			break;
		if ((i && !delta) || delta >= n || at + delta >= n)
			return bad(d, "field %s: index out of order or range", f->name);
		at += delta;
		m = (struct mntsnap_mount *)((char *)first + at * stride);
		dec_field(d, t, f, m);
		m->mask |= f->bit;
	}
	rd_done(d, f->name);
	return d->r;
}

/* Every known field section of one level. */
static int dec_field_sections(struct rd *d, const struct sec *fsecs, const struct strtab *t,
			      int level, struct mntsnap_mount *first, size_t stride, uint32_t n,
			      uint32_t *snap_mask)
{
	for (int i = 0; i < MNTSNAP_NFIELDS && !d->r; i++)
		if (mntsnap__fields[i].level == level)
			dec_field_section(d, &fsecs[i], t, &mntsnap__fields[i], first, stride, n,
					  snap_mask);
	return d->r;
}

/* One decoded record before its parent ids are resolved. */
struct drec {
	struct mntsnap_mount m;
	int64_t link;
	uint32_t flags;
	size_t mp; /* offset in dctx.mps, the decoded mount points */
};

struct dctx {
	struct rd *d;
	const struct strtab *t;
	const struct mntsnap_mount *sbs, *ims;
	uint32_t nsbs, nims;
	struct wbuf mps;      /* mount points, NUL-terminated, end to end */
	size_t prev_mp, prev_mp_len;
	uint64_t prev_id;
	uint32_t prev_old, prev_mask;
	const struct sec *optf; /* SEC_OPTFIELDS, or one with p NULL */
	const struct sec *mnto; /* SEC_MNTOPTS, or one with p NULL */
	const struct sec *sbo;  /* SEC_SBOPTS, or one with p NULL */
	const struct sec *fsecs; /* field sections by table row, p NULL if absent */
	uint32_t *snap_mask;
};

static int dec_mount_point(struct dctx *c, struct drec *x, uint32_t i)
{
	struct rd *d = c->d;
	uint64_t k = r_var(d), n = r_var(d);
	size_t at;

	if (d->r)
		return d->r;
	if (k > c->prev_mp_len)
		return bad(d, "record %u: mount point shares more than the previous one has", i);
	if (n > (uint64_t)(d->end - d->p))
		return bad(d, "record %u: mount point runs past the section", i);
	if (!spend(d, k + n + 1))
		return bad(d, "record %u: mount points expand beyond %dx the input", i,
			   WIRE_EXPANSION);
	if (memchr(d->p, '\0', n))
		return bad(d, "record %u: mount point contains a NUL", i);
	/* copy the prefix first: the arena may move when it grows */
	at = c->mps.len;
	w_reserve(&c->mps, k + n + 1);
	if (c->mps.err)
		return bad_v(d, c->mps.err, "out of memory", 0);
	memcpy(c->mps.p + at, c->mps.p + c->prev_mp, k);
	c->mps.len += k;
	w_bytes(&c->mps, d->p, n);
	w_bytes(&c->mps, "", 1);
	d->p += n;
	x->mp = at;
	c->prev_mp = at;
	c->prev_mp_len = k + n;
	return 0;
}

/*
 * A decoded superblock's or id map's fields (every one of the level) into
 * m; generated from the table, as this runs for every record.
 */
#define CP_U32(M, NU) m->M = from->M;
#define CP_U64(M, NU) m->M = from->M;
#define CP_PAIR(M, NU) m->M = from->M, m->NU = from->NU;
#define CP_STR(M, NU) m->M = from->M;
#define CP_LIST(M, NU) m->M = from->M, m->NU = from->NU;
#define CP_SPECIAL(M, NU)
#define CP_SB_ROW(N, L, K, M, NU, ...)                                                             \
	if (MNTSNAP_FL_##L == MNTSNAP_FL_SB) {                                                     \
		CP_##K(M, NU)                                                                      \
	}
#define CP_IDMAP_ROW(N, L, K, M, NU, ...)                                                          \
	if (MNTSNAP_FL_##L == MNTSNAP_FL_IDMAP) {                                                  \
		CP_##K(M, NU)                                                                      \
	}

static void copy_sb(const struct mntsnap_mount *from, struct mntsnap_mount *m)
{
	MNTSNAP_FIELDS(CP_SB_ROW)
}

static void copy_idmap(const struct mntsnap_mount *from, struct mntsnap_mount *m)
{
	MNTSNAP_FIELDS(CP_IDMAP_ROW)
}

static const struct mntsnap_mount no_idmap;

static int dec_one(struct dctx *c, struct drec *x, uint32_t i)
{
	struct rd *d = c->d;
	struct mntsnap_mount *m = &x->m;
	const struct mntsnap_mount *sb;
	uint32_t sbi;

	x->link = r_zz(d);
	x->flags = r_u32(d, "record flags");
	m->mask = r_u32(d, "record mask") ^ c->prev_mask;
	c->prev_mask = m->mask;
	if (d->r)
		return d->r;
	if (x->flags & ~(uint32_t)RF__ALL)
		return bad(d, "record %u: unknown flags 0x%x", i, x->flags);
	if (m->mask & ~(uint32_t)CORE_FIELDS)
		return bad(d, "record %u: mask 0x%x has unknown bits", i, m->mask);
	if (m->mask & MNTSNAP_F_ID) {
		m->id = c->prev_id + (uint64_t)r_zz(d);
		c->prev_id = m->id;
	}
	if (m->mask & MNTSNAP_F_ID_OLD) {
		int64_t v = (int64_t)c->prev_old + r_zz(d);

		if (v < 0 || v > UINT32_MAX)
			return bad(d, "record %u: old id out of range", i);
		m->id_old = (uint32_t)v;
		c->prev_old = m->id_old;
	}
	if (x->flags & RF_PARENT_IDS) {
		if (m->mask & MNTSNAP_F_ID)
			m->parent_id = m->id - (uint64_t)r_zz(d);
		if (m->mask & MNTSNAP_F_ID_OLD) {
			int64_t v = (int64_t)m->id_old - r_zz(d);

			if (v < 0 || v > UINT32_MAX)
				return bad(d, "record %u: old parent id out of range", i);
			m->parent_id_old = (uint32_t)v;
		}
	}
	if (m->mask & MNTSNAP_F_ATTR)
		m->attr = r_u32(d, "attr");
	if (m->mask & MNTSNAP_F_PROPAGATION) {
		m->propagation = rotl17(r_u32(d, "propagation"));
		m->peer_group = r_u32(d, "peer group");
		m->master = r_u32(d, "master");
	}
	if (m->mask & MNTSNAP_F_PROPAGATE_FROM)
		m->propagate_from = r_u32(d, "propagate_from");
	sbi = r_u32(d, "sb index");
	m->root = m->mount_point = "";
	if (m->mask & MNTSNAP_F_ROOT)
		m->root = r_str(d, c->t, "root");
	if ((m->mask & MNTSNAP_F_MOUNT_POINT) && dec_mount_point(c, x, i))
		return d->r;
	copy_idmap(&no_idmap, m);
	if (x->flags & RF_IDMAP) {
		uint32_t k = r_u32(d, "idmap index");

		if (!d->r && k >= c->nims)
			return bad(d, "record %u: idmap index %u out of range", i, k);
		if (!d->r)
			copy_idmap(&c->ims[k], m);
	}
	if (d->r)
		return d->r;
	if (sbi >= c->nsbs)
		return bad(d, "record %u: superblock index %u out of range", i, sbi);
	sb = &c->sbs[sbi];
	if ((sb->mask & SB_FIELDS) != (m->mask & SB_FIELDS))
		return bad(d, "record %u: mask disagrees with its superblock's", i);
	m->mask |= sb->mask; /* the superblock fields of field sections */
	copy_sb(sb, m);
	return 0;
}

/* Implied parent ids come from the linked record; links must be in range. */
static int resolve_links(struct rd *d, struct drec *x, uint32_t n)
{
	uint32_t id_bits = n ? x[0].m.mask & (MNTSNAP_F_ID | MNTSNAP_F_ID_OLD) : 0;

	for (uint32_t i = 0; i < n; i++) {
		struct mntsnap_mount *m = &x[i].m;
		int64_t p = (int64_t)i - x[i].link;

		/* lookups by id need every record to carry the same id kinds */
		if ((m->mask & (MNTSNAP_F_ID | MNTSNAP_F_ID_OLD)) != id_bits)
			return bad(d, "record %u: id fields differ from record 0's", i);
		if (!x[i].link) {
			if (!(x[i].flags & RF_PARENT_IDS) && id_bits)
				return bad(d, "record %u: a root without parent ids", i);
			continue;
		}
		if (p < 0 || p >= (int64_t)n)
			return bad(d, "record %u: parent link points nowhere", i);
		if (x[i].flags & RF_PARENT_IDS)
			continue;
		m->parent_id = x[p].m.id;
		m->parent_id_old = x[p].m.id_old;
	}
	return 0;
}

static bool same_id(const struct mntsnap_snapshot *s, uint32_t a, uint32_t b)
{
	return s->recs[a].id_old == s->recs[b].id_old;
}

/* After mntsnap__snap_finish: ids unique, and links agree with the ids. */
static int check_tree(struct rd *d, const struct mntsnap_snapshot *s, const struct drec *x)
{
	for (uint32_t i = 0; i < s->nrecs; i++) {
		const struct mntsnap_rec *r = &s->recs[i];
		uint32_t want = x[i].link ? (uint32_t)((int64_t)i - x[i].link) : i;
		long f;

		if (r->mask & MNTSNAP_F_ID)
			f = mntsnap__snapshot_find(s, r->id);
		else if (r->mask & MNTSNAP_F_ID_OLD)
			f = mntsnap__snapshot_find_old(s, r->id_old);
		else
			f = i;
		/*
		 * Parsed text may repeat a /proc id (lib/backend-mountinfo.c);
		 * such a snapshot is saved marked inconsistent, and only such a
		 * one may have it. Unique 64-bit ids never repeat.
		 */
		if (f != (long)i && !(s->consistent == 0 && !(r->mask & MNTSNAP_F_ID) && f >= 0 &&
				      same_id(s, (uint32_t)f, i)))
			return bad(d, "record %u: duplicate mount id", i);
		if (r->parent != want)
			return bad(d, "record %u: parent link disagrees with the ids (%s)", i,
				   x[i].link ? "parent id not found" : "root has a parent");
	}
	return 0;
}

/*
 * Optional fields (sec OPTFIELDS), per-mount option text (MNTOPTS) or
 * super option text (SBOPTS) of parsed text onto the records they belong
 * to. No newline in any (it would split the rendered line), no blank in
 * the per-mount options (column 6 ends at one).
 */
static int dec_rare(struct dctx *c, struct drec *x, uint32_t nrecs, int which)
{
	const struct sec *sec = which == SEC_OPTFIELDS ? c->optf : which == SEC_MNTOPTS ? c->mnto
								 : c->sbo;
	const char *what = which == SEC_OPTFIELDS ? "optional fields"
			   : which == SEC_MNTOPTS ? "mount option text" : "super option text";
	struct rd *d = c->d;
	uint64_t at = 0;
	uint32_t n;

	if (!sec || !sec->p)
		return 0;
	rd_at(d, sec);
	n = r_count(d, 2, what);
	for (uint32_t i = 0; i < n && !d->r; i++) {
		uint64_t delta = r_var(d);
		const char *f;

		if (d->r)
			break;
		if ((i && !delta) || delta >= nrecs || at + delta >= nrecs)
			return bad(d, "%s: record index out of order or range", what);
		at += delta;
		f = r_str(d, c->t, what);
		if (!d->r && (!f[0] || strpbrk(f, which == SEC_MNTOPTS ? "\n " : "\n")))
			return bad(d, "%s of record %" PRIu64 ": empty or not one line", what, at);
		if (which == SEC_OPTFIELDS)
			x[at].m.opt_fields = f;
		else if (which == SEC_MNTOPTS)
			x[at].m.mnt_opts_text = f;
		else
			x[at].m.sb_opts_text = f;
	}
	rd_done(d, which == SEC_OPTFIELDS ? "OPTFIELDS" : which == SEC_MNTOPTS ? "MNTOPTS"
										: "SBOPTS");
	return d->r;
}

static int dec_records(struct rd *d, const struct sec *sec, struct dctx *c,
		       struct mntsnap_snapshot *s)
{
	struct drec *x;
	uint32_t n;
	int r = 0;

	rd_at(d, sec);
	n = r_count(d, 4, "record");
	if (d->r)
		return d->r;
	x = calloc((size_t)n + 1, sizeof(*x));
	if (!x)
		return bad_v(d, -ENOMEM, "out of memory", 0);
	for (uint32_t i = 0; i < n && !r; i++)
		r = dec_one(c, &x[i], i);
	/* the arena has stopped moving: point records at their mount points */
	for (uint32_t i = 0; i < n && !r; i++)
		if (x[i].m.mask & MNTSNAP_F_MOUNT_POINT)
			x[i].m.mount_point = (const char *)c->mps.p + x[i].mp;
	if (!r) {
		rd_done(d, "RECORDS");
		r = d->r;
	}
	if (!r)
		r = dec_field_sections(d, c->fsecs, c->t, MNTSNAP_FL_MOUNT, &x[0].m, sizeof(*x), n,
				       c->snap_mask);
	if (!r)
		r = resolve_links(d, x, n);
	if (!r)
		r = dec_rare(c, x, n, SEC_OPTFIELDS);
	if (!r)
		r = dec_rare(c, x, n, SEC_MNTOPTS);
	if (!r)
		r = dec_rare(c, x, n, SEC_SBOPTS);
	for (uint32_t i = 0; i < n && !r; i++) {
		long k = mntsnap__snap_add(s, &x[i].m);

		if (k < 0)
			r = bad_v(d, (int)k, "cannot store record", 0);
	}
	if (!r) {
		r = mntsnap__snap_finish(s);
		if (r == -EBADMSG)
			r = bad(d, "parent links form a cycle");
		else if (r)
			r = bad_v(d, r, "cannot index records", 0);
	}
	if (!r)
		r = check_tree(d, s, x);
	free(x);
	return r;
}

int mntsnap__wire_decode(const void *buf, size_t len, struct mntsnap_error *err,
			struct mntsnap_snapshot **ret)
{
	struct sec secs[SEC__KNOWN] = { { 0 } }, fsecs[MNTSNAP_NFIELDS] = { { 0 } };
	struct rd d = { .base = buf, .p = buf, .end = (const uint8_t *)buf + len, .err = err,
			.budget = (uint64_t)len * WIRE_EXPANSION + WIRE_EXPANSION_MIN };
	struct mntsnap_mount *sbs = NULL, *ims = NULL;
	struct mntsnap_snapshot *s = NULL;
	struct strtab t = { 0 };
	struct dctx c = { .d = &d, .t = &t };
	int r;

	if ((!buf && len) || !ret)
		return -EINVAL;
	if (!buf)
		return bad_v(&d, -EBADMSG, "empty input", 0);
	r = parse_frame(&d, len, secs, fsecs);
	if (r)
		return r;
	s = mntsnap__snap_new(MNTSNAP_BACKEND_FILE, 0);
	if (!s)
		return bad_v(&d, -ENOMEM, "out of memory", 0);
	r = dec_meta(&d, &secs[SEC_META], s);
	if (!r)
		r = dec_strings(&d, &secs[SEC_STRINGS], &t);
	if (!r)
		r = dec_sbs(&d, &secs[SEC_SBS], &t, &sbs, &c.nsbs);
	if (!r)
		r = dec_field_sections(&d, fsecs, &t, MNTSNAP_FL_SB, sbs, sizeof(*sbs), c.nsbs,
				       &s->mask);
	if (!r)
		r = dec_idmaps(&d, &secs[SEC_IDMAPS], &t, &ims, &c.nims);
	c.fsecs = fsecs;
	c.snap_mask = &s->mask;
	c.sbs = sbs;
	c.ims = ims;
	c.optf = &secs[SEC_OPTFIELDS];
	c.mnto = &secs[SEC_MNTOPTS];
	c.sbo = &secs[SEC_SBOPTS];
	if (!r)
		r = dec_records(&d, &secs[SEC_RECORDS], &c, s);
	free(sbs);
	free(ims);
	free(c.mps.p);
	if (r) {
		mntsnap__snapshot_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

/* ---- files ---------------------------------------------------------------- */

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int mntsnap_snapshot_save_fd(const struct mntsnap_snapshot *snap, int fd)
{
	void *buf;
	size_t len;
	int r;

	if (!snap || fd < 0)
		return -EINVAL;
	r = mntsnap__wire_encode(snap, &buf, &len);
	if (r)
		return r;
	r = write_all(fd, buf, len);
	free(buf);
	return r;
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) && errno != EINVAL) /* some filesystems cannot sync dirs */
		r = -errno;
	close(fd);
	return r;
}

/*
 * Saving a file. A crash or a kill must never leave half a file under the
 * final name, nor litter the directory:
 *  - path may be a symlink: the file it resolves to is replaced and the
 *    link stays (a dangling link is refused with -ENOENT rather than
 *    guessing where to create the file);
 *  - the file replaced keeps its mode, and its owner where the caller may
 *    set it; a new file is 0600 (a mount table shows paths);
 *  - the data goes to an unnamed O_TMPFILE in the target's directory (so
 *    the rename is atomic), is fsync'd, and only then gets a name: linkat()
 *    straight to the final name when there is none yet, else to
 *    ".NAME.mntsnap-XXXXXX" and rename() over it; the directory is fsync'd
 *    last. A kill before the name leaves nothing; one between linkat and
 *    rename leaves a temp name. Every temp file is flock()ed by its writer
 *    for its whole life, so a later save of the same name removes the temp
 *    files nobody holds. Where the filesystem has no O_TMPFILE, a named
 *    temp file from the start.
 */
#define TMP_TAG ".mntsnap-"
#define TMP_RAND 6

struct save_target {
	char *path; /* the file to replace */
	char *dir;  /* its directory */
	const char *base;
	int dirfd;
	bool exists;
	bool sync;          /* fsync file and directory */
	struct stat st;
	const char *step;   /* what failed, for the error message */
};

static void save_target_free(struct save_target *t)
{
	free(t->path);
	free(t->dir);
	if (t->dirfd >= 0)
		close(t->dirfd);
}

static int save_resolve(const char *path, struct save_target *t)
{
	const char *slash;
	struct stat lst;

	if (!lstat(path, &lst) && S_ISLNK(lst.st_mode)) {
		t->path = realpath(path, NULL);
		if (!t->path)
			return errno == ENOMEM ? -ENOMEM : -ENOENT;
	} else {
		t->path = strdup(path);
		if (!t->path)
			return -ENOMEM;
	}
	slash = strrchr(t->path, '/');
	t->base = slash ? slash + 1 : t->path;
	if (!*t->base || !strcmp(t->base, ".") || !strcmp(t->base, ".."))
		return -EISDIR;
	t->dir = slash ? strndup(t->path, slash == t->path ? 1 : (size_t)(slash - t->path))
		       : strdup(".");
	if (!t->dir)
		return -ENOMEM;
	t->dirfd = open(t->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t->dirfd < 0)
		return -errno;
	t->exists = !fstatat(t->dirfd, t->base, &t->st, 0);
	if (t->exists && S_ISDIR(t->st.st_mode))
		return -EISDIR;
	return 0;
}

/* ".BASE.mntsnap-XXXXXX" with random letters; buf holds len bytes. */
static int tmp_name(const struct save_target *t, char *buf, size_t len)
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char rnd[TMP_RAND];
	struct timespec ts;
	int n;

	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		for (size_t i = 0; i < sizeof(rnd); i++)
			rnd[i] = (unsigned char)((uint64_t)ts.tv_nsec * 2654435761u >> (i * 5)) ^
				 (unsigned char)getpid();
	}
	n = snprintf(buf, len, ".%s" TMP_TAG, t->base);
	if (n < 0 || (size_t)n + TMP_RAND >= len)
		return -ENAMETOOLONG;
	for (int i = 0; i < TMP_RAND; i++)
		buf[n + i] = abc[rnd[i] % (sizeof(abc) - 1)];
	buf[n + TMP_RAND] = '\0';
	return 0;
}

/* Is name one of our temp names for t (".BASE.mntsnap-" + 6 chars)? */
static bool is_tmp_name(const struct save_target *t, const char *name)
{
	size_t bl = strlen(t->base), tl = sizeof(TMP_TAG) - 1;

	return name[0] == '.' && !strncmp(name + 1, t->base, bl) &&
	       !strncmp(name + 1 + bl, TMP_TAG, tl) && strlen(name + 1 + bl + tl) == TMP_RAND;
}

/* Remove temp files of t that no writer holds any more (killed saves). */
static void remove_stale(const struct save_target *t)
{
	int dfd = openat(t->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *e;
	DIR *d;

	if (dfd < 0)
		return;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	while ((e = readdir(d))) {
		int fd;

		if (!is_tmp_name(t, e->d_name))
			continue;
		fd = openat(t->dirfd, e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* a live writer holds its lock until its rename is done */
		if (!flock(fd, LOCK_EX | LOCK_NB))
			unlinkat(t->dirfd, e->d_name, 0);
		close(fd);
	}
	closedir(d);
}

/* Give the unnamed file fd the name name in t's directory (no replace). */
static int link_tmpfile(const struct save_target *t, int fd, const char *name)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (!linkat(AT_FDCWD, proc, t->dirfd, name, AT_SYMLINK_FOLLOW))
		return 0;
	if (errno != ENOENT) /* ENOENT: no /proc; AT_EMPTY_PATH needs a capability */
		return -errno;
	return linkat(fd, "", t->dirfd, name, AT_EMPTY_PATH) ? -errno : 0;
}

/* Data, then mode/owner of the file replaced, then fsync (unless told not to). */
static int fill(const struct mntsnap_snapshot *snap, struct save_target *t, int fd)
{
	int r = mntsnap_snapshot_save_fd(snap, fd);

	if (!r && t->exists) {
		if (fchmod(fd, t->st.st_mode & 07777))
			r = -errno;
		else if ((t->st.st_uid != geteuid() || t->st.st_gid != getegid()) &&
			 fchown(fd, t->st.st_uid, t->st.st_gid) && errno != EPERM)
			r = -errno;
	}
	if (r)
		t->step = "writing the temp file";
	if (!r && t->sync && fsync(fd)) {
		r = -errno;
		t->step = "fsync of the temp file";
	}
	return r;
}

/* O_TMPFILE: write, then name it. -EOPNOTSUPP: no O_TMPFILE here. */
static int save_unnamed(const struct mntsnap_snapshot *snap, struct save_target *t)
{
	char tmp[NAME_MAX + 1];
	int fd, r;

	fd = openat(t->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno == EISDIR || errno == EINVAL || errno == EOPNOTSUPP ? -EOPNOTSUPP
										   : -errno;
	while (flock(fd, LOCK_EX) && errno == EINTR)
		;
	r = fill(snap, t, fd);
	if (!r)
		t->step = "naming the temp file (linkat)";
	if (!r && !t->exists) {
		r = link_tmpfile(t, fd, t->base);
		if (r != -EEXIST)
			goto out; /* named at once, or failed */
		r = 0; /* created meanwhile: replace it like any other */
	}
	for (int tries = 0; !r; tries++) {
		r = tmp_name(t, tmp, sizeof(tmp));
		if (!r)
			r = link_tmpfile(t, fd, tmp);
		if (r != -EEXIST || tries == 100)
			break;
		r = 0;
	}
	if (!r && renameat(t->dirfd, tmp, t->dirfd, t->base)) {
		r = -errno;
		t->step = "rename over the file";
		unlinkat(t->dirfd, tmp, 0);
	}
out:
	close(fd);
	return r;
}

/* No O_TMPFILE: a named temp file from the start. */
static int save_named(const struct mntsnap_snapshot *snap, struct save_target *t)
{
	char tmp[NAME_MAX + 1];
	int fd = -1, r = 0;

	for (int tries = 0; fd < 0 && tries < 100; tries++) {
		r = tmp_name(t, tmp, sizeof(tmp));
		if (r)
			return r;
		fd = openat(t->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	while (flock(fd, LOCK_EX) && errno == EINTR)
		;
	r = fill(snap, t, fd);
	if (!r && renameat(t->dirfd, tmp, t->dirfd, t->base)) {
		r = -errno;
		t->step = "rename over the file";
	}
	if (r)
		unlinkat(t->dirfd, tmp, 0);
	close(fd);
	return r;
}

int mntsnap_snapshot_save_with(const struct mntsnap_snapshot *snap, const char *path,
			       const struct mntsnap_save_opts *opts)
{
	struct mntsnap_save_opts o = { .sz = sizeof(o) };
	struct save_target t = { .dirfd = -1 };
	int r;

	r = OPTS_LOAD_ERR(&o, opts, "mntsnap_save_opts");
	if (r)
		return r;
	if (!snap || !path || !*path || (o.flags & ~(uint32_t)MNTSNAP_SAVE_NO_SYNC))
		return mntsnap__set_error(o.error, -EINVAL, 0, "save: %s",
					  !snap || !path || !*path ? "no snapshot or no path"
								   : "unknown flag");
	t.sync = !(o.flags & MNTSNAP_SAVE_NO_SYNC);
	t.step = "opening the directory";
	r = save_resolve(path, &t);
	if (!r) {
		remove_stale(&t);
		t.step = "creating the temp file";
		r = save_unnamed(snap, &t);
		if (r == -EOPNOTSUPP) {
			t.step = "creating the temp file";
			r = save_named(snap, &t);
		}
	}
	if (!r && t.sync) {
		t.step = "fsync of the directory";
		r = fsync_dir(t.dir);
	}
	if (r)
		mntsnap__set_error(o.error, r, 0, "save %s: %s: %s", path, t.step, strerror(-r));
	save_target_free(&t);
	return r;
}

int mntsnap_snapshot_save(const struct mntsnap_snapshot *snap, const char *path)
{
	return mntsnap_snapshot_save_with(snap, path, NULL);
}

int mntsnap_snapshot_load_buf(const void *buf, size_t len, struct mntsnap_error *err,
			      struct mntsnap_snapshot **ret_snap)
{
	return mntsnap__wire_decode(buf, len, err, ret_snap);
}

/* Up to len bytes (fewer only at EOF); the count or -errno. */
static ssize_t read_full(int fd, uint8_t *p, size_t len)
{
	size_t have = 0;

	while (have < len) {
		ssize_t n = read(fd, p + have, len - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		have += (size_t)n;
	}
	return (ssize_t)have;
}

/*
 * The header first: a file that is not a snapshot (/dev/zero, a text
 * file) is refused after 24 bytes, and the header's total length bounds
 * what is read and allocated (one byte more, to see a file that goes on).
 */
int mntsnap_snapshot_load_fd(int fd, struct mntsnap_error *err,
			     struct mntsnap_snapshot **ret_snap)
{
	uint8_t hdr[WIRE_HDR_LEN], *buf;
	uint64_t total;
	ssize_t n, m;
	int r;

	if (fd < 0 || !ret_snap)
		return -EINVAL;
	n = read_full(fd, hdr, sizeof(hdr));
	if (n < 0)
		return mntsnap__set_error(err, (int)n, 0, "snapshot: read: %s", strerror((int)-n));
	if (n < 8 || memcmp(hdr, WIRE_MAGIC, 8) || n < WIRE_HDR_LEN)
		return mntsnap__wire_decode(hdr, (size_t)n, err, ret_snap);
	total = le(hdr + 16, 8);
	if (total > WIRE_MAX_FILE)
		return mntsnap__set_error(err, -EFBIG, 16,
					 "snapshot: header says %" PRIu64 " bytes, more than %llu",
					 total, (unsigned long long)WIRE_MAX_FILE);
	if (total < WIRE_HDR_LEN)
		total = WIRE_HDR_LEN; /* decode says what is wrong */
	buf = malloc((size_t)total + 1);
	if (!buf)
		return mntsnap__set_error(err, -ENOMEM, 0, "snapshot: out of memory");
	memcpy(buf, hdr, WIRE_HDR_LEN);
	m = read_full(fd, buf + WIRE_HDR_LEN, (size_t)total + 1 - WIRE_HDR_LEN);
	if (m < 0) {
		free(buf);
		return mntsnap__set_error(err, (int)m, 0, "snapshot: read: %s", strerror((int)-m));
	}
	r = mntsnap__wire_decode(buf, WIRE_HDR_LEN + (size_t)m, err, ret_snap);
	free(buf);
	return r;
}

int mntsnap_snapshot_load(const char *path, struct mntsnap_error *err,
			  struct mntsnap_snapshot **ret_snap)
{
	int fd, r;

	if (!path || !ret_snap)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		return mntsnap__set_error(err, r, 0, "open: %s", strerror(-r));
	}
	r = mntsnap_snapshot_load_fd(fd, err, ret_snap);
	close(fd);
	return r;
}
