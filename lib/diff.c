// SPDX-License-Identifier: MIT
/*
 * mntsnap__diff(): what was added, removed and changed between two
 * snapshots.
 *
 * Matching. With 64-bit unique ids on both sides (MNTSNAP_F_ID) a mount is
 * the same mount exactly when its id is: ids are never reused, so a mount
 * that was unmounted and mounted again is "removed + added", and a moved
 * mount is "changed: mount point, parent". Without unique ids (mountinfo
 * backend; 32-bit ids are recycled) mounts are matched by mount point +
 * root + device; a repeated key (stacked binds of one directory) is paired
 * in storage order. The key used is stated in the result.
 *
 * MNTSNAP_DIFF_IGNORE_IDS compares two tables that were built separately
 * (a restore and its original): ids and device numbers are ignored (the
 * key drops the device), and peer-group numbers are compared by structure
 * (old group g must map to one new group everywhere, and back).
 *
 * Comparing a matched pair: every field both records hold (both masks)
 * is compared, and an empty value is a value ("" -> "size=1024k", no id
 * map -> one): the sources set a string's bit whenever they know its
 * value, empty or not, so a field is skipped only when one side was not
 * asked for it or could not know it. The rule per field is in mntsnap.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "fields.h"
#include "hash.h"
#include "opts.h"
#include "snapshot.h"

/* u32 -> u32 map, open addressing; key 0 is never stored (0 = no group). */
struct u32map {
	uint32_t *k, *v;
	uint32_t cap, n;
};

static uint32_t *map_slot(struct u32map *m, uint32_t key)
{
	uint32_t h = mntsnap_hash_u32(key) & (m->cap - 1);

	while (m->k[h] && m->k[h] != key)
		h = (h + 1) & (m->cap - 1);
	return &m->k[h];
}

static int map_put(struct u32map *m, uint32_t key, uint32_t val)
{
	uint32_t *slot;

	if ((m->n + 1) * 2 > m->cap) {
		struct u32map nm = { .cap = m->cap ? m->cap * 2 : 64 };

		nm.k = calloc(nm.cap, sizeof(*nm.k));
		nm.v = calloc(nm.cap, sizeof(*nm.v));
		if (!nm.k || !nm.v) {
			free(nm.k);
			free(nm.v);
			return -ENOMEM;
		}
		for (uint32_t i = 0; i < m->cap; i++) {
			if (!m->k[i])
				continue;
			slot = map_slot(&nm, m->k[i]);
			*slot = m->k[i];
			nm.v[slot - nm.k] = m->v[i];
		}
		nm.n = m->n;
		free(m->k);
		free(m->v);
		*m = nm;
	}
	slot = map_slot(m, key);
	if (!*slot)
		m->n++;
	*slot = key;
	m->v[slot - m->k] = val;
	return 0;
}

static uint32_t map_get(struct u32map *m, uint32_t key)
{
	uint32_t *slot;

	if (!m->cap)
		return 0;
	slot = map_slot(m, key);
	return *slot ? m->v[slot - m->k] : 0;
}

/* Old and new group numbers must correspond one to one. */
struct groups {
	struct u32map fwd, back;
	int err;
};

static bool group_same(struct groups *g, uint32_t a, uint32_t b)
{
	uint32_t fa, bb;

	if (!a || !b)
		return a == b;
	fa = map_get(&g->fwd, a);
	bb = map_get(&g->back, b);
	if (!fa && !bb) {
		if (map_put(&g->fwd, a, b) || map_put(&g->back, b, a))
			g->err = -ENOMEM;
		return true;
	}
	return fa == b && bb == a;
}

/* ---- keys ------------------------------------------------------------------ */

/* The mount point with the caller's prefix taken off ("/" if nothing is left). */
static const char *strip(const char *mp, const char *prefix)
{
	size_t n;

	if (!prefix || !*prefix)
		return mp;
	n = strlen(prefix);
	while (n > 1 && prefix[n - 1] == '/')
		n--;
	if (strncmp(mp, prefix, n) || (mp[n] && mp[n] != '/'))
		return mp;
	return mp[n] ? mp + n : "/";
}

struct keyed {
	struct mntsnap_mount m;
	const char *mp;
	uint32_t hash;
};

static void make_key(const struct mntsnap_diff *d, struct keyed *k, const char *prefix)
{
	k->mp = strip(k->m.mount_point, prefix);
	k->hash = mntsnap_hash_str(mntsnap_hash_str(MNTSNAP_HASH_INIT, k->mp), k->m.root);
	if (!(d->flags & MNTSNAP_DIFF_IGNORE_IDS))
		k->hash ^= mntsnap_hash_u32(k->m.dev_major * 31U + k->m.dev_minor);
}

static bool key_eq(const struct mntsnap_diff *d, const struct keyed *a, const struct keyed *b)
{
	if (a->hash != b->hash || strcmp(a->mp, b->mp) || strcmp(a->m.root, b->m.root))
		return false;
	return (d->flags & MNTSNAP_DIFF_IGNORE_IDS) ||
	       (a->m.dev_major == b->m.dev_major && a->m.dev_minor == b->m.dev_minor);
}

/* ---- comparing one pair ---------------------------------------------------- */

#define NE_U32(M, NU) a->M != b->M
#define NE_U64(M, NU) a->M != b->M
#define NE_PAIR(M, NU) (a->M != b->M || a->NU != b->NU)
#define NE_STR(M, NU) strcmp(a->M, b->M)
#define NE_LIST(M, NU) mntsnap__strlist_ne(a->M, a->NU, b->M, b->NU)
#define NE_SPECIAL(M, NU) 0
#define CMP_SKIP(N)                                                                                \
	(MNTSNAP_F_##N == MNTSNAP_F_MOUNT_POINT ||                                                  \
	 (ign && (MNTSNAP_F_##N == MNTSNAP_F_DEV || MNTSNAP_F_##N == MNTSNAP_F_PROPAGATE_FROM)))
#define CMP_ROW(N, L, K, M, NU, SA, SG, SS, SN, J, JG, C, ...)                                     \
	if ((C) && (both & MNTSNAP_F_##N) && !(c & (C)) && !CMP_SKIP(N) && NE_##K(M, NU))           \
		c |= (C);

static uint32_t compare(struct mntsnap_diff *d, struct groups *g, const struct keyed *o,
			const struct keyed *n)
{
	const struct mntsnap_mount *a = &o->m, *b = &n->m;
	uint32_t both = a->mask & b->mask, c = 0;
	bool ign = d->flags & MNTSNAP_DIFF_IGNORE_IDS;

#define HAS(bit) (both & MNTSNAP_F_##bit)
	if (HAS(MOUNT_POINT) && strcmp(o->mp, n->mp))
		c |= MNTSNAP_CHANGE_MOUNT_POINT;
	/* parent ids are only comparable when they name the same mounts */
	if (d->key == MNTSNAP_DIFF_KEY_ID && a->parent_id != b->parent_id)
		c |= MNTSNAP_CHANGE_PARENT;
	if (HAS(PROPAGATION)) {
		if (a->propagation != b->propagation)
			c |= MNTSNAP_CHANGE_PROPAGATION;
		if (ign ? !group_same(g, a->peer_group, b->peer_group)
			: a->peer_group != b->peer_group)
			c |= MNTSNAP_CHANGE_PEER_GROUP;
		if (ign ? !group_same(g, a->master, b->master) : a->master != b->master)
			c |= MNTSNAP_CHANGE_MASTER;
	}
	if (HAS(PROPAGATE_FROM) && ign &&
	    !group_same(g, a->propagate_from, b->propagate_from))
		c |= MNTSNAP_CHANGE_PROPAGATE_FROM;
	/*
	 * Every other field by the table (generated: this runs for every
	 * matched pair). By hand above: the mount point (compared after the
	 * path key's prefix is taken off), parent ids, peer group numbers (by
	 * structure when ids are ignored); the device is not compared when
	 * ids are ignored.
	 */
	MNTSNAP_FIELDS(CMP_ROW)
	/*
	 * Parsed text from a newer kernel: a per-mount option attr cannot
	 * hold ("rw,nosuid,newflag") is only in the kept text. Its unknown
	 * words are compared; the known ones are attr's, whatever their order.
	 */
	if (HAS(ATTR) && !(c & MNTSNAP_CHANGE_ATTR) && mntsnap__mnt_opts_text_ne(a, b))
		c |= MNTSNAP_CHANGE_ATTR;
	/* super options kept as written ("rw," for "rw"): the text is theirs */
	if (HAS(OPTS) && !(c & MNTSNAP_CHANGE_OPTIONS) &&
	    strcmp(a->sb_opts_text ? a->sb_opts_text : "", b->sb_opts_text ? b->sb_opts_text : ""))
		c |= MNTSNAP_CHANGE_OPTIONS;
#undef HAS
	return c;
}

uint32_t mntsnap__diff_changes(const struct mntsnap_mount *a, const struct mntsnap_mount *b)
{
	struct mntsnap_diff d = { .key = MNTSNAP_DIFF_KEY_ID };
	struct keyed ka = { .m = *a, .mp = a->mount_point };
	struct keyed kb = { .m = *b, .mp = b->mount_point };

	return compare(&d, NULL, &ka, &kb);
}

static int push(struct mntsnap_diff *d, int kind, uint32_t changed, long oi, long ni)
{
	if (d->n == d->cap) {
		size_t ncap = d->cap ? d->cap * 2 : 64;
		void *p = realloc(d->e, ncap * sizeof(*d->e));

		if (!p)
			return -ENOMEM;
		d->e = p;
		d->cap = ncap;
	}
	d->e[d->n++] = (struct mntsnap_diff_entry){ .kind = kind, .changed = changed,
						    .old_index = oi, .new_index = ni };
	if (kind == MNTSNAP_DIFF_ADDED)
		d->added++;
	else if (kind == MNTSNAP_DIFF_REMOVED)
		d->removed++;
	else
		d->changed++;
	return 0;
}

/* ---- matching ---------------------------------------------------------------- */

static struct keyed *load_all(const struct mntsnap_diff *d, const struct mntsnap_snapshot *s,
			      const char *prefix)
{
	size_t n = mntsnap__snapshot_count(s);
	struct keyed *k = calloc(n + 1, sizeof(*k));

	if (!k)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		mntsnap__snapshot_get(s, i, &k[i].m);
		make_key(d, &k[i], prefix);
	}
	return k;
}

/* matched[i] = index in the other snapshot, or -1. */
static int match_by_id(const struct mntsnap_diff *d, long *matched_new)
{
	size_t n = mntsnap__snapshot_count(d->new);
	struct mntsnap_mount m;

	for (size_t i = 0; i < n; i++) {
		mntsnap__snapshot_get(d->new, i, &m);
		matched_new[i] = mntsnap__snapshot_find(d->old, m.id);
		if (matched_new[i] < 0)
			matched_new[i] = -1;
	}
	return 0;
}

static int match_by_path(const struct mntsnap_diff *d, const struct keyed *ko,
			 const struct keyed *kn, long *matched_new)
{
	size_t no = mntsnap__snapshot_count(d->old), nn = mntsnap__snapshot_count(d->new);
	size_t cap = 16;
	uint32_t *head, *next;
	bool *used;

	while (cap < no * 2)
		cap *= 2;
	head = malloc(cap * sizeof(*head));
	next = malloc((no + 1) * sizeof(*next));
	used = calloc(no + 1, sizeof(*used));
	if (!head || !next || !used) {
		free(head);
		free(next);
		free(used);
		return -ENOMEM;
	}
	memset(head, 0xff, cap * sizeof(*head));
	/* chains in storage order: insert backwards at the head */
	for (size_t i = no; i-- > 0;) {
		uint32_t h = ko[i].hash & (cap - 1);

		next[i] = head[h];
		head[h] = (uint32_t)i;
	}
	for (size_t i = 0; i < nn; i++) {
		uint32_t j = head[kn[i].hash & (cap - 1)];

		matched_new[i] = -1;
		for (; j != UINT32_MAX; j = next[j]) {
			if (!used[j] && key_eq(d, &ko[j], &kn[i])) {
				used[j] = true;
				matched_new[i] = j;
				break;
			}
		}
	}
	free(head);
	free(next);
	free(used);
	return 0;
}

static int run(struct mntsnap_diff *d)
{
	size_t no = mntsnap__snapshot_count(d->old), nn = mntsnap__snapshot_count(d->new);
	struct keyed *ko = load_all(d, d->old, d->old_prefix);
	struct keyed *kn = load_all(d, d->new, d->new_prefix);
	long *mn = malloc((nn + 1) * sizeof(*mn));
	bool *seen = calloc(no + 1, sizeof(*seen));
	struct groups g = { 0 };
	int r = -ENOMEM;

	if (!ko || !kn || !mn || !seen)
		goto out;
	r = d->key == MNTSNAP_DIFF_KEY_ID ? match_by_id(d, mn) : match_by_path(d, ko, kn, mn);
	/* removed first (old storage order), then added/changed (new order) */
	for (size_t i = 0; i < nn && !r; i++)
		if (mn[i] >= 0)
			seen[mn[i]] = true;
	for (size_t i = 0; i < no && !r; i++)
		if (!seen[i])
			r = push(d, MNTSNAP_DIFF_REMOVED, 0, (long)i, -1);
	for (size_t i = 0; i < nn && !r; i++) {
		uint32_t c;

		if (mn[i] < 0) {
			r = push(d, MNTSNAP_DIFF_ADDED, 0, -1, (long)i);
			continue;
		}
		c = compare(d, &g, &ko[mn[i]], &kn[i]);
		if (c)
			r = push(d, MNTSNAP_DIFF_CHANGED, c, mn[i], (long)i);
	}
	if (!r)
		r = g.err;
out:
	free(ko);
	free(kn);
	free(mn);
	free(seen);
	free(g.fwd.k);
	free(g.fwd.v);
	free(g.back.k);
	free(g.back.v);
	return r;
}

static bool has_ids(const struct mntsnap_snapshot *s)
{
	struct mntsnap_mount m;

	/* an empty table has nothing to match: ids are as good as anything */
	if (!mntsnap__snapshot_count(s))
		return true;
	mntsnap__snapshot_get(s, 0, &m);
	return m.mask & MNTSNAP_F_ID;
}

int mntsnap_diff_with(const struct mntsnap_snapshot *old, const struct mntsnap_snapshot *new,
		      const struct mntsnap_diff_opts *opts, struct mntsnap_diff **ret)
{
	struct mntsnap_diff_opts o = { .sz = sizeof(o) };
	struct mntsnap_diff *d;
	int r;

	if (!old || !new || !ret)
		return -EINVAL;
	r = OPTS_LOAD(&o, opts);
	if (r)
		return r;
	if (o.flags & ~(uint32_t)(MNTSNAP_DIFF_BY_PATH | MNTSNAP_DIFF_IGNORE_IDS))
		return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->old = old;
	d->new = new;
	d->flags = o.flags;
	d->old_prefix = o.old_prefix;
	d->new_prefix = o.new_prefix;
	/* prefixes only make sense for path keys; ids ignore paths */
	d->key = !(o.flags & (MNTSNAP_DIFF_BY_PATH | MNTSNAP_DIFF_IGNORE_IDS)) && !o.old_prefix &&
				 !o.new_prefix && has_ids(old) && has_ids(new)
			 ? MNTSNAP_DIFF_KEY_ID
			 : MNTSNAP_DIFF_KEY_PATH;
	r = run(d);
	/* prefixes point into the caller's memory; drop them before returning */
	d->old_prefix = d->new_prefix = NULL;
	if (r) {
		mntsnap__diff_free(d);
		return r;
	}
	*ret = d;
	return 0;
}

int mntsnap__diff(const struct mntsnap_snapshot *old, const struct mntsnap_snapshot *new,
		 struct mntsnap_diff **ret)
{
	return mntsnap_diff_with(old, new, NULL, ret);
}

int mntsnap_diff(const struct mntsnap_snapshot *old, const struct mntsnap_snapshot *new,
		 struct mntsnap_diff **ret)
{
	return mntsnap__diff(old, new, ret);
}

void mntsnap__diff_free(struct mntsnap_diff *d)
{
	if (!d)
		return;
	free(d->e);
	free(d);
}

void mntsnap_diff_free(struct mntsnap_diff *d)
{
	mntsnap__diff_free(d);
}

int mntsnap_diff_key(const struct mntsnap_diff *d)
{
	return d ? d->key : -EINVAL;
}

size_t mntsnap__diff_count(const struct mntsnap_diff *d)
{
	return d ? d->n : 0;
}

size_t mntsnap_diff_count(const struct mntsnap_diff *d)
{
	return mntsnap__diff_count(d);
}

size_t mntsnap_diff_added(const struct mntsnap_diff *d)
{
	return d ? d->added : 0;
}

size_t mntsnap_diff_removed(const struct mntsnap_diff *d)
{
	return d ? d->removed : 0;
}

size_t mntsnap_diff_changed(const struct mntsnap_diff *d)
{
	return d ? d->changed : 0;
}

int mntsnap__diff_get(const struct mntsnap_diff *d, size_t i, struct mntsnap_diff_entry *ret)
{
	if (!d || !ret)
		return -EINVAL;
	if (i >= d->n)
		return -ERANGE;
	*ret = d->e[i];
	return 0;
}

int mntsnap_diff_get(const struct mntsnap_diff *d, size_t i, struct mntsnap_diff_entry *ret)
{
	return mntsnap__diff_get(d, i, ret);
}

void mntsnap_diff_freep(struct mntsnap_diff **p)
{
	if (p) {
		mntsnap_diff_free(*p);
		*p = NULL;
	}
}
