// SPDX-License-Identifier: MIT
/*
 * Snapshot storage: compact records, one string table, interned superblock
 * data, the parent/child tree and the id indexes. See snapshot.h.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "fields.h"
#include "hash.h"
#include "snapshot.h"

#define SB_FIELDS MNTSNAP__FIELDS_SB

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
	uint64_t ncap;
	void *np;

	if (need <= *cap)
		return 0;
	ncap = *cap ? (uint64_t)*cap * 2 : 16;
	while (ncap < need)
		ncap *= 2;
	if (ncap > UINT32_MAX - 1)
		ncap = UINT32_MAX - 1;
	if (ncap < need)
		return -EOVERFLOW;
	np = realloc(*p, ncap * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = (uint32_t)ncap;
	return 0;
}

/* Exactly need elements (grow() doubles; a reservation knows its size). */
static int reserve_exact(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
	void *np;

	if (need <= *cap)
		return 0;
	np = realloc(*p, (size_t)need * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = need;
	return 0;
}

struct mntsnap_snapshot *mntsnap__snap_new(int backend, uint32_t mask)
{
	/*
	 * Not calloc (nor malloc + memset, which compilers turn into calloc):
	 * glibc's calloc skips the thread cache, and allocating is a good
	 * part of what a one-mount lookup costs besides its syscall.
	 */
	struct mntsnap_snapshot *s = malloc(sizeof(*s));

	if (!s)
		return NULL;
	*s = (struct mntsnap_snapshot){ .backend = backend, .mask = mask, .consistent = -1 };
	/* small: one-mount lookups are common; captures reserve up front */
	if (grow((void **)&s->strtab, &s->strtab_cap, 256, 1)) {
		free(s);
		return NULL;
	}
	s->strtab[0] = '\0';
	s->strtab_len = 1;
	return s;
}

void mntsnap__snapshot_free(struct mntsnap_snapshot *s)
{
	int saved = errno;

	if (!s)
		return;
	free(s->recs);
	free(s->sbs);
	free(s->sb_hash);
	free(s->idmaps);
	free(s->strtab);
	while (s->old_strtabs) {
		struct mntsnap_old_strtab *o = s->old_strtabs;

		s->old_strtabs = o->next;
		free(o->strtab);
		free(o);
	}
	free(s->tree);
	free(s->by_id);
	free(s->by_old);
	mntsnap__lookup_reset(s);
	free(s);
	errno = saved;
}

void mntsnap_snapshot_free(struct mntsnap_snapshot *s)
{
	mntsnap__snapshot_free(s);
}

/*
 * Room for need bytes of strings. Once views may exist (keep_strings), the
 * table is copied instead of realloc'd and the old one kept, so every
 * string a view points to stays where it is, unchanged, until
 * mntsnap__snapshot_free().
 */
static int grow_strtab(struct mntsnap_snapshot *s, uint32_t need)
{
	struct mntsnap_old_strtab *old;
	uint32_t cap = s->strtab_cap;
	char *t;
	int r;

	if (!s->keep_strings || need <= s->strtab_cap)
		return grow((void **)&s->strtab, &s->strtab_cap, need, 1);
	old = malloc(sizeof(*old));
	if (!old)
		return -ENOMEM;
	t = NULL;
	r = grow((void **)&t, &cap, need, 1);
	if (r) {
		free(old);
		return r;
	}
	memcpy(t, s->strtab, s->strtab_len);
	*old = (struct mntsnap_old_strtab){ .next = s->old_strtabs, .strtab = s->strtab,
					    .cap = s->strtab_cap };
	s->old_strtabs = old;
	s->strtab = t;
	s->strtab_cap = cap;
	return 0;
}

int mntsnap__snap_reserve(struct mntsnap_snapshot *s, uint32_t nrecs, uint32_t str_bytes)
{
	int r;

	if (nrecs > UINT32_MAX - 1 - s->nrecs || str_bytes > UINT32_MAX - 1 - s->strtab_len)
		return -EOVERFLOW;
	r = reserve_exact((void **)&s->recs, &s->recs_cap, s->nrecs + nrecs, sizeof(*s->recs));
	if (r)
		return r;
	if (s->keep_strings)
		return grow_strtab(s, s->strtab_len + str_bytes);
	return reserve_exact((void **)&s->strtab, &s->strtab_cap, s->strtab_len + str_bytes, 1);
}

long mntsnap__snap_str(struct mntsnap_snapshot *s, const char *str, size_t len)
{
	uint32_t off;
	int r;

	if (!len)
		return 0;
	if (len > UINT32_MAX - 1 - s->strtab_len)
		return -EOVERFLOW;
	r = grow_strtab(s, s->strtab_len + (uint32_t)len + 1);
	if (r)
		return r;
	off = s->strtab_len;
	memcpy(s->strtab + off, str, len);
	s->strtab[off + len] = '\0';
	s->strtab_len += (uint32_t)len + 1;
	return off;
}

/* Lists compare including their inner NULs. */
static size_t list_len(const char *s, uint32_t n)
{
	return s ? mntsnap__strlist_len(s, n) : 0;
}

/*
 * Only the numeric fields (generated from the table's superblock rows):
 * the device number already tells superblocks apart (strings differ only
 * for the same device when it was remounted between two statmount calls,
 * and sb_matches() compares everything anyway), and hashing every option
 * string of every record cost more than the rest of adding it.
 */
static uint32_t hash_sb(const struct mntsnap_mount *m, uint32_t mask)
{
	uint32_t h = MNTSNAP_HASH_INIT;

	/*
	 * Fields read after the records were added (the UUID) set their bit
	 * in an interned superblock later: left out, so its hash stays true.
	 */
	mask &= MNTSNAP__FIELDS_STATMOUNT;
	h = mntsnap_hash_bytes(h, &mask, sizeof(mask));
	/* the table's numeric superblock rows, in its order */
#define H_U32(M, NU) h = mntsnap_hash_bytes(h, &m->M, sizeof(m->M));
#define H_U64(M, NU) H_U32(M, NU)
#define H_PAIR(M, NU) H_U32(M, NU) H_U32(NU, NU)
#define H_STR(M, NU)
#define H_LIST(M, NU)
#define H_SB(N, K, M, NU) H_##K(M, NU)
#define H_MOUNT(N, K, M, NU)
#define H_IDMAP(N, K, M, NU)
#define H_SNAP(N, K, M, NU)
#define H_ROW(N, L, K, M, NU, ...) H_##L(N, K, M, NU)
	MNTSNAP_FIELDS(H_ROW)
	return h;
}

static bool str_eq(const struct mntsnap_snapshot *s, uint32_t off, const char *str)
{
	return !strcmp(s->strtab + off, str);
}

static bool list_eq(const struct mntsnap_snapshot *s, uint32_t off, uint32_t n,
		    const char *list, uint32_t ln, size_t len)
{
	return n == ln && (!len || !memcmp(s->strtab + off, list, len));
}

/*
 * Fields the record does not have are zero/"" in the interned copy, and
 * the masks are compared first, so only the fields present are compared.
 * Generated from the table: this runs for every record added.
 */
#define EQ_U32(M, NU) sb->M == m->M
#define EQ_U64(M, NU) sb->M == m->M
#define EQ_PAIR(M, NU) (sb->M == m->M && sb->NU == m->NU)
#define EQ_STR(M, NU) str_eq(s, sb->M, m->M ? m->M : "")
#define EQ_LIST(M, NU) list_eq(s, sb->M, sb->NU, m->M, m->NU, list_len(m->M, m->NU))
#define EQ_SB(N, K, M, NU) &&(!(mask & MNTSNAP_F_##N) || EQ_##K(M, NU))
#define EQ_MOUNT(N, K, M, NU)
#define EQ_IDMAP(N, K, M, NU)
#define EQ_SNAP(N, K, M, NU)
#define EQ_ROW(N, L, K, M, NU, ...) EQ_##L(N, K, M, NU)

static bool sb_equal(const struct mntsnap_snapshot *s, const struct mntsnap_sb *sb,
		     const struct mntsnap_mount *m, uint32_t mask)
{
	return sb->mask == mask MNTSNAP_FIELDS(EQ_ROW);
}

static bool sb_matches(const struct mntsnap_snapshot *s, const struct mntsnap_sb *sb,
		       const struct mntsnap_mount *m, uint32_t mask, uint32_t hash)
{
	return sb->hash == hash && sb_equal(s, sb, m, mask);
}

static long add_str(struct mntsnap_snapshot *s, const char *str, uint32_t mask, uint32_t bit)
{
	if (!(mask & bit) || !str)
		return 0;
	return mntsnap__snap_str(s, str, strlen(str));
}

static long add_list(struct mntsnap_snapshot *s, const char *list, uint32_t n,
		     uint32_t mask, uint32_t bit)
{
	size_t len;
	long off;

	if (!(mask & bit) || !list || !n)
		return 0;
	/* the list's own final NUL is part of it; snap_str adds one more */
	len = mntsnap__strlist_len(list, n);
	off = mntsnap__snap_str(s, list, len - 1);
	return off;
}

/*
 * The fields of one level of m that mask has into its storage struct st
 * (zeroed by the caller): numbers as they are, strings and lists copied
 * into the string table (offset 0, "", when absent or empty).
 */
static int store_fields(struct mntsnap_snapshot *s, void *st, int level,
			const struct mntsnap_mount *m, uint32_t mask)
{
	for (int i = 0; i < MNTSNAP_NFIELDS; i++) {
		const struct mntsnap_field *f = &mntsnap__fields[i];
		uint32_t n;
		long off;

		if (f->level != level || !(f->bit & mask))
			continue;
		switch (f->kind) {
		case MNTSNAP_FK_U32:
			mntsnap__fset_u32(st, f->st_off, mntsnap__fu32(m, f->off));
			break;
		case MNTSNAP_FK_U64:
			mntsnap__fset_u64(st, f->st_off, mntsnap__fu64(m, f->off));
			break;
		case MNTSNAP_FK_PAIR:
			mntsnap__fset_u32(st, f->st_off, mntsnap__fu32(m, f->off));
			mntsnap__fset_u32(st, f->st_num_off, mntsnap__fu32(m, f->num_off));
			break;
		case MNTSNAP_FK_STR:
			off = add_str(s, mntsnap__fstr(m, f), mask, f->bit);
			if (off < 0)
				return (int)off;
			mntsnap__fset_u32(st, f->st_off, (uint32_t)off);
			break;
		case MNTSNAP_FK_LIST:
			n = mntsnap__fnum(m, f);
			off = add_list(s, mntsnap__fstr(m, f), n, mask, f->bit);
			if (off < 0)
				return (int)off;
			mntsnap__fset_u32(st, f->st_off, (uint32_t)off);
			mntsnap__fset_u32(st, f->st_num_off, n);
			break;
		}
	}
	return 0;
}

static int rehash_sbs(struct mntsnap_snapshot *s, uint32_t cap)
{
	uint32_t *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->nsbs; i++) {
		uint32_t h = s->sbs[i].hash & (cap - 1);

		while (t[h])
			h = (h + 1) & (cap - 1);
		t[h] = i + 1;
	}
	free(s->sb_hash);
	s->sb_hash = t;
	s->sb_hash_cap = cap;
	return 0;
}

/* Find or create the interned superblock part of m. */
static long intern_sb(struct mntsnap_snapshot *s, const struct mntsnap_mount *m)
{
	uint32_t mask = m->mask & SB_FIELDS;
	uint32_t hash;
	struct mntsnap_sb sb = {0};
	uint32_t slot;
	long off;
	int r;

	/*
	 * Fast path: tables list bind mounts of one filesystem side by side,
	 * so the previous record's superblock usually matches, and comparing
	 * costs less than hashing every string of the record.
	 */
	if (s->nrecs && sb_equal(s, &s->sbs[s->recs[s->nrecs - 1].sb], m, mask))
		return s->recs[s->nrecs - 1].sb;
	hash = hash_sb(m, mask);
	/*
	 * The hash table exists from the second superblock on: with one,
	 * every record points at it and the fast path above has compared it
	 * already, and a one-mount lookup is spared the table's allocation.
	 */
	if (s->nsbs && s->nsbs + 1 > s->sb_hash_cap / 2) {
		r = rehash_sbs(s, s->sb_hash_cap ? s->sb_hash_cap * 2 : 64);
		if (r)
			return r;
	}
	slot = s->sb_hash_cap ? hash & (s->sb_hash_cap - 1) : 0;
	for (; s->sb_hash_cap && s->sb_hash[slot]; slot = (slot + 1) & (s->sb_hash_cap - 1)) {
		uint32_t i = s->sb_hash[slot] - 1;

		if (sb_matches(s, &s->sbs[i], m, mask, hash))
			return i;
	}
	if (!s->sb_hash_cap && s->nsbs && sb_matches(s, &s->sbs[0], m, mask, hash))
		return 0; /* only reachable if records were added out of band */

	r = s->sbs_cap ? grow((void **)&s->sbs, &s->sbs_cap, s->nsbs + 1, sizeof(*s->sbs)) :
			 reserve_exact((void **)&s->sbs, &s->sbs_cap, 1, sizeof(*s->sbs));
	if (r)
		return r;
	/* store_fields() for superblocks, generated: one per mount of its own */
#define SS_U32(N, M, NU) sb.M = m->M;
#define SS_U64(N, M, NU) sb.M = m->M;
#define SS_PAIR(N, M, NU) sb.M = m->M, sb.NU = m->NU;
#define SS_STR(N, M, NU)                                                                           \
	off = add_str(s, m->M, mask, MNTSNAP_F_##N);                                               \
	if (off < 0)                                                                               \
		return off;                                                                        \
	sb.M = (uint32_t)off;
#define SS_LIST(N, M, NU)                                                                          \
	off = add_list(s, m->M, m->NU, mask, MNTSNAP_F_##N);                                       \
	if (off < 0)                                                                               \
		return off;                                                                        \
	sb.M = (uint32_t)off;                                                                      \
	sb.NU = mask & MNTSNAP_F_##N ? m->NU : 0;
#define SS_SB(N, K, M, NU)                                                                         \
	if (mask & MNTSNAP_F_##N) {                                                                \
		SS_##K(N, M, NU)                                                                   \
	}
#define SS_MOUNT(N, K, M, NU)
#define SS_IDMAP(N, K, M, NU)
#define SS_SNAP(N, K, M, NU)
#define SS_ROW(N, L, K, M, NU, ...) SS_##L(N, K, M, NU)
	MNTSNAP_FIELDS(SS_ROW)
	sb.hash = hash;
	sb.mask = mask;
	s->sbs[s->nsbs] = sb;
	if (s->sb_hash_cap)
		s->sb_hash[slot] = s->nsbs + 1;
	return s->nsbs++;
}

static long add_idmap(struct mntsnap_snapshot *s, const struct mntsnap_mount *m)
{
	struct mntsnap_idmap im = {0};
	bool of = m->opt_fields && m->opt_fields[0];
	bool mo = m->mnt_opts_text && m->mnt_opts_text[0];
	bool so = m->sb_opts_text && m->sb_opts_text[0];
	long o = 0, t = 0, u = 0;
	int r;

	if (!(m->mask & MNTSNAP__FIELDS_IDMAP) && !of && !mo && !so)
		return MNTSNAP_NONE;
	r = store_fields(s, &im, MNTSNAP_FL_IDMAP, m, m->mask);
	if (r)
		return r;
	if (of)
		o = mntsnap__snap_str(s, m->opt_fields, strlen(m->opt_fields));
	if (o < 0)
		return o;
	if (mo)
		t = mntsnap__snap_str(s, m->mnt_opts_text, strlen(m->mnt_opts_text));
	if (t < 0)
		return t;
	im.mnt_opts = (uint32_t)t;
	if (so)
		u = mntsnap__snap_str(s, m->sb_opts_text, strlen(m->sb_opts_text));
	if (u < 0)
		return u;
	im.sb_opts = (uint32_t)u;
	r = grow((void **)&s->idmaps, &s->idmaps_cap, s->nidmaps + 1, sizeof(*s->idmaps));
	if (r)
		return r;
	im.opt_fields = (uint32_t)o;
	s->idmaps[s->nidmaps] = im;
	return s->nidmaps++;
}

long mntsnap__snap_add(struct mntsnap_snapshot *s, const struct mntsnap_mount *m)
{
	struct mntsnap_rec rec = {0};
	long sb, im, off;
	int err;

	if (s->nrecs >= UINT32_MAX - 1)
		return -EOVERFLOW;
	err = grow((void **)&s->recs, &s->recs_cap, s->nrecs + 1, sizeof(*s->recs));
	if (err)
		return err;
	sb = intern_sb(s, m);
	if (sb < 0)
		return sb;
	/* the per-mount fields, generated from the table: this runs per record */
#define ST_U32(N, M, NU) rec.M = m->M;
#define ST_U64(N, M, NU) rec.M = m->M;
#define ST_PAIR(N, M, NU) rec.M = m->M, rec.NU = m->NU;
#define ST_STR(N, M, NU)                                                                           \
	off = add_str(s, m->M, m->mask, MNTSNAP_F_##N);                                            \
	if (off < 0)                                                                               \
		return off;                                                                        \
	rec.M = (uint32_t)off;
#define ST_SPECIAL(N, M, NU)
#define ST_MOUNT(N, K, M, NU) ST_##K(N, M, NU)
#define ST_SB(N, K, M, NU)
#define ST_IDMAP(N, K, M, NU)
#define ST_SNAP(N, K, M, NU)
#define ST_ROW(N, L, K, M, NU, ...) ST_##L(N, K, M, NU)
	MNTSNAP_FIELDS(ST_ROW)
	im = add_idmap(s, m);
	if (im < 0)
		return im;

	/* the SPECIAL rows: both ids of a pair and the propagation triple */
	rec.mask = m->mask & MNTSNAP__FIELDS_KNOWN;
	rec.id = m->id;
	rec.parent_id = m->parent_id;
	rec.id_old = m->id_old;
	rec.parent_id_old = m->parent_id_old;
	rec.propagation = m->propagation;
	rec.peer_group = m->peer_group;
	rec.master = m->master;
	rec.sb = (uint32_t)sb;
	rec.idmap = (uint32_t)im;
	rec.parent = s->nrecs;
	rec.first_child = rec.next_sibling = MNTSNAP_NONE;
	s->recs[s->nrecs] = rec;
	if (m->mask & MNTSNAP_F_NS_ID && !s->ns_id)
		s->ns_id = m->ns_id;
	return s->nrecs++;
}

/* ---- indexes ---------------------------------------------------------- */

/*
 * Sort storage indices by a 64-bit key with a bottom-up merge sort: stable
 * and O(n log n) without qsort's missing context argument.
 */
static void sort_by_key(const struct mntsnap_snapshot *s, uint32_t *idx, bool old, uint32_t *tmp)
{
	uint32_t n = s->nrecs, *a = idx, *b;

	for (uint32_t i = 0; i < n; i++)
		a[i] = i;
	/*
	 * Already in order (old ids mostly grow with unique ids, and n < 2 is
	 * trivially sorted): one pass instead of the sort and its buffer.
	 */
	for (uint32_t i = 1;; i++) {
		if (i >= n)
			return;
		if ((old ? mntsnap__old_key(s->recs[i - 1].id_old) : s->recs[i - 1].id) >
		    (old ? mntsnap__old_key(s->recs[i].id_old) : s->recs[i].id))
			break;
	}
	b = tmp;
	for (uint32_t w = 1; w < n; w *= 2) {
		for (uint32_t lo = 0; lo < n; lo += 2 * w) {
			uint32_t mid = lo + w < n ? lo + w : n;
			uint32_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			uint32_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi) {
				uint64_t ki = old ? mntsnap__old_key(s->recs[a[i]].id_old)
						  : s->recs[a[i]].id;
				uint64_t kj = old ? mntsnap__old_key(s->recs[a[j]].id_old)
						  : s->recs[a[j]].id;

				b[k++] = kj < ki ? a[j++] : a[i++];
			}
			while (i < mid)
				b[k++] = a[i++];
			while (j < hi)
				b[k++] = a[j++];
		}
		uint32_t *t = a;
		a = b;
		b = t;
		if (w > n / 2)
			break;
	}
	if (a != idx)
		memcpy(idx, a, (size_t)n * sizeof(*idx));
}

static bool sorted_by_old(const struct mntsnap_snapshot *s)
{
	for (uint32_t i = 1; i < s->nrecs; i++)
		if (mntsnap__old_key(s->recs[i - 1].id_old) > mntsnap__old_key(s->recs[i].id_old))
			return false;
	return true;
}

static bool sorted_by_id(const struct mntsnap_snapshot *s)
{
	for (uint32_t i = 1; i < s->nrecs; i++)
		if (s->recs[i - 1].id >= s->recs[i].id)
			return false;
	return true;
}

/* key: an id, or an id_old (then compared by mntsnap__old_key()) */
static long bsearch_key(const struct mntsnap_snapshot *s, const uint32_t *idx,
			uint64_t key, bool old)
{
	uint32_t lo = 0, hi = s->nrecs;

	if (old)
		key = mntsnap__old_key((uint32_t)key);

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		uint32_t i = idx ? idx[mid] : mid;
		uint64_t k = old ? mntsnap__old_key(s->recs[i].id_old) : s->recs[i].id;

		if (k == key)
			return i;
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENOENT;
}

long mntsnap__snapshot_find(const struct mntsnap_snapshot *s, uint64_t id)
{
	if (!s || !s->nrecs || !(s->recs[0].mask & MNTSNAP_F_ID))
		return -ENOENT;
	return bsearch_key(s, s->by_id, id, false);
}

long mntsnap_snapshot_find(const struct mntsnap_snapshot *s, uint64_t id)
{
	return mntsnap__snapshot_find(s, id);
}

long mntsnap__snapshot_find_old(const struct mntsnap_snapshot *s, uint32_t id_old)
{
	if (!s)
		return -ENOENT;
	/* by_old NULL: storage is in old-id order already (see finish) */
	return bsearch_key(s, s->by_old, id_old, true);
}

long mntsnap_snapshot_find_old(const struct mntsnap_snapshot *s, uint32_t id_old)
{
	return mntsnap__snapshot_find_old(s, id_old);
}

static long find_parent(const struct mntsnap_snapshot *s, const struct mntsnap_rec *r,
			uint32_t self)
{
	long p = -ENOENT;

	if (r->mask & MNTSNAP_F_ID) {
		if (r->parent_id == r->id)
			return self;
		p = bsearch_key(s, s->by_id, r->parent_id, false);
	} else if (r->mask & MNTSNAP_F_ID_OLD) {
		if (r->parent_id_old == r->id_old)
			return self;
		p = bsearch_key(s, s->by_old, r->parent_id_old, true);
	}
	return p < 0 ? self : p;
}

/*
 * The root findmnt draws: libmount's mnt_table_get_root_fs() takes the
 * record with the smallest parent id (the first of equals) and walks up
 * its parent links. Old ids where the records have them (what libmount
 * reads), else unique ids. At most n steps: a parent cycle is caught by
 * the tree walk after.
 */
static uint32_t findmnt_root(const struct mntsnap_snapshot *s)
{
	uint32_t n = s->nrecs, best = 0;

	for (uint32_t i = 1; i < n; i++) {
		const struct mntsnap_rec *a = &s->recs[i], *b = &s->recs[best];

		if ((a->mask & b->mask & MNTSNAP_F_ID_OLD)
			    ? mntsnap__old_key(a->parent_id_old) < mntsnap__old_key(b->parent_id_old)
			    : a->parent_id < b->parent_id)
			best = i;
	}
	for (uint32_t step = 0; step < n && s->recs[best].parent != best; step++)
		best = s->recs[best].parent;
	return best;
}

/*
 * Preorder walk with an explicit stack (n entries): mount trees can be
 * deep. Roots: findmnt's first, then the others (a filtered or partial
 * table) in old-id order, like siblings.
 */
static int build_tree_order(struct mntsnap_snapshot *s, uint32_t *stack)
{
	uint32_t n = s->nrecs, k = 0, sp = 0, first = n ? findmnt_root(s) : 0;

	s->nroots = 0;
	for (uint32_t o = 0; o <= n; o++) {
		uint32_t root = !o ? first : s->by_old ? s->by_old[o - 1] : o - 1;

		if (!n || s->recs[root].parent != root || (o && root == first))
			continue;
		s->nroots++;
		s->recs[root].depth = 0;
		stack[sp++] = root;
		while (sp) {
			uint32_t i = stack[--sp], c, nc = 0;

			s->tree[k++] = i;
			/* push children reversed so the first child pops first */
			for (c = s->recs[i].first_child; c != MNTSNAP_NONE; c = s->recs[c].next_sibling)
				nc++;
			sp += nc;
			for (c = s->recs[i].first_child, nc = 1; c != MNTSNAP_NONE;
			     c = s->recs[c].next_sibling, nc++) {
				s->recs[c].depth = s->recs[i].depth + 1;
				stack[sp - nc] = c;
			}
		}
	}
	/* records not reached hang off a parent cycle */
	return k == n ? 0 : -EBADMSG;
}

static void *shrink(void *p, size_t bytes)
{
	void *np = bytes ? realloc(p, bytes) : p;

	return np ? np : p;
}

/* Slack under this stays: the realloc costs more than it gives back
 * (a one-mount lookup is mostly allocator calls already). */
#define SHRINK_MIN 256

int mntsnap__snap_finish(struct mntsnap_snapshot *s)
{
	uint32_t n = s->nrecs, small[16], *scratch = small, *by_id = NULL, *by_old = NULL, *tree;
	/*
	 * Like by_id, by_old only exists when storage is not in old-id order
	 * already (fresh namespaces hand out both ids in the same order):
	 * 4 bytes a mount and an allocation saved.
	 */
	bool need_id = n && (s->recs[0].mask & MNTSNAP_F_ID) && !sorted_by_id(s);
	bool need_old = !sorted_by_old(s);
	int r;

	/*
	 * Every allocation comes before the first change: on -ENOMEM the
	 * snapshot keeps its old indexes, so a caller that rearranged the
	 * records (refresh) can put them back and be exactly as it was.
	 * scratch is the sorts' buffer and the tree walk's stack; one-mount
	 * lookups and small tables need no heap for it.
	 */
	tree = malloc((size_t)n * sizeof(*tree) + 1);
	if (need_id)
		by_id = malloc((size_t)n * sizeof(*by_id));
	if (need_old)
		by_old = malloc((size_t)n * sizeof(*by_old));
	if (n > 16)
		scratch = malloc((size_t)n * sizeof(*scratch));
	if (!tree || (need_id && !by_id) || (need_old && !by_old) || !scratch) {
		free(tree);
		free(by_id);
		free(by_old);
		if (scratch != small)
			free(scratch);
		return -ENOMEM;
	}
	free(s->by_id);
	free(s->by_old);
	free(s->tree);
	mntsnap__lookup_reset(s);
	s->by_id = by_id;
	s->by_old = by_old;
	s->tree = tree;

	if (n && (size_t)(s->recs_cap - n) * sizeof(*s->recs) >= SHRINK_MIN) {
		s->recs = shrink(s->recs, (size_t)n * sizeof(*s->recs));
		s->recs_cap = n;
	}
	/* a kept table is never shrunk: realloc may move it under views */
	if (!s->keep_strings && s->strtab_cap - s->strtab_len >= SHRINK_MIN) {
		s->strtab = shrink(s->strtab, s->strtab_len);
		s->strtab_cap = s->strtab_len;
	}
	if (by_id)
		sort_by_key(s, by_id, false, scratch);
	if (by_old)
		sort_by_key(s, by_old, true, scratch);

	for (uint32_t i = 0; i < n; i++) {
		s->recs[i].first_child = s->recs[i].next_sibling = MNTSNAP_NONE;
		s->recs[i].depth = 0;
	}
	/*
	 * Siblings in findmnt's order: libmount's mnt_table_next_child_fs()
	 * hands out a mount's children by ascending 32-bit mount id (the
	 * order of mounting, with ids the kernel reuses; compared as ints,
	 * which mntsnap__old_key() gives), not in the table's order. A reverse walk in old-id order (by_old, or storage where that
	 * is sorted; stable, so equal ids keep storage order) with
	 * push-front gives that.
	 */
	for (uint32_t k = n, i = 0, prev = MNTSNAP_NONE; k-- > 0; prev = i) {
		struct mntsnap_rec *rec;
		uint32_t p;

		i = by_old ? by_old[k] : k;
		rec = &s->recs[i];

		/* siblings usually sit side by side: reuse the last search */
		if (prev != MNTSNAP_NONE && (rec->mask & MNTSNAP_F_ID) &&
		    (s->recs[prev].mask & MNTSNAP_F_ID) && rec->parent_id != rec->id &&
		    rec->parent_id == s->recs[prev].parent_id && s->recs[prev].parent != prev)
			p = s->recs[prev].parent;
		else
			p = (uint32_t)find_parent(s, rec, i);

		rec->parent = p;
		if (p == i)
			continue;
		rec->next_sibling = s->recs[p].first_child;
		s->recs[p].first_child = i;
	}
	r = build_tree_order(s, scratch);
	if (scratch != small)
		free(scratch);
	return r;
}

/* ---- incremental upkeep ------------------------------------------------ */

/*
 * Past this many removed + added records a finish is cheaper than walking
 * sibling chains and moving tree order once per record.
 */
#define UPDATE_MAX 16

struct update {
	uint32_t nold, ndrop, nadd;
	uint32_t drops[UPDATE_MAX]; /* ascending storage indices */
};

/* Storage index i once the removed records before it are gone. */
static uint32_t renumber(const struct update *u, uint32_t i)
{
	uint32_t d = 0;

	if (i == MNTSNAP_NONE)
		return i;
	while (d < u->ndrop && u->drops[d] < i)
		d++;
	return i - d;
}

static bool is_added_id(const struct mntsnap_snapshot *s, uint32_t from, uint64_t id)
{
	for (uint32_t a = from; a < s->nrecs; a++)
		if (s->recs[a].id == id)
			return true;
	return false;
}

/* Removed mounts take their children along (as an unmount does). */
static bool drops_whole(const struct mntsnap_snapshot *s, const uint8_t *drop,
			const struct update *u)
{
	for (uint32_t d = 0; d < u->ndrop; d++)
		for (uint32_t c = s->recs[u->drops[d]].first_child; c != MNTSNAP_NONE;
		     c = s->recs[c].next_sibling)
			if (!drop[c])
				return false;
	return true;
}

/*
 * Does the incremental path give what a finish would? Added records must
 * sort after every kept one (so storage stays in id order), each with its
 * parent before it, and no kept root may be waiting for an added parent.
 */
static bool update_fits(const struct mntsnap_snapshot *s, uint32_t nold, const uint8_t *drop,
			struct update *u)
{
	uint64_t last = 0;

	u->nold = nold;
	u->ndrop = 0;
	u->nadd = s->nrecs - nold;
	/*
	 * Roots stay as they are: with one root, which root findmnt draws
	 * first never changes (a table of several roots, one added or
	 * removed: a finish orders them).
	 */
	if (!s->tree || s->by_id || !nold || !(s->recs[0].mask & MNTSNAP_F_ID) ||
	    u->nadd > UPDATE_MAX || s->nroots != 1)
		return false;
	for (uint32_t k = 0; k < nold; k++) {
		if (!drop[k])
			continue;
		if (u->ndrop + u->nadd >= UPDATE_MAX || s->recs[k].parent == k)
			return false;
		u->drops[u->ndrop++] = k;
	}
	if (!drops_whole(s, drop, u))
		return false;
	for (uint32_t k = nold; k-- > 0;) {
		if (!drop[k]) {
			last = s->recs[k].id;
			break;
		}
	}
	for (uint32_t a = nold; a < s->nrecs; a++) {
		const struct mntsnap_rec *r = &s->recs[a];
		long p;

		if (!(r->mask & MNTSNAP_F_ID) || r->id <= last)
			return false;
		last = r->id;
		if (r->parent_id != r->id && is_added_id(s, a + 1, r->parent_id))
			return false;
		/* a new root may change which root comes first (findmnt's) */
		p = r->parent_id == r->id ? -ENOENT
					  : bsearch_key(&(struct mntsnap_snapshot){ .recs = s->recs,
										    .nrecs = a },
							NULL, r->parent_id, false);
		if (p < 0 || (p < (long)nold && drop[p]))
			return false;
	}
	for (uint32_t k = 0; u->nadd && k < nold; k++) {
		const struct mntsnap_rec *r = &s->recs[k];

		if (r->parent == k && r->parent_id != r->id && !drop[k] &&
		    is_added_id(s, nold, r->parent_id))
			return false;
	}
	return true;
}

/* Take removed record k out of its parent's child list. */
static void unlink_child(struct mntsnap_snapshot *s, uint32_t k)
{
	uint32_t p = s->recs[k].parent, *link = &s->recs[p].first_child;

	while (*link != MNTSNAP_NONE && *link != k)
		link = &s->recs[*link].next_sibling;
	if (*link == k)
		*link = s->recs[k].next_sibling;
}

/* Drop the removed entries of an index array of n, renumbering the rest. */
static uint32_t squeeze(const struct update *u, const uint8_t *drop, uint32_t *idx, uint32_t n)
{
	uint32_t j = 0;

	for (uint32_t t = 0; t < n; t++)
		if (idx[t] >= u->nold || !drop[idx[t]])
			idx[j++] = renumber(u, idx[t]);
	return j;
}

static void remove_dropped(struct mntsnap_snapshot *s, const uint8_t *drop,
			   const struct update *u)
{
	uint32_t j = u->drops[0];

	for (uint32_t d = 0; d < u->ndrop; d++) {
		uint32_t k = u->drops[d];

		if (s->recs[k].parent != k && !drop[s->recs[k].parent])
			unlink_child(s, k);
	}
	for (uint32_t k = j; k < s->nrecs; k++)
		if (k >= u->nold || !drop[k])
			s->recs[j++] = s->recs[k];
	for (uint32_t k = 0; k < u->nold - u->ndrop; k++) {
		struct mntsnap_rec *r = &s->recs[k];

		r->parent = renumber(u, r->parent);
		r->first_child = renumber(u, r->first_child);
		r->next_sibling = renumber(u, r->next_sibling);
	}
	squeeze(u, drop, s->tree, u->nold);
	if (s->by_old)
		squeeze(u, drop, s->by_old, u->nold);
	s->nrecs = j;
}

static uint32_t last_child(const struct mntsnap_snapshot *s, uint32_t p)
{
	uint32_t c = s->recs[p].first_child;

	while (c != MNTSNAP_NONE && s->recs[c].next_sibling != MNTSNAP_NONE)
		c = s->recs[c].next_sibling;
	return c;
}

static uint32_t tree_pos(const struct mntsnap_snapshot *s, uint32_t n, uint32_t i)
{
	uint32_t t = 0;

	while (t < n && s->tree[t] != i)
		t++;
	return t;
}

/*
 * Link added record i (every record before it linked and in tree order,
 * its parent among them: update_fits) among its parent's children in
 * old-id order - after equal ids, as i sorts last in storage - and put it
 * right after its previous sibling's subtree in tree order (right after
 * the parent when it comes first).
 */
static void link_added(struct mntsnap_snapshot *s, uint32_t i)
{
	struct mntsnap_rec *r = &s->recs[i];
	uint32_t p, prev = MNTSNAP_NONE, c, end;

	p = (uint32_t)bsearch_key(&(struct mntsnap_snapshot){ .recs = s->recs, .nrecs = i }, NULL,
				  r->parent_id, false);
	r->parent = p;
	r->first_child = MNTSNAP_NONE;
	r->depth = s->recs[p].depth + 1;
	for (c = s->recs[p].first_child;
	     c != MNTSNAP_NONE && mntsnap__old_key(s->recs[c].id_old) <= mntsnap__old_key(r->id_old);
	     c = s->recs[c].next_sibling)
		prev = c;
	r->next_sibling = c;
	if (prev == MNTSNAP_NONE) {
		s->recs[p].first_child = i;
		end = tree_pos(s, i, p) + 1;
	} else {
		uint32_t l = prev;

		s->recs[prev].next_sibling = i;
		while (s->recs[l].first_child != MNTSNAP_NONE)
			l = last_child(s, l);
		end = tree_pos(s, i, l) + 1;
	}
	memmove(s->tree + end + 1, s->tree + end, (size_t)(i - end) * sizeof(*s->tree));
	s->tree[end] = i;
}

/* Insert record i into by_old[0, i), after equal keys (a stable sort's place). */
static void by_old_insert(struct mntsnap_snapshot *s, uint32_t i)
{
	uint32_t lo = 0, hi = i, key = mntsnap__old_key(s->recs[i].id_old);

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (mntsnap__old_key(s->recs[s->by_old[mid]].id_old) <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(s->by_old + lo + 1, s->by_old + lo, (size_t)(i - lo) * sizeof(*s->by_old));
	s->by_old[lo] = i;
}

/* Does storage stay in old-id order with the added records (from first)? */
static bool added_keep_old_order(const struct mntsnap_snapshot *s, uint32_t first)
{
	for (uint32_t i = first ? first : 1; i < s->nrecs; i++)
		if (mntsnap__old_key(s->recs[i - 1].id_old) > mntsnap__old_key(s->recs[i].id_old))
			return false;
	return true;
}

static bool is_identity(const uint32_t *idx, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (idx[i] != i)
			return false;
	return true;
}

/* by_old as a finish would leave it: NULL exactly when storage is sorted. */
static void update_by_old(struct mntsnap_snapshot *s, uint32_t first, uint32_t *spare)
{
	if (!s->by_old && added_keep_old_order(s, first)) {
		free(spare);
		return;
	}
	if (!s->by_old) { /* storage was in old-id order up to first */
		s->by_old = spare;
		for (uint32_t i = 0; i < first; i++)
			s->by_old[i] = i;
	}
	for (uint32_t i = first; i < s->nrecs; i++)
		by_old_insert(s, i);
	if (is_identity(s->by_old, s->nrecs)) {
		free(s->by_old);
		s->by_old = NULL;
	}
}

int mntsnap__snap_update(struct mntsnap_snapshot *s, uint32_t nold, const uint8_t *drop)
{
	uint32_t *tree, *spare = NULL, first;
	struct update u;

	if (!update_fits(s, nold, drop, &u))
		return 0;
	/* every allocation first: past here nothing can fail */
	tree = realloc(s->tree, (size_t)s->nrecs * sizeof(*tree) + 1);
	if (!tree)
		return -ENOMEM;
	s->tree = tree;
	if (s->by_old) {
		uint32_t *b = realloc(s->by_old, (size_t)s->nrecs * sizeof(*b) + 1);

		if (!b)
			return -ENOMEM;
		s->by_old = b;
	} else if (u.nadd) {
		spare = malloc((size_t)s->nrecs * sizeof(*spare) + 1);
		if (!spare)
			return -ENOMEM;
	}
	mntsnap__lookup_reset(s);
	if (u.ndrop)
		remove_dropped(s, drop, &u);
	first = nold - u.ndrop;
	for (uint32_t i = first; i < s->nrecs; i++)
		link_added(s, i);
	update_by_old(s, first, spare);
	return 1;
}

/* Is path a equal to p or below it? */
static bool path_under(const char *a, const char *p)
{
	size_t n = strlen(p);

	if (!strcmp(p, "/"))
		return a[0] == '/';
	return !strncmp(a, p, n) && (a[n] == '\0' || a[n] == '/');
}

/*
 * Is record i reachable from the root directory root_path on mount R?
 * show_mountinfo() prints a mount only if seq_path_root() of its root
 * meets the reader's root walking up: the walk leaves a mount through its
 * mount point, so it passes R's directory root_path exactly when the chain
 * of parents reaches R through a child C mounted at or below root_path
 * (or i is R and root_path is R's own root).
 */
static bool reachable(const struct mntsnap_snapshot *s, uint32_t i, uint32_t R,
		      const char *root_path)
{
	uint32_t c = i;

	if (i == R)
		return !strcmp(s->strtab + s->recs[R].mount_point, root_path);
	while (s->recs[c].parent != R) {
		if (s->recs[c].parent == c)
			return false;
		c = s->recs[c].parent;
	}
	return path_under(s->strtab + s->recs[c].mount_point, root_path);
}

/* Mount point of record i relative to root_path (under it), in strtab. */
static int relative_mp(struct mntsnap_snapshot *s, uint32_t i, const char *root_path)
{
	const char *mp = s->strtab + s->recs[i].mount_point;
	size_t plen = strlen(root_path);
	char *rel;
	long off;

	if (!strcmp(root_path, "/"))
		return 0;
	/* "/" for the root itself; copied first, as adding may move strtab */
	rel = strdup(mp[plen] ? mp + plen : "/");
	off = rel ? mntsnap__snap_str(s, rel, strlen(rel)) : -ENOMEM;
	free(rel);
	if (off < 0)
		return (int)off;
	s->recs[i].mount_point = (uint32_t)off;
	return 0;
}

int mntsnap__snap_relative_to(struct mntsnap_snapshot *s, const char *root_path)
{
	mntsnap__lookup_reset(s);
	for (uint32_t i = 0; i < s->nrecs; i++) {
		int r;

		if (!(s->recs[i].mask & MNTSNAP_F_MOUNT_POINT) ||
		    !path_under(s->strtab + s->recs[i].mount_point, root_path))
			continue;
		r = relative_mp(s, i, root_path);
		if (r)
			return r;
	}
	return 0;
}

void mntsnap__snap_drop_fields(struct mntsnap_snapshot *s, uint32_t fields)
{
	for (uint32_t i = 0; fields && i < s->nrecs; i++)
		s->recs[i].mask &= ~fields;
	s->mask &= ~fields;
}

int mntsnap__snap_reroot(struct mntsnap_snapshot *s, uint64_t root_id, const char *root_path)
{
	long R = mntsnap__snapshot_find(s, root_id);
	uint32_t j = 0;
	bool *keep;
	int r = 0;

	if (R < 0 || !(s->recs[R].mask & MNTSNAP_F_MOUNT_POINT) || root_path[0] != '/')
		return -ENOENT;
	if (!strcmp(root_path, "/") && s->recs[R].parent == (uint32_t)R)
		return 0; /* the namespace's root: everything is reachable */
	keep = calloc(s->nrecs ? s->nrecs : 1, sizeof(*keep));
	if (!keep)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->nrecs; i++)
		keep[i] = (s->recs[i].mask & MNTSNAP_F_MOUNT_POINT) &&
			  reachable(s, i, (uint32_t)R, root_path) &&
			  path_under(s->strtab + s->recs[i].mount_point, root_path);
	for (uint32_t i = 0; i < s->nrecs && !r; i++) {
		if (!keep[i])
			continue;
		r = relative_mp(s, i, root_path);
		s->recs[j++] = s->recs[i];
	}
	free(keep);
	if (r)
		return r;
	s->nrecs = j;
	return mntsnap__snap_finish(s);
}

int mntsnap__snap_clear(struct mntsnap_snapshot *s)
{
	mntsnap__lookup_reset(s);
	s->nrecs = 0;
	return mntsnap__snap_finish(s);
}

/* ---- public accessors ------------------------------------------------- */

size_t mntsnap__snapshot_count(const struct mntsnap_snapshot *s)
{
	return s ? s->nrecs : 0;
}

size_t mntsnap_snapshot_count(const struct mntsnap_snapshot *s)
{
	return mntsnap__snapshot_count(s);
}

/*
 * A view's fields, generated from the table (straight code: views are
 * read for every record by every renderer). Strings point into the
 * string table, "" (offset 0) when absent; a record without id-map
 * storage has empty lists.
 */
#define V_MOUNT_U32(N, M, NU) ret->M = r->M;
#define V_MOUNT_STR(N, M, NU) ret->M = t + r->M;
#define V_MOUNT_SPECIAL(N, M, NU)
#define V_SB_U32(N, M, NU) ret->M = sb->M;
#define V_SB_U64(N, M, NU) ret->M = sb->M;
#define V_SB_PAIR(N, M, NU) ret->M = sb->M, ret->NU = sb->NU;
#define V_SB_STR(N, M, NU) ret->M = t + sb->M;
#define V_SB_LIST(N, M, NU) ret->M = t + sb->M, ret->NU = sb->NU;
#define V_IDMAP_LIST(N, M, NU) ret->M = im ? t + im->M : t, ret->NU = im ? im->NU : 0;
#define V_SNAP_U64(N, M, NU) ret->M = r->mask & MNTSNAP_F_##N ? s->M : 0;
#define V_ROW(N, L, K, M, NU, ...) V_##L##_##K(N, M, NU)

int mntsnap__snapshot_get(const struct mntsnap_snapshot *s, size_t i,
			 struct mntsnap_mount *ret)
{
	const struct mntsnap_idmap *im;
	const struct mntsnap_rec *r;
	const struct mntsnap_sb *sb;
	const char *t;

	if (!s || !ret)
		return -EINVAL;
	if (i >= s->nrecs)
		return -ERANGE;
	r = &s->recs[i];
	sb = &s->sbs[r->sb];
	t = s->strtab;
	memset(ret, 0, sizeof(*ret));
	ret->mask = r->mask;
	ret->index = (uint32_t)i;
	ret->parent_index = r->parent;
	ret->depth = r->depth;
	ret->id = r->id;
	ret->parent_id = r->parent_id;
	ret->id_old = r->id_old;
	ret->parent_id_old = r->parent_id_old;
	ret->propagation = r->propagation;
	ret->peer_group = r->peer_group;
	ret->master = r->master;
	im = r->idmap != MNTSNAP_NONE ? &s->idmaps[r->idmap] : NULL;
	ret->opt_fields = im ? t + im->opt_fields : t;
	ret->mnt_opts_text = im ? t + im->mnt_opts : t;
	ret->sb_opts_text = im ? t + im->sb_opts : t;
	MNTSNAP_FIELDS(V_ROW)
	return 0;
}

int mntsnap_snapshot_get(const struct mntsnap_snapshot *s, size_t i,
			 struct mntsnap_mount *ret)
{
	return mntsnap__snapshot_get(s, i, ret);
}

long mntsnap__snapshot_tree_index(const struct mntsnap_snapshot *s, size_t i)
{
	if (!s || i >= s->nrecs || !s->tree)
		return -ERANGE;
	return s->tree[i];
}

long mntsnap_snapshot_tree_index(const struct mntsnap_snapshot *s, size_t i)
{
	return mntsnap__snapshot_tree_index(s, i);
}

long mntsnap_snapshot_first_child(const struct mntsnap_snapshot *s, size_t i)
{
	if (!s || i >= s->nrecs || s->recs[i].first_child == MNTSNAP_NONE)
		return -ENOENT;
	return s->recs[i].first_child;
}

long mntsnap__snapshot_next_sibling(const struct mntsnap_snapshot *s, size_t i)
{
	if (!s || i >= s->nrecs || s->recs[i].next_sibling == MNTSNAP_NONE)
		return -ENOENT;
	return s->recs[i].next_sibling;
}

long mntsnap_snapshot_next_sibling(const struct mntsnap_snapshot *s, size_t i)
{
	return mntsnap__snapshot_next_sibling(s, i);
}

int mntsnap_snapshot_backend(const struct mntsnap_snapshot *s)
{
	return s ? s->backend : -EINVAL;
}

uint32_t mntsnap_snapshot_mask(const struct mntsnap_snapshot *s)
{
	return s ? s->mask : 0;
}

uint64_t mntsnap_snapshot_ns_id(const struct mntsnap_snapshot *s)
{
	return s ? s->ns_id : 0;
}

uint64_t mntsnap_snapshot_time(const struct mntsnap_snapshot *s)
{
	return s ? s->time_ns : 0;
}

const char *mntsnap_snapshot_kernel_release(const struct mntsnap_snapshot *s)
{
	return s ? s->kernel_release : "";
}

uint64_t mntsnap_snapshot_kernel_supported_mask(const struct mntsnap_snapshot *s)
{
	return s ? s->kernel_supported_mask : 0;
}

size_t mntsnap_snapshot_memory(const struct mntsnap_snapshot *s)
{
	size_t n;

	if (!s)
		return 0;
	n = sizeof(*s) + (size_t)s->recs_cap * sizeof(*s->recs) +
	    (size_t)s->sbs_cap * sizeof(*s->sbs) +
	    (size_t)s->sb_hash_cap * sizeof(*s->sb_hash) +
	    (size_t)s->idmaps_cap * sizeof(*s->idmaps) + s->strtab_cap;
	for (const struct mntsnap_old_strtab *o = s->old_strtabs; o; o = o->next)
		n += sizeof(*o) + o->cap;
	if (s->tree)
		n += (size_t)s->nrecs * sizeof(*s->tree);
	if (s->by_id)
		n += (size_t)s->nrecs * sizeof(*s->by_id);
	if (s->by_old)
		n += (size_t)s->nrecs * sizeof(*s->by_old);
	if (__atomic_load_n(&s->by_mp, __ATOMIC_ACQUIRE))
		n += (size_t)s->nrecs * sizeof(*s->by_mp);
	if (__atomic_load_n(&s->by_src, __ATOMIC_ACQUIRE))
		n += (size_t)s->nrecs * sizeof(*s->by_src);
	return n;
}

const char *mntsnap__backend_name(int backend)
{
	switch (backend) {
	case MNTSNAP_BACKEND_AUTO:
		return "auto";
	case MNTSNAP_BACKEND_STATMOUNT:
		return "statmount";
	case MNTSNAP_BACKEND_MOUNTINFO:
		return "mountinfo";
	case MNTSNAP_BACKEND_FILE:
		return "file";
	default:
		return "unknown";
	}
}

const char *mntsnap_backend_name(int backend)
{
	return mntsnap__backend_name(backend);
}

int mntsnap_snapshot_filter(const struct mntsnap_snapshot *s, mntsnap_filter_fn keep,
			    void *data, struct mntsnap_snapshot **ret_snap)
{
	struct mntsnap_snapshot *n;
	struct mntsnap_mount m;
	long r = 0;

	if (!s || !keep || !ret_snap)
		return -EINVAL;
	n = mntsnap__snap_new(s->backend, s->mask);
	if (!n)
		return -ENOMEM;
	n->ns_id = s->ns_id;
	n->time_ns = s->time_ns;
	n->kernel_supported_mask = s->kernel_supported_mask;
	n->consistent = s->consistent;
	n->attempts = s->attempts;
	memcpy(n->kernel_release, s->kernel_release, sizeof(n->kernel_release));
	for (uint32_t i = 0; i < s->nrecs && r >= 0; i++) {
		mntsnap__snapshot_get(s, i, &m);
		if (keep(&m, data))
			r = mntsnap__snap_add(n, &m);
	}
	if (r >= 0)
		r = mntsnap__snap_finish(n);
	if (r < 0) {
		mntsnap__snapshot_free(n);
		return (int)r;
	}
	*ret_snap = n;
	return 0;
}

/* ---- capture time and kernel ------------------------------------------------ */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * uname() is a syscall, as costly as the statmount of a one-mount lookup
 * (mntsnap_stat_id), and the running kernel's release cannot change while
 * the process lives: read it once per process. Written once under
 * pthread_once, read-only afterwards (like mntsnap_have_statmount()'s cache).
 */
static struct utsname stamp_uts;
static bool stamp_uts_ok;
static pthread_once_t stamp_once = PTHREAD_ONCE_INIT;

static void stamp_uts_init(void)
{
	stamp_uts_ok = !uname(&stamp_uts);
}

void mntsnap__snap_stamp(struct mntsnap_snapshot *s)
{
	s->time_ns = now_ns();
	/* memcpy of the whole field: strncpy trips -Wstringop-truncation */
	_Static_assert(sizeof(s->kernel_release) == sizeof(stamp_uts.release),
		       "utsname release size");
	pthread_once(&stamp_once, stamp_uts_init);
	if (stamp_uts_ok) {
		memcpy(s->kernel_release, stamp_uts.release, sizeof(s->kernel_release));
		s->kernel_release[sizeof(s->kernel_release) - 1] = '\0';
	}
}

void mntsnap_snapshot_freep(struct mntsnap_snapshot **p)
{
	if (p) {
		mntsnap_snapshot_free(*p);
		*p = NULL;
	}
}
