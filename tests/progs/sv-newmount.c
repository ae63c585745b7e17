// SPDX-License-Identifier: MIT
/*
 * sv-newmount TYPE TARGET [KEY=VALUE]...: mount with the new mount API
 * (fsopen, fsconfig per option, FSCONFIG_CMD_CREATE, fsmount, move_mount)
 * and print "ok" or the failing step and errno. Linked statically to run
 * in a bare busybox container under the mount supervisor's tests.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NR_move_mount 429
#define NR_fsopen 430
#define NR_fsconfig 431
#define NR_fsmount 432

static int fail(const char *step)
{
	printf("%s: %s\n", step, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	int fs, m;

	if (argc < 3) {
		fputs("usage: sv-newmount TYPE TARGET [KEY=VALUE]...\n", stderr);
		return 2;
	}
	fs = (int)syscall(NR_fsopen, argv[1], 1 /* FSOPEN_CLOEXEC */);
	if (fs < 0)
		return fail("fsopen");
	for (int i = 3; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (eq)
			*eq++ = '\0';
		/* FSCONFIG_SET_STRING 1, FSCONFIG_SET_FLAG 0 */
		if (syscall(NR_fsconfig, fs, eq ? 1 : 0, argv[i], eq, 0))
			return fail("fsconfig");
	}
	if (syscall(NR_fsconfig, fs, 6 /* FSCONFIG_CMD_CREATE */, NULL, NULL, 0))
		return fail("create");
	m = (int)syscall(NR_fsmount, fs, 1 /* FSMOUNT_CLOEXEC */, 0);
	if (m < 0)
		return fail("fsmount");
	/* MOVE_MOUNT_F_EMPTY_PATH */
	if (syscall(NR_move_mount, m, "", AT_FDCWD, argv[2], 4))
		return fail("move_mount");
	puts("ok");
	return 0;
}
