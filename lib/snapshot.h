/* SPDX-License-Identifier: MIT */
/*
 * Snapshot internals shared by the backends, the wire format, diff and
 * refresh. Records are kept compact (memory target: at most 1.5x the bytes
 * of the same table's mountinfo text): strings live in one string table
 * and are referenced by 32-bit offsets, and everything describing the
 * superblock (device, magic, flags, fs type, source, options) is interned
 * once per distinct value, so 10,000 bind mounts of one tmpfs share it.
 */
#ifndef MNTSNAP_SNAPSHOT_H
#define MNTSNAP_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

#include "mntsnap.h"

#define MNTSNAP_NONE UINT32_MAX

/* Interned per-superblock part of a record. */
struct mntsnap_sb {
	uint64_t sb_magic;
	uint32_t dev_major, dev_minor, sb_flags;
	uint32_t fs_type, fs_subtype, source, options; /* strtab offsets */
	uint32_t opt_array, opt_sec_array;             /* strtab offsets */
	uint32_t opt_num, opt_sec_num;
	uint32_t uuid;                                 /* strtab offset */
	uint32_t hash;
	uint32_t mask; /* which of the sb-level MNTSNAP_F_* bits are set */
};

/*
 * Per-mount id maps, unknown optional fields, per-mount and super option
 * text of parsed text (struct mntsnap_mount opt_fields, mnt_opts_text,
 * sb_opts_text): rare, kept out of the common record.
 */
struct mntsnap_idmap {
	uint32_t uidmap, uidmap_num, gidmap, gidmap_num;
	uint32_t opt_fields; /* strtab offset, 0 = none */
	uint32_t mnt_opts;   /* strtab offset, 0 = none (mnt_opts_text) */
	uint32_t sb_opts;    /* strtab offset, 0 = none (sb_opts_text) */
};

struct mntsnap_rec {
	uint64_t id, parent_id;
	uint32_t mask;
	uint32_t id_old, parent_id_old;
	uint32_t attr, propagation, peer_group, master, propagate_from;
	uint32_t sb;                  /* index into sbs */
	uint32_t root, mount_point;   /* strtab offsets */
	uint32_t idmap;               /* index into idmaps or MNTSNAP_NONE */
	uint32_t parent;              /* storage index; == own index for roots */
	uint32_t first_child, next_sibling; /* MNTSNAP_NONE terminated */
	uint32_t depth;
};

/* A string table views may still point into (see keep_strings). */
struct mntsnap_old_strtab {
	struct mntsnap_old_strtab *next;
	char *strtab;
	uint32_t cap;
};

struct mntsnap_snapshot {
	struct mntsnap_rec *recs;
	uint32_t nrecs, recs_cap;
	struct mntsnap_sb *sbs;
	uint32_t nsbs, sbs_cap;
	uint32_t *sb_hash;            /* open addressing, sb index + 1, 0 = empty */
	uint32_t sb_hash_cap;
	struct mntsnap_idmap *idmaps;
	uint32_t nidmaps, idmaps_cap;
	char *strtab;                 /* strtab[0] == '\0' is the empty string */
	uint32_t strtab_len, strtab_cap;
	/*
	 * Set once the snapshot was handed to a caller who may hold views
	 * (mntsnap_refresh): strtab then never moves under them. A grow
	 * copies into a new table and keeps the old one here until
	 * mntsnap_snapshot_free(); growth doubles, so the kept tables add
	 * up to less than the current one.
	 */
	bool keep_strings;
	struct mntsnap_old_strtab *old_strtabs;
	uint32_t *tree;               /* tree order -> storage index */
	uint32_t nroots;              /* records without a parent in the table */
	/* lookup indexes (lib/lookup.c): built by the first lookup needing one */
	uint32_t *by_mp;              /* by mount point, parent, storage index */
	uint32_t *by_src;             /* by source, storage index */
	uint32_t *by_id;              /* storage indices sorted by id, NULL if storage is sorted */
	uint32_t *by_old;             /* storage indices sorted by id_old */
	int backend;
	uint32_t mask;                /* what the capture asked for */
	uint64_t ns_id;
	uint64_t time_ns;             /* CLOCK_REALTIME at capture */
	uint64_t kernel_supported_mask;
	int consistent;               /* 1 yes, 0 no, -1 not checked */
	unsigned attempts;            /* captures it took */
	char kernel_release[65];
};

/*
 * The order of 32-bit mount ids: libmount keeps them in an int and
 * compares them signed (children by ascending id, the root by the
 * smallest parent id), so a saved file's 2147483648 and up sort before
 * 0. Flipping the sign bit turns that order into an unsigned one; the
 * kernel's ids, all below 2^31, keep their plain order. by_old is sorted
 * and searched by this key.
 */
static inline uint32_t mntsnap__old_key(uint32_t id_old)
{
	return id_old ^ 0x80000000U;
}

/* Create an empty snapshot to fill. */
struct mntsnap_snapshot *mntsnap__snap_new(int backend, uint32_t mask);

/*
 * Append one record, copying every string m's mask marks valid (lists
 * are *_num NUL-terminated strings end to end). Ignores index/parent_index/
 * depth. Returns the new storage index or -ENOMEM/-EOVERFLOW.
 */
long mntsnap__snap_add(struct mntsnap_snapshot *s, const struct mntsnap_mount *m);

/*
 * Link parents and children, compute tree order and the lookup indexes,
 * and trim allocations. Must be called after the last add (and again after
 * further adds). -EBADMSG if parent links form a cycle.
 */
int mntsnap__snap_finish(struct mntsnap_snapshot *s);
/*
 * After a finish: records [0, nold) are what it indexed, drop[k] != 0 marks
 * those to remove, and records from nold on were added since. For a few
 * removed and added records (added ids above every kept one, a removed
 * mount's children removed too), removes them and keeps the tree, depths,
 * tree order and by_old up to date in place, equal to what a finish would
 * build, and returns 1. Returns 0, touching nothing, where that does not
 * apply (the caller compacts and finishes), or -ENOMEM, touching nothing.
 * Unlike a finish it keeps spare capacity: refreshes come again.
 */
int mntsnap__snap_update(struct mntsnap_snapshot *s, uint32_t nold, const uint8_t *drop);

/*
 * Make room for nrecs more records and str_bytes more of strings, so a capture
 * that knows its size up front (listmount) never reallocates and copies
 * while adding; mntsnap__snap_finish() trims what was not used.
 * 0, -ENOMEM or -EOVERFLOW.
 */
int mntsnap__snap_reserve(struct mntsnap_snapshot *s, uint32_t nrecs, uint32_t str_bytes);

/*
 * Keep only the records reachable from a process root, the directory
 * root_path (in the snapshot's mount point coordinates) on the mount with
 * unique id root_id, and make their mount points relative to it: what
 * the kernel's /proc/PID/mountinfo shows for a chrooted process. Needs
 * ids and mount points. 0, -ENOENT (no such mount in s, or no mount
 * point), -ENOMEM, -EBADMSG.
 */
int mntsnap__snap_reroot(struct mntsnap_snapshot *s, uint64_t root_id, const char *root_path);

/*
 * Keep no record: the view of a process root that reaches no mount of
 * the snapshot's namespace (show_mountinfo() prints none). 0 or -ENOMEM.
 */
int mntsnap__snap_clear(struct mntsnap_snapshot *s);

/*
 * Only the path part of the above, for a lookup of single mounts: mount
 * points at or below root_path become relative to it, others stay. 0 or
 * -ENOMEM.
 */
int mntsnap__snap_relative_to(struct mntsnap_snapshot *s, const char *root_path);

/* Drop fields from every record's mask and the snapshot's (asked for
 * only to work something out, not by the caller). */
void mntsnap__snap_drop_fields(struct mntsnap_snapshot *s, uint32_t fields);

/* Copy a string into strtab; returns its offset or -ENOMEM/-EOVERFLOW. */
long mntsnap__snap_str(struct mntsnap_snapshot *s, const char *str, size_t len);

/* Byte length of a list of n NUL-terminated strings laid end to end. */
size_t mntsnap__strlist_len(const char *list, uint32_t n);
/* Do two lists (count, bytes including inner NULs) differ? */
bool mntsnap__strlist_ne(const char *a, uint32_t an, const char *b, uint32_t bn);

/*
 * Drop the lookup indexes (lib/lookup.c): whatever changes records, their
 * order or their strings calls this.
 */
void mntsnap__lookup_reset(struct mntsnap_snapshot *s);

/* Set capture time and kernel release. */
void mntsnap__snap_stamp(struct mntsnap_snapshot *s);

/*
 * The bodies of public functions, for the inside of the library: a lib
 * file never calls the public API (the wrappers are what callers see).
 */
const char *mntsnap__backend_name(int backend);
size_t mntsnap__snapshot_count(const struct mntsnap_snapshot *s);
long mntsnap__snapshot_find(const struct mntsnap_snapshot *s, uint64_t id);
long mntsnap__snapshot_find_old(const struct mntsnap_snapshot *s, uint32_t id_old);
void mntsnap__snapshot_free(struct mntsnap_snapshot *s);
int mntsnap__snapshot_get(const struct mntsnap_snapshot *s, size_t i, struct mntsnap_mount *ret);
long mntsnap__snapshot_next_sibling(const struct mntsnap_snapshot *s, size_t i);
long mntsnap__snapshot_tree_index(const struct mntsnap_snapshot *s, size_t i);
long mntsnap__snapshot_find_path(const struct mntsnap_snapshot *s, const char *path);
long mntsnap__snapshot_find_mount_point(const struct mntsnap_snapshot *s, const char *path);
long mntsnap__snapshot_next_mount_point(const struct mntsnap_snapshot *s, const char *path,
					long after);
long mntsnap__snapshot_next_source(const struct mntsnap_snapshot *s, const char *source,
				   long after);

#endif
