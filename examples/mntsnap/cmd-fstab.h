/* SPDX-License-Identifier: MIT */
/* mntsnap list -s / -x: fstab listing and verification (cmd-fstab.c, verify.c). */
#ifndef MNTSNAP_CMD_FSTAB_H
#define MNTSNAP_CMD_FSTAB_H

#include <stdbool.h>

#include "fstab.h"
#include "pathcache.h"
#include "view.h"

struct fstab_args {
	struct view *view;  /* output options and filters of list */
	const char *path;   /* -F FILE, else /etc/fstab */
	/* -F given more than once: every file in turn, one table (path: the first) */
	const char *const *paths;
	size_t npaths;
	/*
	 * path or paths as the user named them, for messages (a -F pipe is
	 * read from a memory file); NULL: as they are
	 */
	const char *const *names;
	bool evaluate;      /* -e */
	bool verify;        /* -x */
	bool verbose;       /* --verbose (with -x) */
	/*
	 * -F FILE in the fstab format without -s: findmnt reads it as a kernel
	 * table (its TABTYPE_KERNEL): the path cache does not know this
	 * namespace's mount points, and -T PATH no entry has falls back to the
	 * entry PATH is under
	 */
	bool kernel_tab;
	bool mtab;          /* -m: an mtab, a kernel table when libmount marks it all so */
	/* -m -x: utab's userspace options per storage index (NULL: none) */
	const char *const *user_opts;
	struct pathcache *cache; /* libmount's path cache, for the whole run */
};

/* findmnt's walk over the entries a filter selects (cmd-fstab.c) */
struct fstab_match {
	const struct fstab_args *a;
	const struct fstab *t;
	const char *target, *source;
	bool majmin;         /* a "MAJ:MIN" source: the device number maj:min */
	unsigned maj, min;
	bool can_swap;       /* the argument may still be tried as a target */
	bool listall;        /* no filter: every entry */
	bool compat;         /* -f SPEC: mount(8)'s lookup */
	bool backward;       /* -d backward (-x always walks forward) */
	size_t pos;          /* steps walked */
};

/* findmnt's is_listall_mode(): no filter given (-D, --real, --pseudo are, without -A) */
bool fstab_listall(const struct view *v);

void fstab_match_init(struct fstab_match *mt, const struct fstab_args *a, const struct fstab *t,
		      bool backward);
/* the next entry found (an index of t), or -1 */
long fstab_match_next(struct fstab_match *mt);

/* -U: drop (mark gone) every entry whose target a later entry has */
void fstab_uniq(struct fstab *t, struct pathcache *c);

/* list -s / -x: 0, 1 (nothing matched; -x: an error found), or CLI_EXIT_ERR. */
int fstab_list(struct fstab_args *a);

/*
 * -x over the entries the filters select: findmnt's checks and messages;
 * returns 0 (no errors), 1 (errors or parse errors) or CLI_EXIT_ERR.
 */
int fstab_verify(const struct fstab_args *a, const struct fstab *t);

/* -x -k: the same checks on a captured mount table */
int fstab_verify_kernel(struct fstab_args *a, const struct mntsnap_snapshot *snap);
/* fstab_list() of a table read already (taken over: freed here) */
int fstab_list_table(struct fstab_args *a, struct fstab *t);


#endif
