// SPDX-License-Identifier: MIT
/*
 * Core: statmount capture rendered as mountinfo must equal the kernel's
 * /proc/self/mountinfo byte for byte, for every mount setup below (each
 * built inside a private mount namespace).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "helpers.h"
#include "mntsnap.h"

#define BASE "/tmp/mntsnap-test"

static struct mntsnap_snapshot *capture(int backend)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = {0};
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = backend, .error = &err);
	int r = mntsnap_capture(&o, &s);

	cr_assert_eq(r, 0, "capture: %s (%s)", strerror(-r), err.msg);
	return s;
}

/* The oracle: our rendering vs the kernel's text, read right after. */
static void assert_oracle(void)
{
	struct mntsnap_snapshot *s = capture(MNTSNAP_BACKEND_STATMOUNT);
	char *want = ms_read_file("/proc/self/mountinfo", NULL);
	char *got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);

	ms_assert_text_eq(got, want, "statmount rendering vs /proc/self/mountinfo");
	free(got);
	free(want);
	mntsnap_snapshot_free(s);
}

Test(core, plain_table)
{
	ms_private_ns(BASE);
	assert_oracle();
}

Test(core, tmpfs_options_and_flags)
{
	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/a");
	cr_assert_eq(mount("src", BASE "/a", "tmpfs",
			   MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME |
				   MS_NODIRATIME | MS_SYNCHRONOUS | MS_DIRSYNC | MS_LAZYTIME,
			   "size=1m,mode=700,uid=1,gid=2"),
		     0, "%s", strerror(errno));
	assert_oracle();
}

Test(core, fd_and_count)
{
	struct mntsnap_snapshot *s;
	int before;

	ms_private_ns(BASE);
	before = ms_count_fds();
	s = capture(MNTSNAP_BACKEND_STATMOUNT);
	cr_assert_gt(mntsnap_snapshot_count(s), 1);
	mntsnap_snapshot_free(s);
	cr_assert_eq(ms_count_fds(), before, "fd leak");
}
