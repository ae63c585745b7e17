// SPDX-License-Identifier: MIT
/*
 * mntsnap seccomp --notify-mounts --listener SOCKET [--merge PROFILE]:
 * the seccomp part of a supervised container. Every mount syscall goes to
 * the supervisor (SCMP_ACT_NOTIFY) and linux.seccomp.listenerPath names
 * its socket. Merged into a profile, only the mount syscalls change: their
 * names leave whatever entries had them (libseccomp refuses two actions for
 * one syscall) and the notify entry is added; the default action and every
 * other entry stay as they are, so nothing else is widened.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#ifndef MNTSNAP_HAVE_JSON
#define MNTSNAP_HAVE_JSON 0
#endif
#if MNTSNAP_HAVE_JSON
#include <json-c/json.h>
#endif

/*
 * The supervisor handles mount, umount2, fsopen, fsconfig, fsmount,
 * move_mount, open_tree (clones) and mount_setattr (before a move);
 * fspick reaches it too and is refused there with the policy's errno
 * (audited), as it would be for a container without CAP_SYS_ADMIN.
 */
static const char *const notify_names[] = {
	"mount", "umount2", "fsopen", "fsconfig", "fsmount", "fspick",
	"move_mount", "open_tree", "mount_setattr", NULL,
};

static const char help[] =
	"usage: mntsnap seccomp --notify-mounts --listener SOCKET [--merge PROFILE]\n"
	"\n"
	"An OCI linux.seccomp object sending the mount syscalls (mount, umount2,\n"
	"fsopen, fsconfig, fsmount, fspick, move_mount, open_tree, mount_setattr)\n"
	"to the supervisor listening on SOCKET (mntsnap supervise) with\n"
	"SCMP_ACT_NOTIFY. Alone: a profile allowing everything else. --merge\n"
	"PROFILE (an OCI or Docker-format profile, or a config.json with\n"
	"linux.seccomp): the same profile with those names moved to the notify\n"
	"rule and listenerPath set; nothing else changes. A PROFILE that already\n"
	"has a listenerPath is refused (exit 2): its own notify rules would go to\n"
	"mntsnap.\n";

bool seccomp_notify_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--notify-mounts"))
			return true;
	return false;
}

static void json_str(FILE *o, const char *s)
{
	fputc('"', o);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(o, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(o, "\\u%04x", *s);
		else
			fputc(*s, o);
	}
	fputc('"', o);
}

static void print_standalone(FILE *o, const char *listener)
{
	fputs("{\n  \"defaultAction\": \"SCMP_ACT_ALLOW\",\n  \"listenerPath\": ", o);
	json_str(o, listener);
	fputs(",\n  \"syscalls\": [\n    {\n      \"names\": [", o);
	for (size_t i = 0; notify_names[i]; i++)
		fprintf(o, "%s\"%s\"", i ? ", " : "", notify_names[i]);
	fputs("],\n      \"action\": \"SCMP_ACT_NOTIFY\"\n    }\n  ]\n}\n", o);
}

#if MNTSNAP_HAVE_JSON
static bool is_notified(const char *name)
{
	for (size_t i = 0; notify_names[i]; i++)
		if (!strcmp(notify_names[i], name))
			return true;
	return false;
}

/* Drop the notified names from one entry; false when nothing is left of it. */
static bool strip_entry(json_object *e)
{
	json_object *names, *kept, *name;

	/* Docker's older single "name" */
	if (json_object_object_get_ex(e, "name", &name) &&
	    json_object_is_type(name, json_type_string))
		return !is_notified(json_object_get_string(name));
	if (!json_object_object_get_ex(e, "names", &names) ||
	    !json_object_is_type(names, json_type_array))
		return true;
	kept = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(names); i++) {
		json_object *n = json_object_array_get_idx(names, i);

		if (!json_object_is_type(n, json_type_string) ||
		    !is_notified(json_object_get_string(n)))
			json_object_array_add(kept, json_object_get(n));
	}
	if (!json_object_array_length(kept)) {
		json_object_put(kept);
		return false;
	}
	json_object_object_add(e, "names", kept);
	return true;
}

static int merge(json_object *p, const char *listener)
{
	json_object *sys, *out, *ent, *names;

	if (!json_object_object_get_ex(p, "syscalls", &sys))
		sys = NULL;
	if (sys && !json_object_is_type(sys, json_type_array))
		return -EINVAL;
	out = json_object_new_array();
	for (size_t i = 0; sys && i < json_object_array_length(sys); i++) {
		json_object *e = json_object_array_get_idx(sys, i);

		if (!json_object_is_type(e, json_type_object)) {
			json_object_put(out);
			return -EINVAL;
		}
		if (strip_entry(e))
			json_object_array_add(out, json_object_get(e));
	}
	ent = json_object_new_object();
	names = json_object_new_array();
	for (size_t i = 0; notify_names[i]; i++)
		json_object_array_add(names, json_object_new_string(notify_names[i]));
	json_object_object_add(ent, "names", names);
	json_object_object_add(ent, "action", json_object_new_string("SCMP_ACT_NOTIFY"));
	json_object_array_add(out, ent);
	json_object_object_add(p, "syscalls", out);
	json_object_object_add(p, "listenerPath", json_object_new_string(listener));
	return 0;
}

static int run_merge(const char *path, const char *listener)
{
	json_object *root = json_object_from_file(path), *p = NULL, *lnx, *lp;
	int r;

	if (!root || !json_object_is_type(root, json_type_object)) {
		json_object_put(root);
		return cli_fail(0, "seccomp --notify-mounts: %s is not a JSON object", path);
	}
	/* a whole config.json: its linux.seccomp */
	if (json_object_object_get_ex(root, "linux", &lnx) &&
	    !json_object_object_get_ex(lnx, "seccomp", &p)) {
		json_object_put(root);
		return cli_fail(0, "seccomp --notify-mounts: %s has no linux.seccomp", path);
	}
	/*
	 * A profile with a listener of its own sends its own SCMP_ACT_NOTIFY
	 * rules there; replacing it would hand them to mntsnap, which
	 * refuses every call it does not know: the profile's agent would
	 * silently stop working. One filter has one listener, so refuse.
	 */
	if (json_object_object_get_ex(p ? p : root, "listenerPath", &lp)) {
		r = cli_fail(0, "seccomp --notify-mounts: %s already has a listener, "
				"listenerPath \"%s\": one seccomp filter sends to one listener; "
				"refusing to replace it", path, json_object_get_string(lp));
		json_object_put(root);
		return r;
	}
	r = merge(p ? p : root, listener);
	if (r) {
		json_object_put(root);
		return cli_fail(0, "seccomp --notify-mounts: %s: \"syscalls\" is not an array of "
				   "objects", path);
	}
	puts(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
							  JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	return 0;
}
#endif

int cmd_seccomp_notify(int argc, char **argv)
{
	const char *listener = NULL, *profile = NULL;
	int r;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(help, stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--notify-mounts"))
			continue;
		if (i + 1 < argc && !strcmp(argv[i], "--listener"))
			listener = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "--merge"))
			profile = argv[++i];
		else
			return cli_fail(0, "seccomp --notify-mounts: unknown option or missing value: "
					   "'%s' (only --listener and --merge)", argv[i]);
	}
	if (!listener || listener[0] != '/')
		return cli_fail(0, "seccomp --notify-mounts: --listener SOCKET (an absolute path) "
				   "is required");
	if (profile) {
#if MNTSNAP_HAVE_JSON
		return run_merge(profile, listener);
#else
		return cli_fail(0, "seccomp --notify-mounts --merge: built without json-c");
#endif
	}
	print_standalone(stdout, listener);
	r = cli_stdout_status();
	return r ? cli_fail(r, "seccomp: write") : 0;
}
