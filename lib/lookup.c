// SPDX-License-Identifier: MIT
/*
 * Lookups in a snapshot, without touching the file system: the mount at a
 * mount point (the top of a stack, and the stack below it), the mount a
 * path is on (a path walk done on the table's text), mounts by source, a
 * mount's parent.
 *
 * Two sorted index arrays of storage indices make every lookup a binary
 * search: by (mount point, parent, index) and by (source, index). Both are
 * built by the first lookup that needs them (O(n log n), 4 bytes a mount
 * each), so captures that nobody looks up in never pay for them. A
 * lookup takes a const snapshot, and callers may look up from several
 * threads at once: an index is built aside and published with one
 * compare-and-swap (the loser frees its copy and uses the winner's).
 * Whatever changes records (finish, the incremental update, the relative
 * mount points of a single-mount lookup) drops them: mntsnap__lookup_reset.
 *
 * The path walk is the kernel's, on text: from the root mount, each
 * component either is the mount point of a child of the mount reached so
 * far (then that child, and whatever is stacked on it there) or not (the
 * walk stays on the same mount). So a mount covered by a later mount on a
 * directory above it is never reached, as on a live system, and a file
 * bind mount is reached at its own path.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"

enum key { KEY_MP, KEY_SRC };

static const char *mp_of(const struct mntsnap_snapshot *s, uint32_t i)
{
	return s->strtab + s->recs[i].mount_point;
}

/* "" when the record has no source: no lookup asks for "" */
static const char *src_of(const struct mntsnap_snapshot *s, uint32_t i)
{
	const struct mntsnap_rec *r = &s->recs[i];

	return (r->mask & MNTSNAP_F_SOURCE) ? s->strtab + s->sbs[r->sb].source : "";
}

static int cmp_u32(uint32_t a, uint32_t b)
{
	return a < b ? -1 : a > b;
}

/* Index order: string, then (mount points only) parent, then storage index. */
static int cmp_recs(const struct mntsnap_snapshot *s, enum key k, uint32_t a, uint32_t b)
{
	int c = strcmp(k == KEY_MP ? mp_of(s, a) : src_of(s, a), k == KEY_MP ? mp_of(s, b) : src_of(s, b));

	if (c)
		return c;
	if (k == KEY_MP && (c = cmp_u32(s->recs[a].parent, s->recs[b].parent)))
		return c;
	return cmp_u32(a, b);
}

/* Bottom-up merge sort (qsort has no context argument in C11). */
static void sort_index(const struct mntsnap_snapshot *s, enum key k, uint32_t *idx, uint32_t *tmp)
{
	uint32_t n = s->nrecs, *a = idx, *b = tmp;

	for (uint32_t w = 1; w < n; w *= 2) {
		for (uint32_t lo = 0; lo < n; lo += 2 * w) {
			uint32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			uint32_t i = lo, j = mid, o = lo;

			while (i < mid && j < hi)
				b[o++] = cmp_recs(s, k, a[j], a[i]) < 0 ? a[j++] : a[i++];
			while (i < mid)
				b[o++] = a[i++];
			while (j < hi)
				b[o++] = a[j++];
		}
		uint32_t *t = a;

		a = b;
		b = t;
	}
	if (a != idx)
		memcpy(idx, a, (size_t)n * sizeof(*idx));
}

/* The index of kind k, built on first use; NULL: no memory for it. */
static const uint32_t *get_index(const struct mntsnap_snapshot *cs, enum key k)
{
	/* the cache is no part of the snapshot's value: filling it is no change */
	struct mntsnap_snapshot *s = (struct mntsnap_snapshot *)(uintptr_t)cs;
	uint32_t **slot = k == KEY_MP ? &s->by_mp : &s->by_src, *idx, *tmp, *old = NULL;

	idx = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (idx)
		return idx;
	idx = malloc((size_t)s->nrecs * sizeof(*idx) + 1);
	tmp = malloc((size_t)s->nrecs * sizeof(*tmp) + 1);
	if (!idx || !tmp) {
		free(idx);
		free(tmp);
		return NULL;
	}
	for (uint32_t i = 0; i < s->nrecs; i++)
		idx[i] = i;
	sort_index(s, k, idx, tmp);
	free(tmp);
	if (!__atomic_compare_exchange_n(slot, &old, idx, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		free(idx);
		return old;
	}
	return idx;
}

void mntsnap__lookup_reset(struct mntsnap_snapshot *s)
{
	free(s->by_mp);
	free(s->by_src);
	s->by_mp = s->by_src = NULL;
}

/* str against the first len bytes of key as a string of its own */
static int cmp_prefix(const char *str, const char *key, size_t len)
{
	int c = strncmp(str, key, len);

	/* equal: str has those len bytes (key has no NUL among them) */
	return c ? c : str[len] != '\0';
}

/*
 * First position in idx whose record is not below (key[0, len), parent,
 * index) in index order; parent MNTSNAP_NONE: mount point only.
 */
static uint32_t lower_bound(const struct mntsnap_snapshot *s, enum key k, const uint32_t *idx,
			    const char *key, size_t len, uint32_t parent, uint32_t index)
{
	uint32_t lo = 0, hi = s->nrecs;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2, r = idx[mid];
		int c = cmp_prefix(k == KEY_MP ? mp_of(s, r) : src_of(s, r), key, len);

		if (!c && k == KEY_MP && parent != MNTSNAP_NONE)
			c = cmp_u32(s->recs[r].parent, parent);
		if (!c)
			c = cmp_u32(r, index);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool at(const struct mntsnap_snapshot *s, const uint32_t *idx, uint32_t pos,
	       const char *path, size_t len)
{
	return pos < s->nrecs && !cmp_prefix(mp_of(s, idx[pos]), path, len);
}

/*
 * The child of cur mounted at path[0, len) (not cur itself, a root there):
 * the latest mounted where there are several, or MNTSNAP_NONE.
 */
static uint32_t child_at(const struct mntsnap_snapshot *s, const uint32_t *idx, uint32_t cur,
			 const char *path, size_t len)
{
	uint32_t pos = lower_bound(s, KEY_MP, idx, path, len, cur, 0), hit = MNTSNAP_NONE;

	for (; at(s, idx, pos, path, len) && s->recs[idx[pos]].parent == cur; pos++)
		if (idx[pos] != cur)
			hit = idx[pos];
	return hit;
}

/* cur, or what is stacked on it at path[0, len), to the top */
static uint32_t climb(const struct mntsnap_snapshot *s, const uint32_t *idx, uint32_t cur,
		      const char *path, size_t len)
{
	/* a stack is at most n high: a parent cycle cannot hold us */
	for (uint32_t step = 0, c; step < s->nrecs; step++) {
		c = child_at(s, idx, cur, path, len);
		if (c == MNTSNAP_NONE)
			break;
		cur = c;
	}
	return cur;
}

/*
 * A root of the table at path[0, len): findmnt's (first in tree order)
 * where it is one of them, else the first in old-id order.
 */
static uint32_t root_at(const struct mntsnap_snapshot *s, const uint32_t *idx, const char *path,
			size_t len)
{
	uint32_t pos = lower_bound(s, KEY_MP, idx, path, len, MNTSNAP_NONE, 0), best = MNTSNAP_NONE;

	for (; at(s, idx, pos, path, len); pos++) {
		uint32_t r = idx[pos];

		if (s->recs[r].parent != r)
			continue;
		if (s->tree && s->nrecs && s->tree[0] == r)
			return r;
		if (best == MNTSNAP_NONE ||
		    mntsnap__old_key(s->recs[r].id_old) < mntsnap__old_key(s->recs[best].id_old))
			best = r;
	}
	return best;
}

/*
 * path as the kernel prints mount points: absolute, one slash between
 * components, no trailing slash, "." and ".." resolved by the text (a
 * snapshot has no symlinks to follow). -EINVAL for a relative or empty
 * path.
 */
static int normalize(const char *path, char **ret)
{
	size_t n, o = 0;
	char *out;

	if (!path || path[0] != '/')
		return -EINVAL;
	n = strlen(path);
	out = malloc(n + 2);
	if (!out)
		return -ENOMEM;
	for (const char *p = path; *p;) {
		size_t l;

		while (*p == '/')
			p++;
		l = strcspn(p, "/");
		if (!l || (l == 1 && p[0] == '.')) {
			p += l;
			continue;
		}
		if (l == 2 && p[0] == '.' && p[1] == '.') {
			while (o && out[o - 1] != '/')
				o--;
			if (o)
				o--; /* the slash before it */
			p += l;
			continue;
		}
		out[o++] = '/';
		memcpy(out + o, p, l);
		o += l;
		p += l;
	}
	if (!o)
		out[o++] = '/';
	out[o] = '\0';
	*ret = out;
	return 0;
}

/* The walk of path (normalized): the mount it ends on, or MNTSNAP_NONE. */
static uint32_t walk(const struct mntsnap_snapshot *s, const uint32_t *idx, const char *path)
{
	size_t n = strlen(path), len;
	uint32_t cur = MNTSNAP_NONE;

	/* the root the path starts on: the one at its longest prefix */
	for (len = n; len; len--) {
		if (len < n && path[len] != '/')
			continue;
		cur = root_at(s, idx, path, len == 0 ? 1 : len);
		if (cur != MNTSNAP_NONE)
			break;
	}
	if (cur == MNTSNAP_NONE)
		cur = root_at(s, idx, "/", 1);
	if (cur == MNTSNAP_NONE)
		return cur;
	/* "/" itself is a prefix of every path */
	if (!len)
		len = 1;
	cur = climb(s, idx, cur, path, len);
	while (len < n) {
		len += strcspn(path + len + (path[len] == '/'), "/") + (path[len] == '/');
		cur = climb(s, idx, cur, path, len);
	}
	return cur;
}

static int check_args(const struct mntsnap_snapshot *s, const char *str)
{
	return !s || !str ? -EINVAL : 0;
}

/*
 * The start every path lookup shares: the arguments checked, the path
 * normalized (*norm: the caller frees it) and the mount point index built.
 */
static int mp_lookup_start(const struct mntsnap_snapshot *s, const char *path, char **norm,
			   const uint32_t **idx)
{
	int r = check_args(s, path);

	if (!r)
		r = normalize(path, norm);
	if (r)
		return r;
	*idx = get_index(s, KEY_MP);
	if (!*idx) {
		free(*norm);
		return -ENOMEM;
	}
	return 0;
}

long mntsnap__snapshot_find_path(const struct mntsnap_snapshot *s, const char *path)
{
	const uint32_t *idx;
	uint32_t hit;
	char *norm;
	int r = mp_lookup_start(s, path, &norm, &idx);

	if (r)
		return r;
	hit = walk(s, idx, norm);
	free(norm);
	return hit == MNTSNAP_NONE ? -ENOENT : (long)hit;
}

long mntsnap_snapshot_find_path(const struct mntsnap_snapshot *s, const char *path)
{
	return mntsnap__snapshot_find_path(s, path);
}

long mntsnap__snapshot_find_mount_point(const struct mntsnap_snapshot *s, const char *path)
{
	const uint32_t *idx;
	uint32_t pos, hit = MNTSNAP_NONE;
	size_t n;
	char *norm;
	int r = mp_lookup_start(s, path, &norm, &idx);

	if (r)
		return r;
	n = strlen(norm);
	pos = lower_bound(s, KEY_MP, idx, norm, n, MNTSNAP_NONE, 0);
	if (at(s, idx, pos, norm, n)) {
		uint32_t latest = idx[pos];

		hit = walk(s, idx, norm);
		if (hit == MNTSNAP_NONE || strcmp(mp_of(s, hit), norm)) {
			/* every mount there is covered: the latest one's stack */
			for (; at(s, idx, pos, norm, n); pos++)
				latest = idx[pos] > latest ? idx[pos] : latest;
			hit = climb(s, idx, latest, norm, n);
		}
	}
	free(norm);
	return hit == MNTSNAP_NONE ? -ENOENT : (long)hit;
}

long mntsnap_snapshot_find_mount_point(const struct mntsnap_snapshot *s, const char *path)
{
	return mntsnap__snapshot_find_mount_point(s, path);
}

long mntsnap__snapshot_next_mount_point(const struct mntsnap_snapshot *s, const char *path,
					long after)
{
	const uint32_t *idx;
	uint32_t pos;
	size_t n;
	char *norm;
	long hit = -ENOENT;
	int r = check_args(s, path);

	if (!r && after >= (long)s->nrecs)
		return -ERANGE;
	r = mp_lookup_start(s, path, &norm, &idx);
	if (r)
		return r;
	n = strlen(norm);
	if (after < 0) {
		pos = lower_bound(s, KEY_MP, idx, norm, n, MNTSNAP_NONE, 0);
	} else {
		pos = lower_bound(s, KEY_MP, idx, norm, n, s->recs[after].parent, (uint32_t)after);
		/* after must be one of them: its successor in the index is next */
		if (pos >= s->nrecs || idx[pos] != (uint32_t)after)
			hit = -EINVAL;
		pos++;
	}
	if (hit != -EINVAL && at(s, idx, pos, norm, n))
		hit = idx[pos];
	free(norm);
	return hit;
}

long mntsnap_snapshot_next_mount_point(const struct mntsnap_snapshot *s, const char *path,
				       long after)
{
	return mntsnap__snapshot_next_mount_point(s, path, after);
}

long mntsnap__snapshot_next_source(const struct mntsnap_snapshot *s, const char *source,
				   long after)
{
	const uint32_t *idx;
	size_t n;
	uint32_t pos;
	int r = check_args(s, source);

	if (!r && (!source[0] || after < -1))
		r = -EINVAL;
	if (!r && after >= (long)s->nrecs)
		r = -ERANGE;
	if (r)
		return r;
	idx = get_index(s, KEY_SRC);
	if (!idx)
		return -ENOMEM;
	n = strlen(source);
	pos = lower_bound(s, KEY_SRC, idx, source, n, MNTSNAP_NONE, (uint32_t)(after + 1));
	if (pos < s->nrecs && !cmp_prefix(src_of(s, idx[pos]), source, n))
		return idx[pos];
	return -ENOENT;
}

long mntsnap_snapshot_next_source(const struct mntsnap_snapshot *s, const char *source,
				  long after)
{
	return mntsnap__snapshot_next_source(s, source, after);
}

long mntsnap_snapshot_parent(const struct mntsnap_snapshot *s, size_t i)
{
	if (!s)
		return -EINVAL;
	if (i >= s->nrecs)
		return -ERANGE;
	return s->recs[i].parent == i ? -ENOENT : (long)s->recs[i].parent;
}

long mntsnap_snapshot_stacked_on(const struct mntsnap_snapshot *s, size_t i)
{
	uint32_t p;

	if (!s)
		return -EINVAL;
	if (i >= s->nrecs)
		return -ERANGE;
	p = s->recs[i].parent;
	if (p == i || !(s->recs[i].mask & s->recs[p].mask & MNTSNAP_F_MOUNT_POINT) ||
	    strcmp(mp_of(s, p), mp_of(s, (uint32_t)i)))
		return -ENOENT;
	return p;
}
