/* SPDX-License-Identifier: MIT */
/*
 * The record fields, one row each. Mask conversion, statmount -> record,
 * the record store (superblock interning, id maps), record comparison
 * (diff, refresh), the wire format and the JSON keys are driven by this
 * table, so a new field is a row here (and its kernel member in uapi.h, its
 * member in struct mntsnap_mount and, for a stored level, in the level's
 * struct in snapshot.h).
 *
 * X(NAME, LEVEL, KIND, MEMBER, NUM, SM_ASK, SM_GOT, SM_STR, SM_NUM,
 *   JSON, JSON_GENERIC, CHANGE, MI, WIRE, WIRE_REQUIRED)
 *  NAME     MNTSNAP_F_<NAME>, the public bit
 *  LEVEL    MOUNT (struct mntsnap_rec), SB (interned per superblock,
 *           struct mntsnap_sb), IDMAP (struct mntsnap_idmap, rare), SNAP
 *           (one value per snapshot)
 *  KIND     U32, U64, STR, LIST (NUM strings end to end), PAIR (two u32:
 *           MEMBER and NUM), SPECIAL (coded by hand where it is used: the
 *           id pairs and the propagation triple)
 *  MEMBER   member of struct mntsnap_mount and of the level's struct (the
 *           same name in both); NUM the list count (or the second of a
 *           pair; MEMBER again where there is none)
 *  SM_ASK   STATMOUNT_* bits a capture asks for to get the field, SM_GOT
 *           the bit whose return says it came; 0 for a field statmount
 *           does not give (read by other means)
 *  SM_STR   member of struct mntsnap_k_statmount holding a STR/LIST's
 *           offset, SM_NUM a LIST's count (mask where unused)
 *  JSON     the key in the JSON output; JSON_GENERIC 1 when the renderer
 *           writes it from this table (only when the record has the
 *           field), 0 when it is a findmnt column written by hand in
 *           findmnt's order
 *  CHANGE   MNTSNAP_CHANGE_* bit a diff reports when the field differs
 *  MI       1 when the mountinfo text backend gives the field
 *  WIRE     0: coded inline in the version-1 sections (SBS, RECORDS,
 *           IDMAPS, META); else the field's tag: it travels in a field
 *           section of its own (see wire.c), so that a reader which does
 *           not know it skips it, or refuses the file with -EOPNOTSUPP when
 *           WIRE_REQUIRED is 1 (a field whose absence would make the
 *           others mean something else). Such rows must be MOUNT or SB
 *           level.
 */
#ifndef MNTSNAP_FIELDS_H
#define MNTSNAP_FIELDS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mntsnap.h"
#include "uapi.h"

#define MNTSNAP_FIELDS_CORE(X)                                                                     \
	X(ID, MOUNT, SPECIAL, id, parent_id, MNTSNAP_K_STATMOUNT_MNT_BASIC,                        \
	  MNTSNAP_K_STATMOUNT_MNT_BASIC, mask, mask, "uniq-id", 0, MNTSNAP_CHANGE_PARENT, 0, 0, 0) \
	X(ID_OLD, MOUNT, SPECIAL, id_old, parent_id_old, MNTSNAP_K_STATMOUNT_MNT_BASIC,             \
	  MNTSNAP_K_STATMOUNT_MNT_BASIC, mask, mask, "id", 0, 0, 1, 0, 0)                           \
	X(DEV, SB, PAIR, dev_major, dev_minor, MNTSNAP_K_STATMOUNT_SB_BASIC,                       \
	  MNTSNAP_K_STATMOUNT_SB_BASIC, mask, mask, "maj:min", 0, MNTSNAP_CHANGE_DEV, 1, 0, 0)      \
	X(SB_MAGIC, SB, U64, sb_magic, sb_magic, MNTSNAP_K_STATMOUNT_SB_BASIC,                     \
	  MNTSNAP_K_STATMOUNT_SB_BASIC, mask, mask, "sb-magic", 0, MNTSNAP_CHANGE_FS_TYPE, 0, 0, 0) \
	X(SB_FLAGS, SB, U32, sb_flags, sb_flags, MNTSNAP_K_STATMOUNT_SB_BASIC,                     \
	  MNTSNAP_K_STATMOUNT_SB_BASIC, mask, mask, "sb-flags", 0, MNTSNAP_CHANGE_SB_FLAGS, 1, 0, 0) \
	X(ATTR, MOUNT, U32, attr, attr, MNTSNAP_K_STATMOUNT_MNT_BASIC,                             \
	  MNTSNAP_K_STATMOUNT_MNT_BASIC, mask, mask, "attr", 0, MNTSNAP_CHANGE_ATTR, 1, 0, 0)       \
	X(PROPAGATION, MOUNT, SPECIAL, propagation, propagation, MNTSNAP_K_STATMOUNT_MNT_BASIC,    \
	  MNTSNAP_K_STATMOUNT_MNT_BASIC, mask, mask, "propagation", 0, MNTSNAP_CHANGE_PROPAGATION, \
	  1, 0, 0)                                                                                 \
	X(PROPAGATE_FROM, MOUNT, U32, propagate_from, propagate_from,                              \
	  MNTSNAP_K_STATMOUNT_PROPAGATE_FROM | MNTSNAP_K_STATMOUNT_MNT_BASIC,                      \
	  MNTSNAP_K_STATMOUNT_PROPAGATE_FROM, mask, mask, "propagate-from", 0,                     \
	  MNTSNAP_CHANGE_PROPAGATE_FROM, 1, 0, 0)                                                  \
	X(ROOT, MOUNT, STR, root, root, MNTSNAP_K_STATMOUNT_MNT_ROOT,                              \
	  MNTSNAP_K_STATMOUNT_MNT_ROOT, mnt_root, mnt_root, "fsroot", 0, MNTSNAP_CHANGE_ROOT, 1, 0, \
	  0)                                                                                       \
	X(MOUNT_POINT, MOUNT, STR, mount_point, mount_point, MNTSNAP_K_STATMOUNT_MNT_POINT,        \
	  MNTSNAP_K_STATMOUNT_MNT_POINT, mnt_point, mnt_point, "target", 0,                        \
	  MNTSNAP_CHANGE_MOUNT_POINT, 1, 0, 0)                                                     \
	X(FS_TYPE, SB, STR, fs_type, fs_type, MNTSNAP_K_STATMOUNT_FS_TYPE,                         \
	  MNTSNAP_K_STATMOUNT_FS_TYPE, fs_type, fs_type, "fstype", 0, MNTSNAP_CHANGE_FS_TYPE, 1, 0, \
	  0)                                                                                       \
	X(FS_SUBTYPE, SB, STR, fs_subtype, fs_subtype, MNTSNAP_K_STATMOUNT_FS_SUBTYPE,             \
	  MNTSNAP_K_STATMOUNT_FS_SUBTYPE, fs_subtype, fs_subtype, "fs-subtype", 1,                 \
	  MNTSNAP_CHANGE_FS_TYPE, 1, 0, 0)                                                         \
	X(SOURCE, SB, STR, source, source,                                                         \
	  MNTSNAP_K_STATMOUNT_SB_SOURCE | MNTSNAP_K_STATMOUNT_SUPPORTED_MASK,                      \
	  MNTSNAP_K_STATMOUNT_SB_SOURCE, sb_source, sb_source, "source", 0, MNTSNAP_CHANGE_SOURCE, \
	  1, 0, 0)                                                                                 \
	X(OPTS, SB, STR, options, options, MNTSNAP_K_STATMOUNT_MNT_OPTS,                           \
	  MNTSNAP_K_STATMOUNT_MNT_OPTS, mnt_opts, mnt_opts, "options", 0, MNTSNAP_CHANGE_OPTIONS, \
	  1, 0, 0)                                                                                 \
	X(OPT_ARRAY, SB, LIST, opt_array, opt_num, MNTSNAP_K_STATMOUNT_OPT_ARRAY,                  \
	  MNTSNAP_K_STATMOUNT_OPT_ARRAY, opt_array, opt_num, "opt-array", 1,                       \
	  MNTSNAP_CHANGE_OPTIONS, 0, 0, 0)                                                         \
	X(OPT_SEC_ARRAY, SB, LIST, opt_sec_array, opt_sec_num, MNTSNAP_K_STATMOUNT_OPT_SEC_ARRAY,  \
	  MNTSNAP_K_STATMOUNT_OPT_SEC_ARRAY, opt_sec_array, opt_sec_num, "opt-sec-array", 1,       \
	  MNTSNAP_CHANGE_OPTIONS, 0, 0, 0)                                                         \
	X(NS_ID, SNAP, U64, ns_id, ns_id, MNTSNAP_K_STATMOUNT_MNT_NS_ID,                           \
	  MNTSNAP_K_STATMOUNT_MNT_NS_ID, mask, mask, "ns-id", 0, 0, 1, 0, 0)                        \
	X(UIDMAP, IDMAP, LIST, uidmap, uidmap_num, MNTSNAP_K_STATMOUNT_MNT_UIDMAP,                 \
	  MNTSNAP_K_STATMOUNT_MNT_UIDMAP, mnt_uidmap, mnt_uidmap_num, "uidmap", 1,                 \
	  MNTSNAP_CHANGE_IDMAP, 0, 0, 0)                                                           \
	X(GIDMAP, IDMAP, LIST, gidmap, gidmap_num, MNTSNAP_K_STATMOUNT_MNT_GIDMAP,                 \
	  MNTSNAP_K_STATMOUNT_MNT_GIDMAP, mnt_gidmap, mnt_gidmap_num, "gidmap", 1,                 \
	  MNTSNAP_CHANGE_IDMAP, 0, 0, 0)

/*
 * Fields added after the version-1 format: each travels in its own wire
 * field section. UUID: read by FS_IOC_GETFSUUID / udev, not statmount.
 */
#define MNTSNAP_FIELDS_EXT(X)                                                                      \
	X(UUID, SB, STR, uuid, uuid, 0, 0, mask, mask, "uuid", 1, MNTSNAP_CHANGE_UUID, 0, 1, 0)

/*
 * A build may append rows (a test writes files with a field this library
 * does not know by compiling the table with one more row).
 */
#ifndef MNTSNAP_FIELDS_EXTRA
#define MNTSNAP_FIELDS_EXTRA(X)
#endif

#define MNTSNAP_FIELDS(X) MNTSNAP_FIELDS_CORE(X) MNTSNAP_FIELDS_EXT(X) MNTSNAP_FIELDS_EXTRA(X)

/* Levels and kinds are written in wire field sections: never renumber. */
enum mntsnap_field_level {
	MNTSNAP_FL_MOUNT = 0,
	MNTSNAP_FL_SB = 1,
	MNTSNAP_FL_IDMAP,
	MNTSNAP_FL_SNAP,
};

enum mntsnap_field_kind {
	MNTSNAP_FK_U32 = 0,
	MNTSNAP_FK_U64 = 1,
	MNTSNAP_FK_STR = 2,
	MNTSNAP_FK_LIST = 3,
	MNTSNAP_FK_PAIR = 4,
	MNTSNAP_FK_SPECIAL,
};

struct mntsnap_field {
	uint32_t bit;
	uint8_t level, kind;
	uint8_t json_generic, mountinfo;
	uint16_t wire;          /* 0 = version-1 core; else the field section's tag */
	uint8_t wire_required;
	uint16_t off, num_off;  /* in struct mntsnap_mount */
	uint16_t st_off, st_num_off; /* in the level's storage struct */
	uint16_t sm_str, sm_num; /* in struct mntsnap_k_statmount */
	uint64_t sm_ask, sm_got;
	uint32_t change;
	const char *json;
	const char *name;       /* "UUID", for messages */
};

/* One initializer per row (needs snapshot.h and uapi.h for the offsets). */
#define MNTSNAP__STORE_MOUNT struct mntsnap_rec
#define MNTSNAP__STORE_SB struct mntsnap_sb
#define MNTSNAP__STORE_IDMAP struct mntsnap_idmap
#define MNTSNAP__STORE_SNAP struct mntsnap_snapshot
#define MNTSNAP__FIELD_ROW(N, L, K, M, NU, SA, SG, SS, SN, J, JG, C, MI, W, WR)                     \
	{ .bit = MNTSNAP_F_##N,                                                                    \
	  .level = MNTSNAP_FL_##L,                                                                 \
	  .kind = MNTSNAP_FK_##K,                                                                  \
	  .json_generic = JG,                                                                      \
	  .mountinfo = MI,                                                                         \
	  .wire = W,                                                                               \
	  .wire_required = WR,                                                                     \
	  .off = offsetof(struct mntsnap_mount, M),                                                \
	  .num_off = offsetof(struct mntsnap_mount, NU),                                           \
	  .st_off = offsetof(MNTSNAP__STORE_##L, M),                                               \
	  .st_num_off = offsetof(MNTSNAP__STORE_##L, NU),                                          \
	  .sm_str = offsetof(struct mntsnap_k_statmount, SS),                                      \
	  .sm_num = offsetof(struct mntsnap_k_statmount, SN),                                      \
	  .sm_ask = SA,                                                                            \
	  .sm_got = SG,                                                                            \
	  .change = C,                                                                             \
	  .json = J,                                                                               \
	  .name = #N },

#define MNTSNAP__FIELD_COUNT_ROW(...) +1
enum { MNTSNAP_NFIELDS = 0 MNTSNAP_FIELDS(MNTSNAP__FIELD_COUNT_ROW) };

extern const struct mntsnap_field mntsnap__fields[MNTSNAP_NFIELDS];

/* Every bit the table knows, by level, and the ones statmount gives. */
#define MNTSNAP__FIELD_BIT_ROW(N, ...) | MNTSNAP_F_##N
#define MNTSNAP__FIELDS_KNOWN (0 MNTSNAP_FIELDS(MNTSNAP__FIELD_BIT_ROW))
#define MNTSNAP__FIELDS_CORE_BITS (0 MNTSNAP_FIELDS_CORE(MNTSNAP__FIELD_BIT_ROW))
#define MNTSNAP__FIELD_LEVEL_ROW(N, L, ...) | (MNTSNAP_FL_##L == MNTSNAP_FL_SB ? MNTSNAP_F_##N : 0)
#define MNTSNAP__FIELDS_SB (0 MNTSNAP_FIELDS(MNTSNAP__FIELD_LEVEL_ROW))
#define MNTSNAP__FIELD_IDMAP_ROW(N, L, ...) | (MNTSNAP_FL_##L == MNTSNAP_FL_IDMAP ? MNTSNAP_F_##N : 0)
#define MNTSNAP__FIELDS_IDMAP (0 MNTSNAP_FIELDS(MNTSNAP__FIELD_IDMAP_ROW))
#define MNTSNAP__FIELD_MI_ROW(N, L, K, M, NU, SA, SG, SS, SN, J, JG, C, MI, ...)                   \
	| ((MI) ? MNTSNAP_F_##N : 0)
#define MNTSNAP__FIELDS_MOUNTINFO (0 MNTSNAP_FIELDS(MNTSNAP__FIELD_MI_ROW))
#define MNTSNAP__FIELD_SM_ROW(N, L, K, M, NU, SA, SG, ...) | ((SG) ? MNTSNAP_F_##N : 0)
#define MNTSNAP__FIELDS_STATMOUNT (0 MNTSNAP_FIELDS(MNTSNAP__FIELD_SM_ROW))
#define MNTSNAP__FIELD_STRS_ROW(N, L, K, ...)                                                      \
	| ((MNTSNAP_FK_##K == MNTSNAP_FK_STR || MNTSNAP_FK_##K == MNTSNAP_FK_LIST) ? MNTSNAP_F_##N : 0)
#define MNTSNAP__FIELDS_STRINGS (0 MNTSNAP_FIELDS(MNTSNAP__FIELD_STRS_ROW))

/* The row of one MNTSNAP_F_* bit, NULL if none. */
const struct mntsnap_field *mntsnap__field_of(uint32_t bit);

/* Typed access to a row's member of a record or a storage struct. */
static inline const char *mntsnap__fstr(const struct mntsnap_mount *m, const struct mntsnap_field *f)
{
	const char *s;

	memcpy(&s, (const char *)m + f->off, sizeof(s));
	return s ? s : "";
}

static inline uint32_t mntsnap__fu32(const void *p, size_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)p + off, sizeof(v));
	return v;
}

static inline uint64_t mntsnap__fu64(const void *p, size_t off)
{
	uint64_t v;

	memcpy(&v, (const char *)p + off, sizeof(v));
	return v;
}

static inline void mntsnap__fset_str(struct mntsnap_mount *m, const struct mntsnap_field *f,
				     const char *s)
{
	memcpy((char *)m + f->off, &s, sizeof(s));
}

static inline void mntsnap__fset_u32(void *p, size_t off, uint32_t v)
{
	memcpy((char *)p + off, &v, sizeof(v));
}

static inline void mntsnap__fset_u64(void *p, size_t off, uint64_t v)
{
	memcpy((char *)p + off, &v, sizeof(v));
}

/* The list count of a LIST row in a record (0 for other kinds). */
static inline uint32_t mntsnap__fnum(const struct mntsnap_mount *m, const struct mntsnap_field *f)
{
	return f->kind == MNTSNAP_FK_LIST ? mntsnap__fu32(m, f->num_off) : 0;
}

/*
 * Do records a and b differ in row f (both have it)? STR, LIST, U32,
 * U64 and PAIR rows; SPECIAL rows are compared by hand.
 */
int mntsnap__field_differs(const struct mntsnap_field *f, const struct mntsnap_mount *a,
			   const struct mntsnap_mount *b);

/*
 * The per-mount option words after "ro"/"rw" that mountinfo's column 6
 * can show and attr holds, in show_mnt_opts()'s order (the atime words
 * share a slot: clear is their mask). A word not here is a newer
 * kernel's, kept as text (struct mntsnap_mount mnt_opts_text).
 */
struct mntsnap_mnt_opt_word {
	const char *w;
	size_t len;
	uint32_t set, clear;
};
#define MNTSNAP_MNT_OPT_NWORDS 8
extern const struct mntsnap_mnt_opt_word mntsnap__mnt_opt_words[MNTSNAP_MNT_OPT_NWORDS];

/* Index of the word p[0..len) in mntsnap__mnt_opt_words, -1 if unknown. */
int mntsnap__mnt_opt_word(const char *p, size_t len);

/*
 * Do a's and b's per-mount options differ in what attr cannot hold: the
 * words of their kept text that mntsnap__mnt_opt_words does not know,
 * compared as a multiset (order and known words are attr's business). A
 * record without text has none.
 */
bool mntsnap__mnt_opts_text_ne(const struct mntsnap_mount *a, const struct mntsnap_mount *b);

#endif
