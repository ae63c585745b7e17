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

#include "hash.h"
#include "snapshot.h"

#define SB_FIELDS                                                              \
	(MNTSNAP_F_DEV | MNTSNAP_F_SB_MAGIC | MNTSNAP_F_SB_FLAGS |              \
	 MNTSNAP_F_FS_TYPE | MNTSNAP_F_FS_SUBTYPE | MNTSNAP_F_SOURCE |          \
	 MNTSNAP_F_OPTS | MNTSNAP_F_OPT_ARRAY | MNTSNAP_F_OPT_SEC_ARRAY)

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

size_t mntsnap__strlist_len(const char *list, uint32_t n)
{
	size_t len = 0;

	while (n--) {
		size_t l = strlen(list + len);

		len += l + 1;
	}
	return len;
}

static const char *str_or_empty(const char *s, uint32_t mask, uint32_t bit)
{
	return (mask & bit) && s ? s : "";
}

/* Lists hash and compare including their inner NULs. */
static size_t list_len(const char *s, uint32_t n, uint32_t mask, uint32_t bit)
{
	return (mask & bit) && s ? mntsnap__strlist_len(s, n) : 0;
}

/*
 * Only the numeric fields: the device number already tells superblocks
 * apart (strings differ only for the same device when it was remounted
 * between two statmount calls, and sb_matches() compares everything
 * anyway), and hashing every option string of every record cost more than
 * the rest of adding it.
 */
static uint32_t hash_sb(const struct mntsnap_mount *m, uint32_t mask)
{
	uint32_t h = MNTSNAP_HASH_INIT;

	h = mntsnap_hash_bytes(h, &mask, sizeof(mask));
	h = mntsnap_hash_bytes(h, &m->dev_major, sizeof(m->dev_major));
	h = mntsnap_hash_bytes(h, &m->dev_minor, sizeof(m->dev_minor));
	h = mntsnap_hash_bytes(h, &m->sb_magic, sizeof(m->sb_magic));
	h = mntsnap_hash_bytes(h, &m->sb_flags, sizeof(m->sb_flags));
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

static bool sb_equal(const struct mntsnap_snapshot *s, const struct mntsnap_sb *sb,
		     const struct mntsnap_mount *m, uint32_t mask)
{
	uint32_t on = mask & MNTSNAP_F_OPT_ARRAY ? m->opt_num : 0;
	uint32_t sn = mask & MNTSNAP_F_OPT_SEC_ARRAY ? m->opt_sec_num : 0;

	return sb->mask == mask && sb->dev_major == m->dev_major &&
	       sb->dev_minor == m->dev_minor && sb->sb_magic == m->sb_magic &&
	       sb->sb_flags == m->sb_flags &&
	       str_eq(s, sb->fs_type, str_or_empty(m->fs_type, mask, MNTSNAP_F_FS_TYPE)) &&
	       str_eq(s, sb->fs_subtype,
		      str_or_empty(m->fs_subtype, mask, MNTSNAP_F_FS_SUBTYPE)) &&
	       str_eq(s, sb->source, str_or_empty(m->source, mask, MNTSNAP_F_SOURCE)) &&
	       str_eq(s, sb->options, str_or_empty(m->options, mask, MNTSNAP_F_OPTS)) &&
	       list_eq(s, sb->opt_array, sb->opt_num, m->opt_array, on,
		       list_len(m->opt_array, on, mask, MNTSNAP_F_OPT_ARRAY)) &&
	       list_eq(s, sb->opt_sec_array, sb->opt_sec_num, m->opt_sec_array, sn,
		       list_len(m->opt_sec_array, sn, mask, MNTSNAP_F_OPT_SEC_ARRAY));
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
	long offs[6];
	uint32_t slot;
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

	offs[0] = add_str(s, m->fs_type, mask, MNTSNAP_F_FS_TYPE);
	offs[1] = add_str(s, m->fs_subtype, mask, MNTSNAP_F_FS_SUBTYPE);
	offs[2] = add_str(s, m->source, mask, MNTSNAP_F_SOURCE);
	offs[3] = add_str(s, m->options, mask, MNTSNAP_F_OPTS);
	offs[4] = add_list(s, m->opt_array, m->opt_num, mask, MNTSNAP_F_OPT_ARRAY);
	offs[5] = add_list(s, m->opt_sec_array, m->opt_sec_num, mask, MNTSNAP_F_OPT_SEC_ARRAY);
	for (int i = 0; i < 6; i++)
		if (offs[i] < 0)
			return offs[i];
	r = s->sbs_cap ? grow((void **)&s->sbs, &s->sbs_cap, s->nsbs + 1, sizeof(*s->sbs)) :
			 reserve_exact((void **)&s->sbs, &s->sbs_cap, 1, sizeof(*s->sbs));
	if (r)
		return r;
	sb.sb_magic = m->sb_magic;
	sb.dev_major = m->dev_major;
	sb.dev_minor = m->dev_minor;
	sb.sb_flags = m->sb_flags;
	sb.fs_type = (uint32_t)offs[0];
	sb.fs_subtype = (uint32_t)offs[1];
	sb.source = (uint32_t)offs[2];
	sb.options = (uint32_t)offs[3];
	sb.opt_array = (uint32_t)offs[4];
	sb.opt_sec_array = (uint32_t)offs[5];
	sb.opt_num = mask & MNTSNAP_F_OPT_ARRAY ? m->opt_num : 0;
	sb.opt_sec_num = mask & MNTSNAP_F_OPT_SEC_ARRAY ? m->opt_sec_num : 0;
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
	long u, g, o = 0;
	int r;

	if (!(m->mask & (MNTSNAP_F_UIDMAP | MNTSNAP_F_GIDMAP)) && !of)
		return MNTSNAP_NONE;
	u = add_list(s, m->uidmap, m->uidmap_num, m->mask, MNTSNAP_F_UIDMAP);
	g = add_list(s, m->gidmap, m->gidmap_num, m->mask, MNTSNAP_F_GIDMAP);
	if (of)
		o = mntsnap__snap_str(s, m->opt_fields, strlen(m->opt_fields));
	if (u < 0)
		return u;
	if (g < 0)
		return g;
	if (o < 0)
		return o;
	r = grow((void **)&s->idmaps, &s->idmaps_cap, s->nidmaps + 1, sizeof(*s->idmaps));
	if (r)
		return r;
	im.uidmap = (uint32_t)u;
	im.gidmap = (uint32_t)g;
	im.uidmap_num = m->mask & MNTSNAP_F_UIDMAP ? m->uidmap_num : 0;
	im.gidmap_num = m->mask & MNTSNAP_F_GIDMAP ? m->gidmap_num : 0;
	im.opt_fields = (uint32_t)o;
	s->idmaps[s->nidmaps] = im;
	return s->nidmaps++;
}

long mntsnap__snap_add(struct mntsnap_snapshot *s, const struct mntsnap_mount *m)
{
	struct mntsnap_rec *r;
	long sb, root, mp, im;
	int err;

	if (s->nrecs >= UINT32_MAX - 1)
		return -EOVERFLOW;
	err = grow((void **)&s->recs, &s->recs_cap, s->nrecs + 1, sizeof(*s->recs));
	if (err)
		return err;
	sb = intern_sb(s, m);
	if (sb < 0)
		return sb;
	root = add_str(s, m->root, m->mask, MNTSNAP_F_ROOT);
	if (root < 0)
		return root;
	mp = add_str(s, m->mount_point, m->mask, MNTSNAP_F_MOUNT_POINT);
	if (mp < 0)
		return mp;
	im = add_idmap(s, m);
	if (im < 0)
		return im;

	r = &s->recs[s->nrecs];
	memset(r, 0, sizeof(*r));
	r->mask = m->mask & MNTSNAP_F_ALL;
	r->id = m->id;
	r->parent_id = m->parent_id;
	r->id_old = m->id_old;
	r->parent_id_old = m->parent_id_old;
	r->attr = m->attr;
	r->propagation = m->propagation;
	r->peer_group = m->peer_group;
	r->master = m->master;
	r->propagate_from = m->propagate_from;
	r->sb = (uint32_t)sb;
	r->root = (uint32_t)root;
	r->mount_point = (uint32_t)mp;
	r->idmap = (uint32_t)im;
	r->parent = s->nrecs;
	r->first_child = r->next_sibling = MNTSNAP_NONE;
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
		if ((old ? s->recs[i - 1].id_old : s->recs[i - 1].id) >
		    (old ? s->recs[i].id_old : s->recs[i].id))
			break;
	}
	b = tmp;
	for (uint32_t w = 1; w < n; w *= 2) {
		for (uint32_t lo = 0; lo < n; lo += 2 * w) {
			uint32_t mid = lo + w < n ? lo + w : n;
			uint32_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			uint32_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi) {
				uint64_t ki = old ? s->recs[a[i]].id_old : s->recs[a[i]].id;
				uint64_t kj = old ? s->recs[a[j]].id_old : s->recs[a[j]].id;

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
		if (s->recs[i - 1].id_old > s->recs[i].id_old)
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

static long bsearch_key(const struct mntsnap_snapshot *s, const uint32_t *idx,
			uint64_t key, bool old)
{
	uint32_t lo = 0, hi = s->nrecs;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		uint32_t i = idx ? idx[mid] : mid;
		uint64_t k = old ? s->recs[i].id_old : s->recs[i].id;

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

/* Preorder walk with an explicit stack (n entries): mount trees can be deep. */
static int build_tree_order(struct mntsnap_snapshot *s, uint32_t *stack)
{
	uint32_t n = s->nrecs, k = 0, sp = 0;

	for (uint32_t root = 0; root < n; root++) {
		if (s->recs[root].parent != root)
			continue;
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
	/* reverse walk + push-front keeps siblings in storage order */
	for (uint32_t i = n, prev = MNTSNAP_NONE; i-- > 0; prev = i) {
		struct mntsnap_rec *rec = &s->recs[i];
		uint32_t p;

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
	if (!s->tree || s->by_id || !nold || !(s->recs[0].mask & MNTSNAP_F_ID) ||
	    u->nadd > UPDATE_MAX)
		return false;
	for (uint32_t k = 0; k < nold; k++) {
		if (!drop[k])
			continue;
		if (u->ndrop + u->nadd >= UPDATE_MAX)
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

		if (!(r->mask & MNTSNAP_F_ID) || r->id <= last)
			return false;
		last = r->id;
		if (r->parent_id != r->id && is_added_id(s, a + 1, r->parent_id))
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
 * Link added record i (every record before it linked and in tree order)
 * as its parent's last child - siblings are in storage order and i sorts
 * last - and put it right after the parent's subtree in tree order.
 */
static void link_added(struct mntsnap_snapshot *s, uint32_t i)
{
	struct mntsnap_rec *r = &s->recs[i];
	uint32_t p = i, last, end;
	long f;

	if (r->parent_id != r->id) {
		f = bsearch_key(&(struct mntsnap_snapshot){ .recs = s->recs, .nrecs = i }, NULL,
				r->parent_id, false);
		if (f >= 0)
			p = (uint32_t)f;
	}
	r->parent = p;
	r->first_child = r->next_sibling = MNTSNAP_NONE;
	r->depth = p == i ? 0 : s->recs[p].depth + 1;
	if (p == i) { /* a root: its tree goes after every earlier root's */
		s->tree[i] = i;
		return;
	}
	last = last_child(s, p);
	if (last == MNTSNAP_NONE) {
		end = tree_pos(s, i, p) + 1;
		s->recs[p].first_child = i;
	} else {
		uint32_t l = last;

		while (s->recs[l].first_child != MNTSNAP_NONE)
			l = last_child(s, l);
		end = tree_pos(s, i, l) + 1;
		s->recs[last].next_sibling = i;
	}
	memmove(s->tree + end + 1, s->tree + end, (size_t)(i - end) * sizeof(*s->tree));
	s->tree[end] = i;
}

/* Insert record i into by_old[0, i), after equal keys (a stable sort's place). */
static void by_old_insert(struct mntsnap_snapshot *s, uint32_t i)
{
	uint32_t lo = 0, hi = i, key = s->recs[i].id_old;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->recs[s->by_old[mid]].id_old <= key)
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
		if (s->recs[i - 1].id_old > s->recs[i].id_old)
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

/* ---- public accessors ------------------------------------------------- */

size_t mntsnap__snapshot_count(const struct mntsnap_snapshot *s)
{
	return s ? s->nrecs : 0;
}

size_t mntsnap_snapshot_count(const struct mntsnap_snapshot *s)
{
	return mntsnap__snapshot_count(s);
}

int mntsnap__snapshot_get(const struct mntsnap_snapshot *s, size_t i,
			 struct mntsnap_mount *ret)
{
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
	ret->dev_major = sb->dev_major;
	ret->dev_minor = sb->dev_minor;
	ret->sb_magic = sb->sb_magic;
	ret->sb_flags = sb->sb_flags;
	ret->attr = r->attr;
	ret->propagation = r->propagation;
	ret->peer_group = r->peer_group;
	ret->master = r->master;
	ret->propagate_from = r->propagate_from;
	ret->ns_id = r->mask & MNTSNAP_F_NS_ID ? s->ns_id : 0;
	ret->root = t + r->root;
	ret->mount_point = t + r->mount_point;
	ret->fs_type = t + sb->fs_type;
	ret->fs_subtype = t + sb->fs_subtype;
	ret->source = t + sb->source;
	ret->options = t + sb->options;
	ret->opt_array = t + sb->opt_array;
	ret->opt_num = sb->opt_num;
	ret->opt_sec_array = t + sb->opt_sec_array;
	ret->opt_sec_num = sb->opt_sec_num;
	ret->uidmap = ret->gidmap = ret->opt_fields = t;
	if (r->idmap != MNTSNAP_NONE) {
		const struct mntsnap_idmap *im = &s->idmaps[r->idmap];

		ret->opt_fields = t + im->opt_fields;
		ret->uidmap = t + im->uidmap;
		ret->uidmap_num = im->uidmap_num;
		ret->gidmap = t + im->gidmap;
		ret->gidmap_num = im->gidmap_num;
	}
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
