/* SPDX-License-Identifier: MIT */
/*
 * fstab(5) for `mntsnap list -s` and `-x`, read as findmnt 2.38 (libmount)
 * reads it. The CLI's own small parser, not libmount's: the library stays
 * libc-only, and linking libmount (with libblkid and libselinux behind it)
 * for ~300 lines of text parsing would more than double the static CLI.
 */
#ifndef MNTSNAP_FSTAB_H
#define MNTSNAP_FSTAB_H

#include <stdbool.h>
#include <stddef.h>

#include "columns.h"

struct fstab_ent {
	/*
	 * First, so that the column getters, which see a mntsnap_mount, can
	 * reach the entry (cx->fstab says they may): mount_point, source and
	 * fs_type point at the strings below, root is "".
	 */
	struct mntsnap_mount m;
	char *source;   /* fs_spec, unescaped (\ooo), as written: "LABEL=x" too */
	char *target;   /* fs_file */
	char *fstype;   /* fs_vfstype */
	char *options;  /* fs_mntops as written, NULL when the field is missing */
	/* the options split as libmount splits them; NULL when none */
	char *vfs_opts, *fs_opts, *user_opts;
	/* a LABEL=, UUID=, PARTUUID=, PARTLABEL= or ID= source, else NULL */
	char *tagname, *tagval;
	int freq, passno;
	unsigned line;
	bool gone;       /* -U: a later entry has this target */
	/*
	 * libmount's MNT_FS_KERNEL: read from the file named "/proc/mounts",
	 * or a mount of a mountinfo file in a -m table of mixed formats
	 */
	bool fs_kernel;
};

struct fstab {
	struct fstab_ent *ent;
	size_t n;
	unsigned nerrors; /* lines ignored as malformed (each reported) */
	bool kernel;      /* a mount table (-x -k, -N): entries have devices and parents */
};

#define FSTAB_PATH "/etc/fstab"

/*
 * A mountinfo line's mount: of the kernel's table, or a mountinfo file's
 * in findmnt -m's table of several files; one of libmount's entries with
 * a root and /proc ids (utab names it; the table is "mountinfo" when its
 * first entry is one).
 */
static inline bool fstab_ent_mountinfo(const struct fstab *t, const struct fstab_ent *e)
{
	return (t->kernel || e->fs_kernel) && (e->m.mask & MNTSNAP_F_ID_OLD);
}

/*
 * Read path (a file, or a directory of *.fstab files as libmount reads
 * one) into t. A malformed line is reported on stderr ("FILE: parse error
 * at line N -- ignored") and skipped. Returns 0 or -errno (nothing
 * printed: the caller says "can't read").
 */
int fstab_read(const char *path, struct fstab *t);

/*
 * Move every entry of more to the end of t (more is left empty): a -m
 * table read file by file, each in its own format. Returns 0 or -ENOMEM.
 */
int fstab_append(struct fstab *t, struct fstab *more);

/*
 * fstab_read() of each path in turn into one table (findmnt -F A -F B);
 * on an error, *failed (if not NULL) is the index of the path not read.
 * A parse error names file i names[i] (NULL: paths[i]): the user's name
 * of a pipe read into a memory file.
 */
int fstab_read_all(const char *const *paths, const char *const *names, size_t n,
		   struct fstab *t, size_t *failed);

/* What -F FILE holds, as libmount 2.38 guesses it (fstab_guess_format()). */
enum fstab_format {
	FSTAB_FMT_MOUNTINFO, /* also: empty, or not a regular file (the library says why) */
	FSTAB_FMT_FSTAB,     /* fstab, mtab or /proc/mounts (one format), or no line to tell by */
	FSTAB_FMT_SWAPS,     /* /proc/swaps */
};

/*
 * The format of the regular file at path, by its first line that is not
 * blank or a comment. Returns an enum fstab_format, or -errno when the
 * file cannot be read (the caller's next reader says why).
 */
int fstab_guess_format(const char *path);

/*
 * The format of several files read into one table: libmount keeps what
 * it guessed first, so the first line that tells, over the files in turn.
 */
int fstab_guess_formats(const char *const *paths, size_t n);

/* one file's format by the first line that tells; fstab when none does */
int fstab_guess_told(const char *path);

/*
 * The text of fd, read again from its start (a procfs table opened once
 * and read at each change, as findmnt's poll reads it), into t as
 * fstab_read_all() reads a file; name for the parse errors and libmount's
 * "/proc/mounts" rule. Returns 0 or -errno.
 */
int fstab_read_fd(int fd, const char *name, struct fstab *t);

void fstab_free(struct fstab *t);

/*
 * libmount 2.38's mnt_split_optstr() of opts by its option maps: VFS flags
 * appended to *vfs, userspace-map ones (x-*, noauto, user, ...) to *user,
 * the rest (and name=value of a map name that takes no value) to *fs;
 * "defaults" to none. Each list comma-joined, malloc'd, NULL while empty.
 * Returns 0 or -ENOMEM (the lists then hold what was appended).
 */
int fstab_split_options(const char *opts, char **vfs, char **fs, char **user);

/*
 * A mount table as entries for -x -k (findmnt verifies the kernel's table
 * too): target, source ("none" when it has none; a tag as in fstab), type
 * as mountinfo writes it ("fuse.sshfs", never just "fuse"), the VFS and FS
 * options as findmnt's columns show them; freq and passno 0.
 */
int fstab_from_snapshot(const struct mntsnap_snapshot *snap, struct fstab *t);

/*
 * libmount 2.38's pseudo (mnt_fstype_is_pseudofs()) and network
 * (mnt_fstype_is_netfs()) filesystem types, whole "type.subtype" names:
 * one list for the list filters, -x and the -x -k checks.
 */
bool fstab_pseudo(const char *type);
bool fstab_netfs(const char *type);

/* Entry i's record for the column getters. */
static inline struct fstab_ent *fstab_of(const struct mntsnap_mount *m)
{
	return (struct fstab_ent *)(void *)m;
}

#endif
