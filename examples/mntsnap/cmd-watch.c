// SPDX-License-Identifier: MIT
/*
 * mntsnap watch: one line per mount table change, like findmnt --poll,
 * from a live watcher (mntsnap_watch_*); --save writes the watcher's
 * snapshot when it stops.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "intl.h"
#include "devroot.h"
#include "columns.h"
#include "fstab.h"
#include "tabdiff.h"
#include "tags.h"
#include "view.h"

static const char watch_help[] =
    "usage: mntsnap watch [TARGET] [--json] [-o COLUMNS] [-n] [--count N]\n"
    "                     [--timeout SECONDS] [--save FILE] [--no-settle] [--pollpri]\n"
    "                     [--all-changes]\n"
    "Print one line per change of the mount table as it happens (like\n"
    "findmnt(8)'s poll mode), from fanotify mount events (Linux 6.15+) and POLLPRI on\n"
    "the namespace's mountinfo; stops after N events, SECONDS, when a --pid\n"
    "target exits or when the reader of a pipe it writes to goes away (exit\n"
    "status 0), or at SIGINT/SIGTERM: it cleans up (--save writes), then dies\n"
    "of the signal (a shell's 128+N), as a program that catches it should.\n"
"TARGET: --pid PID (-N, --task PID) | --ns PATH | --ns-id ID (default: own\n"
    "        namespace); --pid is the process's view (a chroot()ed one's\n"
    "        mounts from its root, as its mountinfo shows them). A process\n"
    "        whose namespace may not be queried (no CAP_SYS_ADMIN over its\n"
    "        owner, no ptrace access to open it) is watched from its\n"
    "        mountinfo text, as list reads it: re-read on every change (no\n"
    "        UNIQ-ID; a move is an umount and a mount)\n"
    "  --json       one JSON object per line: action, target, uniq-id, source,\n"
    "               fstype, options; move/remount add old-target, old-options\n"
    "               and \"changed\": {field: {\"old\": ..., \"new\": ...}}\n"
    "  -o COLUMNS   ACTION,TARGET,SOURCE,FSTYPE,OPTIONS,OLD-TARGET,OLD-OPTIONS,\n"
    "               UNIQ-ID,CHANGED (default: ACTION,TARGET,SOURCE,FSTYPE,OPTIONS;\n"
    "               +COLUMNS adds to it);\n"
    "               lines are findmnt(8)'s in raw poll mode for the same columns\n"
    "               (SOURCE as findmnt's: [FSROOT] appended for a bind of a\n"
    "               subdirectory or a file; so is the JSON's source)\n"
    "  -n           no header line\n"
    "  --count N    stop after N events\n"
    "  --timeout S  stop after S seconds (fractions allowed)\n"
    "  --save FILE  write the live snapshot to FILE when stopping\n"
    "  --no-settle  skip the sweep of every mount made 0.1 s after a mount or\n"
    "               umount (POLLPRI cannot say whether a remount, which fanotify\n"
    "               does not report, came with it; such a remount is then\n"
    "               missed until the next remount alone). CPU per isolated\n"
    /* watch-cost: written by tests/bench/watch-cost-docs.sh from a run */
    "               change: default 2.2 ms at 1,000 mounts, 25 ms at 10,000\n"
    "               (event + sweep); --no-settle 12 us, 12 us (tests/bench)\n"
    /* end watch-cost */
    "  --pollpri    do not use fanotify: POLLPRI and a sweep per change\n"
    "  --all-changes also print changes findmnt cannot see (propagation,\n"
    "               peer group, master, a new parent under the same mount\n"
    "               point: nothing in mountinfo's target or option columns),\n"
    "               as ACTION change; see the CHANGED column\n"
    "ACTION is mount, umount, move, remount (the VFS or superblock options\n"
    "changed, as findmnt decides), change (--all-changes only) or resync (events\n"
    "were lost and the table was read again; the lines before it are what\n"
    "changed). OPTIONS and OLD-OPTIONS are findmnt's merge: \"ro\" when the\n"
    "mount or its superblock is read-only.\n";

enum col {
	C_ACTION,
	C_TARGET,
	C_SOURCE,
	C_FSTYPE,
	C_OPTIONS,
	C_OLD_TARGET,
	C_OLD_OPTIONS,
	C_UNIQ_ID,
	C_CHANGED,
	C_N
};

static const char *const col_names[C_N] = {
    "ACTION",	  "TARGET",	 "SOURCE",  "FSTYPE",  "OPTIONS",
    "OLD-TARGET", "OLD-OPTIONS", "UNIQ-ID", "CHANGED",
};

/* a column may be named more than once (findmnt -o allows it) */
#define MAX_COLS 64

struct poll_out;

struct wargs {
	struct cli_target t;
	struct poll_out *poll; /* list --poll: findmnt's lines, not watch's */
	bool json, noheadings, no_settle, pollpri, all_changes;
	bool idle_timeout; /* the timeout counts from the last change (findmnt -w) */
	uint32_t mask;     /* MNTSNAP_F_* beyond the default the lines read */
	int cols[MAX_COLS], ncols;
	uint64_t count;
	double timeout;
	const char *save;
	const char *mountinfo_path; /* list -p: the procfs file polled (cli_poll) */
};

/* ---- formatting --------------------------------------------------------------- */

/* mountinfo column 6: VFS-OPTIONS, as findmnt shows it */
static void vfs_options(const struct mntsnap_mount *m, char *buf, size_t len)
{
	if (mntsnap_mount_options(m, MNTSNAP_OPTIONS_VFS, buf, len) < 0)
		buf[0] = '\0';
}

/*
 * findmnt's OPTIONS: libmount's merge of the VFS options and the super
 * options, "ro" first when either is read-only (a read-only superblock
 * under a rw mount is "ro,..." as findmnt prints it).
 */
static void all_options(const struct mntsnap_mount *m, char *buf, size_t len)
{
	if (mntsnap_mount_options(m, MNTSNAP_OPTIONS_ALL, buf, len) < 0)
		buf[0] = '\0';
}

/*
 * Whether findmnt --poll prints a remount for this change: libmount's
 * tab_diff compares exactly two strings of the mountinfo line, the VFS
 * options (column 6) and the super options (column 11). Propagation,
 * peer groups, masters and fields mountinfo does not print change
 * neither, so findmnt is silent about them; the watch prints them only
 * with --all-changes, as action "change" (an action findmnt does not
 * have), never as a "remount" whose old and new options are equal.
 */
/*
 * The kind a line is decided by: findmnt calls a mount whose target
 * changed a move. The library's MOVE for a new parent under the same
 * mount point (the top of a stack a mount was slid beneath, a mount a
 * propagated copy was tucked under) is, for findmnt, the same mount in
 * the same place: a remount when its options changed too, else nothing.
 */
static int line_kind(const struct mntsnap_watch_event *e)
{
	if (e->kind == MNTSNAP_WATCH_MOVE && !(e->changed & MNTSNAP_CHANGE_MOUNT_POINT))
		return MNTSNAP_WATCH_CHANGE;
	return e->kind;
}

static bool findmnt_sees(const struct mntsnap_watch_event *e)
{
	size_t lo = strlen(e->old.options ? e->old.options : "") + 512;
	size_t ln = strlen(e->mount.options ? e->mount.options : "") + 512;
	size_t len = lo > ln ? lo : ln;
	char *a, *b;
	bool seen;

	if (line_kind(e) != MNTSNAP_WATCH_CHANGE)
		return true;
	a = malloc(len);
	b = malloc(len);
	if (!a || !b) {
		free(a);
		free(b);
		return true; /* no memory: print rather than hide */
	}
	vfs_options(&e->old, a, len);
	vfs_options(&e->mount, b, len);
	seen = strcmp(a, b) != 0;
	if (!seen) {
		if (mntsnap_mount_options(&e->old, MNTSNAP_OPTIONS_FS, a, len) < 0)
			a[0] = '\0';
		if (mntsnap_mount_options(&e->mount, MNTSNAP_OPTIONS_FS, b, len) < 0)
			b[0] = '\0';
		seen = strcmp(a, b) != 0;
	}
	free(a);
	free(b);
	return seen;
}

/* The ACTION: the library's name, "change" for what findmnt cannot see. */
static const char *action_name(const struct mntsnap_watch_event *e)
{
	return findmnt_sees(e) ? mntsnap_watch_kind_name(line_kind(e)) : "change";
}

static void fstype(const struct mntsnap_mount *m, char *buf, size_t len)
{
	if ((m->mask & MNTSNAP_F_FS_SUBTYPE) && m->fs_subtype[0])
		snprintf(buf, len, "%s.%s", m->fs_type, m->fs_subtype);
	else
		snprintf(buf, len, "%s", m->fs_type);
}

/* findmnt's SOURCE (and list's): the mount's root appended to the source
 * when it is not "/", a bind of a subdirectory or a file ("src[/sub]") */
static void source(const struct mntsnap_mount *m, char *buf, size_t len)
{
	const char *src = m->mask & MNTSNAP_F_SOURCE ? m->source : "none";

	if ((m->mask & MNTSNAP_F_ROOT) && m->root[0] && strcmp(m->root, "/"))
		snprintf(buf, len, "%s[%s]", src, m->root);
	else
		snprintf(buf, len, "%s", src);
}

static void prop_text(const struct mntsnap_mount *m, char *buf, size_t len)
{
	int n = 0;

	buf[0] = '\0';
	if (m->propagation & MNTSNAP_PROP_SHARED)
		n += snprintf(buf + n, len - (size_t)n, "shared:%u,", m->peer_group);
	if (m->propagation & MNTSNAP_PROP_SLAVE)
		n += snprintf(buf + n, len - (size_t)n, "master:%u,", m->master);
	if (m->propagation & MNTSNAP_PROP_UNBINDABLE)
		n += snprintf(buf + n, len - (size_t)n, "unbindable,");
	if (!n)
		n = snprintf(buf, len, "private,");
	buf[n - 1] = '\0';
}

/* The value of the field one MNTSNAP_CHANGE_* bit stands for. */
static void field_value(uint32_t bit, const struct mntsnap_mount *m, char *buf, size_t len)
{
	switch (bit) {
	case MNTSNAP_CHANGE_MOUNT_POINT:
		snprintf(buf, len, "%s", m->mount_point);
		break;
	case MNTSNAP_CHANGE_PARENT:
		snprintf(buf, len, "%" PRIu64, m->parent_id);
		break;
	case MNTSNAP_CHANGE_ROOT:
		snprintf(buf, len, "%s", m->root);
		break;
	case MNTSNAP_CHANGE_ATTR:
		vfs_options(m, buf, len);
		break;
	case MNTSNAP_CHANGE_PROPAGATION:
	case MNTSNAP_CHANGE_PEER_GROUP:
	case MNTSNAP_CHANGE_MASTER:
		prop_text(m, buf, len);
		break;
	case MNTSNAP_CHANGE_PROPAGATE_FROM:
		snprintf(buf, len, "%u", m->propagate_from);
		break;
	case MNTSNAP_CHANGE_OPTIONS:
		snprintf(buf, len, "%s", m->options);
		break;
	case MNTSNAP_CHANGE_SOURCE:
		snprintf(buf, len, "%s", m->source);
		break;
	case MNTSNAP_CHANGE_FS_TYPE:
		fstype(m, buf, len);
		break;
	case MNTSNAP_CHANGE_DEV:
		snprintf(buf, len, "%u:%u", m->dev_major, m->dev_minor);
		break;
	case MNTSNAP_CHANGE_SB_FLAGS:
		snprintf(buf, len, "0x%x", m->sb_flags);
		break;
	default:
		snprintf(buf, len, "%s", "");
	}
}

/* Table cells as findmnt -r prints them: spaces, backslashes and every
 * byte outside printable ASCII (UTF-8 too, in any locale) as \xNN, so a
 * line is one line of plain ASCII words; an empty cell as nothing. */
static void put_cell(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c <= ' ' || c == '\\' || c >= 0x7f)
			printf("\\x%02x", c);
		else
			fputc(c, stdout);
	}
}

/* Length of a valid UTF-8 sequence at s (1..4), 0 if invalid. */
static int utf8_len(const unsigned char *s)
{
	uint32_t cp;
	int n;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		n = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and code points past Unicode are no UTF-8 */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/*
 * A JSON string for a path, which is bytes while JSON is UTF-8, by the rule
 * mntsnap list --json follows: valid UTF-8 as is, a control character as
 * \u00XX, and each byte b of an invalid sequence as \udcHH (a lone low
 * surrogate, as Python's surrogateescape reads it), so every line is valid
 * JSON, no byte is lost, and "\xff" and "ÿ" stay apart.
 */
static void put_json_str(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', stdout);
	while (*s) {
		int n = utf8_len(s);

		if (n == 1 && (*s == '"' || *s == '\\'))
			printf("\\%c", *s++);
		else if (n == 1 && *s >= 0x20)
			fputc(*s++, stdout);
		else if (n > 1)
			fwrite(s, 1, (size_t)n, stdout), s += n;
		else if (*s < 0x20)
			printf("\\u%04x", *s++);
		else
			printf("\\udc%02x", *s++);
	}
	fputc('"', stdout);
}

/* The record an event is about: the old one for an umount. */
static const struct mntsnap_mount *subject(const struct mntsnap_watch_event *e)
{
	return e->kind == MNTSNAP_WATCH_UMOUNT ? &e->old : &e->mount;
}

static void changed_names(uint32_t changed, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (uint32_t bit = 1; bit && n + 1 < len; bit <<= 1) {
		const char *name = changed & bit ? mntsnap_diff_change_name(bit) : NULL;

		if (name)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "", name);
	}
}

static void cell(const struct mntsnap_watch_event *e, int col, char *buf, size_t len)
{
	const struct mntsnap_mount *m = subject(e);
	/* findmnt --poll: OLD-TARGET for move and umount, OLD-OPTIONS for
	 * remount and umount */
	int kind = line_kind(e);
	bool old_target = kind == MNTSNAP_WATCH_MOVE || kind == MNTSNAP_WATCH_UMOUNT;
	bool old_options = kind == MNTSNAP_WATCH_CHANGE || kind == MNTSNAP_WATCH_UMOUNT;

	buf[0] = '\0';
	if (e->kind == MNTSNAP_WATCH_RESYNC && col != C_ACTION)
		return;
	switch (col) {
	case C_ACTION:
		snprintf(buf, len, "%s", action_name(e));
		break;
	case C_TARGET:
		snprintf(buf, len, "%s", m->mount_point);
		break;
	case C_SOURCE:
		source(m, buf, len);
		break;
	case C_FSTYPE:
		fstype(m, buf, len);
		break;
	case C_OPTIONS:
		all_options(m, buf, len);
		break;
	case C_OLD_TARGET:
		if (old_target)
			snprintf(buf, len, "%s", e->old.mount_point);
		break;
	case C_OLD_OPTIONS:
		if (old_options)
			all_options(&e->old, buf, len);
		break;
	case C_UNIQ_ID:
		snprintf(buf, len, "%" PRIu64, e->id);
		break;
	case C_CHANGED:
		changed_names(e->changed, buf, len);
		break;
	}
}

static void print_header(const struct wargs *a)
{
	for (int i = 0; i < a->ncols; i++)
		printf("%s%s", i ? " " : "", col_names[a->cols[i]]);
	putchar('\n');
}

static size_t slen(const char *s)
{
	return s ? strlen(s) : 0;
}

/* Room for any one cell or field value of m: paths have no length limit
 * (a mount point may be longer than PATH_MAX), nor have options. */
static size_t rec_room(const struct mntsnap_mount *m)
{
	return slen(m->mount_point) + slen(m->root) + slen(m->source) + slen(m->fs_type) +
	       slen(m->fs_subtype) + slen(m->options) + 256;
}

/* A buffer for any cell of e: malloc'd, NULL on ENOMEM; *ret_len its size. */
static char *cell_buf(const struct mntsnap_watch_event *e, size_t *ret_len)
{
	size_t n = rec_room(&e->mount), o = rec_room(&e->old);

	*ret_len = n > o ? n : o;
	return malloc(*ret_len);
}

static int print_line(const struct wargs *a, const struct mntsnap_watch_event *e)
{
	size_t len;
	char *buf = cell_buf(e, &len);

	if (!buf)
		return -ENOMEM;
	for (int i = 0; i < a->ncols; i++) {
		if (i)
			putchar(' ');
		cell(e, a->cols[i], buf, len);
		put_cell(buf);
	}
	putchar('\n');
	free(buf);
	return 0;
}

static void json_pair(const char *key, const char *val)
{
	printf(",\"%s\":", key);
	put_json_str(val);
}

static void json_changed(const struct mntsnap_watch_event *e, char *o, char *n, size_t len)
{
	bool first = true;

	fputs(",\"changed\":{", stdout);
	for (uint32_t bit = 1; bit; bit <<= 1) {
		const char *name = e->changed & bit ? mntsnap_diff_change_name(bit) : NULL;

		if (!name)
			continue;
		field_value(bit, &e->old, o, len);
		field_value(bit, &e->mount, n, len);
		printf("%s\"%s\":{\"old\":", first ? "" : ",", name);
		put_json_str(o);
		fputs(",\"new\":", stdout);
		put_json_str(n);
		fputc('}', stdout);
		first = false;
	}
	fputc('}', stdout);
}

static int print_json(const struct mntsnap_watch_event *e)
{
	size_t len;
	char *buf = cell_buf(e, &len), *other = buf ? malloc(len) : NULL;

	if (!other) {
		free(buf);
		return -ENOMEM;
	}
	printf("{\"action\":\"%s\"", action_name(e));
	if (e->kind == MNTSNAP_WATCH_RESYNC) {
		puts("}");
		goto out;
	}
	cell(e, C_TARGET, buf, len);
	json_pair("target", buf);
	/* a digit string, as in list --json: ids pass 2^53, where doubles stop */
	printf(",\"uniq-id\":\"%" PRIu64 "\"", e->id);
	for (int c = C_SOURCE; c <= C_OPTIONS; c++) {
		char key[16];

		cell(e, c, buf, len);
		snprintf(key, sizeof(key), "%s", col_names[c]);
		for (char *k = key; *k; k++)
			*k = (char)(*k - 'A' + 'a');
		json_pair(key, buf);
	}
	if (e->kind == MNTSNAP_WATCH_MOVE || e->kind == MNTSNAP_WATCH_CHANGE) {
		json_pair("old-target", e->old.mount_point);
		all_options(&e->old, buf, len);
		json_pair("old-options", buf);
		json_changed(e, buf, other, len);
	}
	puts("}");
out:
	free(buf);
	free(other);
	return 0;
}

/* ---- options -------------------------------------------------------------------- */

static int parse_columns(struct wargs *a, const char *list)
{
	char *dup = strdup(list), *save = NULL;
	int r = 0;

	if (!dup)
		return -ENOMEM;
	/* "+LIST" adds to the columns already chosen, as list's -o does */
	if (*list != '+')
		a->ncols = 0;
	for (char *t = strtok_r(dup + (*list == '+'), ",", &save); t && !r; t = strtok_r(NULL, ",", &save)) {
		int c;

		for (c = 0; c < C_N && strcasecmp(t, col_names[c]); c++)
			;
		if (c == C_N)
			r = (cli_fail(0, "watch: unknown column '%s' (see --help)", t), -EINVAL);
		else if (a->ncols == MAX_COLS)
			r = (cli_fail(0, "watch: too many columns (%d at most)", MAX_COLS), -EINVAL);
		else
			a->cols[a->ncols++] = c;
	}
	free(dup);
	if (!r && !a->ncols)
		r = (cli_fail(0, "watch: -o needs at least one column"), -EINVAL);
	return r;
}

static int parse_timeout(const char *s, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !(v > 0) || v > 1e9)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* 1 = --help printed, 0 = go on, < 0 = bad arguments (message printed) */
static int parse_args(struct wargs *a, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		int r = cli_target_arg(&a->t, argc, argv, &i);

		if (r < 0)
			return r;
		if (r)
			continue;
		if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			fputs(watch_help, stdout);
			return 1;
		} else if (!strcmp(o, "--json") || !strcmp(o, "-J")) {
			a->json = true;
		} else if (!strcmp(o, "-n") || !strcmp(o, "--noheadings")) {
			a->noheadings = true;
		} else if (!strcmp(o, "--no-settle")) {
			a->no_settle = true;
		} else if (!strcmp(o, "--pollpri")) {
			a->pollpri = true;
		} else if (!strcmp(o, "--all-changes")) {
			a->all_changes = true;
		} else if (i + 1 >= argc) {
			return cli_fail(0, "watch: unknown option or missing value: '%s'", o),
			       -EINVAL;
		} else if (!strcmp(o, "-N") || !strcmp(o, "--task")) {
			/* findmnt's spelling of --pid, as list takes it */
			if (cli_target_set(&a->t, "--pid", argv[++i]))
				return -EINVAL;
		} else if (!strcmp(o, "-o") || !strcmp(o, "--output")) {
			r = parse_columns(a, argv[++i]);
			if (r)
				return r;
		} else if (!strcmp(o, "--count")) {
			if (cli_parse_u64(argv[++i], &a->count) || !a->count)
				return cli_fail(0, "watch: bad --count '%s'", argv[i]), -EINVAL;
		} else if (!strcmp(o, "--timeout")) {
			if (parse_timeout(argv[++i], &a->timeout))
				return cli_fail(0, "watch: bad --timeout '%s'", argv[i]), -EINVAL;
		} else if (!strcmp(o, "--save")) {
			a->save = argv[++i];
		} else {
			return cli_fail(0, "watch: unknown option '%s' (see --help)", o), -EINVAL;
		}
	}
	return 0;
}

/* ---- the loop ----------------------------------------------------------------------- */

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* One event of a drain and where it came in it. */
struct ev_at {
	struct mntsnap_watch_event e;
	size_t i;
};

/* umounts after the rest, a resync last */
static int ev_rank(const struct mntsnap_watch_event *e)
{
	return e->kind == MNTSNAP_WATCH_RESYNC ? 2 : e->kind == MNTSNAP_WATCH_UMOUNT;
}

static int cmp_ev_at(const void *x, const void *y)
{
	const struct ev_at *a = x, *b = y;
	int ra = ev_rank(&a->e), rb = ev_rank(&b->e);

	if (ra != rb)
		return ra < rb ? -1 : 1;
	if (a->e.id != b->e.id)
		return a->e.id < b->e.id ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/*
 * The events of one drain in findmnt's order. findmnt prints what one
 * read of mountinfo shows changed in libmount's table diff order: mounts,
 * moves and remounts in the order of the new table, then umounts in the
 * order of the old one, and mountinfo lists mounts by unique id. The
 * watcher queues them in the kernel's event order, which for the copies
 * one operation makes through propagation is the order propagation made
 * them in, not their ids'. *ret_n events into *ret (malloc'd); -ENOMEM.
 */
static int drain_sorted(struct mntsnap_watch *w, struct ev_at **ret, size_t *ret_n)
{
	struct ev_at *v = NULL;
	size_t n = 0, cap = 0;
	struct mntsnap_watch_event e;

	while (mntsnap_watch_next(w, &e) == 0) {
		if (n == cap) {
			struct ev_at *p = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof(*v));

			if (!p) {
				free(v);
				return -ENOMEM;
			}
			v = p;
		}
		v[n] = (struct ev_at){.e = e, .i = n};
		n++;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_ev_at);
	*ret = v;
	*ret_n = n;
	return 0;
}

/* ---- list --poll: findmnt --poll's output ------------------------------------------ */

/* The columns only poll mode has; every other one is a list column. */
enum { P_LIST, P_ACTION, P_OLD_TARGET, P_OLD_OPTIONS };

struct pcol {
	int own; /* P_* */
	const struct column *col; /* P_LIST */
	const char *name, *header; /* JSON key, heading */
	unsigned char min_width, flags;
	bool strict; /* never narrower than min_width (SCOLS_FL_STRICTWIDTH) */
	const char *help; /* own columns: --list-columns' and list --help's text */
	const char *fm_help; /* findmnt's description (its msgid) */
};

/*
 * findmnt's own poll columns: ACTION is 10 wide at least (a strict width
 * hint), OLD-TARGET and OLD-OPTIONS have ratio hints only, which never
 * widen a column of a table printed to a file or pipe. findmnt -h lists
 * them with the others; the help says they need -p, as list refuses them
 * without it.
 */
static const struct pcol own_cols[] = {
	{ P_ACTION, NULL, "action", "ACTION", 10, 0, true,
	  "action detected by -p/--poll (mount, umount, remount, move)",
	  UL_N_("action detected by --poll") },
	{ P_OLD_TARGET, NULL, "old-target", "OLD-TARGET", 0, 0, false,
	  "old mountpoint saved by -p/--poll (move, umount)", UL_N_("old mountpoint saved by --poll") },
	{ P_OLD_OPTIONS, NULL, "old-options", "OLD-OPTIONS", 0, 0, false,
	  "old mount options saved by -p/--poll (remount, umount)",
	  UL_N_("old mount options saved by --poll") },
};

void cli_poll_columns(FILE *f, bool help)
{
	for (size_t i = 0; i < sizeof(own_cols) / sizeof(own_cols[0]); i++) {
		if (help)
			fprintf(f, "  %14s  %s\n", own_cols[i].header, own_cols[i].help);
		else
			fprintf(f, "%-14s %s\n", own_cols[i].header,
				col_help_text(own_cols[i].help, own_cols[i].fm_help));
	}
}

/*
 * A mount -U dropped at the start, and what libmount pairs a mount with
 * (source and mount point): the one kept there then, its source and
 * option texts as they were.
 */
struct dropped {
	uint64_t id;
	uint32_t id_old;
	char *src, *mp, *vfs, *fs; /* the kept one's; src NULL: none (never paired) */
};

struct poll_out {
	struct pcol cols[MAX_COLS];
	int ncols;
	int mode;       /* enum out_mode; the tree is a list here */
	bool noheadings;
	bool shellvar;  /* -y: headings, pair names and JSON keys as shell names */
	bool headed;    /* the heading went out with the first lines */
	unsigned actions; /* 1 << enum mntsnap_watch_kind; 0: every one */
	uint32_t need;  /* MNTSNAP_F_* the columns read */
	struct col_ctx cx;
	struct view_filter *filter; /* NULL: no filter, every change */
	bool first_only; /* -f: the first line findmnt prints, then stop */
	bool backward;   /* -d backward: each batch's lines bottom up */
	/*
	 * -U: findmnt de-duplicates only the table it starts from, so its
	 * first batch shows every mount it dropped there as mounted: the
	 * dropped mounts (unique ids, /proc ids on the text route) until then.
	 */
	bool uniq;
	struct dropped *dropped;
	size_t ndropped;
	/*
	 * -m: findmnt starts from the mtab, the kernel's table with utab's
	 * userspace options, and reads each later table from mountinfo, so
	 * only its first batch shows them, in the records from before (an
	 * umount's OPTIONS, OLD-OPTIONS): those mounts and their options
	 * until the first batch is done. utab: the reader (NULL: not -m).
	 */
	int (*utab)(const struct mntsnap_snapshot *snap, char ***ret);
	struct dropped *user; /* id, id_old and the options (src) */
	size_t nuser;
};

/*
 * One line of -p: the change and the records its columns read. From the
 * watcher, an event (e); from a table in /proc/mounts' format read again
 * at each change (poll_mounts()), the diff's entries (e NULL).
 */
struct pline {
	int kind;                            /* findmnt's: MOUNT, UMOUNT, MOVE, CHANGE (remount) */
	const struct mntsnap_mount *m, *old; /* the record now (an umount's: the old); before */
	const struct mntsnap_watch_event *e; /* NULL: no event, a table diff's line */
};

/* -p's own column NAME names (matched as list's columns are), or NULL */
static const struct pcol *own_col(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(own_cols) / sizeof(own_cols[0]); i++)
		if (col_name_is(own_cols[i].header, name, len))
			return &own_cols[i];
	return NULL;
}

const char *cli_poll_column(const char *name, size_t len)
{
	const struct pcol *o = own_col(name, len);

	return o ? o->header : NULL;
}

static int pcol_add(struct poll_out *p, const char *name, size_t len)
{
	const struct pcol *o = own_col(name, len);
	const struct column *c;

	if (p->ncols == MAX_COLS)
		return cli_fail(0, "list: too many columns (%d at most)", MAX_COLS), -EINVAL;
	if (o) {
		p->cols[p->ncols++] = *o;
		return 0;
	}
	c = col_find(name, len);
	if (!c)
		/* the list from the bad name on, as findmnt names it */
		return cli_fail_cmd("list", ul_gettext("unknown column: %s"), name, strlen(name)),
		       -EINVAL;
	p->cols[p->ncols++] = (struct pcol){ P_LIST, c, c->name, c->header, c->min_width,
					     c->flags };
	p->need |= c->need;
	return 0;
}

/*
 * One -o list, split as findmnt splits it (util-linux's
 * string_add_to_idarray(), list's col_parse()): "+LIST" adds to the
 * columns chosen so far; a name ends at a comma but the last runs to the
 * end, so "TARGET," is a name no column has. 1 for an empty name ("",
 * "A,,B", ",A", "+") or past findmnt's COLS_MAX columns: findmnt exits 1
 * then, saying nothing.
 */
static int pcol_add_one(void *arg, const char *name, size_t len)
{
	return pcol_add(arg, name, len);
}

static int pcol_parse(struct poll_out *p, const char *spec)
{
	if (col_overflow(spec, (size_t)p->ncols, COLS_MAX))
		return 1;
	if (*spec != '+')
		p->ncols = 0;
	return col_walk(spec + (*spec == '+'), 0, SIZE_MAX, pcol_add_one, p);
}

/*
 * findmnt --output-all: its 24 columns (no ACTION: poll mode adds that
 * only to the default ones); a build without libblkid leaves out the four
 * blkid columns, as list's --output-all does.
 */
static int pcol_all(struct poll_out *p)
{
	int k = 0, r = pcol_parse(p, COLS_FINDMNT_ALL);

	if (r || tags_have())
		return r;
	p->need = 0;
	for (int i = 0; i < p->ncols; i++) {
		if (col_is_blkid(p->cols[i].col))
			continue;
		p->need |= p->cols[i].col->need;
		p->cols[k++] = p->cols[i];
	}
	p->ncols = k;
	return 0;
}

static int poll_action_one(void *arg, const char *name, size_t len)
{
	static const struct {
		const char *name;
		int kind;
	} acts[] = { { "mount", MNTSNAP_WATCH_MOUNT },
		     { "umount", MNTSNAP_WATCH_UMOUNT },
		     { "remount", MNTSNAP_WATCH_CHANGE },
		     { "move", MNTSNAP_WATCH_MOVE } };
	unsigned *mask = arg;

	for (size_t i = 0; i < sizeof(acts) / sizeof(acts[0]); i++)
		if (strlen(acts[i].name) == len && !strncasecmp(name, acts[i].name, len)) {
			*mask |= 1U << acts[i].kind;
			return 0;
		}
	(void)len; /* findmnt names the list from the bad name on */
	return cli_fail_cmd("list", ul_gettext("unknown action: %s"), name, strlen(name)), -EINVAL;
}

int cli_poll_actions(const char *list, unsigned *ret)
{
	unsigned mask = 0;
	/* findmnt keeps four actions: a fifth item is refused unread */
	int r = col_walk(list, 0, 4, poll_action_one, &mask);

	if (r)
		return r == -E2BIG ? 1 : r;
	*ret = mask;
	return 0;
}

/* -m, first batch: utab's options of the mount e's old record is, or NULL. */
static const char *old_user_opts(const struct poll_out *p, const struct mntsnap_watch_event *e)
{
	const struct mntsnap_mount *m = &e->old;

	for (size_t i = 0; i < p->nuser; i++)
		if (p->user[i].id ? p->user[i].id == m->id : p->user[i].id_old == m->id_old)
			return p->user[i].src;
	return NULL;
}

/*
 * findmnt's OPTIONS of l's old record: the kernel's, then utab's (-m,
 * first batch); a table entry's as its OPTIONS column shows it
 */
static void old_options(struct obuf *b, const struct poll_out *p, const struct pline *l)
{
	const char *u;
	size_t start = b->len;

	if (!l->e) {
		col_find("OPTIONS", 7)->get(b, l->old, &p->cx);
		return;
	}
	u = old_user_opts(p, l->e);
	col_merged_options(b, l->old);
	if (u) {
		if (b->len > start)
			ob_putc(b, ',');
		ob_puts(b, u);
	}
}

/*
 * findmnt's ACTION in findmnt's words: its four names go through its
 * catalogue ("montage" in French), anything else as it is
 */
static const char *poll_action_word(const char *name)
{
	static const char *const words[] = { UL_N_("mount"), UL_N_("umount"), UL_N_("remount"),
					     UL_N_("move") };

	for (size_t i = 0; name && i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(name, words[i]))
			return ul_gettext(words[i]);
	return name;
}

/* The raw value of column c for line l (nothing when it has none). */
static void pcol_value(struct obuf *b, const struct poll_out *p, const struct pcol *c,
		       const struct pline *l)
{
	switch (c->own) {
	case P_ACTION:
		ob_puts(b, poll_action_word(l->e ? action_name(l->e)
						 : mntsnap_watch_kind_name(l->kind)));
		break;
	case P_OLD_TARGET: /* findmnt: for a move and an umount */
		if (l->kind == MNTSNAP_WATCH_MOVE || l->kind == MNTSNAP_WATCH_UMOUNT)
			ob_puts(b, l->old->mount_point);
		break;
	case P_OLD_OPTIONS: /* findmnt: for a remount and an umount */
		if (l->kind == MNTSNAP_WATCH_CHANGE || l->kind == MNTSNAP_WATCH_UMOUNT)
			old_options(b, p, l);
		break;
	default:
		if (l->kind == MNTSNAP_WATCH_UMOUNT && !strcmp(c->col->name, "options"))
			old_options(b, p, l);
		else
			c->col->get(b, l->m, &p->cx);
	}
}

/* The line of watcher event e. */
static struct pline event_line(const struct mntsnap_watch_event *e)
{
	return (struct pline){ .kind = line_kind(e), .m = subject(e), .old = &e->old, .e = e };
}

/* Does findmnt print e with this ACTION list? (Its filters: poll_filter().) */
static bool poll_wants(const struct poll_out *p, const struct mntsnap_watch_event *e)
{
	if (e->kind == MNTSNAP_WATCH_RESYNC || !findmnt_sees(e))
		return false; /* a resync's differences are lines of their own */
	return !p->actions || (p->actions & (1U << line_kind(e)));
}

/* Is a the parent of child? (By unique id; the text route has /proc ids only.) */
static bool is_parent(const struct mntsnap_mount *a, const struct mntsnap_mount *child)
{
	if (a->id && child->parent_id)
		return child->parent_id == a->id;
	return child->id_old && child->parent_id_old == a->id_old;
}

/*
 * --shadowed for one change: is a mount stacked on its record in the
 * table findmnt's filter sees it in? The new table (the watcher's live
 * snapshot) for what is mounted, moved or remounted; the old one for an
 * umount, where a mount stacked on it went in the same batch (the only
 * way such a mount can go: umount -R, a lazy umount, or moved away).
 */
static bool poll_over(const struct ev_at *v, size_t n, const struct mntsnap_watch_event *e,
		      const struct mntsnap_snapshot *live)
{
	const struct mntsnap_mount *m = subject(e);
	struct mntsnap_mount c;

	if (e->kind == MNTSNAP_WATCH_UMOUNT) {
		for (size_t i = 0; i < n; i++) {
			const struct mntsnap_watch_event *o = &v[i].e;

			if ((o->kind == MNTSNAP_WATCH_UMOUNT || o->kind == MNTSNAP_WATCH_MOVE) &&
			    o != e && is_parent(m, &o->old) &&
			    !strcmp(o->old.mount_point, m->mount_point))
				return true;
		}
		return false;
	}
	if (!live)
		return false;
	for (long j = mntsnap_snapshot_next_mount_point(live, m->mount_point, -1); j >= 0;
	     j = mntsnap_snapshot_next_mount_point(live, m->mount_point, j))
		if (mntsnap_snapshot_get(live, (size_t)j, &c) == 0 && is_parent(m, &c))
			return true;
	return false;
}

/*
 * findmnt's filters on a change (poll_match(new ? new : old)): the record
 * after a mount, move or remount, the one before an umount.
 */
static bool poll_filter(struct poll_out *p, const struct ev_at *v, size_t n,
			const struct mntsnap_watch_event *e, struct mntsnap_watch *w)
{
	const struct mntsnap_snapshot *live = NULL;
	bool over = false, r;

	if (!p->filter)
		return true;
	if (p->filter->v->shadowed) {
		/* --shadowed only: the live table, rebuilt once per batch */
		if (e->kind != MNTSNAP_WATCH_UMOUNT && mntsnap_watch_snapshot(w, &live))
			live = NULL;
		over = poll_over(v, n, e, live);
	}
	/* -m, first batch: an umount's record is the mtab's, utab's options in it */
	p->filter->user_opts = e->kind == MNTSNAP_WATCH_UMOUNT ? old_user_opts(p, e) : NULL;
	r = view_filter_match(p->filter, subject(e), over);
	p->filter->user_opts = NULL;
	return r;
}

/* a cell as printed; a SOURCES cell's further lines: nmore from more on */
struct pcell {
	size_t off, len, width;
	size_t more, nmore;
};

struct pcells_more {
	struct pcell *v;
	size_t n, cap;
};

/* Column c's heading: findmnt's, or with -y as a shell variable name. */
static const char *pcol_heading(const struct poll_out *p, int c, char *buf, size_t size)
{
	return p->shellvar ? col_shellvar(p->cols[c].header, buf, size) : p->cols[c].header;
}

static void pad_to(struct obuf *b, size_t n)
{
	while (n--)
		ob_putc(b, ' ');
}

/*
 * One cell of the table; a wrap column's (findmnt's SOURCES) a line a
 * newline-separated chunk, each escaped, none after a final newline, as
 * libsmartcols keeps a multi-line cell. Returns the widest line's width.
 */
static size_t poll_cell(struct obuf *cells, struct pcell *ce, struct pcells_more *more,
			const struct obuf *val, bool wraps, const struct out_locale *loc)
{
	const char *s = val->len ? val->p : "", *end = s + val->len;
	const char *nl = wraps ? memchr(s, '\n', val->len) : NULL;
	size_t widest;

	*ce = (struct pcell){ .off = cells->len, .more = more->n };
	ce->width = out_enc_cell(cells, s, (size_t)((nl ? nl : end) - s), OUT_LIST, loc);
	ce->len = cells->len - ce->off;
	widest = ce->width;
	while (nl && nl + 1 < end) {
		struct pcell *x;

		if (more->n == more->cap) {
			size_t cap = more->cap ? 2 * more->cap : 16;
			struct pcell *v = realloc(more->v, cap * sizeof(*v));

			if (!v) {
				cells->err = -ENOMEM;
				break;
			}
			more->v = v;
			more->cap = cap;
		}
		x = &more->v[more->n++];
		s = nl + 1;
		nl = memchr(s, '\n', (size_t)(end - s));
		*x = (struct pcell){ .off = cells->len };
		x->width = out_enc_cell(cells, s, (size_t)((nl ? nl : end) - s), OUT_LIST, loc);
		x->len = cells->len - x->off;
		ce->nmore++;
		if (x->width > widest)
			widest = x->width;
	}
	return widest;
}

/*
 * A row's further lines (libsmartcols' pending data): each a cell's next
 * line, left-aligned, the other columns blank; all padded but the last.
 */
static void poll_more(struct obuf *out, const struct obuf *cells, const struct pcells_more *more,
		      const struct pcell *row, const size_t *width, int ncols)
{
	size_t next[MAX_COLS] = { 0 };
	bool left = true;

	while (left) {
		left = false;
		for (int c = 0; c < ncols; c++) {
			size_t used = 0;

			if (next[c] < row[c].nmore) {
				const struct pcell *x = &more->v[row[c].more + next[c]++];

				ob_put(out, cells->p + x->off, x->len);
				used = x->width;
				left |= next[c] < row[c].nmore;
			}
			if (c + 1 < ncols) {
				pad_to(out, width[c] > used ? width[c] - used : 0);
				ob_putc(out, ' ');
			}
		}
		ob_putc(out, '\n');
	}
}

/*
 * The tree and list forms: one table per batch, as findmnt prints each
 * read of the table (libsmartcols lays out every batch anew: a column is
 * as wide as its widest value in the batch, its heading, counted even
 * when not printed, or its width hint, as list's tables); the heading
 * goes out once, with the first batch.
 */
static int poll_table(struct poll_out *p, const struct pline *ev, size_t n, struct obuf *out)
{
	struct pcell *cv = calloc(n * (size_t)p->ncols + 1, sizeof(*cv));
	size_t width[MAX_COLS] = { 0 };
	struct obuf cells = { 0 }, val = { 0 };
	struct pcells_more more = { 0 };
	char hbuf[80];
	int r;

	if (!cv)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		for (int c = 0; c < p->ncols; c++) {
			const struct column *col = p->cols[c].col;
			size_t need;

			val.len = 0;
			pcol_value(&val, p, &p->cols[c], &ev[k]);
			need = poll_cell(&cells, &cv[k * (size_t)p->ncols + (size_t)c], &more, &val,
					 col && col->json == COL_JSON_ARRAY, &p->cx.loc);
			if (need > width[c])
				width[c] = need;
		}
	}
	/* widths by findmnt's own heading, also with -y (a longer name sticks out) */
	for (int c = 0; c < p->ncols; c++) {
		size_t hl = strlen(p->cols[c].header), hint = p->cols[c].min_width;

		if (width[c] < hl)
			width[c] = hl;
		else if (width[c] < hint && hl < hint)
			width[c] = hint;
		if (p->cols[c].strict && width[c] < hint)
			width[c] = hint;
	}
	for (int c = 0; !p->noheadings && !p->headed && c < p->ncols; c++) {
		const char *h = pcol_heading(p, c, hbuf, sizeof(hbuf));
		size_t hl = strlen(h), fill = width[c] > hl ? width[c] - hl : 0;
		bool right = p->cols[c].flags & COL_RIGHT, lastc = c + 1 == p->ncols;

		if (right)
			pad_to(out, fill);
		ob_puts(out, h);
		if (!right && !lastc)
			pad_to(out, fill);
		ob_putc(out, lastc ? '\n' : ' ');
	}
	for (size_t k = 0; k < n && !cells.err; k++) {
		const struct pcell *row = &cv[k * (size_t)p->ncols];
		bool lines = false;

		for (int c = 0; c < p->ncols; c++) {
			const struct pcell *ce = &row[c];
			size_t fill = width[c] > ce->width ? width[c] - ce->width : 0;
			bool right = p->cols[c].flags & COL_RIGHT, lastc = c + 1 == p->ncols;

			/* an empty last cell is not padded at all */
			if (right && !(lastc && !ce->len))
				pad_to(out, fill);
			ob_put(out, cells.p + ce->off, ce->len);
			if (!right && !lastc)
				pad_to(out, fill);
			ob_putc(out, lastc ? '\n' : ' ');
			lines |= ce->nmore > 0;
		}
		if (lines)
			poll_more(out, &cells, &more, row, width, p->ncols);
	}
	r = cells.err ? cells.err : val.err;
	ob_free(&cells);
	ob_free(&val);
	free(more.v);
	free(cv);
	return r;
}

/* -r and -P: a line per event, the heading (-r) once, with the first. */
static int poll_lines(struct poll_out *p, const struct pline *ev, size_t n, struct obuf *out)
{
	bool pairs = p->mode == OUT_PAIRS;
	struct obuf val = { 0 };
	char hbuf[80];
	int r;

	for (int c = 0; !pairs && !p->noheadings && !p->headed && c < p->ncols; c++) {
		const char *h = pcol_heading(p, c, hbuf, sizeof(hbuf));

		out_enc_cell(out, h, strlen(h), OUT_RAW, &p->cx.loc);
		ob_putc(out, c + 1 < p->ncols ? ' ' : '\n');
	}
	for (size_t k = 0; k < n; k++) {
		for (int c = 0; c < p->ncols; c++) {
			val.len = 0;
			pcol_value(&val, p, &p->cols[c], &ev[k]);
			if (pairs) {
				ob_puts(out, pcol_heading(p, c, hbuf, sizeof(hbuf)));
				ob_put(out, "=\"", 2);
			}
			out_enc_cell(out, val.len ? val.p : "", val.len, p->mode, &p->cx.loc);
			if (pairs)
				ob_putc(out, '"');
			ob_putc(out, c + 1 < p->ncols ? ' ' : '\n');
		}
	}
	r = val.err;
	ob_free(&val);
	return r;
}

/*
 * -J: each batch one document as list -J -l writes one, {"filesystems":
 * [...]} with a line per event, the keys the columns' lowercase names.
 * (findmnt 2.38's --poll -J aborts on an assertion at its first batch.)
 */
static int poll_json(struct poll_out *p, const struct pline *ev, size_t n, struct obuf *out)
{
	struct obuf val = { 0 };
	char hbuf[80];
	int r;

	ob_puts(out, "{\"filesystems\":[\n");
	for (size_t k = 0; k < n; k++) {
		ob_putc(out, '{');
		for (int c = 0; c < p->ncols; c++) {
			const struct column *col = p->cols[c].col;

			val.len = 0;
			pcol_value(&val, p, &p->cols[c], &ev[k]);
			if (c)
				ob_putc(out, ',');
			ob_putc(out, '"');
			if (p->shellvar) {
				/* as list -y -J: the shell name, lower case */
				for (const char *h = pcol_heading(p, c, hbuf, sizeof(hbuf)); *h; h++)
					ob_putc(out, (char)(*h >= 'A' && *h <= 'Z' ? *h + 32 : *h));
			} else {
				ob_puts(out, p->cols[c].name);
			}
			ob_put(out, "\":", 2);
			if (!val.len)
				ob_puts(out, "null");
			else if (col && col->json == COL_JSON_NUMBER)
				ob_put(out, val.p, val.len);
			else
				out_enc_cell(out, val.p, val.len, OUT_JSON, &p->cx.loc);
		}
		ob_puts(out, k + 1 < n ? "},\n" : "}\n");
	}
	ob_puts(out, "]}\n");
	r = val.err;
	ob_free(&val);
	return r;
}

static int dropped_pair(struct dropped *d, const struct mntsnap_mount *top);

/* Is e about one of the mounts -U dropped at the start? Its slot, or -1. */
static long dropped_slot(const struct poll_out *p, const struct mntsnap_mount *m)
{
	for (size_t i = 0; i < p->ndropped; i++) {
		const struct dropped *d = &p->dropped[i];

		if (d->id ? d->id == m->id : d->id_old == m->id_old)
			return (long)i;
	}
	return -1;
}

/*
 * -U at the start (findmnt's mnt_table_uniq_fs() on its first table): the
 * mounts with a later one at the same mount point. Only the ids are kept:
 * the first batch reads their records from the table as it is then.
 */
static int uniq_start(struct poll_out *p, struct mntsnap_watch *w)
{
	const struct mntsnap_snapshot *s;
	struct mntsnap_mount m;
	size_t n;
	int r = mntsnap_watch_snapshot(w, &s);

	if (r)
		return r;
	n = mntsnap_snapshot_count(s);
	p->dropped = calloc(n + 1, sizeof(*p->dropped));
	if (!p->dropped)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		long top = -1;

		mntsnap_snapshot_get(s, i, &m);
		for (long j = mntsnap_snapshot_next_mount_point(s, m.mount_point, -1); j >= 0;
		     j = mntsnap_snapshot_next_mount_point(s, m.mount_point, j))
			if ((size_t)j > i && j > top)
				top = j;
		if (top >= 0) {
			struct dropped *d = &p->dropped[p->ndropped++];

			d->id = m.id, d->id_old = m.id_old;
			mntsnap_snapshot_get(s, (size_t)top, &m);
			r = dropped_pair(d, &m);
			if (r)
				return r;
		}
	}
	return 0;
}

static void dropped_free(struct poll_out *p)
{
	for (size_t i = 0; i < p->ndropped; i++)
		free(p->dropped[i].src), free(p->dropped[i].mp), free(p->dropped[i].vfs),
			free(p->dropped[i].fs);
	free(p->dropped);
	p->dropped = NULL;
	p->ndropped = 0;
}

static void user_free(struct poll_out *p)
{
	for (size_t i = 0; i < p->nuser; i++)
		free(p->user[i].src);
	free(p->user);
	p->user = NULL;
	p->nuser = 0;
}

/* -m at the start: the mounts utab gives options to, in the table then */
static int user_start(struct poll_out *p, struct mntsnap_watch *w)
{
	const struct mntsnap_snapshot *s;
	struct mntsnap_mount m;
	char **user = NULL;
	size_t n;
	int r = mntsnap_watch_snapshot(w, &s);

	if (!r)
		r = p->utab(s, &user);
	if (r || !user)
		return r;
	n = mntsnap_snapshot_count(s);
	p->user = calloc(n + 1, sizeof(*p->user));
	for (size_t i = 0; i < n; i++) {
		if (!user[i] || !p->user) {
			free(user[i]);
			continue;
		}
		mntsnap_snapshot_get(s, i, &m);
		p->user[p->nuser++] = (struct dropped){ .id = m.id, .id_old = m.id_old,
							.src = user[i] };
	}
	free(user);
	return p->user ? 0 : -ENOMEM;
}

/* mountinfo's VFS (what = MNTSNAP_OPTIONS_VFS) or super options text, malloc'd */
static char *opt_text(const struct mntsnap_mount *m, int what)
{
	size_t len = strlen(m->options ? m->options : "") + 512;
	char *b = malloc(len);

	if (b && mntsnap_mount_options(m, what, b, len) < 0)
		b[0] = '\0';
	return b;
}

/* What libmount's table diff compares a dropped mount with: the kept one's texts. */
static int dropped_pair(struct dropped *d, const struct mntsnap_mount *top)
{
	if (!(top->mask & MNTSNAP_F_SOURCE) || !top->source[0])
		return 0;
	d->src = strdup(top->source);
	d->mp = strdup(top->mount_point);
	d->vfs = opt_text(top, MNTSNAP_OPTIONS_VFS);
	d->fs = opt_text(top, MNTSNAP_OPTIONS_FS);
	return d->src && d->mp && d->vfs && d->fs ? 0 : -ENOMEM;
}

/*
 * A dropped mount m in findmnt's first batch: no line when libmount pairs
 * it (same source and mount point) with the mount kept there and their
 * options are equal, a remount when they differ, else a mount.
 */
static int dropped_kind(const struct dropped *d, const struct mntsnap_mount *m)
{
	char *vfs, *fs;
	bool same;

	if (!d->src || !(m->mask & MNTSNAP_F_SOURCE) || strcmp(m->source, d->src) ||
	    strcmp(m->mount_point, d->mp))
		return MNTSNAP_WATCH_MOUNT;
	vfs = opt_text(m, MNTSNAP_OPTIONS_VFS);
	fs = opt_text(m, MNTSNAP_OPTIONS_FS);
	same = vfs && fs && !strcmp(vfs, d->vfs) && !strcmp(fs, d->fs);
	free(vfs), free(fs);
	return same ? -1 : MNTSNAP_WATCH_CHANGE;
}

/*
 * findmnt -p -U's first batch: its de-duplicated first table against the
 * whole new one, so each mount it dropped and still there is a "mount"
 * (with what it is now), one gone is nothing. *ret: the batch so changed
 * (malloc'd, sorted as drain_sorted() sorts), *ret_n.
 */
static int uniq_first(struct poll_out *p, const struct ev_at *v, size_t n,
		      struct mntsnap_watch *w, struct ev_at **ret, size_t *ret_n)
{
	const struct mntsnap_snapshot *live;
	bool *seen = calloc(p->ndropped + 1, 1);
	struct ev_at *out = calloc(n + p->ndropped + 1, sizeof(*out));
	size_t k = 0;
	int r = mntsnap_watch_snapshot(w, &live);

	if (!r && (!seen || !out))
		r = -ENOMEM;
	for (size_t i = 0; !r && i < n; i++) {
		long d = v[i].e.kind == MNTSNAP_WATCH_RESYNC ? -1
							      : dropped_slot(p, subject(&v[i].e));

		out[k] = v[i];
		if (d >= 0) {
			int kind = dropped_kind(&p->dropped[d], &v[i].e.mount);

			seen[d] = true;
			if (v[i].e.kind == MNTSNAP_WATCH_UMOUNT || kind < 0)
				continue;
			out[k].e.kind = kind;
			/* a remount's old record: the dropped mount's own (the kept one's is gone) */
			out[k].e.changed = 0;
		}
		k++;
	}
	for (size_t d = 0; !r && d < p->ndropped; d++) {
		const struct dropped *x = &p->dropped[d];
		long j = x->id ? mntsnap_snapshot_find(live, x->id)
			       : mntsnap_snapshot_find_old(live, x->id_old);
		int kind;

		if (seen[d] || j < 0)
			continue;
		out[k] = (struct ev_at){ .e = { .id = x->id }, .i = n + d };
		mntsnap_snapshot_get(live, (size_t)j, &out[k].e.mount);
		out[k].e.old = out[k].e.mount;
		kind = dropped_kind(x, &out[k].e.mount);
		if (kind < 0)
			continue;
		out[k].e.kind = kind;
		k++;
	}
	free(seen);
	if (r) {
		free(out);
		return r;
	}
	qsort(out, k, sizeof(*out), cmp_ev_at);
	*ret = out;
	*ret_n = k;
	return 0;
}

/*
 * The events of one drain that findmnt prints, printed as it prints them
 * (-d backward: from the last; -f: the first only). 1 when -f printed its
 * line (findmnt then stops), 0, -ENOMEM.
 */
static int poll_print(struct poll_out *p, const struct pline *ev, size_t k);

static int poll_batch(struct poll_out *p, const struct ev_at *v, size_t n,
		      struct mntsnap_watch *w)
{
	struct pline *ev = calloc(n + 1, sizeof(*ev));
	size_t k = 0;
	int r;

	if (!ev)
		return -ENOMEM;
	for (size_t j = 0; j < n && !(p->first_only && k); j++) {
		const struct ev_at *x = &v[p->backward ? n - 1 - j : j];

		if (poll_wants(p, &x->e) && poll_filter(p, v, n, &x->e, w))
			ev[k++] = event_line(&x->e);
	}
	r = poll_print(p, ev, k);
	free(ev);
	return r;
}

/*
 * The k lines of one batch, in the output form (nothing for none). 1
 * when -f printed its line (findmnt then stops), 0, -ENOMEM.
 */
static int poll_print(struct poll_out *p, const struct pline *ev, size_t k)
{
	struct obuf out = { 0 };
	int r;

	if (!k)
		return 0;
	if (p->mode == OUT_JSON)
		r = poll_json(p, ev, k, &out);
	else if (p->mode == OUT_RAW || p->mode == OUT_PAIRS)
		r = poll_lines(p, ev, k, &out);
	else
		r = poll_table(p, ev, k, &out);
	if (!r)
		r = out.err;
	if (!r)
		fwrite(out.p, 1, out.len, stdout);
	p->headed = true;
	ob_free(&out);
	return r ? r : p->first_only;
}

/* Print the events of one drain; 1 once --count is reached, 0, -ENOMEM. */
static int print_events(const struct wargs *a, struct mntsnap_watch *w, uint64_t *seen)
{
	struct ev_at *v = NULL;
	size_t n = 0;
	int r = drain_sorted(w, &v, &n);

	if (!r && a->poll && a->poll->uniq && n) {
		struct ev_at *u = NULL;

		/* -U: only findmnt's first batch differs */
		a->poll->uniq = false;
		r = uniq_first(a->poll, v, n, w, &u, &n);
		free(v);
		v = u;
	}
	if (!r && a->poll) {
		char **names = calloc(2 * n + 1, sizeof(*names));

		/* findmnt re-reads mountinfo text, "/dev/root" renamed (devroot.h) */
		for (size_t i = 0; names && i < n; i++) {
			names[2 * i] = devroot_name(&v[i].e.mount);
			names[2 * i + 1] = devroot_name(&v[i].e.old);
			if (names[2 * i])
				v[i].e.mount.source = names[2 * i];
			if (names[2 * i + 1])
				v[i].e.old.source = names[2 * i + 1];
		}
		r = names ? poll_batch(a->poll, v, n, w) : -ENOMEM;
		devroot_free(names, 2 * n);
		/* -m: findmnt reads every later table without the utab */
		user_free(a->poll);
		free(v);
		return r;
	}

	for (size_t i = 0; !r && i < n; i++) {
		const struct mntsnap_watch_event *e = &v[i].e;

		if (!a->all_changes && !findmnt_sees(e))
			continue;
		r = a->json ? print_json(e) : print_line(a, e);
		if (!r && e->kind != MNTSNAP_WATCH_RESYNC && a->count && ++*seen >= a->count)
			r = 1;
	}
	free(v);
	return r;
}

/* 0, or the error of writing what stdout holds (message printed). */
static int out_flush(void)
{
	int r = cli_stdout_status();

	return r ? cli_fail(r, "watch: writing output") : 0;
}

/* The stop signal sigfd holds (SIGINT, SIGTERM); 0 if none after all. */
static int caught(int sigfd)
{
	struct signalfd_siginfo si;

	return read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si) ? (int)si.ssi_signo : 0;
}

/*
 * After each batch of lines. watch: a reader gone, a full disk: nobody
 * sees the events, stop (exit 2). list -p does as findmnt, which never
 * looks: a gone reader kills it by SIGPIPE at its next line (the default
 * disposition), or, SIGPIPE ignored, the write fails and findmnt says so
 * only at its end; so the first failure is kept (*werr) and the poll
 * goes on.
 */
static int batch_flush(const struct wargs *a, int *werr)
{
	int r = cli_stdout_status();

	if (!r)
		return 0;
	if (!a->poll)
		return cli_fail(r, "watch: writing output");
	if (!*werr)
		*werr = r;
	clearerr(stdout);
	return 0;
}

/* list -p's end (-w, the task gone): a write that failed said, as findmnt's */
static int poll_end(int werr)
{
	return werr ? cli_fail(werr, "list: write error") : 0;
}

/*
 * Wait for events until a stop condition; 0 or -errno (message printed).
 * A stop signal is 0, with *sig set to it.
 */
/*
 * A target numbered by a procfs of another pid namespace is held by its
 * /proc directory, no pidfd (cli.h): nothing wakes us at its exit, so we
 * ask that often. Such a wake is no change: findmnt -w's idle clock runs on.
 */
#define EXIT_CHECK_MS 250

static bool exit_unwatched(const struct wargs *a)
{
	return a->t.set && a->t.pid && !cli_pid_is_self(a->t.pid) && !cli_proc_numbers_own();
}

static int loop(const struct wargs *a, const struct mntsnap_ns *ns, struct mntsnap_watch *w,
		int sigfd, int *sig)
{
	/* watch: stdout too, for nothing but POLLERR/POLLHUP: a pipe whose
	 * reader went away (mntsnap watch | head -1) ends the watch even when
	 * no change ever comes to write. list -p: not (batch_flush()) */
	struct pollfd p[3] = {{.fd = mntsnap_watch_fd(w), .events = POLLIN},
			      {.fd = sigfd, .events = POLLIN},
			      {.fd = a->poll ? -1 : STDOUT_FILENO, .events = 0}};
	double end = a->timeout ? now_s() + a->timeout : 0;
	bool check_exit = ns && exit_unwatched(a);
	uint64_t seen = 0;
	int werr = 0;

	for (;;) {
		int ms = -1, r;

		if (end) {
			double left = end - now_s();

			if (left <= 0)
				return poll_end(werr);
			/* --timeout goes up to 1e9 s, past what an int of ms
			 * holds: wait a day at most, then look again */
			ms = left > 86400 ? 86400 * 1000 : (int)(left * 1000) + 1;
		}
		if (check_exit && (ms < 0 || ms > EXIT_CHECK_MS))
			ms = EXIT_CHECK_MS;
		r = poll(p, 3, ms);
		if (r < 0 && errno != EINTR)
			return cli_fail(-errno, "watch: poll");
		if (!r && check_exit) {
			if (mntsnap_ns_alive(ns) == -ESRCH) {
				fflush(stdout);
				fprintf(stderr, "mntsnap: watch: the target process has exited\n");
				return poll_end(werr);
			}
			continue; /* the -w clock (end) decides at the loop's top */
		}
		/*
		 * Nothing woke us (the wait's bound, or a stray signal): no
		 * look at the table. -p's sync would find what no event of
		 * the namespace reported (a superblock remount made through
		 * another namespace, an fsconfig reconfigure) and print it,
		 * where findmnt, woken only by POLLPRI, prints nothing
		 */
		if (r <= 0)
			continue;
		if (p[1].revents && (*sig = caught(sigfd)))
			return 0; /* SIGINT/SIGTERM: the caller dies of it */
		if (p[2].revents & POLLNVAL)
			p[2].fd = -1; /* no stdout: writing says so */
		else if (p[2].revents & (POLLERR | POLLHUP))
			return 0; /* watch: nobody reads any more */
		/* findmnt -w bounds each wait for a change, not the whole run */
		if (a->idle_timeout && end && r > 0)
			end = now_s() + a->timeout;
		/*
		 * -p: findmnt reads the whole table at each wake, so a change
		 * the kernel sent no event for here (a rename above a mount
		 * point, a remount made from another namespace) comes in the
		 * next event's batch, in the diff's order (drain_sorted()):
		 * sweep now, not settle_ms later in a batch of its own
		 */
		r = a->poll ? mntsnap_watch_sync(w) : mntsnap_watch_drain(w);
		if (r == -ESRCH) {
			fflush(stdout);
			fprintf(stderr, "mntsnap: watch: the target process has exited\n");
			return poll_end(werr);
		}
		if (r < 0)
			return cli_fail(r, "watch");
		r = print_events(a, w, &seen);
		if (batch_flush(a, &werr))
			return CLI_EXIT_ERR;
		if (r < 0)
			return cli_fail(r, "watch");
		if (r)
			return 0;
	}
}

/* ---- list -p -F a task's table in /proc/mounts' format --------------------------- */

/*
 * findmnt -U on the table it starts from (mnt_table_uniq_fs(), forward):
 * an entry is dropped when a later one has its mount point
 */
static void mounts_uniq(struct fstab *t)
{
	for (size_t i = 0; i < t->n; i++)
		for (size_t j = i + 1; j < t->n && !t->ent[i].gone; j++)
			t->ent[i].gone = !t->ent[j].gone && streq_paths(t->ent[j].target,
									 t->ent[i].target);
}

/*
 * fstab_read_fd() for the filters too: a mount table's entries have
 * their mount points (-M, -T, a positional one match them)
 */
static int mounts_read(int fd, const char *name, struct fstab *t)
{
	int r = fstab_read_fd(fd, name, t);

	for (size_t i = 0; !r && i < t->n; i++)
		t->ent[i].m.mask |= MNTSNAP_F_MOUNT_POINT;
	return r;
}

/*
 * One read's changes as findmnt prints them: its ACTIONS, its filters on
 * the record after (before, for an umount), -d backward, -f. 1 when -f
 * printed its line, 0, -errno.
 */
static int mounts_batch(struct poll_out *p, const struct tabdiff_change *v, size_t n)
{
	struct pline *ev = calloc(n + 1, sizeof(*ev));
	size_t k = 0;
	int r;

	if (!ev)
		return -ENOMEM;
	for (size_t j = 0; j < n && !(p->first_only && k); j++) {
		const struct tabdiff_change *c = &v[p->backward ? n - 1 - j : j];
		struct pline l = { .kind = c->kind, .m = c->new ? &c->new->m : &c->old->m,
				   .old = c->old ? &c->old->m : &c->new->m };

		if (p->actions && !(p->actions & (1U << c->kind)))
			continue;
		if (p->filter && !view_filter_match(p->filter, l.m, false))
			continue;
		ev[k++] = l;
	}
	r = poll_print(p, ev, k);
	free(ev);
	return r;
}

/* PIDFD_THREAD (Linux 6.9): a pidfd of a thread, readable at its exit */
#define CLI_PIDFD_THREAD O_EXCL

/*
 * The target task's exit, as a pollable fd: -1 for none (our own table).
 * A thread that leads no group (a thread's file) has a pidfd of its own
 * only as PIDFD_THREAD; without the flag it ends nothing, as before.
 */
static int task_fd(const struct wargs *a)
{
	int fd;

	if (!a->t.set || !a->t.pid || cli_pid_is_self(a->t.pid))
		return -1;
	/* PID is /proc's number: pidfd_open() takes ours (none: no exit seen) */
	if (!cli_proc_numbers_own())
		return -1;
	fd = (int)syscall(SYS_pidfd_open, (pid_t)a->t.pid, 0);
	if (fd < 0 && (errno == ENOENT || errno == EINVAL))
		fd = (int)syscall(SYS_pidfd_open, (pid_t)a->t.pid, CLI_PIDFD_THREAD);
	return fd;
}

/*
 * Read path again at each change and print what libmount's diff of the
 * two reads finds (tabdiff.h). 0 to go on (*t the new table), 1 when -f
 * printed its line, < 0 an error (message printed).
 */
static int mounts_change(const struct wargs *a, int fd, const char *name, struct fstab *t)
{
	struct tabdiff_change *v = NULL;
	struct fstab nt;
	size_t n = 0;
	int r = mounts_read(fd, name, &nt);

	if (r)
		return cli_fail(r, "list: %s", name);
	r = tabdiff_tables(t, &nt, &v, &n);
	if (!r)
		r = mounts_batch(a->poll, v, n);
	free(v);
	fstab_free(t);
	*t = nt;
	return r < 0 ? cli_fail(r, "list") : r;
}

/*
 * list -p -F /proc/PID/mounts (a thread's, /proc/self/mounts,
 * /proc/mounts): as findmnt, the file opened once, read at the start and
 * again through that open file at each POLLPRI, so the view is the one
 * the kernel fixed at open (the task's root then); its entries have no
 * ids, so the lines are libmount's diff of the two reads, pairing by
 * source and mount point. -w, a stop signal, the task's exit (as -N's
 * watch) end it.
 */
static int poll_mounts(const struct wargs *a, const char *path, const char *name, int sigfd,
		       int *sig)
{
	struct fstab t = { 0 };
	struct pollfd p[3] = { { .fd = open(path, O_RDONLY | O_CLOEXEC), .events = POLLPRI },
			       { .fd = sigfd, .events = POLLIN },
			       { .fd = -1, .events = POLLIN } };
	double end = a->timeout ? now_s() + a->timeout : 0;
	int werr = 0, r;

	if (p[0].fd < 0)
		return cli_fail(-errno, "list: %s", name);
	r = mounts_read(p[0].fd, name, &t);
	if (r) {
		close(p[0].fd);
		return cli_fail(r, "list: %s", name);
	}
	if (a->poll->uniq)
		mounts_uniq(&t);
	p[2].fd = task_fd(a);
	for (r = 0; !r;) {
		int ms = -1;

		if (end) {
			double left = end - now_s();

			if (left <= 0) {
				r = poll_end(werr);
				break;
			}
			ms = left > 86400 ? 86400 * 1000 : (int)(left * 1000) + 1;
		}
		if (poll(p, 3, ms) < 0 && errno != EINTR) {
			r = cli_fail(-errno, "list: poll");
			break;
		}
		if (p[1].revents && (*sig = caught(sigfd)))
			break;
		if (p[2].revents) {
			fflush(stdout);
			fprintf(stderr, "mntsnap: watch: the target process has exited\n");
			r = poll_end(werr);
			break;
		}
		if (!(p[0].revents & (POLLPRI | POLLERR)))
			continue;
		/* findmnt -w bounds each wait for a change */
		if (end)
			end = now_s() + a->timeout;
		r = mounts_change(a, p[0].fd, name, &t);
		if (batch_flush(a, &werr))
			r = CLI_EXIT_ERR;
		if (r == 1) { /* -f: its line printed, stop */
			r = 0;
			break;
		}
	}
	fstab_free(&t);
	close(p[0].fd);
	if (p[2].fd >= 0)
		close(p[2].fd);
	return r;
}

static int save_live(const struct wargs *a, struct mntsnap_watch *w)
{
	const struct mntsnap_snapshot *s;
	/* what changed since the last drain is in the file, not printed */
	int r = mntsnap_watch_sync(w);

	if (r == -ESRCH) /* the target is gone: its last state is saved */
		r = 0;
	if (r >= 0)
		r = mntsnap_watch_snapshot(w, &s);

	if (!r)
		r = mntsnap_snapshot_save(s, a->save);
	return r ? cli_fail(r, "watch: --save %s", a->save) : 0;
}

static int watch_run(const struct wargs *a, const struct mntsnap_ns *ns, int sigfd, int *sig)
{
	struct mntsnap_error err = {0};
	MNTSNAP_OPTS(mntsnap_watch_opts, o, .ns = ns, .error = &err,
		     .mountinfo_path = a->mountinfo_path,
		     .mask = a->mask ? MNTSNAP_MASK_DEFAULT | a->mask : 0,
		     .flags = (a->no_settle ? MNTSNAP_WATCH_NO_SETTLE : 0) |
			      (a->pollpri ? MNTSNAP_WATCH_POLLPRI_ONLY : 0));
	struct mntsnap_watch *w = NULL;
	int r = mntsnap_watch_new(&o, &w);

	if (r)
		return err.msg[0] ? cli_fail(0, "watch: %s", err.msg) : cli_fail(r, "watch");
	if (a->poll && a->poll->uniq && (r = uniq_start(a->poll, w))) {
		mntsnap_watch_free(w);
		return cli_fail(r, "watch");
	}
	if (a->poll && a->poll->utab && (r = user_start(a->poll, w))) {
		mntsnap_watch_free(w);
		return cli_fail(r, "list: reading the utab");
	}
	if (!a->json && !a->noheadings)
		print_header(a);
	r = out_flush() ? CLI_EXIT_ERR : loop(a, ns, w, sigfd, sig);
	if (!r && a->save)
		r = save_live(a, w);
	mntsnap_watch_free(w);
	return r ? CLI_EXIT_ERR : 0;
}

/*
 * Open the target, run the watch until a stop condition; the exit status.
 * *sig: the stop signal that ended it (0: none), for the caller to die of
 * once it has cleaned up.
 */
static int watch_main(const struct wargs *a, int *sig)
{
	struct mntsnap_ns *ns = NULL;
	sigset_t set;
	int r, sigfd;

	*sig = 0;
	if (cli_target_open(&a->t, &ns))
		return CLI_EXIT_ERR;
	/*
	 * SIGINT/SIGTERM end the loop cleanly (--save still writes, the
	 * output is flushed); then the process dies of the signal, as a
	 * program that catches one to clean up should, so that its caller
	 * knows (a shell's 128+N, and bash ends a script's loop at SIGINT)
	 */
	r = cli_stop_signals(&set);
	sigfd = r ? r : signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd < 0) {
		cli_target_close(ns);
		return cli_fail(r ? r : -errno, "watch: signalfd");
	}
	r = watch_run(a, ns, sigfd, sig);
	close(sigfd);
	cli_target_close(ns);
	return r;
}

/* poll_mounts() between the stop signals' set-up and its end; the exit status */
static int mounts_main(const struct wargs *a, const struct cli_poll *q, int *sig)
{
	sigset_t set;
	int r = cli_stop_signals(&set), sigfd;

	*sig = 0;
	sigfd = r ? r : signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd < 0)
		return cli_fail(r ? r : -errno, "list: signalfd");
	r = poll_mounts(a, q->mounts_path, q->mounts_name ? q->mounts_name : q->mounts_path,
			sigfd, sig);
	close(sigfd);
	return r;
}

/* list -p: a table in /proc/mounts' format read again, else the watcher */
static int poll_main(const struct wargs *a, const struct cli_poll *q, int *sig)
{
	return q->mounts_path ? mounts_main(a, q, sig) : watch_main(a, sig);
}

int cmd_watch(int argc, char **argv)
{
	struct wargs a = {.cols = {C_ACTION, C_TARGET, C_SOURCE, C_FSTYPE, C_OPTIONS}, .ncols = 5};
	int r = parse_args(&a, argc, argv), sig;

	if (r)
		return r > 0 ? 0 : CLI_EXIT_ERR;
	r = watch_main(&a, &sig);
	if (sig && !r)
		cli_die_of(sig);
	return r;
}

int cli_poll(const struct cli_poll *q)
{
	struct poll_out po = {.mode = q->mode == OUT_TREE ? OUT_LIST : q->mode,
			      .noheadings = q->noheadings};
	/* the heading is the poll table's, printed with its first lines */
	struct wargs a = {.t = *q->t, .poll = &po, .noheadings = true, .idle_timeout = true,
			  .mountinfo_path = q->mountinfo_path};
	const struct view *v = q->view;
	struct view fv; /* /proc/mounts' format: the view the filters read entries by */
	struct tags_cache tc = { 0 };
	struct view_filter f;
	int r, sig;

	/*
	 * SOURCES: one libblkid cache for the whole poll, as findmnt keeps one
	 * for its run: scanned at the first cell, a device attached later
	 * added when a mount names it (and only then, as in findmnt), not a
	 * scan of every block device per cell
	 */
	po.cx.tags = &tc;
	po.cx.tid = q->tid;
	/* /proc/mounts' format: the records are its entries (fstab.h) */
	po.cx.fstab = q->mounts_path != NULL;
	po.cx.aligned = po.mode == OUT_LIST;
	/* no view: no locale of list's either, C's decimal point */
	if (!v)
		out_locale_init(&po.cx.loc, (locale_t)0);
	if (v) {
		po.cx.loc = v->out.cx.loc;
		po.cx.nofsroot = v->out.cx.nofsroot;
		po.cx.canonicalize = v->out.cx.canonicalize;
		/* -e: a tag source shows as its device, as list shows it */
		po.cx.evaluate = v->out.cx.evaluate;
		po.cx.bytes = v->out.cx.bytes;
		po.cx.vfs_all = v->out.cx.vfs_all;
		po.cx.nocache = v->out.cx.nocache;
		po.shellvar = v->out.shellvar;
		po.first_only = v->first_only;
		po.backward = v->backward;
		po.uniq = v->uniq;
	}
	/* findmnt -p --output-all, -p -D: those columns, no ACTION */
	if (v && v->output_all)
		r = pcol_all(&po);
	else
		r = pcol_parse(&po, v && v->df ? COLS_DF : "ACTION,TARGET,SOURCE,FSTYPE,OPTIONS");
	for (size_t i = 0; !r && i < q->nspecs; i++)
		r = pcol_parse(&po, q->specs[i]);
	if (r)
		return r > 0 ? 1 : CLI_EXIT_ERR;
	po.actions = q->actions;
	po.utab = q->utab;
	/* -w 0: one look, as findmnt's poll() with no wait; < 0: no bound */
	if (q->timeout_ms >= 0)
		a.timeout = q->timeout_ms ? (double)q->timeout_ms / 1000 : 1e-9;
	a.mask = po.need;
	if (!v) {
		r = poll_main(&a, q, &sig);
		tags_cache_release(&tc);
		if (sig && !r)
			cli_die_of(sig);
		return r;
	}
	/* the filters: each change's record tested as it comes, no table read */
	if (q->mounts_path) {
		/* -t, -O: a table entry's type and options, as its columns show them */
		fv = *v;
		fv.out.cx.fstab = true;
		v = &fv;
	}
	view_filter_init(&f, v);
	if (view_filter_active(&f))
		po.filter = &f;
	/* findmnt's one cache: its columns resolve through what its filter did */
	po.cx.paths = &f.pc;
	r = poll_main(&a, q, &sig);
	view_filter_free(&f);
	tags_cache_release(&tc);
	dropped_free(&po);
	user_free(&po);
	/*
	 * SIGINT/SIGTERM: findmnt --poll dies of it, and so do we, cleaned
	 * up; a clean-up that failed (said on stderr) is exit status 2
	 */
	if (sig && !r)
		cli_die_of(sig);
	return r;
}
