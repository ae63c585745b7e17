// SPDX-License-Identifier: MIT
/*
 * findmnt's long-option abbreviations for list, show and stat.
 *
 * getopt_long accepts a unique prefix of a long option. mntsnap's tables
 * hold findmnt's options and mntsnap's own (--list-columns, --under,
 * --backend, ...), so a prefix findmnt resolves (--lis, --un, --b) would be
 * ambiguous here. Before getopt_long runs, an argument --PREFIX[=V] that
 * findmnt resolves is written out as the option findmnt resolves it to,
 * and one findmnt calls ambiguous is refused: an abbreviation means what
 * it means to findmnt, or nothing. mntsnap's own names, whole, and their
 * prefixes findmnt does not know are left to getopt_long.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/*
 * findmnt 2.38.1's long options (util-linux misc-utils/findmnt.c). Each has
 * its own short option or value, so two of them sharing a prefix are
 * ambiguous to getopt_long.
 */
static const char *const findmnt_names[] = {
	"all", "ascii", "bytes", "canonicalize", "direction", "df", "evaluate",
	"first-only", "fstab", "help", "invert", "json", "kernel", "list",
	"mountpoint", "mtab", "noheadings", "notruncate", "options", "output",
	"output-all", "poll", "pairs", "raw", "types", "nocanonicalize",
	"nofsroot", "submounts", "source", "tab-file", "task", "target",
	"timeout", "uniq", "verify", "version", "shell", "verbose", "tree",
	"real", "pseudo", "vfs-all", "shadowed",
};
#define FINDMNT_NNAMES (sizeof(findmnt_names) / sizeof(findmnt_names[0]))

/*
 * getopt_long's lookup of name[0..len) in lo: an exact name wins, else the
 * one option it prefixes; options with the same has_arg, flag and val are
 * one. NULL when none or ambiguous.
 */
static const struct option *lo_find(const struct option *lo, const char *name, size_t len)
{
	const struct option *found = NULL;

	for (const struct option *p = lo; p->name; p++) {
		if (strncmp(p->name, name, len))
			continue;
		if (strlen(p->name) == len)
			return p;
		if (found && (found->has_arg != p->has_arg || found->flag != p->flag ||
			      found->val != p->val))
			return NULL;
		found = found ? found : p;
	}
	return found;
}

/* findmnt's option for name[0..len): its index, -ENOENT, or -EINVAL (ambiguous) */
static int findmnt_find(const char *name, size_t len)
{
	int found = -ENOENT;

	for (size_t i = 0; i < FINDMNT_NNAMES; i++) {
		if (strncmp(findmnt_names[i], name, len))
			continue;
		if (strlen(findmnt_names[i]) == len)
			return (int)i;
		found = found == -ENOENT ? (int)i : -EINVAL;
	}
	return found;
}

static bool lo_has(const struct option *lo, const char *name, size_t len)
{
	const struct option *p = lo_find(lo, name, len);

	return p && strlen(p->name) == len;
}

/*
 * One "--NAME[=V]" at argv[i]: rewritten into out[i] (allocated) when
 * findmnt resolves NAME to another name. *next is set when the option
 * takes argv[i + 1] as its argument, *stop when getopt_long ends the
 * command there (-h, -V).
 * 0, or CLI_EXIT_ERR-style -EINVAL with the message printed.
 */
static int long_arg(const char *cmd, const struct option *lo, char **argv, int i, char **out,
		    bool *next, bool *stop)
{
	const char *name = argv[i] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct option *p;
	int f;

	if (!lo_has(lo, name, len)) {
		f = findmnt_find(name, len);
		if (f == -EINVAL) {
			cli_fail(0,
				 "%s: option '--%.*s' is ambiguous (findmnt's abbreviation of "
				 "more than one option)",
				 cmd, (int)len, name);
			return -EINVAL;
		}
		if (f >= 0 && strlen(findmnt_names[f]) != len) {
			size_t n = strlen(findmnt_names[f]) + strlen(name + len) + 3;

			out[i] = malloc(n);
			if (!out[i]) {
				cli_fail(-ENOMEM, "%s", cmd);
				return -ENOMEM;
			}
			snprintf(out[i], n, "--%s%s", findmnt_names[f], name + len);
			name = out[i] + 2;
			len = strlen(findmnt_names[f]);
		}
	}
	p = lo_find(lo, name, len);
	*next = p && p->has_arg == required_argument && !eq;
	*stop = p && !p->flag && (p->val == 'h' || p->val == 'V');
	return 0;
}

/*
 * "-abc": does a short option in it take the next argv element, or end
 * the command?
 */
static void short_arg(const char *shortopts, const char *arg, bool *next, bool *stop)
{
	for (const char *c = arg + 1; *c; c++) {
		const char *s = *c == ':' ? NULL : strchr(shortopts, *c);

		if (*c == 'h' || *c == 'V')
			*stop = true;
		if (s && s[1] == ':') {
			/* "o:" takes the rest or the next element, "p::" only the rest */
			*next = !c[1] && s[2] != ':';
			return;
		}
	}
}

/*
 * The copy: argc + 1 pointers for getopt_long (which permutes them), then
 * argc + 1 more that own the strings written here.
 */
int cli_findmnt_argv(const char *cmd, int argc, char **argv, const char *shortopts,
		     const struct option *lo, char ***ret_argv)
{
	/* getopt_long stops at the first non-option argument then */
	bool posix = getenv("POSIXLY_CORRECT") != NULL, next = false, stop = false;
	char **out = calloc(2 * ((size_t)argc + 1), sizeof(*out)), **own;
	int r = 0;

	if (!out)
		return cli_fail(-ENOMEM, "%s", cmd), -ENOMEM;
	own = out + argc + 1;
	for (int i = 1; i < argc && !stop && r == 0; i++) {
		const char *a = argv[i];

		if (next) {
			next = false;
			continue;
		}
		if (!strcmp(a, "--") || (posix && (a[0] != '-' || !a[1])))
			break;
		if (!strncmp(a, "--", 2))
			r = long_arg(cmd, lo, argv, i, own, &next, &stop);
		else if (a[0] == '-' && a[1])
			short_arg(shortopts, a, &next, &stop);
	}
	for (int i = 0; i <= argc; i++)
		out[i] = own[i] ? own[i] : argv[i];
	if (r) {
		cli_findmnt_argv_free(argc, out);
		return r;
	}
	*ret_argv = out;
	return 0;
}

void cli_findmnt_argv_free(int argc, char **av)
{
	for (int i = 0; av && i < argc; i++)
		free(av[argc + 1 + i]);
	free(av);
}

int cli_findmnt_run(const char *cmd, int argc, char **argv, const char *shortopts,
		    const struct option *lo, const struct out_locale *loc,
		    int (*run)(int argc, char **argv, const struct out_locale *loc))
{
	char **av;
	int r;

	if (cli_findmnt_argv(cmd, argc, argv, shortopts, lo, &av))
		return CLI_EXIT_ERR;
	r = run(argc, av, loc);
	cli_findmnt_argv_free(argc, av);
	return r;
}
