/* SPDX-License-Identifier: MIT */
/*
 * Internal to the mntsnap CLI (and its fuzz target): the seccomp fragments
 * built from seccomp/syscalls.csv, and the profile merger.
 */
#ifndef MNTSNAP_SECCOMP_MERGE_H
#define MNTSNAP_SECCOMP_MERGE_H

#include <stdbool.h>
#include <stddef.h>

enum mntsnap__sc_format {
	MNTSNAP__SC_OCI,
	MNTSNAP__SC_DOCKER,
	MNTSNAP__SC_SYSTEMD,
	MNTSNAP__SC_C,
	MNTSNAP__SC_AUTO,
};

enum mntsnap__sc_set { MNTSNAP__SC_QUERY, MNTSNAP__SC_FULL };

#define MNTSNAP__SC_ENOSYS 38
#define MNTSNAP__SC_ADMIN "CAP_SYS_ADMIN"
#define MNTSNAP__SC_MAXNAMES 32

/* One syscalls[] entry of a fragment; every fragment entry is an ALLOW. */
struct mntsnap__sc_entry {
	const char *comment;	/* Docker format only; NULL = none */
	const char *names[MNTSNAP__SC_MAXNAMES];
	int n;
	bool gated;		/* Docker: includes.caps = [CAP_SYS_ADMIN] */
	const char *min_kernel;	/* Docker: includes.minKernel, or NULL */
};

struct mntsnap__sc_frag {
	struct mntsnap__sc_entry e[MNTSNAP__SC_MAXNAMES];
	int n;
};

/* Names the profile already decides are left out of a fragment. */
typedef bool (*mntsnap__sc_skip_fn)(const char *name, void *data);

/*
 * The fragment for format (OCI or DOCKER) and set. statmount/listmount are
 * allowed unconditionally; the rest of the full set is gated on
 * CAP_SYS_ADMIN in Docker format, and in OCI format (no gate exists) added
 * only when admin says the container holds CAP_SYS_ADMIN. skip may be NULL.
 */
void mntsnap__sc_build(struct mntsnap__sc_frag *f, int format, int set, bool admin,
		       mntsnap__sc_skip_fn skip, void *data);

/* Is name statmount or listmount (the 'query' set)? */
bool mntsnap__sc_is_query(const char *name);

/* The kernel that first had name, if it is in mntsnap's table; else NULL. */
const char *mntsnap__sc_since(const char *name);

struct json_object;

/*
 * Is this syscalls[] entry one mntsnap's Docker fragment wrote (key for key
 * as the fragment has it, names a subset), now or in the shapes versions
 * before the gates were fixed wrote? A user's entry never is, whatever its
 * comment says.
 */
bool mntsnap__sc_entry_is_ours(struct json_object *e);

struct mntsnap__merge_opts {
	int format;		/* MNTSNAP__SC_OCI, _DOCKER or _AUTO (as the input) */
	int set;		/* MNTSNAP__SC_QUERY or _FULL */
	bool enosys;		/* --errno-enosys */
	const char *caps;	/* the container's bounding set, comma-separated; NULL = not stated */
	const char *machine;	/* uname -m for Docker -> OCI; NULL = this host */
	int kmaj, kmin;		/* kernel for minKernel; kmaj 0 = this host */
	char **ret_what;	/* NULL, or on success one line saying what the merge
				 * changed (malloc'ed) */
};

/*
 * Merge the fragment into the profile (or OCI config.json) in text[0..len).
 * On success *ret_json is the merged document (malloc'ed): the input's
 * bytes wherever the merge changed nothing, the input itself when it
 * changed nothing at all (seccomp-splice.c).
 * On failure returns -EINVAL (malformed or refused input: *ret_err says why,
 * with the JSON path), -EOPNOTSUPP (host arch unknown for a Docker -> OCI
 * resolution), -EFBIG, uname(2)'s -errno, or -ENOMEM; *ret_err (malloc'ed)
 * says why and may be NULL only for -ENOMEM.
 */
int mntsnap__sc_merge(const char *text, size_t len, const struct mntsnap__merge_opts *o,
		      char **ret_json, char **ret_err);

#endif
