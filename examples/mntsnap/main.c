// SPDX-License-Identifier: MIT
/* mntsnap: the command-line face of libmntsnap. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const struct cli_cmd cmds[] = {
	{ "list", "list the mounts of a namespace", cmd_list },
	{ "stat", "one mount by id or path, without a full walk", cmd_stat },
	{ "seccomp", "seccomp fragments for statmount/listmount; merge into a profile", cmd_seccomp },
	{ "ns", "every mount namespace visible, with id and mount count", cmd_ns },
	{ "save", "capture a mount table into a binary snapshot file", cmd_save },
	{ "show", "render a saved snapshot", cmd_show },
	{ "diff", "compare two snapshots (exit 0 equal, 1 different)", cmd_diff },
	{ "supervise", "perform the mounts containers ask for, as a policy allows", cmd_supervise },
};

int cli_fail(int err, const char *fmt, ...)
{
	va_list ap;

	fputs("mntsnap: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err < 0 ? -err : err));
	fputc('\n', stderr);
	return CLI_EXIT_ERR;
}

int cli_parse_u64(const char *s, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

static void usage(FILE *f)
{
	fputs("usage: mntsnap COMMAND [ARGS]\n\ncommands:\n", f);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].summary);
	fputs("\nTARGET (every command): --pid PID | --ns PATH | --ns-id ID\n"
	      "Run 'mntsnap COMMAND --help' for a command's options.\n",
	      f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_ERR;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("mntsnap %d.%d\n", MNTSNAP_VERSION_MAJOR, MNTSNAP_VERSION_MINOR);
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].run(argc - 1, argv + 1);
	fprintf(stderr, "mntsnap: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return CLI_EXIT_ERR;
}
