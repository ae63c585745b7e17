// SPDX-License-Identifier: MIT
/*
 * examples/launcher/mntsnap-run, a miniature runtime, as a consumer of the
 * library: new namespaces, mounts, pivot_root, the container's table
 * captured in the container before exec (way a) and by the parent while
 * the child waits (way b), a seccomp filter built rule by rule from
 * Docker's default profile (as OCI, statmount/listmount named in it) with
 * mntsnap_seccomp_rule_add() for mntsnap's syscalls. Checked:
 *  - both copies, rendered as mountinfo, equal the container's own
 *    /proc/self/mountinfo (read by its workload after exec);
 *  - statmount works inside under that filter (the static CLI's statmount
 *    backend prints the same table), whatever libseccomp knows: 2.5.4 does
 *    not know the names, and a runtime's plain route drops them;
 *  - the filter is loaded (unshare(CLONE_NEWNS) refused inside).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <seccomp.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "mntsnap.h"

#define BASE "/tmp/mntsnap-launcher"
#define ROOTFS BASE "/rootfs"

static char *run_out(const char *cmd, int *status)
{
	FILE *p = popen(cmd, "r");
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);

	cr_assert(p && buf);
	while ((n += fread(buf + n, 1, cap - n - 1, p)) == cap - 1) {
		cap *= 2;
		buf = realloc(buf, cap);
		cr_assert(buf);
	}
	buf[n] = '\0';
	*status = pclose(p);
	return buf;
}

static char *render_file(const char *path)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int r = mntsnap_snapshot_load(path, &err, &s);

	cr_assert_eq(r, 0, "%s: %s", path, err.msg);
	f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	cr_assert_eq(mntsnap_render(s, MNTSNAP_FORMAT_MOUNTINFO, f), 0);
	fclose(f);
	mntsnap_snapshot_free(s);
	return text;
}

/* The text between two marker lines of the container's output. */
static char *section(const char *out, const char *from, const char *to)
{
	const char *a = strstr(out, from), *b;

	cr_assert_not_null(a, "no %s in:\n%s", from, out);
	a += strlen(from);
	b = strstr(a, to);
	cr_assert_not_null(b, "no %s in:\n%s", to, out);
	return strndup(a, (size_t)(b - a));
}

Test(launcher, container_table_handed_over_and_statmount_inside)
{
	static const char *const bb_c[] = { "/bin/busybox", "/usr/bin/busybox", NULL };
	const char *run = ms_env_exe("MNTSNAP_RUN_BIN"), *cli = ms_env_exe("MNTSNAP_BIN");
	const char *stat_cli = ms_env_exe("MNTSNAP_STATIC_BIN"), *src = getenv("MNTSNAP_SRCDIR");
	const char *bb = ms_find_exe(bb_c);
	char cmd[4096], *out, *own, *by_stat, *a, *b;
	int status;

	if (!bb || !ms_is_static_elf(bb))
		cr_skip_test("busybox-static not installed");
	cr_assert(ms_is_static_elf(stat_cli), "%s is not a static binary", stat_cli);
	cr_assert_not_null(src);
	ms_private_ns(BASE);
	ms_mkdir_p(ROOTFS "/bin");
	ms_copy_file(bb, ROOTFS "/bin/busybox");
	ms_copy_file(stat_cli, ROOTFS "/bin/mntsnap");
	cr_assert_eq(symlink("busybox", ROOTFS "/bin/sh"), 0);
	cr_assert_eq(symlink("busybox", ROOTFS "/bin/cat"), 0);
	/* Docker's default profile as a runtime gets it (OCI, this host) */
	snprintf(cmd, sizeof(cmd), "%s seccomp --merge %s/tests/data/seccomp/real/moby-default.json "
		 "--format oci > " BASE "/profile.json", cli, src);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	snprintf(cmd, sizeof(cmd),
		 "%s --rootfs " ROOTFS " --profile " BASE "/profile.json --snapshot " BASE "/a.snap "
		 "--parent-capture " BASE "/b.snap -- /bin/sh -c '"
		 "echo ==mi; cat /proc/self/mountinfo; echo ==sm; "
		 "/bin/mntsnap list --backend statmount --format mountinfo; echo ==rc $?; "
		 "/bin/busybox unshare -m /bin/true 2>/dev/null; echo ==unshare $?'", run);
	out = run_out(cmd, &status);
	cr_assert_eq(status, 0, "status %d:\n%s", status, out);
	own = section(out, "==mi\n", "==sm\n");
	by_stat = section(out, "==sm\n", "==rc ");
	cr_assert(strstr(out, "==rc 0\n"), "statmount inside failed:\n%s", out);
	cr_assert_str_eq(by_stat, own, "statmount's table differs from /proc/self/mountinfo");
	cr_assert(!strstr(out, "==unshare 0\n"), "no filter loaded:\n%s", out);
	a = render_file(BASE "/a.snap");
	b = render_file(BASE "/b.snap");
	cr_assert_str_eq(a, own, "way (a), handed over:\n%s\ncontainer:\n%s", a, own);
	cr_assert_str_eq(b, own, "way (b), from the parent:\n%s\ncontainer:\n%s", b, own);
	cr_log_info("libseccomp %s statmount; %zu bytes of mountinfo, equal three ways",
		    seccomp_syscall_resolve_name("statmount") == __NR_SCMP_ERROR ? "without"
										 : "with",
		    strlen(own));
	free(out);
	free(own);
	free(by_stat);
	free(a);
	free(b);
}
