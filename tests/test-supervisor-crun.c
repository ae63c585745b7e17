// SPDX-License-Identifier: MIT
/*
 * The mount supervisor end to end under crun: `mntsnap supervise` listens
 * on the socket a container's linux.seccomp.listenerPath names, the
 * profile comes from `mntsnap seccomp --notify-mounts`, and busybox in a
 * container without CAP_SYS_ADMIN asks for the mounts of the example
 * policy. The oracles: busybox's exit codes, the container's own
 * /proc/self/mountinfo, this namespace's mountinfo (unchanged), and
 * json-c parsing every audit line. A small static program
 * (tests/progs/sv-newmount.c) does the same through the new mount API.
 *
 * Everything happens in a private mount namespace (ms_private_ns), where
 * cgroup2 is mounted for crun --cgroup-manager=disabled.
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"

#define BASE "/tmp/mntsnap-sv-crun"
#define BUNDLE BASE "/bundle"
#define ROOTFS BUNDLE "/rootfs"
#define SOCK BASE "/sv.sock"
#define AUDIT BASE "/audit.jsonl"
#define POLICY BASE "/policy.json"

static const char policy[] =
	"{\"default\": \"deny\", \"errno\": \"EPERM\",\n"
	" \"rules\": [\n"
	"   {\"fstype\": \"tmpfs\", \"target\": \"/mnt/*\", \"force\": [\"nosuid\", \"nodev\", "
	"\"noexec\"], \"forbid\": [\"uid\", \"gid\"]},\n"
	"   {\"fstype\": \"bind\", \"source\": \"/data/*\", \"target\": \"/mnt/*\"}\n"
	" ]}\n";

static const char script[] =
	"mount -t tmpfs none /mnt/a; echo \"a=$?\"; "
	"mount -t tmpfs -o uid=0 none /mnt/b; echo \"b=$?\"; "
	"mount -t proc proc /mnt/p; echo \"p=$?\"; "
	"mount -o bind /data/x /mnt/c; echo \"c=$?\"; "
	"mount -o bind /etc /mnt/d; echo \"d=$?\"; "
	"mount -t tmpfs none /etc; echo \"etc=$?\"; "
	"mount -t tmpfs none /mnt/l; echo \"l=$?\"; "
	"test -e /mnt/c/hello; echo \"hello=$?\"; "
	"echo \"na=$(/bin/sv-newmount tmpfs /mnt/na size=1m)\"; "
	"echo \"nb=$(/bin/sv-newmount tmpfs /mnt/nb uid=0)\"; "
	"echo \"netc=$(/bin/sv-newmount tmpfs /etc)\"; "
	"echo \"nl=$(/bin/sv-newmount tmpfs /mnt/l)\"; "
	"echo \"np=$(/bin/sv-newmount proc /mnt/p)\"; "
	"echo ===; cat /proc/self/mountinfo; echo ===; "
	"umount /mnt/c; echo \"uc=$?\"; umount /dev/shm; echo \"ushm=$?\"";

static const char *crun_bin;

static void setup(const char *pol)
{
	static const char *const dirs[] = { "bin", "proc", "dev", "sys", "tmp", "etc",
					    "mnt/a", "mnt/b", "mnt/c", "mnt/d", "mnt/p", "mnt/na",
					    "mnt/nb", "mnt/s", "mnt/q",
					    "data/x", NULL };
	static const char *const links[] = { "sh", "cat", "echo", "mount", "umount", "test",
					     "ls", "grep", "tr", NULL };

	crun_bin = ms_crun_rootfs(BASE, ROOTFS, dirs, links);
	ms_copy_file(ms_env_exe("MNTSNAP_SV_NEWMOUNT"), ROOTFS "/bin/sv-newmount");
	ms_write_text(ROOTFS "/data/x/hello", "hi\n");
	cr_assert_eq(symlink("/../../../../tmp", ROOTFS "/mnt/l"), 0);
	ms_write_text(POLICY, pol);
}

static pid_t start_supervisor(const char *bin)
{
	pid_t pid = fork();
	struct stat st;

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		dup2(null, 1);
		execl(bin, bin, "supervise", "--policy", POLICY, "--listen", SOCK, "--audit", AUDIT,
		      (char *)NULL);
		_exit(127);
	}
	/* generous: the socket appears within milliseconds */
	for (int i = 0; i < 500 && stat(SOCK, &st); i++)
		usleep(10000);
	cr_assert_eq(stat(SOCK, &st), 0, "the supervisor did not listen");
	return pid;
}

static json_object *notify_profile(const char *bin)
{
	struct ms_run r = ms_run_in(NULL, (const char *const[]){ bin, "seccomp", "--notify-mounts",
							   "--listener", SOCK, NULL });
	json_object *j;

	cr_assert_eq(r.status, 0, "seccomp --notify-mounts: %s", r.err);
	j = json_tokener_parse(r.out);
	cr_assert(j, "not JSON: %s", r.out);
	free(r.out);
	free(r.err);
	return j;
}

static void write_config(json_object *profile, const char *sh)
{
	struct ms_run spec;
	json_object *cfg, *proc, *lnx, *args;
	char *text;

	unlink(BUNDLE "/config.json");
	spec = ms_run_in(BUNDLE, (const char *const[]){ crun_bin, "spec", NULL });
	cr_assert_eq(spec.status, 0, "crun spec: %s", spec.err);
	free(spec.out);
	free(spec.err);
	text = ms_read_file(BUNDLE "/config.json", NULL);
	cfg = json_tokener_parse(text);
	free(text);
	cr_assert(cfg);
	/* crun spec's default capabilities have no CAP_SYS_ADMIN */
	cr_assert_null(strstr(json_object_to_json_string(cfg), "CAP_SYS_ADMIN"));
	cr_assert(json_object_object_get_ex(cfg, "process", &proc));
	cr_assert(json_object_object_get_ex(cfg, "linux", &lnx));
	json_object_object_add(proc, "terminal", json_object_new_boolean(0));
	args = json_object_new_array();
	json_object_array_add(args, json_object_new_string("/bin/sh"));
	json_object_array_add(args, json_object_new_string("-c"));
	json_object_array_add(args, json_object_new_string(sh));
	json_object_object_add(proc, "args", args);
	json_object_object_add(lnx, "seccomp", profile);
	ms_write_text(BUNDLE "/config.json", json_object_to_json_string_ext(cfg, JSON_C_TO_STRING_PRETTY));
	json_object_put(cfg);
}

Test(supervisor_crun, example_policy_in_a_container, .timeout = 120)
{
	const char *bin = ms_env_exe("MNTSNAP_BIN");
	char *host_before, *host_after, *audit, *mi, opts[512], type[128];
	struct ms_run r;
	int st, lines = 0;
	pid_t sv;

	setup(policy);
	sv = start_supervisor(bin);
	write_config(notify_profile(bin), script);
	host_before = ms_read_file("/proc/self/mountinfo", NULL);
	r = ms_run_in(BUNDLE, (const char *const[]){ crun_bin, "--root", BASE "/state",
						  "--cgroup-manager=disabled", "run",
						  "mntsnap-sv", NULL });
	host_after = ms_read_file("/proc/self/mountinfo", NULL);
	kill(sv, SIGTERM);
	cr_assert_eq(waitpid(sv, &st, 0), sv);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "supervisor status %d", st);
	cr_assert_eq(r.status, 0, "crun run: exit %d\nstdout:\n%s\nstderr:\n%s", r.status, r.out,
		     r.err);
	cr_log_info("container said:\n%s", r.out);

	cr_expect(strstr(r.out, "a=0\n"), "tmpfs on /mnt/a:\n%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "b=") && !strstr(r.out, "b=0\n"), "uid=0 allowed:\n%s", r.out);
	cr_expect(strstr(r.out, "p=") && !strstr(r.out, "p=0\n"), "proc allowed:\n%s", r.out);
	cr_expect(strstr(r.out, "c=0\n"), "bind /data/x refused:\n%s", r.out);
	cr_expect(strstr(r.out, "hello=0\n"), "/mnt/c/hello missing:\n%s", r.out);
	cr_expect(strstr(r.out, "d=") && !strstr(r.out, "d=0\n"), "bind /etc allowed:\n%s", r.out);
	cr_expect(strstr(r.out, "etc=") && !strstr(r.out, "etc=0\n"), "tmpfs on /etc:\n%s", r.out);
	cr_expect(strstr(r.out, "l=") && !strstr(r.out, "l=0\n"), "symlink to /tmp:\n%s", r.out);
	cr_expect(strstr(r.out, "permission denied") || strstr(r.out, "Operation not permitted") ||
		  strstr(r.err, "permission denied") || strstr(r.err, "Operation not permitted"),
		  "no EPERM message:\n%s\n%s", r.out, r.err);

	/* the same through fsopen/fsconfig/fsmount/move_mount */
	cr_expect(strstr(r.out, "na=ok\n"), "new API tmpfs on /mnt/na:\n%s", r.out);
	cr_expect(strstr(r.out, "nb=move_mount: Operation not permitted\n"), "uid=0:\n%s", r.out);
	cr_expect(strstr(r.out, "netc=move_mount: Operation not permitted\n"), "/etc:\n%s", r.out);
	cr_expect(strstr(r.out, "nl=move_mount: Operation not permitted\n"), "/mnt/l:\n%s", r.out);
	cr_expect(strstr(r.out, "np=fsopen: Operation not permitted\n"), "proc:\n%s", r.out);
	/* umount2: what the supervisor mounted, not what the runtime did */
	cr_expect(strstr(r.out, "uc=0\n"), "umount /mnt/c:\n%s", r.out);
	cr_expect(strstr(r.out, "ushm=") && !strstr(r.out, "ushm=0\n"), "umount /dev/shm:\n%s",
		  r.out);
	mi = strstr(r.out, "===\n");
	cr_assert(mi, "no mountinfo in:\n%s", r.out);
	cr_assert(ms_mi_find(mi, "/mnt/a", opts, type), "/mnt/a not in the container:\n%s", mi);
	cr_expect_str_eq(type, "tmpfs");
	cr_expect(ms_has_opt(opts, "nosuid") && ms_has_opt(opts, "nodev") && ms_has_opt(opts, "noexec"),
		  "forced options: %s", opts);
	cr_expect(ms_mi_find(mi, "/mnt/c", NULL, NULL));
	cr_assert(ms_mi_find(mi, "/mnt/na", opts, type), "/mnt/na not in the container:\n%s", mi);
	cr_expect(ms_has_opt(opts, "nosuid") && ms_has_opt(opts, "nodev") && ms_has_opt(opts, "noexec"),
		  "forced options (new API): %s", opts);
	cr_expect_not(ms_mi_find(mi, "/mnt/nb", NULL, NULL));
	cr_expect_not(ms_mi_find(mi, "/mnt/b", NULL, NULL));
	cr_expect_not(ms_mi_find(mi, "/mnt/p", NULL, NULL));
	cr_expect_not(ms_mi_find(mi, "/mnt/d", NULL, NULL));
	cr_expect_not(ms_mi_find(mi, "/tmp", NULL, NULL));
	cr_expect_not(ms_mi_find(mi, "/etc", NULL, NULL));
	ms_assert_text_eq(host_after, host_before, "this namespace's mounts");

	audit = ms_read_file(AUDIT, NULL);
	for (char *l = audit, *nl; *l; l = nl + 1) {
		json_object *o;

		nl = strchr(l, '\n');
		cr_assert(nl, "unterminated audit line");
		*nl = '\0';
		o = json_tokener_parse(l);
		cr_assert(o && json_object_is_type(o, json_type_object), "not JSON: %s", l);
		json_object_put(o);
		lines++;
		*nl = '\n';
	}
	cr_expect_geq(lines, 7, "audit:\n%s", audit);
	cr_expect(strstr(audit, "\"container\":\"mntsnap-sv\""), "%s", audit);
	cr_expect(strstr(audit, "\"target_resolved\":\"/tmp\""), "%s", audit);
	free(audit);
	free(host_before);
	free(host_after);
	free(r.out);
	free(r.err);
}

/*
 * proc, sysfs and mqueue allowed by the policy, in a crun container (its
 * own pid, net, ipc namespaces, no user namespace): each shows the
 * container's world. Before the supervisor entered every namespace of
 * the caller, the proc listed every process of the host (and its
 * /proc/sys took writes) and the sysfs the host's network devices.
 */
static const char views_policy[] =
	"{\"default\": \"deny\",\n"
	" \"rules\": [\n"
	"   {\"fstype\": \"proc\", \"target\": \"/mnt/*\"},\n"
	"   {\"fstype\": \"sysfs\", \"target\": \"/mnt/*\"},\n"
	"   {\"fstype\": \"mqueue\", \"target\": \"/mnt/*\"}\n"
	" ]}\n";

static const char views_script[] =
	"mount -t proc proc /mnt/p; echo \"p=$?\"; "
	"echo \"procs=$(ls /mnt/p | grep -c '^[0-9]')\"; "
	"test -e /mnt/p/sys; echo \"psys=$?\"; "
	"(echo svns > /mnt/p/sys/kernel/domainname) 2>/dev/null; echo \"dom=$?\"; "
	"mount -t sysfs sysfs /mnt/s; echo \"s=$?\"; "
	"echo \"net=$(ls /mnt/s/class/net | tr '\\n' ' ')\"; "
	"mount -t mqueue mqueue /mnt/q; echo \"q=$?\"";

Test(supervisor_crun, proc_sysfs_mqueue_show_the_container, .timeout = 120)
{
	const char *bin = ms_env_exe("MNTSNAP_BIN");
	char *host_before, *host_after;
	struct ms_run r;
	int st, procs;
	pid_t sv;

	setup(views_policy);
	sv = start_supervisor(bin);
	write_config(notify_profile(bin), views_script);
	host_before = ms_read_file("/proc/self/mountinfo", NULL);
	r = ms_run_in(BUNDLE, (const char *const[]){ crun_bin, "--root", BASE "/state",
						  "--cgroup-manager=disabled", "run",
						  "mntsnap-sv-views", NULL });
	host_after = ms_read_file("/proc/self/mountinfo", NULL);
	kill(sv, SIGTERM);
	cr_assert_eq(waitpid(sv, &st, 0), sv);
	cr_assert_eq(r.status, 0, "crun run: exit %d\nstdout:\n%s\nstderr:\n%s", r.status, r.out,
		     r.err);
	cr_log_info("container said:\n%s", r.out);
	cr_expect(strstr(r.out, "p=0\n"), "proc:\n%s", r.out);
	/* sh, the $(...) subshell, ls and grep: the container's processes only */
	procs = strstr(r.out, "procs=") ? atoi(strstr(r.out, "procs=") + 6) : -1;
	cr_expect(procs >= 1 && procs <= 4, "proc lists more than the container:\n%s", r.out);
	cr_expect(strstr(r.out, "psys=1\n"), "the supervised proc has /proc/sys:\n%s", r.out);
	cr_expect(strstr(r.out, "dom=") && !strstr(r.out, "dom=0\n"),
		  "kernel.domainname written through it:\n%s", r.out);
	cr_expect(strstr(r.out, "s=0\n"), "sysfs:\n%s", r.out);
	cr_expect(strstr(r.out, "net=lo \n"), "sysfs shows other net devices:\n%s", r.out);
	cr_expect(strstr(r.out, "q=0\n"), "mqueue:\n%s", r.out);
	ms_assert_text_eq(host_after, host_before, "this namespace's mounts");
	free(host_before);
	free(host_after);
	free(r.out);
	free(r.err);
}
