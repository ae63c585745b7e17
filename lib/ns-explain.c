// SPDX-License-Identifier: MIT
/*
 * Why a namespace operation was refused, in words: the calling thread's
 * capabilities (libcap when built with it, else capget) and
 * mntsnap_ns_explain().
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mntsnap-config.h"
#include "backends.h"
#include "mntsnap.h"
#include "ns.h"
#include "sys.h"

#if MNTSNAP_HAVE_LIBCAP
#include <sys/capability.h>
#endif

#define CAP_SYS_CHROOT_ 18
#define CAP_SYS_PTRACE_ 19
#define CAP_SYS_ADMIN_ 21

#if MNTSNAP_HAVE_LIBCAP
bool mntsnap__cap_effective(int cap)
{
	cap_flag_value_t v = CAP_CLEAR;
	cap_t c = cap_get_proc();

	if (!c)
		return false;
	if (cap_get_flag(c, (cap_value_t)cap, CAP_EFFECTIVE, &v))
		v = CAP_CLEAR;
	cap_free(c);
	return v == CAP_SET;
}

static void cap_name(int cap, char *buf, size_t len)
{
	char *n = cap_to_name((cap_value_t)cap);

	snprintf(buf, len, "%s", n ? n : "?");
	if (n)
		cap_free(n);
	/* libcap spells them lower case ("cap_sys_admin"); the man pages do not */
	for (char *p = buf; *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
}
#else
struct cap_hdr_ {
	uint32_t version;
	int pid;
};
struct cap_data_ {
	uint32_t effective, permitted, inheritable;
};

bool mntsnap__cap_effective(int cap)
{
	struct cap_hdr_ h = { .version = 0x20080522, .pid = 0 };
	struct cap_data_ d[2] = { { 0 } };

	if (cap < 0 || cap > 63 || mntsnap__sys_capget(&h, d))
		return false;
	return d[cap / 32].effective & (1U << (cap % 32));
}

static void cap_name(int cap, char *buf, size_t len)
{
	const char *n = cap == CAP_SYS_ADMIN_	 ? "CAP_SYS_ADMIN"
			: cap == CAP_SYS_CHROOT_ ? "CAP_SYS_CHROOT"
			: cap == CAP_SYS_PTRACE_ ? "CAP_SYS_PTRACE"
						 : "?";

	snprintf(buf, len, "%s", n);
}
#endif

/* "CAP_SYS_ADMIN, CAP_SYS_CHROOT" of those the calling thread lacks. */
static void missing_caps(char *buf, size_t len)
{
	static const int need[] = { CAP_SYS_ADMIN_, CAP_SYS_CHROOT_ };
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		char n[32];

		if (mntsnap__cap_effective(need[i]))
			continue;
		cap_name(need[i], n, sizeof(n));
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", n);
		if (off >= len)
			break;
	}
}

int mntsnap__ns_explain(int err, const char *op, struct mntsnap_error *ret)
{
	char caps[96];

	if (!op)
		op = "namespace";
	switch (err) {
	case -EACCES:
		/* /proc/PID/ns/mnt and PIDFD_GET_MNT_NAMESPACE check ptrace access */
		if (!mntsnap__cap_effective(CAP_SYS_PTRACE_)) {
			char n[32];

			cap_name(CAP_SYS_PTRACE_, n, sizeof(n));
			return mntsnap__set_error(ret, err, 0,
						 "%s: %s: another user's process needs ptrace "
						 "access: the caller lacks %s",
						 op, strerror(-err), n);
		}
		/* fall through */
	case -EPERM:
		missing_caps(caps, sizeof(caps));
		if (caps[0])
			return mntsnap__set_error(ret, err, 0,
						 "%s: %s: the caller lacks %s (entering or "
						 "querying another mount namespace by id needs "
						 "CAP_SYS_ADMIN over its owner user namespace and, "
						 "to enter, CAP_SYS_CHROOT)",
						 op, strerror(-err), caps);
		return mntsnap__set_error(ret, err, 0,
					 "%s: %s: the caller has CAP_SYS_ADMIN and "
					 "CAP_SYS_CHROOT, but not over the target's owner user "
					 "namespace, or may not ptrace the target process",
					 op, strerror(-err));
	case -ESRCH:
		/*
		 * pidfd_open() says ESRCH alike for a pid that never existed,
		 * one that exists only inside another pid namespace and one
		 * whose process has gone: only a handle knows it once had a
		 * process (see handle_gone()).
		 */
		return mntsnap__set_error(ret, err, 0,
					 "%s: no such process in the caller's pid namespace "
					 "(wrong pid, a pid as seen inside a container, or the "
					 "process is gone)", op);
	case -EINVAL:
		return mntsnap__set_error(ret, err, 0,
					 "%s: not a mount-namespace file, or (entering) the "
					 "caller shares its fs_struct with other threads", op);
	case -ENOENT:
		return mntsnap__set_error(ret, err, 0, "%s: no such file or namespace", op);
	case -ETIMEDOUT:
		return mntsnap__set_error(ret, err, 0, "%s: the helper process timed out", op);
	default:
		return mntsnap__set_error(ret, err, 0, "%s: %s", op, strerror(-err));
	}
}

int mntsnap_ns_explain(int err, const char *op, struct mntsnap_error *ret)
{
	return mntsnap__ns_explain(err, op, ret);
}

