// SPDX-License-Identifier: MIT
/*
 * listmount(2)/statmount(2) -> snapshot records.
 *
 * A capture lists every id (paginated listmount), then fetches each mount
 * with statmount, optionally with several threads (the calls are
 * independent; see "fetching"), adding records to the snapshot in id order
 * on the calling thread only: adding is cheap next to the syscalls, and
 * keeping it on one thread keeps the snapshot simple. propagate_from is
 * then derived rather than asked for (see "propagate_from without asking").
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "backends.h"
#include "fields.h"
#include "fsuuid.h"
#include "target.h"
#include "proc.h"
#include "hash.h"
#include "snapshot.h"

#define LIST_PAGE MNTSNAP_SM_LIST_PAGE
/*
 * Above 512 always: asked for strings with bufsize < 512 and producing
 * none, statmount (seen on 6.18) succeeds and writes one NUL at buf + 512,
 * past bufsize.
 */
#define SM_BUF_START (16 * 1024)
#define SM_BUF_MAX (64U * 1024 * 1024)

/*
 * String and list fields whose unset statmount bit, asked for and
 * supported, means the empty value (see empty_values() below). Not the
 * mount point (unset: outside the reader's root, so absent), nor the root
 * and fs type (never empty), nor fields statmount does not give.
 */
#define EMPTY_IS_A_VALUE                                                                           \
	(MNTSNAP_F_OPTS | MNTSNAP_F_OPT_ARRAY | MNTSNAP_F_OPT_SEC_ARRAY | MNTSNAP_F_FS_SUBTYPE |    \
	 MNTSNAP_F_SOURCE | MNTSNAP_F_UIDMAP | MNTSNAP_F_GIDMAP)

uint64_t mntsnap__sm_mask_from_fields(uint32_t f)
{
	uint64_t m = 0;

	/*
	 * The table's SM_ASK: a source also asks for the supported mask (one
	 * u64, 6.15+: an absent string bit can then be told apart, see
	 * empty_values() below); propagate_from also MNT_BASIC (records store it
	 * normalised against master).
	 */
	for (int i = 0; i < MNTSNAP_NFIELDS; i++)
		if (f & mntsnap__fields[i].bit)
			m |= mntsnap__fields[i].sm_ask;
	/* an unset string bit means "empty" only where the kernel supports it */
	if (f & EMPTY_IS_A_VALUE)
		m |= MNTSNAP_K_STATMOUNT_SUPPORTED_MASK;
	return m;
}

uint32_t mntsnap__fields_from_sm_mask(uint64_t m)
{
	uint32_t f = 0;

	for (int i = 0; i < MNTSNAP_NFIELDS; i++)
		if (m & mntsnap__fields[i].sm_got)
			f |= mntsnap__fields[i].bit;
	return f;
}

/* A string field: valid only if its bit came back and its offset is sane. */
static const char *sm_str(const struct mntsnap_k_statmount *sm, uint64_t bit, uint32_t off,
			  uint32_t *fmask, uint32_t fbit)
{
	size_t strsize = sm->size > sizeof(*sm) ? sm->size - sizeof(*sm) : 0;

	if (!(sm->mask & bit))
		return "";
	if (off >= strsize) {
		*fmask &= ~fbit;
		return "";
	}
	return sm->str + off;
}

/* A NUL-separated list: every element must end inside the buffer. */
static const char *sm_list(const struct mntsnap_k_statmount *sm, uint64_t bit, uint32_t off,
			   uint32_t n, uint32_t *fmask, uint32_t fbit)
{
	size_t strsize = sm->size > sizeof(*sm) ? sm->size - sizeof(*sm) : 0;
	size_t pos = off;

	if (!(sm->mask & bit))
		return "";
	for (uint32_t i = 0; i < n; i++) {
		const char *nul;

		if (pos >= strsize)
			goto bad;
		nul = memchr(sm->str + pos, '\0', strsize - pos);
		if (!nul)
			goto bad;
		pos = (size_t)(nul - sm->str) + 1;
	}
	return sm->str + off;
bad:
	*fmask &= ~fbit;
	return "";
}

/*
 * The kernel sets a string bit only when it produced a non-empty string
 * (and the id map bits only for an idmapped mount). That loses what /proc
 * keeps: a tmpfs without options, `mount -t tmpfs "" /x`, a mount that is
 * not idmapped all have a value, the empty one, and a diff must see
 * "" -> "size=1024k" as a change. So: asked for (want), supported (the
 * kernel says so in supported_mask, 6.15+) and unset means the empty
 * value, present. Without a supported mask (before 6.15) nothing can be
 * told and the field stays absent (a mount without a devname is printed
 * "none" by /proc, which is how an absent source renders). A field that
 * came back but failed its bounds check stays absent.
 */
static void empty_values(const struct mntsnap_k_statmount *sm, uint32_t want, uint32_t *f)
{
	uint32_t empty;

	if (!(sm->mask & MNTSNAP_K_STATMOUNT_SUPPORTED_MASK))
		return;
	empty = want & EMPTY_IS_A_VALUE &
		mntsnap__fields_from_sm_mask(sm->supported_mask & ~sm->mask);
	*f |= empty;
}

void mntsnap__sm_to_mount(const struct mntsnap_k_statmount *sm, uint32_t want, struct mntsnap_mount *m)
{
	uint32_t f = mntsnap__fields_from_sm_mask(sm->mask) & want;
	bool strings_ok = sm->size > sizeof(*sm) && ((const char *)sm)[sm->size - 1] == '\0';

	/* the string area must end in a NUL for any string to be trusted */
	if (!strings_ok)
		f &= ~(uint32_t)MNTSNAP__FIELDS_STRINGS;
	memset(m, 0, sizeof(*m));
	/*
	 * Numbers only where their bit came back: the rest of the buffer is
	 * whatever an earlier call (or a lying kernel) left there.
	 */
	if (sm->mask & MNTSNAP_K_STATMOUNT_SB_BASIC) {
		m->dev_major = sm->sb_dev_major;
		m->dev_minor = sm->sb_dev_minor;
		m->sb_magic = sm->sb_magic;
		m->sb_flags = sm->sb_flags;
	}
	if (sm->mask & MNTSNAP_K_STATMOUNT_MNT_BASIC) {
		m->id = sm->mnt_id;
		m->parent_id = sm->mnt_parent_id;
		m->id_old = sm->mnt_id_old;
		m->parent_id_old = sm->mnt_parent_id_old;
		m->attr = (uint32_t)sm->mnt_attr;
		m->propagation = (uint32_t)sm->mnt_propagation;
		m->peer_group = (uint32_t)sm->mnt_peer_group;
		m->master = (uint32_t)sm->mnt_master;
	}
	/*
	 * Normalised like the mountinfo text shows it (and backend-mountinfo.c
	 * stores it): 0 unless it differs from master. The kernel's value
	 * also is master or 0 depending on whether a peer of the master is
	 * visible, which the text cannot tell; records of both backends must
	 * compare equal.
	 */
	if ((sm->mask & MNTSNAP_K_STATMOUNT_PROPAGATE_FROM) && sm->propagate_from != m->master)
		m->propagate_from = (uint32_t)sm->propagate_from;
	if (sm->mask & MNTSNAP_K_STATMOUNT_MNT_NS_ID)
		m->ns_id = sm->mnt_ns_id;
	for (int i = 0; i < MNTSNAP_NFIELDS; i++) {
		const struct mntsnap_field *fl = &mntsnap__fields[i];
		uint32_t off;

		if (fl->kind != MNTSNAP_FK_STR && fl->kind != MNTSNAP_FK_LIST)
			continue;
		/* absent and empty strings are "", as the header promises */
		if (!(fl->sm_got & sm->mask)) {
			mntsnap__fset_str(m, fl, "");
			continue;
		}
		off = mntsnap__fu32(sm, fl->sm_str);
		if (fl->kind == MNTSNAP_FK_STR) {
			mntsnap__fset_str(m, fl, sm_str(sm, fl->sm_got, off, &f, fl->bit));
		} else if (fl->kind == MNTSNAP_FK_LIST) {
			uint32_t n = mntsnap__fu32(sm, fl->sm_num);

			mntsnap__fset_u32(m, fl->num_off, n);
			mntsnap__fset_str(m, fl, sm_list(sm, fl->sm_got, off, n, &f, fl->bit));
		}
	}
	if (strings_ok)
		empty_values(sm, want, &f);
	m->mask = f;
}

/* ---- one statmount call with a growing buffer ---------------------------- */

int mntsnap__sm_buf_init(struct mntsnap_sm_buf *b)
{
	b->size = SM_BUF_START;
	b->sm = malloc(b->size);
	return b->sm ? 0 : -ENOMEM;
}

void mntsnap__sm_buf_free(struct mntsnap_sm_buf *b)
{
	free(b->sm);
	b->sm = NULL;
	b->size = 0;
}

/* 0 if a statmount result in a bufsize buffer is sane for id, else -EBADMSG. */
static long sm_check(const struct mntsnap_k_statmount *sm, size_t bufsize, uint64_t id)
{
	/* a kernel (or seam) that claims more than it was given is lying */
	if (sm->size < sizeof(struct mntsnap_k_statmount) || sm->size > bufsize)
		return -EBADMSG;
	/* a record under another id would corrupt the snapshot's id index */
	if ((sm->mask & MNTSNAP_K_STATMOUNT_MNT_BASIC) && sm->mnt_id != id)
		return -EBADMSG;
	return 0;
}

long mntsnap__sm_call(const struct mntsnap_sysops *sys, const struct mntsnap_k_mnt_id_req *tmpl,
		     uint64_t id, uint64_t sm_mask, struct mntsnap_sm_buf *b)
{
	struct mntsnap_k_mnt_id_req req = *tmpl;
	long r;

	req.mnt_id = id;
	req.param = sm_mask;
	for (;;) {
		r = sys->statmount(sys->ctx, &req, b->sm, b->size, 0);
		if (r != -EOVERFLOW)
			break;
		if (b->size >= SM_BUF_MAX)
			return -E2BIG;
		/* the kernel's own seq buffer doubles too; follow it */
		void *n = realloc(b->sm, b->size * 2);

		if (!n)
			return -ENOMEM;
		b->sm = n;
		b->size *= 2;
	}
	if (r < 0)
		return r;
	return sm_check(b->sm, b->size, id);
}

/* ---- listing ------------------------------------------------------------- */

/*
 * listmount returns ids sorted (descending with MNTSNAP_K_LISTMOUNT_REVERSE) and
 * strictly past the previous page's last id. Anything else is a lying
 * kernel or seam, and trusting it could page forever.
 */
static bool ids_ordered(const uint64_t *ids, size_t n, uint64_t last, bool reverse)
{
	for (size_t i = 0; i < n; i++) {
		if (ids[i] <= MNTSNAP_K_MNT_UNIQUE_ID_OFFSET)
			return false;
		if (last && (reverse ? ids[i] >= last : ids[i] <= last))
			return false;
		last = ids[i];
	}
	return true;
}

int mntsnap__sm_list_once(const struct mntsnap_sysops *sys, const struct mntsnap_k_mnt_id_req *tmpl,
			 uint64_t under, bool reverse, uint64_t **ret_ids, size_t *ret_n,
			 bool *ret_one_call)
{
	struct mntsnap_k_mnt_id_req req = *tmpl;
	uint64_t *ids = NULL;
	size_t n = 0, cap = 0;
	unsigned calls = 0;
	bool short_page = true;
	long r;

	req.mnt_id = under ? under : MNTSNAP_K_LSMT_ROOT;
	req.param = 0;
	for (;;) {
		if (cap - n < LIST_PAGE) {
			uint64_t *nids = realloc(ids, (cap + LIST_PAGE * 2) * sizeof(*ids));

			if (!nids) {
				free(ids);
				return -ENOMEM;
			}
			ids = nids;
			cap += LIST_PAGE * 2;
		}
		r = sys->listmount(sys->ctx, &req, ids + n, LIST_PAGE,
				   reverse ? MNTSNAP_K_LISTMOUNT_REVERSE : 0);
		if (r < 0) {
			free(ids);
			return (int)r;
		}
		if (r > LIST_PAGE || !ids_ordered(ids + n, (size_t)r, req.param, reverse)) {
			free(ids);
			return -EBADMSG;
		}
		/*
		 * Only 0 ends the walk: a short page is the end on today's
		 * kernels, but nothing promises it (a seam, a tracer or a
		 * future per-call cap may return fewer), and the extra call
		 * costs one syscall per capture.
		 */
		if (r == 0)
			break;
		calls++;
		short_page = r < LIST_PAGE;
		n += (size_t)r;
		/* the next page starts after the last id; never read ids[-1] */
		req.param = ids[n - 1];
	}
	*ret_ids = ids;
	*ret_n = n;
	*ret_one_call = calls == 0 || (calls == 1 && short_page);
	return 0;
}

int mntsnap__sm_list(const struct mntsnap_sysops *sys, const struct mntsnap_k_mnt_id_req *tmpl,
		    uint64_t under, bool reverse, uint64_t **ret_ids, size_t *ret_n)
{
	bool one_call;

	return mntsnap__sm_list_once(sys, tmpl, under, reverse, ret_ids, ret_n, &one_call);
}

/* ---- fetching (optionally parallel) -------------------------------------- */
/*
 * Ids are cut into chunks that the threads claim in order. A thread keeps
 * the raw statmount results of its chunk in the chunk's arena; only the
 * calling thread adds records to the snapshot, in chunk order, whenever
 * the next chunk is complete. When the chunk the caller claims is the next
 * one to add, it skips the arena and adds each record straight from its
 * statmount buffer (with one thread, that is every chunk: no copy at all).
 * So adding overlaps the helpers' fetching, the caller claims fewer chunks
 * by the time it spends adding, and storage order stays listmount's order.
 *
 * 64 records of ~600 bytes fit an arena under glibc's mmap threshold
 * (128 KiB): heap memory that later captures reuse, instead of fresh
 * mappings whose page faults cost as much as the statmount calls saved.
 */
#define FETCH_CHUNK 64
#define ARENA_START (48 * 1024)
/*
 * Room offered to each statmount: records of a few hundred bytes fit, a
 * longer one (paths up to PATH_MAX and beyond) gets more on EOVERFLOW.
 */
#define SM_ROOM 4096

/* Raw statmount results, 8-byte aligned, size-prefixed by statmount.size. */
struct raw_arena {
	char *data;
	size_t len, cap;
};

struct fetch_ctx {
	const struct mntsnap_sysops *sys;
	const struct mntsnap_k_mnt_id_req *tmpl;
	const uint64_t *ids;
	size_t n, nchunks;
	uint64_t sm_mask;
	pthread_mutex_t lock;
	pthread_cond_t cond;       /* a chunk completed or a helper exited */
	size_t next;               /* first unclaimed chunk; lock */
	unsigned helpers;          /* helpers still running; lock */
	size_t vanished;           /* lock */
	int err;                   /* first error; lock */
	struct raw_arena *arenas;  /* one per chunk */
	bool *done;                /* arena complete; lock */
};

/* At least room bytes free at the end of the arena. */
static int arena_room(struct raw_arena *a, size_t room)
{
	size_t ncap = a->cap ? a->cap : ARENA_START;
	char *nd;

	if (a->cap - a->len >= room)
		return 0;
	while (ncap - a->len < room)
		ncap *= 2;
	nd = realloc(a->data, ncap);
	if (!nd)
		return -ENOMEM;
	a->data = nd;
	a->cap = ncap;
	return 0;
}

/*
 * statmount(id) written by the kernel straight to the end of the arena (no
 * copy), which then keeps it, 8-byte aligned. Growing on EOVERFLOW like
 * mntsnap__sm_call(). 0, -ENOENT (gone) or another -errno.
 */
static long arena_call(struct fetch_ctx *c, struct raw_arena *a, uint64_t id)
{
	struct mntsnap_k_mnt_id_req req = *c->tmpl;
	struct mntsnap_k_statmount *sm;
	size_t room = SM_ROOM;
	long r;

	req.mnt_id = id;
	req.param = c->sm_mask;
	for (;;) {
		r = arena_room(a, room);
		if (r)
			return r;
		sm = (struct mntsnap_k_statmount *)(a->data + a->len);
		r = c->sys->statmount(c->sys->ctx, &req, sm, room, 0);
		if (r != -EOVERFLOW)
			break;
		if (room >= SM_BUF_MAX)
			return -E2BIG;
		room *= 2;
	}
	if (r < 0)
		return r;
	r = sm_check(sm, room, id);
	if (r)
		return r;
	a->len += (sm->size + 7) & ~(size_t)7;
	return 0;
}

/* Next unclaimed chunk; false when none is left or an error stopped all. */
static bool claim_locked(struct fetch_ctx *c, size_t *ret_chunk)
{
	if (c->err || c->next >= c->nchunks)
		return false;
	*ret_chunk = c->next++;
	return true;
}

/* Every mount of chunk k into arena a. */
static int fetch_chunk(struct fetch_ctx *c, size_t k, struct raw_arena *a, size_t *vanished)
{
	size_t lo = k * FETCH_CHUNK, hi = lo + FETCH_CHUNK < c->n ? lo + FETCH_CHUNK : c->n;

	for (size_t i = lo; i < hi; i++) {
		long r = arena_call(c, a, c->ids[i]);

		if (r == -ENOENT) {
			/* unmounted between listmount and statmount: not an error */
			(*vanished)++;
			continue;
		}
		if (r < 0)
			return (int)r;
	}
	return 0;
}

/* Record the outcome of a chunk (or of a worker's end) and wake the caller. */
static void chunk_done(struct fetch_ctx *c, size_t k, size_t vanished, int err)
{
	pthread_mutex_lock(&c->lock);
	c->vanished += vanished;
	if (err && !c->err)
		c->err = err;
	if (!err && k < c->nchunks)
		c->done[k] = true;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

static void *helper_run(void *arg)
{
	struct fetch_ctx *c = arg;
	int err = 0;
	size_t k;

	for (;;) {
		size_t vanished = 0;
		bool more;

		pthread_mutex_lock(&c->lock);
		more = !err && claim_locked(c, &k);
		if (!more)
			c->helpers--;
		pthread_mutex_unlock(&c->lock);
		if (!more)
			break;
		err = fetch_chunk(c, k, &c->arenas[k], &vanished);
		chunk_done(c, k, vanished, err);
	}
	chunk_done(c, c->nchunks, 0, err); /* wakes a caller waiting on us */
	return NULL;
}

/* The kernel's supported mask, where the request asked for it (string fields). */
static void note_supported(struct mntsnap_snapshot *s, const struct mntsnap_k_statmount *sm)
{
	if (sm->mask & MNTSNAP_K_STATMOUNT_SUPPORTED_MASK)
		s->kernel_supported_mask = sm->supported_mask;
}

static int ingest(struct mntsnap_snapshot *s, struct raw_arena *a, uint32_t want)
{
	for (size_t off = 0; off < a->len;) {
		const struct mntsnap_k_statmount *sm = (const void *)(a->data + off);
		struct mntsnap_mount m;
		long r;

		mntsnap__sm_to_mount(sm, want, &m);
		note_supported(s, sm);
		r = mntsnap__snap_add(s, &m);
		if (r < 0)
			return (int)r;
		off += (sm->size + 7) & ~(size_t)7;
	}
	return 0;
}

/*
 * The calling thread: add every complete chunk in order, then claim one
 * and fetch it (straight into the snapshot when it is the next to add),
 * and when nothing is left to claim, wait for the helpers' last chunks.
 */
static int caller_run(struct fetch_ctx *c, struct mntsnap_snapshot *s, uint32_t want)
{
	struct raw_arena mine = {0};
	size_t next_add = 0, ready, k = 0;
	int err = 0;

	while (!err && next_add < c->nchunks) {
		size_t vanished = 0;
		bool have;

		pthread_mutex_lock(&c->lock);
		for (ready = next_add; ready < c->nchunks && c->done[ready]; ready++)
			;
		have = ready == next_add && claim_locked(c, &k);
		/* nothing to add, nothing to claim: a helper still works */
		while (!have && ready == next_add && !c->err && c->helpers &&
		       !c->done[next_add])
			pthread_cond_wait(&c->cond, &c->lock);
		err = c->err;
		/* every claimed chunk ends done or with an error: never spin */
		if (!err && !have && ready == next_add && !c->helpers && !c->done[next_add])
			err = -EIO;
		pthread_mutex_unlock(&c->lock);
		if (err)
			break;
		for (; next_add < ready && !err; next_add++) {
			err = ingest(s, &c->arenas[next_add], want);
			free(c->arenas[next_add].data);
			c->arenas[next_add].data = NULL;
		}
		if (err || !have)
			continue;
		if (k != next_add) { /* to add once the chunks before it are in */
			err = fetch_chunk(c, k, &c->arenas[k], &vanished);
			chunk_done(c, k, vanished, err);
			continue;
		}
		/* next in line: fetch and add at once, reusing one warm arena */
		mine.len = 0;
		err = fetch_chunk(c, k, &mine, &vanished);
		if (!err)
			err = ingest(s, &mine, want);
		if (!err)
			next_add++;
		chunk_done(c, k, vanished, err);
	}
	free(mine.data);
	if (err)
		chunk_done(c, c->nchunks, 0, err); /* stop the helpers */
	return err;
}

static int fetch_all(const struct mntsnap_sysops *sys, const struct mntsnap_k_mnt_id_req *tmpl,
		     const uint64_t *ids, size_t n, uint64_t sm_mask, unsigned threads,
		     struct mntsnap_snapshot *s, uint32_t want, size_t *ret_vanished)
{
	struct fetch_ctx c = { .sys = sys, .tmpl = tmpl, .ids = ids, .n = n,
			       .sm_mask = sm_mask, .lock = PTHREAD_MUTEX_INITIALIZER,
			       .cond = PTHREAD_COND_INITIALIZER };
	pthread_t tids[64];
	unsigned started = 0;
	int err;

	c.nchunks = (n + FETCH_CHUNK - 1) / FETCH_CHUNK;
	if (threads > 64)
		threads = 64;
	if (threads < 2 || c.nchunks < 2 * (size_t)threads)
		threads = 1; /* a thread is not worth it for a tiny table */
	c.arenas = calloc(c.nchunks + 1, sizeof(*c.arenas));
	c.done = calloc(c.nchunks + 1, sizeof(*c.done));
	if (!c.arenas || !c.done) {
		free(c.arenas);
		free(c.done);
		return -ENOMEM;
	}
	for (unsigned t = 1; t < threads; t++) {
		/* counted before it runs: it may finish before we look again */
		pthread_mutex_lock(&c.lock);
		c.helpers++;
		pthread_mutex_unlock(&c.lock);
		if (pthread_create(&tids[started], NULL, helper_run, &c)) {
			pthread_mutex_lock(&c.lock);
			c.helpers--;
			pthread_mutex_unlock(&c.lock);
			break; /* fewer helpers: the caller claims more itself */
		}
		started++;
	}
	err = caller_run(&c, s, want);
	for (unsigned t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
	if (!err)
		err = c.err;
	for (size_t k = 0; k < c.nchunks; k++)
		free(c.arenas[k].data);
	free(c.arenas);
	free(c.done);
	pthread_cond_destroy(&c.cond);
	pthread_mutex_destroy(&c.lock);
	*ret_vanished = c.vanished;
	return err;
}

/* ---- propagate_from without asking the kernel for every mount -------------- */
/*
 * The kernel's propagate_from is get_dominating_id(mnt, reader's root)
 * (fs/pnode.c): walk mnt's master chain and return the first group with a
 * member in mnt's namespace that is reachable from the reader's root. For
 * a slave, every step of that walk visits every peer of the group, so
 * asking statmount for it costs O(peers) per mount: a namespace whose
 * mounts are slaves of one big peer group costs O(mounts x peers), in
 * /proc/PID/mountinfo as much as in statmount. Two facts make it cheap:
 *
 *  1. listmount(MNTSNAP_K_LSMT_ROOT) in the caller's own namespace lists exactly the
 *     mounts of that namespace reachable from the caller's root (the same
 *     is_path_reachable() test), so if a listed mount is a member of the
 *     slave's master group, the walk stops there: dom == master, which
 *     mountinfo does not print and records store as 0.
 *  2. Otherwise the answer depends only on the master group (peers share
 *     their master; namespace and root are the same for every mount read),
 *     so one kernel call per such group answers for all its slaves.
 *
 * A foreign namespace (the kernel answers relative to the caller's root)
 * or a subtree capture (not everything the walk could find is listed)
 * uses rule 2 only. MNTSNAP_CAPTURE_KERNEL_PROPAGATE_FROM skips all this.
 */
struct pf_cache {
	uint32_t *key, *val; /* open addressing on the master group id */
	size_t cap;
};

static uint32_t *pf_slot(struct pf_cache *pc, uint32_t group)
{
	size_t h = mntsnap_hash_u32(group) & (pc->cap - 1);

	while (pc->key[h] && pc->key[h] != group)
		h = (h + 1) & (pc->cap - 1);
	return &pc->key[h];
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorted peer group ids of the shared records (rule 1). */
static int visible_groups(const struct mntsnap_snapshot *s, uint32_t **ret, size_t *ret_n)
{
	uint32_t *g = malloc((size_t)s->nrecs * sizeof(*g) + 1);
	size_t n = 0;

	if (!g)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->nrecs; i++)
		if ((s->recs[i].propagation & MNTSNAP_PROP_SHARED) && s->recs[i].peer_group)
			g[n++] = s->recs[i].peer_group;
	qsort(g, n, sizeof(*g), cmp_u32);
	*ret = g;
	*ret_n = n;
	return 0;
}

/*
 * Kernel's answer for record r (one statmount with PROPAGATE_FROM).
 * 1 and *ret_pf if it could be had, 0 if the mount is gone or the kernel
 * did not fill it, -errno on failure. *ret_same_master: still r's master.
 */
static int kernel_pf(const struct mntsnap_sysops *sys, const struct mntsnap_k_mnt_id_req *tmpl,
		     const struct mntsnap_rec *r, struct mntsnap_sm_buf *b, uint32_t *ret_pf,
		     bool *ret_same_master)
{
	long e = mntsnap__sm_call(sys, tmpl, r->id, MNTSNAP_K_STATMOUNT_MNT_BASIC | MNTSNAP_K_STATMOUNT_PROPAGATE_FROM,
				 b);

	if (e == -ENOENT)
		return 0;
	if (e < 0)
		return (int)e;
	if (!(b->sm->mask & MNTSNAP_K_STATMOUNT_PROPAGATE_FROM) || !(b->sm->mask & MNTSNAP_K_STATMOUNT_MNT_BASIC))
		return 0;
	*ret_pf = (uint32_t)b->sm->propagate_from;
	*ret_same_master = (uint32_t)b->sm->mnt_master == r->master;
	return 1;
}

static int derive_one(const struct mntsnap_sysops *sys, const struct mntsnap_k_mnt_id_req *tmpl,
		      struct mntsnap_rec *r, const uint32_t *vis, size_t nvis,
		      struct pf_cache *pc, struct mntsnap_sm_buf *b)
{
	uint32_t *slot, pf = 0;
	bool same = false;
	int e;

	if (!(r->mask & MNTSNAP_F_PROPAGATION))
		return 0; /* no MNT_BASIC from this kernel: nothing to derive from */
	if (!(r->propagation & MNTSNAP_PROP_SLAVE) || !r->master)
		goto known; /* not a slave: the kernel says 0 */
	if (vis && bsearch(&r->master, vis, nvis, sizeof(*vis), cmp_u32))
		goto known; /* rule 1: dom == master */
	slot = pf_slot(pc, r->master);
	if (*slot) {
		pf = pc->val[slot - pc->key];
		goto known;
	}
	/* the buffer only once a slave needs the kernel */
	e = b->sm ? 0 : mntsnap__sm_buf_init(b);
	if (!e)
		e = kernel_pf(sys, tmpl, r, b, &pf, &same);
	if (e <= 0)
		return e; /* gone or unknown: the record keeps no propagate_from */
	if (same) {
		*slot = r->master;
		pc->val[slot - pc->key] = pf;
	}
known:
	r->propagate_from = pf != r->master ? pf : 0;
	r->mask |= MNTSNAP_F_PROPAGATE_FROM;
	return 0;
}

static int derive_propagate_from(const struct mntsnap_sysops *sys, const struct mntsnap_k_mnt_id_req *tmpl,
				 bool whole_own_ns, struct mntsnap_snapshot *s)
{
	struct pf_cache pc = { .cap = 16 };
	uint32_t *vis = NULL;
	size_t nvis = 0;
	struct mntsnap_sm_buf b = {0};
	int r = 0;

	while (pc.cap < (size_t)s->nrecs * 2)
		pc.cap *= 2;
	pc.key = calloc(pc.cap, sizeof(*pc.key));
	pc.val = malloc(pc.cap * sizeof(*pc.val));
	if (!pc.key || !pc.val)
		r = -ENOMEM;
	if (!r && whole_own_ns)
		r = visible_groups(s, &vis, &nvis);
	for (uint32_t i = 0; !r && i < s->nrecs; i++)
		r = derive_one(sys, tmpl, &s->recs[i], vis, nvis, &pc, &b);
	mntsnap__sm_buf_free(&b);
	free(vis);
	free(pc.key);
	free(pc.val);
	return r;
}

/* ---- fields statmount does not give ------------------------------------- */

/* Mounts of one superblock tried for its UUID before it counts as absent. */
#define UUID_TRIES 3

/*
 * The UUID of every superblock of s, read through one of its mounts
 * (mount points relative to root_dirfd), set on the interned superblock
 * and on every record of it. A mount whose path no longer leads to it
 * (over-mounted, moved) says nothing about its superblock: up to
 * UUID_TRIES mounts are tried. Errors other than "none" are the
 * system's (ENOMEM, EMFILE) and fail the capture.
 */
int mntsnap__snap_read_uuids(struct mntsnap_snapshot *s, int root_dirfd, int byuuid_dirfd,
			     uint32_t from)
{
	uint8_t *tries;
	int r = 0;

	if (!(s->mask & MNTSNAP_F_UUID) || !s->nsbs)
		return 0;
	tries = calloc(s->nsbs, 1);
	if (!tries)
		return -ENOMEM;
	for (uint32_t i = from; i < s->nrecs && !r; i++) {
		struct mntsnap_rec *rec = &s->recs[i];
		struct mntsnap_sb *sb = &s->sbs[rec->sb];
		char uuid[37];
		long off;

		if ((sb->mask & MNTSNAP_F_UUID) || tries[rec->sb] >= UUID_TRIES)
			continue;
		/*
		 * No UUID-bearing type and no device (tmpfs, proc, FUSE,
		 * overlay, NFS): none of the ways to a UUID applies, so "none"
		 * is known for sure and is the empty value, present. Every
		 * other "none" may be a path that no longer leads to the
		 * mount, and stays absent.
		 */
		if ((sb->mask & (MNTSNAP_F_DEV | MNTSNAP_F_FS_TYPE)) ==
			    (MNTSNAP_F_DEV | MNTSNAP_F_FS_TYPE) &&
		    !sb->dev_major && !mntsnap__fs_uuid_type_listed(s->strtab + sb->fs_type)) {
			sb->uuid = 0; /* the string table starts with "" */
			sb->mask |= MNTSNAP_F_UUID;
			continue;
		}
		if (!(rec->mask & MNTSNAP_F_MOUNT_POINT) || !(rec->mask & MNTSNAP_F_ID))
			continue;
		tries[rec->sb]++;
		r = byuuid_dirfd == AT_FDCWD
			    ? mntsnap__fs_uuid(root_dirfd, s->strtab + rec->mount_point, rec->id,
					       sb->dev_major, sb->dev_minor,
					       s->strtab + sb->fs_type, uuid)
			    : mntsnap__fs_uuid_at(root_dirfd, s->strtab + rec->mount_point,
						  rec->id, sb->dev_major, sb->dev_minor,
						  s->strtab + sb->fs_type,
						  byuuid_dirfd < 0 ? MNTSNAP_FS_UUID_NO_UDEV
								   : byuuid_dirfd,
						  uuid);
		if (r == -ENODATA) {
			r = 0;
			continue;
		}
		if (r)
			break;
		off = mntsnap__snap_str(s, uuid, strnlen(uuid, sizeof(uuid) - 1));
		if (off < 0) {
			r = (int)off;
			break;
		}
		sb->uuid = (uint32_t)off;
		sb->mask |= MNTSNAP_F_UUID;
	}
	for (uint32_t i = from; i < s->nrecs && !r; i++)
		if (s->sbs[s->recs[i].sb].mask & MNTSNAP_F_UUID)
			s->recs[i].mask |= MNTSNAP_F_UUID;
	free(tries);
	return r;
}

/*
 * The root the mount points of a capture through o->ns are relative to,
 * for reading files of its mounts: the caller's own (AT_FDCWD), the
 * target's as the helper opened it before confining itself, or the root
 * of the target process (O_PATH; *ret_close says close it). -ENOENT when
 * there is none to open (a handle without a process): those fields stay
 * absent.
 */
static int mounts_root(const struct mntsnap_ns *ns, bool own_ns, bool *ret_close)
{
	*ret_close = false;
	if (ns && ns->inside)
		return ns->root_fd >= 0 ? ns->root_fd : -ENOENT;
	if (own_ns || !ns || ns->self)
		return AT_FDCWD;
	*ret_close = true;
	return mntsnap__task_root_fd(ns->pidfd, ns->piddir);
}

/* The fields read apart from statmount, for s captured through ns. */
static int read_late_fields(struct mntsnap_snapshot *s, const struct mntsnap_ns *ns, bool own_ns)
{
	bool close_it;
	int root, r;

	if (!(s->mask & MNTSNAP_F_UUID))
		return 0;
	root = mounts_root(ns, own_ns, &close_it);
	if (root == -ENOENT || root == -EACCES || root == -ESRCH)
		return 0; /* absent: no root to read them from */
	if (root < 0 && root != AT_FDCWD)
		return root;
	/* inside a target, udev's links come from the caller's /dev only */
	r = mntsnap__snap_read_uuids(s, root, ns && ns->inside ? ns->byuuid_fd : AT_FDCWD, 0);
	if (close_it)
		close(root);
	return r;
}

int mntsnap__statmount_capture(const struct mntsnap_capture_opts *o,
			      const struct mntsnap_sysops *sys, int route, uint32_t want,
			      struct mntsnap_snapshot **ret_snap, size_t *ret_vanished)
{
	struct mntsnap_k_mnt_id_req tmpl = {0};
	struct mntsnap_snapshot *s;
	uint64_t *ids = NULL, sm_mask;
	bool own_ns, derive;
	size_t n = 0;
	int r;

	mntsnap_ns_fill_req(o->ns, route, &tmpl);
	own_ns = tmpl.size == MNTSNAP_K_MNT_ID_REQ_SIZE_VER0 && !tmpl.mnt_ns_fd;
	r = mntsnap__sm_list(sys, &tmpl, o->under_id, o->flags & MNTSNAP_CAPTURE_REVERSE, &ids,
			    &n);
	if (r < 0)
		return r;
	s = mntsnap__snap_new(MNTSNAP_BACKEND_STATMOUNT, want);
	if (!s) {
		free(ids);
		return -ENOMEM;
	}
	mntsnap__snap_stamp(s);
	/* listmount(under) excludes "under" itself; a subtree includes its root */
	if (o->under_id) {
		uint64_t *nids = realloc(ids, (n + 1) * sizeof(*ids));

		if (!nids) {
			r = -ENOMEM;
			goto out;
		}
		ids = nids;
		memmove(ids + 1, ids, n * sizeof(*ids));
		ids[0] = o->under_id;
		n++;
	}
	sm_mask = mntsnap__sm_mask_from_fields(want);
	derive = (want & MNTSNAP_F_PROPAGATE_FROM) &&
		 !(o->flags & MNTSNAP_CAPTURE_KERNEL_PROPAGATE_FROM);
	if (derive) /* from peer group and master (MNT_BASIC), see above */
		sm_mask = (sm_mask & ~(uint64_t)MNTSNAP_K_STATMOUNT_PROPAGATE_FROM) | MNTSNAP_K_STATMOUNT_MNT_BASIC;
	/* listmount told the size: no realloc-and-copy while adding (~32 B of
	 * root and mount point strings per mount is typical; finish trims) */
	if (n < UINT32_MAX / 64)
		r = mntsnap__snap_reserve(s, (uint32_t)n, (uint32_t)n * 32);
	/*
	 * Deriving reads propagation, peer group and master of every record,
	 * so records keep MNTSNAP_F_PROPAGATION (it says MNT_BASIC came back)
	 * until then, even when the caller's mask did not ask for it.
	 */
	if (!r)
		r = fetch_all(sys, &tmpl, ids, n, sm_mask, o->threads, s,
			      derive ? want | MNTSNAP_F_PROPAGATION : want, ret_vanished);
	if (!r && derive)
		r = derive_propagate_from(sys, &tmpl, own_ns && !o->under_id, s);
	for (uint32_t i = 0; !r && derive && !(want & MNTSNAP_F_PROPAGATION) && i < s->nrecs; i++)
		s->recs[i].mask &= ~(uint32_t)MNTSNAP_F_PROPAGATION;
	if (!r)
		r = read_late_fields(s, o->ns, own_ns);
	if (!r)
		r = mntsnap__snap_finish(s);
out:
	free(ids);
	if (r < 0) {
		mntsnap__snapshot_free(s);
		return r;
	}
	*ret_snap = s;
	return 0;
}

/* ---- single mounts --------------------------------------------------------- */

/*
 * One mount's statmount result is a few hundred bytes. A lookup is a
 * single syscall, so the 16 KiB heap buffer a walk uses would be a fair
 * share of its cost: try a buffer on the stack first, and take the
 * growing heap buffer only when the kernel says it does not fit.
 */
#define SM_STACK_BUF 4096

static long stat_call(const struct mntsnap_sysops *sys, const struct mntsnap_k_mnt_id_req *tmpl,
		      uint64_t id, uint64_t sm_mask, struct mntsnap_k_statmount *stack,
		      struct mntsnap_sm_buf *heap, const struct mntsnap_k_statmount **ret_sm)
{
	struct mntsnap_k_mnt_id_req req = *tmpl;
	long r;

	req.mnt_id = id;
	req.param = sm_mask;
	r = sys->statmount(sys->ctx, &req, stack, SM_STACK_BUF, 0);
	if (r == -EOVERFLOW) {
		r = mntsnap__sm_buf_init(heap);
		if (!r)
			r = mntsnap__sm_call(sys, tmpl, id, sm_mask, heap);
		*ret_sm = heap->sm;
		return r;
	}
	if (r < 0)
		return r;
	*ret_sm = stack;
	return sm_check(stack, SM_STACK_BUF, id);
}

int mntsnap__sm_stat_one(const struct mntsnap_sysops *sys, const struct mntsnap_ns *ns,
			int route, uint64_t id, uint32_t mask, struct mntsnap_snapshot **ret_snap)
{
	union {
		struct mntsnap_k_statmount sm;
		char bytes[SM_STACK_BUF];
	} stack;
	struct mntsnap_k_mnt_id_req tmpl = {0};
	const struct mntsnap_k_statmount *sm = NULL;
	struct mntsnap_snapshot *s;
	struct mntsnap_sm_buf b = {0};
	struct mntsnap_mount m;
	long r;

	if (!mask)
		mask = MNTSNAP_MASK_DEFAULT;
	if (id <= MNTSNAP_K_MNT_UNIQUE_ID_OFFSET)
		return -EINVAL;
	mntsnap_ns_fill_req(ns, route, &tmpl);
	r = stat_call(sys, &tmpl, id, mntsnap__sm_mask_from_fields(mask), &stack.sm, &b, &sm);
	if (r < 0)
		goto out;
	s = mntsnap__snap_new(MNTSNAP_BACKEND_STATMOUNT, mask);
	if (!s) {
		r = -ENOMEM;
		goto out;
	}
	mntsnap__snap_stamp(s);
	mntsnap__sm_to_mount(sm, mask, &m);
	note_supported(s, sm);
	r = mntsnap__snap_reserve(s, 1, 0);
	if (!r)
		r = mntsnap__snap_add(s, &m);
	if (r >= 0)
		r = read_late_fields(s, ns, tmpl.size == MNTSNAP_K_MNT_ID_REQ_SIZE_VER0 &&
						  !tmpl.mnt_ns_fd);
	if (r >= 0)
		r = mntsnap__snap_finish(s);
	if (r < 0) {
		mntsnap__snapshot_free(s);
		goto out;
	}
	*ret_snap = s;
	r = 0;
out:
	mntsnap__sm_buf_free(&b);
	return (int)r;
}

static int statx_to_id(const struct mntsnap_sysops *sys, int dirfd, const char *path,
		       int flags, uint64_t *ret_id)
{
	struct mntsnap_statx stx;
	long r;

	memset(&stx, 0, sizeof(stx));
	r = sys->statx(sys->ctx, dirfd, path, flags, MNTSNAP_STATX_MNT_ID_UNIQUE, &stx);
	if (r < 0)
		return (int)r;
	/* kernels before 6.8 ignore the request bit: no unique id to use */
	if (!(stx.stx_mask & MNTSNAP_STATX_MNT_ID_UNIQUE))
		return -ENOSYS;
	*ret_id = stx.stx_mnt_id;
	return 0;
}

int mntsnap__path_to_id(const struct mntsnap_sysops *sys, const char *path, uint64_t *ret_id)
{
	if (!path || !*path)
		return -EINVAL;
	/* AT_FDCWD; follow symlinks like findmnt does; no automount */
	return statx_to_id(sys, -100, path, 0x800 /* AT_NO_AUTOMOUNT */, ret_id);
}

int mntsnap__fd_to_id(const struct mntsnap_sysops *sys, int fd, uint64_t *ret_id)
{
	if (fd < 0)
		return -EBADF;
	return statx_to_id(sys, fd, "", 0x1000 /* AT_EMPTY_PATH */, ret_id);
}
