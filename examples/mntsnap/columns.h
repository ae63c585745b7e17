/* SPDX-License-Identifier: MIT */
/*
 * Output columns: one table that every command printing mounts uses
 * (list, show, stat, and anything that prints records later). A column
 * is named as findmnt names it, has findmnt's meaning for the names the
 * two share, and knows how to get its value from a record and which
 * JSON type that value has.
 */
#ifndef MNTSNAP_COLUMNS_H
#define MNTSNAP_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "mntsnap.h"

struct tags_cache;
struct pathcache;

/* A growable byte buffer; err is set once an allocation failed. */
struct obuf {
	char *p;
	size_t len, cap;
	int err;
};

int ob_grow(struct obuf *b, size_t more);
void ob_free(struct obuf *b);

static inline void ob_put(struct obuf *b, const char *s, size_t n)
{
	if (!n)
		return;
	if (b->len + n > b->cap && ob_grow(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static inline void ob_putc(struct obuf *b, char c)
{
	if (b->len + 1 > b->cap && ob_grow(b, 1))
		return;
	b->p[b->len++] = c;
}

void ob_puts(struct obuf *b, const char *s);
void ob_u64(struct obuf *b, uint64_t v);

/* How a value is written in JSON (an empty value is null in each case). */
enum col_json {
	COL_JSON_STRING,
	COL_JSON_NUMBER, /* fits in 32 bits: a JSON number */
	COL_JSON_U64,    /* 64-bit: a string of decimal digits (no double rounding) */
	COL_JSON_SIZE,   /* a number with -b (bytes), a string like "23.5G" without */
	COL_JSON_ARRAY,  /* lines: an array of strings (findmnt's SOURCES) */
};

#define COL_RIGHT 0x1 /* right-aligned in tables, as findmnt aligns numbers */

/*
 * The locale findmnt prints in, as util-linux reads it after
 * setlocale(LC_ALL, ""): main() fills it once, with out_locale_init(),
 * from the process's LC_CTYPE (main() sets that as findmnt would) and
 * the environment's locale as that setlocale() loaded it, whose other
 * categories the process itself keeps at "C" (strtod() and printf() read
 * numbers in mntsnap's own syntax, its messages are its own).
 */
struct out_locale {
	/*
	 * every category of the environment's locale, or (locale_t)0 when
	 * one of them does not load (findmnt's C then): -x's strerror() in
	 * LC_MESSAGES; main()'s, freed when the command returns
	 */
	locale_t env;
	/* SIZE, AVAIL, USED's "18,1G": LC_NUMERIC's decimal point */
	char decimal_point[8];
	/* LC_CTYPE's codeset is UTF-8: cells by UTF-8, the tree art in box drawing */
	bool utf8;
	/* another multibyte codeset (EUC-JP, BIG5): cells a character at a time */
	bool multibyte;
	/* -r, -P: the bytes shown as they are (isprint(), not blank, not \ ...) */
	unsigned char raw_ok[256], pairs_ok[256];
	/* a single-byte codeset: the columns a byte takes in a cell, -1: \xHH */
	signed char cell[256];
};

void out_locale_init(struct out_locale *l, locale_t env);

/* What a getter may need beyond the record. */
struct col_ctx {
	struct out_locale loc;
	long tid; /* the task whose table this is (-N/--pid), 0 if none */
	/*
	 * Tables read in turn (-F/-N more than once): each row's TID per
	 * storage index, as its own table gives it; NULL: tid for every row
	 */
	const long *tids;
	bool aligned; /* tree/list: MAJ:MIN as "%3u:%-3u", as findmnt pads it */
	bool bytes;   /* -b: sizes in bytes, not "23.5G" */
	bool nofsroot; /* -v: SOURCE without its "[/fsroot]" */
	bool canonicalize; /* -c: SOURCE's path resolved (realpath, dm-N by name) */
	/*
	 * -c through libmount's path cache, the one the lookups filled
	 * (findmnt prints SOURCE by mnt_resolve_path()): a path the cache
	 * holds in another spelling prints as the cache has it, so "-S
	 * /dev/loop0/", which realpath() refuses, prints as asked for. NULL:
	 * each source resolved on its own.
	 */
	struct pathcache *cache;
	/*
	 * -C: findmnt then has no libmount cache, so no device is probed for
	 * LABEL, UUID, PARTLABEL, PARTUUID (only an fstab entry's own tag)
	 */
	bool nocache;
	/*
	 * A table read from a file (-F's mountinfo text, show's snapshot):
	 * where it holds no UUID for a mount (text never does, a snapshot
	 * saved without --full neither), UUID is libblkid's for the source
	 * device, as LABEL (findmnt -F asks its cache for both); a UUID it
	 * holds is shown. A live table's is libblkid's too (findmnt's), the
	 * superblock's in a CLI built without libblkid
	 */
	bool file_uuid;
	/* -m: userspace options (utab's) per storage index, appended to OPTIONS */
	const char *const *user_opts;
	/*
	 * The records are fstab entries (fstab.h: each record is the first
	 * member of a struct fstab_ent): OPTIONS as written, FREQ, PASSNO and
	 * the tag columns from the entry.
	 */
	bool fstab;
	bool evaluate; /* -e: tags shown as the devices they name */
	/*
	 * Per storage index: the device findmnt shows for a "/dev/root"
	 * source (devroot.h), NULL for the others; NULL: none to rename
	 */
	char *const *root_src;
	/* --vfs-all: VFS-OPTIONS names every VFS option, the default ones too */
	bool vfs_all;
	/*
	 * -U: PARENT per storage index as libmount's KEEPTREE de-duplication
	 * leaves it (a mount whose parent went is re-parented); NULL: the
	 * record's own.
	 */
	const uint32_t *parent_ids;
	/*
	 * SOURCES' libblkid cache, one per listing (out_render()'s) or poll
	 * (cli_poll()'s); NULL: per cell
	 */
	struct tags_cache *tags;
	/*
	 * findmnt's path cache, the lookups' too (a listing's, or -p's for
	 * the whole poll, view.h): -c's SOURCE and the tag columns resolve a
	 * source path through it, so a symlink retargeted during a poll still
	 * names what it first named, and a source the cache holds in another
	 * spelling is probed as that spelling. NULL (-C, or a saved table)
	 * or off (-C): resolved afresh.
	 */
	struct pathcache *paths;
};

/*
 * A path resolved as libmount's canonicalize_path() (malloc'd), NULL if it
 * does not resolve; col_canonical(): NULL for a tag too (a source's).
 */
char *col_resolve(const char *src);
char *col_canonical(const char *src);

struct column {
	const char *name;   /* -o name and JSON key (lowercase); matched case-blind */
	const char *header; /* table, raw and pairs heading */
	const char *help;
	unsigned char json;
	unsigned char flags;
	/* findmnt's width hint (see render_table() in output.c), 0 if none */
	unsigned char min_width;
	/* Append the raw value (bytes, unescaped) to b; nothing when empty. */
	void (*get)(struct obuf *b, const struct mntsnap_mount *m, const struct col_ctx *cx);
	/* MNTSNAP_F_* a capture must ask for beyond MNTSNAP_MASK_DEFAULT */
	uint32_t need;
};

extern const struct column cols_all[];
extern const size_t cols_all_count;

/* findmnt's default: TARGET,SOURCE,FSTYPE,OPTIONS */
#define COLS_DEFAULT "TARGET,SOURCE,FSTYPE,OPTIONS"
/*
 * findmnt --output-all: findmnt 2.38's own columns in the order of its
 * column table (mntsnap's own columns are named with -o, never added)
 */
#define COLS_FINDMNT_ALL                                                              \
	"AVAIL,FREQ,FSROOT,FSTYPE,FS-OPTIONS,ID,LABEL,MAJ:MIN,OPTIONS,OPT-FIELDS,PARENT," \
	"PARTLABEL,PARTUUID,PASSNO,PROPAGATION,SIZE,SOURCE,SOURCES,TARGET,TID,USED,USE%," \
	"UUID,VFS-OPTIONS"
/*
 * findmnt keeps its columns in columns[2 x its 27 columns]: 54 in all,
 * the default ones (or -D's, --output-all's) that +LIST extends counted
 */
#define COLS_MAX 54

/* Record m as findmnt sees it: a "/dev/root" source renamed (cx->root_src) */
static inline void col_fix_source(const struct col_ctx *cx, struct mntsnap_mount *m)
{
	if (cx && cx->root_src && cx->root_src[m->index])
		m->source = cx->root_src[m->index];
}

/*
 * NAME (len bytes) names the column HEADER: case-blind in the process's
 * LC_CTYPE, as findmnt's strncasecmp() (tr_TR: "id" is not "ID")
 */
bool col_name_is(const char *header, const char *name, size_t len);
const struct column *col_find(const char *name, size_t len);

/* findmnt's blkid columns: left out of --output-all in a build without libblkid */
bool col_is_blkid(const struct column *c);

/*
 * Does column c's cell depend on what the run's caches learned before it
 * was asked (cx's tags and paths): LABEL, UUID, PARTLABEL, PARTUUID and
 * SOURCES (a device probed, a tag evaluated, libblkid's device names),
 * SOURCE with -e (a tag evaluated) or -c (the path cache's spelling)?
 * out_prime_row() keeps such a cell for the printing.
 */
bool col_keeps(const struct column *c, const struct col_ctx *cx);

/*
 * util-linux's string_to_idarray() walk over a comma list, the one rule of
 * -o and -p's ACTIONS: each name goes to fn with its length; a name ends
 * at a comma, but the last runs to the end of the list ("TARGET," names
 * "TARGET,"). k names are held already, max at most: a full array fails
 * before the next byte is read, the name past the last never looked at.
 * Returns 0; 1 for an empty list or name ("", "A,,B", ",A": findmnt exits
 * 1 then, saying nothing); -E2BIG past max; else fn's nonzero return.
 */
int col_walk(const char *list, size_t k, size_t max,
	     int (*fn)(void *arg, const char *name, size_t len), void *arg);

/*
 * Parse a -o list ("target,source", or "+uniq-id" to append to what *n
 * already holds) into out[] (max entries at most, max <= COLS_MAX), split
 * as findmnt splits it. Returns 0; -ENODATA for an empty name ("", "A,,B",
 * ",A", "+": findmnt prints nothing and says nothing); -EINVAL with the
 * unknown name at *bad, *badlen bytes long; -E2BIG for anything left of
 * the list once out[] is full (findmnt: nothing printed, no message, the
 * name past the last not even looked up).
 */
int col_parse(const char *spec, const struct column **out, size_t *n, size_t max,
	      const char **bad, size_t *badlen);

/*
 * Does the -o list spec overflow findmnt's columns[] (max entries, n of
 * them chosen before a "+LIST")? findmnt then exits 1 with no message;
 * an empty or unknown name before that point is col_parse()'s to report.
 */
bool col_overflow(const char *spec, size_t n, size_t max);

/* findmnt's OPTIONS: VFS and FS options merged, the FS rw/ro dropped. */
void col_merged_options(struct obuf *b, const struct mntsnap_mount *m);

/* Print the column list for --help. */
void col_help(FILE *f);

/* findmnt -y: the name as a shell variable ("USE%" -> "USE_PCT"); buf >= 40. */
const char *col_shellvar(const char *name, char *buf, size_t size);

enum out_mode { OUT_TREE, OUT_LIST, OUT_RAW, OUT_PAIRS, OUT_JSON };

struct out_opts {
	enum out_mode mode;
	bool json_flat;  /* -J -l: no "children" nesting */
	bool noheadings;
	bool ascii;      /* tree drawn with |- `- (also in a non-UTF-8 locale: !cx.loc.utf8) */
	bool roots_in_table_order; /* -R: matches in the table's order, as findmnt */
	bool shellvar;   /* -y: headings and JSON keys as shell variable names */
	bool tree_lines; /* -r/-P with --tree: the tree art in TARGET, escaped */
	bool walk_tree;  /* records in the tree's order, also when printed flat (-R) */
	/*
	 * Set by the view (NULL: the snapshot's own): each record's parent
	 * (storage index, -1 for a root) and the tree's preorder (n records,
	 * storage indices; a record not in it is not printed), and the order
	 * of the top-level entries (a list: every entry), nroots of them.
	 */
	const int32_t *tree_parent;
	const uint32_t *tree_order;
	size_t ntree;
	const int32_t *roots;
	size_t nroots;
	/*
	 * Set by the view for findmnt's whole tree: the lines as findmnt
	 * draws them (a record, its depth), nlines of them, which may show
	 * a record twice (see view.c's findmnt_lines()); the above then unused.
	 */
	const int32_t *line_rec;
	const uint32_t *line_depth;
	size_t nlines;
	const struct column *cols[COLS_MAX];
	size_t ncols;
	struct col_ctx cx;
};

/*
 * Render the records of snap for which match[i] is true (match NULL:
 * all) to f. Returns the number of records written (>= 0) or -errno.
 */
long out_render(const struct mntsnap_snapshot *snap, const bool *match,
		const struct out_opts *o, FILE *f);

/* The same for n records of the caller's (never a tree: a list in their order). */
long out_render_list(const struct mntsnap_mount *const *list, size_t n, const bool *match,
		     const struct out_opts *o, FILE *f);

/*
 * findmnt's add_line() for record m, its cells' bytes dropped: each cell
 * computed once now, in the columns' order, as findmnt computes a row
 * when it finds it, so what the cells learn (a source probed for UUID or
 * LABEL, a tag -e evaluated: o->cx.tags, o->cx.paths) is in the run's
 * caches before the next record is matched. The cells that depend on
 * those caches (col_keeps()) are kept in o->cx.tags (tags_keep_cell())
 * and printed as kept: by printing time later rows have taught the
 * caches more (an image file probed after a tag line that names it,
 * libblkid's device renamed by a later row's spelling), which findmnt's
 * row, computed when found, never shows.
 */
void out_prime_row(const struct mntsnap_mount *m, const struct out_opts *o);

/*
 * One cell's bytes s[0..n) escaped as mode writes them (a JSON string
 * with its quotes) onto b; for the tree and list forms, its width in
 * terminal columns (0 for the others). For tables made elsewhere (list
 * --poll's lines).
 */
size_t out_enc_cell(struct obuf *b, const char *s, size_t n, enum out_mode mode,
		    const struct out_locale *loc);

#endif
