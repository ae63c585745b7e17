// SPDX-License-Identifier: MIT
/* mntsnap ns: every mount namespace the caller can see. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char ns_help[] =
	"usage: mntsnap ns [--format table|json] [-J]\n"
	"Every mount namespace visible to the caller: its 64-bit id, how many\n"
	"mounts listmount lists in it, and one process in it (0 if none was\n"
	"found: kept alive by a namespace file or fd). '*' marks our own.\n"
	"As root all are found (NS_MNT_GET_NEXT/PREV); otherwise those of\n"
	"processes whose /proc/PID/ns/mnt we may read.\n";

static void print_table(const struct mntsnap_ns_entry *v, size_t n)
{
	printf("%-3s %-12s %8s %8s %s\n", "", "NS_ID", "MOUNTS", "PID", "INODE");
	for (size_t i = 0; i < n; i++) {
		char mounts[24];

		if (v[i].nr_mounts < 0)
			snprintf(mounts, sizeof(mounts), "?");
		else
			snprintf(mounts, sizeof(mounts), "%" PRId64, v[i].nr_mounts);
		printf("%-3s %-12" PRIu64 " %8s %8d mnt:[%" PRIu64 "]\n", v[i].own ? "*" : "",
		       v[i].ns_id, mounts, v[i].pid, v[i].inode);
	}
}

/* 64-bit ids and inodes as digit strings, as in list -J: exact in any JSON reader */
static void print_json(const struct mntsnap_ns_entry *v, size_t n)
{
	fputs("{\"namespaces\":[", stdout);
	for (size_t i = 0; i < n; i++)
		printf("%s\n  {\"ns-id\":\"%" PRIu64 "\",\"inode\":\"%" PRIu64 "\",\"mounts\":%" PRId64
		       ",\"pid\":%d,\"own\":%s}",
		       i ? "," : "", v[i].ns_id, v[i].inode, v[i].nr_mounts, v[i].pid,
		       v[i].own ? "true" : "false");
	fputs("\n]}\n", stdout);
}

int cmd_ns(int argc, char **argv)
{
	struct mntsnap_ns_entry *v = NULL;
	bool json = false;
	size_t n = 0;
	int r;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(ns_help, stdout);
			return 0;
		}
		if (!strcmp(argv[i], "-J") || !strcmp(argv[i], "--json")) {
			json = true;
			continue;
		}
		if (!strcmp(argv[i], "--format") && i + 1 < argc) {
			i++;
			if (!strcmp(argv[i], "json"))
				json = true;
			else if (strcmp(argv[i], "table"))
				return cli_fail(0, "ns: unknown format '%s' (table, json)", argv[i]);
			continue;
		}
		return cli_fail(0, "ns: unexpected argument '%s' (see --help)", argv[i]);
	}
	r = mntsnap_ns_list(&v, &n);
	if (r)
		return cli_fail(r, "ns");
	if (json)
		print_json(v, n);
	else
		print_table(v, n);
	free(v);
	r = cli_stdout_status();
	return r ? cli_fail(r, "ns: writing output") : 0;
}
