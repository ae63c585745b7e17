// SPDX-License-Identifier: MIT
/*
 * mntsnap seccomp: print seccomp fragments that allow statmount/listmount
 * (and the rest of mntsnap's syscalls), or merge them into a profile.
 *
 * The fragments are built in seccomp-frag.c, the merge is seccomp-merge.c;
 * this file parses options and prints. What it prints is the source of
 * seccomp/generated/ (seccomp/gen.py --cli runs it), so the layout here is
 * the one the committed fragments have (json.dumps(indent=2)'s, which
 * people and tools already diff against).
 *
 * --merge needs json-c (meson option 'json'); it stays out of the core
 * library, and a build without json-c (the static musl CLI) leaves --merge
 * out and says so in --help.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sctable.h"
#include "seccomp-merge.h"

#ifndef MNTSNAP_HAVE_JSON
#define MNTSNAP_HAVE_JSON 0
#endif

#define SC_OCI MNTSNAP__SC_OCI
#define SC_DOCKER MNTSNAP__SC_DOCKER
#define SC_SYSTEMD MNTSNAP__SC_SYSTEMD
#define SC_C MNTSNAP__SC_C
#define SC_AUTO MNTSNAP__SC_AUTO
#define SC_QUERY MNTSNAP__SC_QUERY
#define SC_FULL MNTSNAP__SC_FULL

struct sc_args {
	int format;
	int set;
	int arch;		/* column in the table, -1 = all */
	const char *merge;
	const char *caps;	/* --caps: the container's bounding set */
	int kmaj, kmin;		/* --kernel; 0 = this host */
	bool enosys;
	bool check;		/* --check: exit status only */
};

static const char seccomp_help[] =
	"usage: mntsnap seccomp [--format oci|docker|systemd|c] [--set query|full]\n"
	"                       [--arch ARCH] [--caps LIST] [--merge PROFILE.json\n"
	"                       [--errno-enosys] [--kernel X.Y] [--check]]\n"
	"Print seccomp fragments that allow statmount/listmount (set 'query') or\n"
	"every syscall mntsnap uses (set 'full'), from seccomp/syscalls.csv.\n"
	"statmount/listmount are allowed for every container; the rest of the full\n"
	"set (mount API, setns, unshare, pidfd_open, ioctl, statx) only for one\n"
	"holding CAP_SYS_ADMIN.\n"
	"  --format F       oci: OCI runtime-spec linux.seccomp.syscalls[] entries\n"
	"                   docker: moby-profile entries (full set gated by\n"
	"                   includes.caps CAP_SYS_ADMIN and minKernel)\n"
	"                   systemd: a SystemCallFilter= line\n"
	"                   c: a header with the syscall numbers per architecture\n"
	"  --set S          query (default) or full\n"
	"  --arch ARCH      with --format c: only this ABI (x86_64, i386, aarch64, ...)\n"
	"  --caps LIST      the container's bounding set, comma-separated, exact\n"
	"                   names (CAP_SYS_ADMIN,...); required for --set full in\n"
	"                   OCI format, which has no capability gate\n"
#if MNTSNAP_HAVE_JSON
	"  --merge FILE     merge the fragment into FILE (Docker/moby, containers/common\n"
	"                   or OCI profile, or an OCI config.json) and print the\n"
	"                   result; format is detected unless --format oci|docker is\n"
	"                   given. Idempotent. Syscalls the profile already names are\n"
	"                   left to it. --format oci on a Docker profile resolves it\n"
	"                   as dockerd does (archMap for this host, includes/excludes\n"
	"                   for --caps, default Docker's bounding set, and the kernel)\n"
	"  --errno-enosys   with --merge: the profile's ERRNO rules about statmount/\n"
	"                   listmount answer ENOSYS, so callers fall back to\n"
	"                   /proc/PID/mountinfo; no other rule changes\n"
	"  --kernel X.Y     with --merge: resolve minKernel for this kernel, not uname's\n"
	"  --check          with --merge: print nothing; exit 0 if the merge would\n"
	"                   change nothing, 1 if it would change, 2 on an error\n"
	"The merged profile keeps the input's bytes wherever the merge changes\n"
	"nothing: its indentation, key order, spacing and untouched rules; only the\n"
	"rules added or changed are new lines. stderr says in one line what was done,\n"
	"and names statmount/listmount when the profile's own rule for them (a deny,\n"
	"args, a gate) stays in force: \"already allowed\" only when they are.\n"
#else
	"  --merge FILE     not available: this mntsnap was built without json-c\n"
#endif
	"  --notify-mounts --listener SOCKET [--merge PROFILE]\n"
	"                   send the mount syscalls to a mount supervisor instead\n"
	"                   (mntsnap supervise); see 'seccomp --notify-mounts --help'\n"
	"Exit status: 0 ok, 2 error (bad option, unreadable, malformed or refused\n"
	"profile: the reason and its JSON path on stderr, nothing on stdout).\n";

static bool in_set(const struct mntsnap_sc_sys *s, int set)
{
	return set == SC_FULL || s->query;
}

/* Is cap in the comma-separated list? */
static bool caps_have(const char *list, const char *cap)
{
	size_t n = strlen(cap);

	for (const char *c = list; c && *c;) {
		const char *end = strchr(c, ',');
		size_t len = end ? (size_t)(end - c) : strlen(c);

		if (len == n && !strncmp(c, cap, n))
			return true;
		if (!end)
			break;
		c = end + 1;
	}
	return false;
}

/* ---- text output: the committed fragments are made from it ------------- */

static void print_entry(FILE *o, const struct mntsnap__sc_entry *e)
{
	fputs("  {\n", o);
	if (e->comment)
		fprintf(o, "    \"comment\": \"%s\",\n", e->comment);
	fputs("    \"names\": [\n", o);
	for (int i = 0; i < e->n; i++)
		fprintf(o, "      \"%s\"%s\n", e->names[i], i + 1 < e->n ? "," : "");
	fputs("    ],\n    \"action\": \"SCMP_ACT_ALLOW\"", o);
	if (e->gated || e->min_kernel) {
		fputs(",\n    \"includes\": {", o);
		if (e->gated)
			fprintf(o, "\n      \"caps\": [\n        \"%s\"\n      ]", MNTSNAP__SC_ADMIN);
		if (e->min_kernel)
			fprintf(o, "%s\n      \"minKernel\": \"%s\"", e->gated ? "," : "",
				e->min_kernel);
		fputs("\n    }", o);
	}
	fputs("\n  }", o);
}

static void print_frag(FILE *o, const struct mntsnap__sc_frag *f)
{
	fputs("[\n", o);
	for (int i = 0; i < f->n; i++) {
		print_entry(o, &f->e[i]);
		fputs(i + 1 < f->n ? ",\n" : "\n", o);
	}
	fputs("]\n", o);
}

static void print_systemd(FILE *o, int set)
{
	bool first = true;

	fputs("SystemCallFilter=", o);
	for (int i = 0; i < MNTSNAP_SC_NSYS; i++) {
		if (!in_set(&mntsnap_sc_table[i], set))
			continue;
		fprintf(o, "%s%s", first ? "" : " ", mntsnap_sc_table[i].name);
		first = false;
	}
	fputc('\n', o);
}

static void print_c(FILE *o, int set, int arch)
{
	const char *sn = set == SC_FULL ? "full" : "query";

	fprintf(o, "/* SPDX-License-Identifier: MIT */\n/*\n"
		   " * Generated from seccomp/syscalls.csv (set \"%s\"): syscall numbers as the\n"
		   " * kernel puts them in seccomp_data.nr (MIPS offsets and the x32 bit\n"
		   " * included), per ABI, with the AUDIT_ARCH value seccomp_data.arch carries.\n"
		   " * A syscall missing on an ABI has no define.\n */\n"
		   "#ifndef MNTSNAP_SECCOMP_NR_%s_H\n#define MNTSNAP_SECCOMP_NR_%s_H\n\n",
		sn, set == SC_FULL ? "FULL" : "QUERY", set == SC_FULL ? "FULL" : "QUERY");
	for (int a = 0; a < MNTSNAP_SC_NARCH; a++) {
		const char *an = mntsnap_sc_arches[a].name;

		if (arch >= 0 && a != arch)
			continue;
		fprintf(o, "/* %s */\n#define MNTSNAP_SC_AUDIT_ARCH_%s 0x%08xU\n", an, an,
			mntsnap_sc_arches[a].audit_arch);
		for (int i = 0; i < MNTSNAP_SC_NSYS; i++) {
			const struct mntsnap_sc_sys *s = &mntsnap_sc_table[i];

			if (in_set(s, set) && s->nr[a] >= 0)
				fprintf(o, "#define MNTSNAP_SC_NR_%s_%s %d\n", an, s->name, s->nr[a]);
		}
		fputc('\n', o);
	}
	fputs("#endif\n", o);
}

/* ---- --merge (json-c, seccomp-merge.c) ------------------------------------ */
#if MNTSNAP_HAVE_JSON

/* Whole file, NUL-terminated; profiles are small, cap at 16 MiB. */
static int read_text(const char *path, char **ret, size_t *ret_len)
{
	FILE *f = fopen(path, "re");
	size_t cap = 65536, n = 0;
	char *buf = NULL, *nb;
	int r = 0;

	if (!f)
		return -errno;
	for (;;) {
		if (!(nb = realloc(buf, cap + 1))) {
			r = -ENOMEM;
			break;
		}
		buf = nb;
		n += fread(buf + n, 1, cap - n, f);
		if (ferror(f)) {
			r = -EIO;
			break;
		}
		if (n < cap)
			break;
		if (cap >= 16u << 20) {
			r = -EFBIG;
			break;
		}
		cap *= 2;
	}
	fclose(f);
	if (r) {
		free(buf);
		return r;
	}
	buf[n] = '\0';
	*ret = buf;
	*ret_len = n;
	return 0;
}

static int run_merge(const struct sc_args *a)
{
	char *text = NULL, *out = NULL, *err = NULL, *what = NULL;
	struct mntsnap__merge_opts o = {
		.format = a->format, .set = a->set, .enosys = a->enosys, .caps = a->caps,
		.kmaj = a->kmaj, .kmin = a->kmin, .ret_what = &what,
	};
	bool same;
	size_t len = 0;
	int r;

	r = read_text(a->merge, &text, &len);
	if (r < 0)
		return cli_fail(r, "seccomp --merge: cannot read %s", a->merge);
	r = mntsnap__sc_merge(text, len, &o, &out, &err);
	same = !r && strlen(out) == len && !memcmp(out, text, len);
	free(text);
	if (r) {
		if (err)
			fprintf(stderr, "mntsnap: seccomp --merge %s: %s\n", a->merge, err);
		else
			cli_fail(r, "seccomp --merge %s", a->merge);
		free(err);
		return CLI_EXIT_ERR;
	}
	/* one line on what was done; --check: the answer is the exit status */
	if (!a->check)
		fputs(out, stdout);
	fprintf(stderr, "mntsnap: seccomp --merge %s: %s%s\n", a->merge,
		a->check && !same ? "would change: " : "", what ? what : "");
	free(out);
	free(what);
	return a->check && !same ? 1 : 0;
}
#endif /* MNTSNAP_HAVE_JSON */

/* ---- options ---------------------------------------------------------------- */

static int parse_arch(const char *s)
{
	for (int a = 0; a < MNTSNAP_SC_NARCH; a++)
		if (!strcmp(s, mntsnap_sc_arches[a].name) ||
		    (mntsnap_sc_arches[a].scmp_name && !strcmp(s, mntsnap_sc_arches[a].scmp_name)))
			return a;
	return -1;
}

static int parse_format(const char *s)
{
	static const char *const names[] = { "oci", "docker", "systemd", "c" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static int parse_seccomp(int argc, char **argv, struct sc_args *a, bool *format_given)
{
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];

		if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			fputs(seccomp_help, stdout);
			return 1;
		}
		if (!strcmp(o, "--errno-enosys")) {
			a->enosys = true;
			continue;
		}
		if (!strcmp(o, "--check")) {
			a->check = true;
			continue;
		}
		if (i + 1 >= argc)
			return cli_fail(0, "seccomp: unknown option or missing value: '%s'", o), -EINVAL;
		if (!strcmp(o, "--format")) {
			a->format = parse_format(argv[++i]);
			*format_given = true;
			if (a->format < 0)
				return cli_fail(0, "seccomp: unknown format '%s'", argv[i]), -EINVAL;
		} else if (!strcmp(o, "--set")) {
			i++;
			if (!strcmp(argv[i], "query"))
				a->set = SC_QUERY;
			else if (!strcmp(argv[i], "full"))
				a->set = SC_FULL;
			else
				return cli_fail(0, "seccomp: unknown set '%s' (query|full)", argv[i]), -EINVAL;
		} else if (!strcmp(o, "--arch")) {
			a->arch = parse_arch(argv[++i]);
			if (a->arch < 0)
				return cli_fail(0, "seccomp: unknown arch '%s'", argv[i]), -EINVAL;
		} else if (!strcmp(o, "--merge")) {
			a->merge = argv[++i];
		} else if (!strcmp(o, "--caps")) {
			a->caps = argv[++i];
		} else if (!strcmp(o, "--kernel")) {
			char end;

			if (sscanf(argv[++i], "%3d.%3d%c", &a->kmaj, &a->kmin, &end) != 2 ||
			    a->kmaj <= 0 || a->kmin < 0)
				return cli_fail(0, "seccomp: --kernel wants X.Y, not '%s'", argv[i]), -EINVAL;
		} else {
			return cli_fail(0, "seccomp: unknown option '%s'", o), -EINVAL;
		}
	}
	return 0;
}

static int check_combination(const struct sc_args *a, bool format_given)
{
	if (a->arch >= 0 && a->format != SC_C)
		return cli_fail(0, "seccomp: --arch applies to --format c only (JSON and systemd "
				   "fragments name syscalls, not numbers)"), -EINVAL;
	if (a->caps && !a->merge && (a->format != SC_OCI || a->set != SC_FULL))
		return cli_fail(0, "seccomp: --caps applies to --merge and --format oci --set full "
				   "only"), -EINVAL;
	if (a->kmaj && !a->merge)
		return cli_fail(0, "seccomp: --kernel applies to --merge only"), -EINVAL;
	if (a->merge && format_given && a->format != SC_OCI && a->format != SC_DOCKER)
		return cli_fail(0, "seccomp: --merge writes JSON: --format oci or docker"), -EINVAL;
	if (a->check && !a->merge)
		return cli_fail(0, "seccomp: --check applies to --merge only"), -EINVAL;
	if (a->enosys && !a->merge)
		return cli_fail(0, "seccomp: --errno-enosys changes a profile's rules: it applies "
				   "to --merge only"), -EINVAL;
	if (!a->merge && a->format == SC_OCI && a->set == SC_FULL && !a->caps)
		return cli_fail(0, "seccomp: --set full in OCI format would allow setns, unshare "
				   "and the mount API for every container (OCI has no capability "
				   "gate): state the container's bounding set with --caps"), -EINVAL;
#if !MNTSNAP_HAVE_JSON
	if (a->merge)
		return cli_fail(0, "seccomp: --merge is not available: built without json-c"), -ENOTSUP;
#endif
	return 0;
}

/* Everything printed reached stdout (a full disk or a closed pipe is exit 2). */
static int write_done(void)
{
	int r = cli_stdout_status();

	return r ? cli_fail(r, "seccomp: write") : 0;
}

int cmd_seccomp(int argc, char **argv)
{
	struct sc_args a = { .format = SC_OCI, .set = SC_QUERY, .arch = -1 };
	bool format_given = false;
	struct mntsnap__sc_frag f;
	int r;

	if (seccomp_notify_wanted(argc, argv))
		return cmd_seccomp_notify(argc, argv);
	r = parse_seccomp(argc, argv, &a, &format_given);

	if (r)
		return r > 0 ? 0 : CLI_EXIT_ERR;
	if (check_combination(&a, format_given))
		return CLI_EXIT_ERR;
#if MNTSNAP_HAVE_JSON
	if (a.merge) {
		if (!format_given)
			a.format = SC_AUTO;
		r = run_merge(&a);
		return write_done() ?: r;
	}
#endif
	switch (a.format) {
	case SC_SYSTEMD:
		print_systemd(stdout, a.set);
		break;
	case SC_C:
		print_c(stdout, a.set, a.arch);
		break;
	default:
		mntsnap__sc_build(&f, a.format, a.set, caps_have(a.caps, MNTSNAP__SC_ADMIN), NULL,
				  NULL);
		print_frag(stdout, &f);
	}
	return write_done();
}
