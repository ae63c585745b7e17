// SPDX-License-Identifier: MIT
/*
 * mntsnap_restore_order(): an order in which the mounts of a snapshot can
 * be recreated, with every constraint and its reason.
 *
 * Constraints ("i after j"), following what CRIU's restore needs (its
 * mount tree building and ordering, criu/mount.c):
 *  - PARENT: a mount after the mount it sits on. STACKED is the same for a
 *    mount on top of another at the same mount point, so stacks keep their
 *    original order.
 *  - OVERMOUNT: two siblings where one's mount point lies under the other's:
 *    the covered one was mounted first (had it come later it would sit on
 *    the covering mount, not beside it), so it is recreated first.
 *  - BIND_SOURCE: mounts of one superblock are made once and bind-mounted
 *    from an already recreated member whose root contains theirs (the one
 *    with the widest root is created fresh).
 *  - PEER: a shared mount joins its group through an earlier peer whose
 *    root contains its own (MOVE_MOUNT_SET_GROUP needs exactly that); the
 *    group's widest member is the one made shared first.
 *  - MASTER: a slave after a member of its master's peer group.
 * The recommended recipe (what tests/test-restore.c does, like CRIU's
 * mount-v2): create every mount privately in this order, then walk the
 * order again for propagation - SET_GROUP from master_of + make-slave,
 * SET_GROUP from peer_of (or make-shared for a group's first member),
 * make-unbindable - so no mount propagates while the tree is being built.
 *
 * Among the mounts that are free to go next, the one earliest in tree
 * order goes first, so the result is deterministic and close to the tree.
 * Constraints that form a loop (possible only for contrived propagation
 * set-ups, e.g. every member of a master group mounted below its own
 * slave) make the call fail with -ELOOP.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "snapshot.h"

struct mntsnap_order {
	struct mntsnap_order_step *steps;
	size_t n;
	struct mntsnap_order_dep *deps;
	size_t ndeps, deps_cap;
};

struct build {
	struct mntsnap_order *o;
	struct mntsnap_mount *m;   /* all records */
	uint32_t *pos;             /* storage index -> tree position */
	long *bind_from, *peer_of, *master_of;
	size_t n;
};

static int add_dep(struct build *b, uint32_t i, uint32_t after, int reason)
{
	struct mntsnap_order *o = b->o;

	if (o->ndeps == o->deps_cap) {
		size_t ncap = o->deps_cap ? o->deps_cap * 2 : 64;
		void *p = realloc(o->deps, ncap * sizeof(*o->deps));

		if (!p)
			return -ENOMEM;
		o->deps = p;
		o->deps_cap = ncap;
	}
	o->deps[o->ndeps++] = (struct mntsnap_order_dep){ .index = i, .after_index = after,
							  .reason = reason };
	return 0;
}

/* Is path a (path-wise) prefix of sub: "/" of anything, "/a" of "/a/b". */
static bool path_contains(const char *path, const char *sub)
{
	size_t n = strlen(path);

	if (n == 1 && path[0] == '/')
		return true;
	return !strncmp(path, sub, n) && (sub[n] == '\0' || sub[n] == '/');
}

static bool is_descendant(const struct build *b, uint32_t j, uint32_t i)
{
	for (size_t guard = 0; guard <= b->n; guard++) {
		uint32_t p = b->m[j].parent_index;

		if (p == j)
			return false;
		if (p == i)
			return true;
		j = p;
	}
	return true; /* a cycle: treat as unusable */
}

/* ---- PARENT, STACKED, OVERMOUNT ------------------------------------------ */

struct sib {
	uint32_t *slot; /* index + 1 */
	uint32_t cap;
};

static uint32_t sib_hash(uint32_t parent, const char *p, size_t len)
{
	return mntsnap_hash_bytes(MNTSNAP_HASH_INIT ^ mntsnap_hash_u32(parent), p, len);
}

static long sib_find(const struct build *b, const struct sib *t, uint32_t parent, const char *p,
		     size_t len)
{
	uint32_t h = sib_hash(parent, p, len) & (t->cap - 1);

	for (; t->slot[h]; h = (h + 1) & (t->cap - 1)) {
		const struct mntsnap_mount *s = &b->m[t->slot[h] - 1];

		if (s->parent_index == parent && s->index != parent &&
		    !strncmp(s->mount_point, p, len) && s->mount_point[len] == '\0')
			return t->slot[h] - 1;
	}
	return -1;
}

static int tree_deps(struct build *b)
{
	struct sib t = { .cap = 16 };
	int r = 0;

	while (t.cap < b->n * 2)
		t.cap *= 2;
	t.slot = calloc(t.cap, sizeof(*t.slot));
	if (!t.slot)
		return -ENOMEM;
	for (uint32_t i = 0; i < b->n; i++) {
		const struct mntsnap_mount *m = &b->m[i];
		uint32_t h;

		if (m->parent_index == i)
			continue;
		h = sib_hash(m->parent_index, m->mount_point, strlen(m->mount_point)) & (t.cap - 1);
		while (t.slot[h])
			h = (h + 1) & (t.cap - 1);
		t.slot[h] = i + 1;
	}
	for (uint32_t i = 0; i < b->n && !r; i++) {
		const struct mntsnap_mount *m = &b->m[i], *p = &b->m[m->parent_index];
		const char *mp = m->mount_point;

		if (m->parent_index == i)
			continue;
		r = add_dep(b, i, m->parent_index,
			    strcmp(mp, p->mount_point) ? MNTSNAP_ORDER_PARENT
						       : MNTSNAP_ORDER_STACKED);
		/* siblings mounted on a path above ours cover us: we go first */
		for (size_t k = strlen(mp); k-- > 1 && !r;) {
			long s;

			if (mp[k] != '/')
				continue;
			s = sib_find(b, &t, m->parent_index, mp, k);
			if (s >= 0)
				r = add_dep(b, (uint32_t)s, i, MNTSNAP_ORDER_OVERMOUNT);
		}
		if (!r && mp[0] == '/' && mp[1]) {
			long s = sib_find(b, &t, m->parent_index, mp, 1);

			if (s >= 0)
				r = add_dep(b, (uint32_t)s, i, MNTSNAP_ORDER_OVERMOUNT);
		}
	}
	free(t.slot);
	return r;
}

/* ---- groups: superblocks and peer groups ---------------------------------- */

struct member {
	uint64_t group;
	uint64_t rank; /* root length, then tree position: widest root first */
	uint32_t idx;
};

static int cmp_member(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return 0;
}

/*
 * Widest root first, then the mounts that are no slave, then tree order.
 * A slave comes after its master's group, so it must not be the member
 * its superblock's other mounts are bound from or its group is started
 * by: tree order alone would pick it whenever its 32-bit mount id is the
 * smallest (siblings are ordered by it), which the kernel's reuse of
 * freed ids makes common.
 */
static uint64_t rank(const struct build *b, uint32_t i)
{
	bool slave = b->m[i].propagation & MNTSNAP_PROP_SLAVE && b->m[i].master;

	return (uint64_t)strlen(b->m[i].root) << 33 | (uint64_t)slave << 32 | b->pos[i];
}

/*
 * The member of g[0..n) to come from for record i: the earliest-ranked one
 * (other than i, ranked before i when strict) whose root contains i's and
 * which is not mounted below i. -1 if none.
 */
static long pick(const struct build *b, const struct member *g, size_t n, uint32_t i,
		 bool strict)
{
	uint64_t ri = rank(b, i);

	for (size_t k = 0; k < n; k++) {
		uint32_t j = g[k].idx;

		if (j == i)
			continue;
		if (strict && g[k].rank >= ri)
			break;
		if (path_contains(b->m[j].root, b->m[i].root) && !is_descendant(b, j, i))
			return j;
	}
	return -1;
}

static struct member *collect(struct build *b, bool peers, size_t *ret_n)
{
	struct member *g = calloc(b->n + 1, sizeof(*g));
	size_t n = 0;

	if (!g)
		return NULL;
	for (uint32_t i = 0; i < b->n; i++) {
		const struct mntsnap_mount *m = &b->m[i];

		if (peers && !(m->propagation & MNTSNAP_PROP_SHARED && m->peer_group))
			continue;
		g[n].group = peers ? m->peer_group
				   : ((uint64_t)m->dev_major << 32 | m->dev_minor) ^
					     (m->sb_magic << 20);
		g[n].rank = rank(b, i);
		g[n].idx = i;
		n++;
	}
	qsort(g, n, sizeof(*g), cmp_member);
	*ret_n = n;
	return g;
}

/* [lo, hi) of the group with this key in sorted g, or lo == hi. */
static void group_range(const struct member *g, size_t n, uint64_t key, size_t *lo, size_t *hi)
{
	size_t a = 0, z = n;

	while (a < z) {
		size_t mid = a + (z - a) / 2;

		if (g[mid].group < key)
			a = mid + 1;
		else
			z = mid;
	}
	*lo = a;
	while (a < n && g[a].group == key)
		a++;
	*hi = a;
}

static int sb_deps(struct build *b)
{
	size_t n, lo, hi;
	struct member *g = collect(b, false, &n);
	int r = 0;

	if (!g)
		return -ENOMEM;
	for (size_t k = 0; k < n && !r; k++) {
		uint32_t i = g[k].idx;
		long j;

		group_range(g, n, g[k].group, &lo, &hi);
		j = pick(b, g + lo, hi - lo, i, true);
		b->bind_from[i] = j;
		if (j >= 0)
			r = add_dep(b, i, (uint32_t)j, MNTSNAP_ORDER_BIND_SOURCE);
	}
	free(g);
	return r;
}

static int propagation_deps(struct build *b)
{
	size_t n, lo, hi;
	struct member *g = collect(b, true, &n);
	int r = 0;

	if (!g)
		return -ENOMEM;
	for (uint32_t i = 0; i < b->n && !r; i++) {
		const struct mntsnap_mount *m = &b->m[i];
		long j;

		if (m->propagation & MNTSNAP_PROP_SHARED && m->peer_group) {
			group_range(g, n, m->peer_group, &lo, &hi);
			/* the group's first member (widest root) starts it */
			if (g[lo].idx != i) {
				j = pick(b, g + lo, hi - lo, i, false);
				if (j < 0 && !is_descendant(b, g[lo].idx, i))
					j = g[lo].idx;
				b->peer_of[i] = j;
				if (j >= 0)
					r = add_dep(b, i, (uint32_t)j, MNTSNAP_ORDER_PEER);
			}
		}
		if (!r && m->propagation & MNTSNAP_PROP_SLAVE && m->master) {
			group_range(g, n, m->master, &lo, &hi);
			if (lo == hi)
				continue; /* the master is outside the snapshot */
			j = pick(b, g + lo, hi - lo, i, false);
			if (j < 0 && !is_descendant(b, g[lo].idx, i))
				j = g[lo].idx;
			b->master_of[i] = j;
			if (j >= 0)
				r = add_dep(b, i, (uint32_t)j, MNTSNAP_ORDER_MASTER);
		}
	}
	free(g);
	return r;
}

/* ---- topological sort, earliest tree position first ------------------------ */

struct heap {
	uint32_t *v;
	size_t n;
	const uint32_t *key;
};

static void heap_push(struct heap *h, uint32_t x)
{
	size_t i = h->n++;

	while (i) {
		size_t p = (i - 1) / 2;

		if (h->key[h->v[p]] <= h->key[x])
			break;
		h->v[i] = h->v[p];
		i = p;
	}
	h->v[i] = x;
}

static uint32_t heap_pop(struct heap *h)
{
	uint32_t top = h->v[0], x = h->v[--h->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->key[h->v[c + 1]] < h->key[h->v[c]])
			c++;
		if (h->key[x] <= h->key[h->v[c]])
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = x;
	return top;
}

static int topo(struct build *b)
{
	struct mntsnap_order *o = b->o;
	size_t n = b->n, done = 0;
	uint32_t *indeg = calloc(n + 1, sizeof(*indeg));
	uint32_t *start = calloc(n + 2, sizeof(*start));
	uint32_t *adj = malloc((o->ndeps + 1) * sizeof(*adj));
	struct heap h = { .v = malloc((n + 1) * sizeof(uint32_t)), .key = b->pos };
	int r = -ENOMEM;

	if (!indeg || !start || !adj || !h.v)
		goto out;
	/* CSR adjacency: for each j, the mounts that must come after it */
	for (size_t k = 0; k < o->ndeps; k++) {
		start[o->deps[k].after_index + 1]++;
		indeg[o->deps[k].index]++;
	}
	for (size_t i = 0; i < n; i++)
		start[i + 1] += start[i];
	for (size_t k = 0; k < o->ndeps; k++)
		adj[start[o->deps[k].after_index]++] = o->deps[k].index;
	for (size_t i = n; i > 0; i--)
		start[i] = start[i - 1];
	start[0] = 0;

	for (uint32_t i = 0; i < n; i++)
		if (!indeg[i])
			heap_push(&h, i);
	while (h.n) {
		uint32_t j = heap_pop(&h);

		o->steps[done++] = (struct mntsnap_order_step){
			.index = j, .bind_from = b->bind_from[j], .peer_of = b->peer_of[j],
			.master_of = b->master_of[j] };
		for (uint32_t k = start[j]; k < start[j + 1]; k++)
			if (!--indeg[adj[k]])
				heap_push(&h, adj[k]);
	}
	o->n = done;
	r = done == n ? 0 : -ELOOP;
out:
	free(indeg);
	free(start);
	free(adj);
	free(h.v);
	return r;
}

/* ---- public ------------------------------------------------------------------ */

#define NEEDED                                                                 \
	(MNTSNAP_F_ROOT | MNTSNAP_F_MOUNT_POINT | MNTSNAP_F_DEV | MNTSNAP_F_PROPAGATION)

static int load(struct build *b, const struct mntsnap_snapshot *s)
{
	b->m = calloc(b->n + 1, sizeof(*b->m));
	b->pos = calloc(b->n + 1, sizeof(*b->pos));
	b->bind_from = malloc((b->n + 1) * sizeof(long));
	b->peer_of = malloc((b->n + 1) * sizeof(long));
	b->master_of = malloc((b->n + 1) * sizeof(long));
	if (!b->m || !b->pos || !b->bind_from || !b->peer_of || !b->master_of)
		return -ENOMEM;
	for (size_t i = 0; i < b->n; i++) {
		long t = mntsnap__snapshot_tree_index(s, i);

		mntsnap__snapshot_get(s, i, &b->m[i]);
		if ((b->m[i].mask & NEEDED) != NEEDED)
			return -ENODATA;
		if (t < 0 || (size_t)t >= b->n)
			return -EINVAL;
		b->pos[t] = (uint32_t)i;
		b->bind_from[i] = b->peer_of[i] = b->master_of[i] = -1;
	}
	return 0;
}

int mntsnap_restore_order(const struct mntsnap_snapshot *s, struct mntsnap_order **ret)
{
	struct build b = { .n = mntsnap__snapshot_count(s) };
	int r;

	if (!s || !ret)
		return -EINVAL;
	b.o = calloc(1, sizeof(*b.o));
	if (!b.o)
		return -ENOMEM;
	b.o->steps = calloc(b.n + 1, sizeof(*b.o->steps));
	r = b.o->steps ? load(&b, s) : -ENOMEM;
	if (!r)
		r = tree_deps(&b);
	if (!r)
		r = sb_deps(&b);
	if (!r)
		r = propagation_deps(&b);
	if (!r)
		r = topo(&b);
	free(b.m);
	free(b.pos);
	free(b.bind_from);
	free(b.peer_of);
	free(b.master_of);
	if (r) {
		mntsnap_order_free(b.o);
		return r;
	}
	*ret = b.o;
	return 0;
}

void mntsnap_order_free(struct mntsnap_order *o)
{
	if (!o)
		return;
	free(o->steps);
	free(o->deps);
	free(o);
}

size_t mntsnap_order_count(const struct mntsnap_order *o)
{
	return o ? o->n : 0;
}

int mntsnap_order_step(const struct mntsnap_order *o, size_t i, struct mntsnap_order_step *ret)
{
	if (!o || !ret)
		return -EINVAL;
	if (i >= o->n)
		return -ERANGE;
	*ret = o->steps[i];
	return 0;
}

size_t mntsnap_order_ndeps(const struct mntsnap_order *o)
{
	return o ? o->ndeps : 0;
}

int mntsnap_order_dep(const struct mntsnap_order *o, size_t i, struct mntsnap_order_dep *ret)
{
	if (!o || !ret)
		return -EINVAL;
	if (i >= o->ndeps)
		return -ERANGE;
	*ret = o->deps[i];
	return 0;
}

const char *mntsnap_order_reason_name(int reason)
{
	static const char *const names[] = {
		[MNTSNAP_ORDER_PARENT] = "parent",
		[MNTSNAP_ORDER_STACKED] = "stacked",
		[MNTSNAP_ORDER_OVERMOUNT] = "overmount",
		[MNTSNAP_ORDER_BIND_SOURCE] = "bind_source",
		[MNTSNAP_ORDER_PEER] = "peer",
		[MNTSNAP_ORDER_MASTER] = "master",
	};

	if (reason <= 0 || (size_t)reason >= sizeof(names) / sizeof(names[0]))
		return NULL;
	return names[reason];
}

void mntsnap_order_freep(struct mntsnap_order **p)
{
	if (p) {
		mntsnap_order_free(*p);
		*p = NULL;
	}
}
