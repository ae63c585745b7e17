// SPDX-License-Identifier: MIT
/*
 * Errors: mntsnap_strerror() and the struct mntsnap_error filler; and
 * mntsnap_version(), the other string a caller asks the library about.
 *
 * mntsnap_strerror(): what each error this library documents means for a
 * caller of mntsnap, in words. strerror()'s text for the same number is
 * about the system call that failed ("Bad message", "Argument list too
 * long"), which says little about a corrupt snapshot file or an options
 * struct built against a newer header.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "opts.h"

struct err_text {
	int err;
	const char *text;
};

/* Every code include/mntsnap.h and mntsnap-seccomp.h name (the 'errors'
 * suite checks the headers against this table). */
static const struct err_text texts[] = {
	{ EINVAL, "invalid argument: a NULL or out-of-range parameter, a bad option "
		  "combination, an options struct whose sz is 0 (declare it with "
		  "MNTSNAP_OPTS()), or a file that is not a mount-namespace file" },
	{ E2BIG, "an options struct has non-zero bytes this library does not know "
		 "(the caller was built against a newer mntsnap.h), or a statmount "
		 "record would need more than 64 MiB" },
	{ ENOMEM, "out of memory" },
	{ ENOENT, "not found: no such file, path, mount id or mount namespace (a "
		  "namespace whose last process exited and that nothing keeps alive is "
		  "gone)" },
	{ ESRCH, "no such process in the caller's pid namespace (a wrong pid, a pid "
		 "as a container numbers it, or a process already gone), the handle's "
		 "process has exited since (a pid or pidfd handle never follows a "
		 "reused pid), or no process was found in the target namespace" },
	{ EPERM, "not permitted: reading or entering another mount namespace needs "
		 "CAP_SYS_ADMIN over its owner user namespace (and CAP_SYS_CHROOT to "
		 "enter); or a seccomp filter blocks statmount/listmount "
		 "(mntsnap_ns_explain() names the missing capability)" },
	{ EACCES, "access denied: another user's process needs ptrace access (CAP_SYS_PTRACE), "
		  "or a file cannot be opened" },
	{ ENOSYS, "the kernel lacks a system call this needs (statmount/listmount "
		  "came in Linux 6.8, openat2 in 5.6), or a seccomp filter answers "
		  "ENOSYS for it" },
	{ EBADMSG, "malformed input: mountinfo text that does not parse (error->line "
		   "says where), a corrupt or truncated snapshot file, or a kernel answer "
		   "that cannot be true" },
	{ EPROTO, "the snapshot file was written by a newer format version than this "
		  "library reads" },
	{ EOPNOTSUPP, "not supported here: the snapshot needs a format feature or a "
		      "record field (one its writer marked required) this "
		      "reader lacks, the operation needs unique mount ids that the "
		      "mountinfo backend does not have, or the target is another "
		      "namespace where only the caller's own works" },
	{ EFBIG, "the snapshot file is larger than 2 GiB" },
	{ EAGAIN, "the mount table kept changing during every retry of the capture "
		  "(MNTSNAP_CAPTURE_CONSISTENT)" },
	{ ETIMEDOUT, "the namespace helper process did not finish within "
		     "opts->timeout_ms and was killed" },
	{ ECHILD, "the namespace helper process died without an answer" },
	{ ERANGE, "index past the end of the snapshot, diff or order" },
	{ ENODATA, "records lack fields this needs (capture with MNTSNAP_MASK_DEFAULT "
		   "or more)" },
	{ ELOOP, "a loop: restore-order constraints form a cycle, or a path has a "
		 "magic link or too many symlinks" },
	{ EXDEV, "outside the root: the path resolves outside the target's root, or the mount "
		 "is not reachable from the reader's root (not in its table)" },
	{ EISDIR, "the path names a directory (a file name was expected)" },
	{ EIO, "an I/O error while writing the output (or the write's own error is "
	       "no longer known)" },
	{ ENOSPC, "no space left on the device the output or snapshot is written to "
		  "(a snapshot file being replaced stays as it was)" },
	{ EPIPE, "the output is a pipe whose reader has gone" },
	{ EINTR, "interrupted by a signal; no mntsnap call returns this: every wait "
		 "and read is retried inside the library" },
	{ EDOM, "libseccomp: a raw syscall number rule is needed but the filter "
		"already holds a non-native architecture; pass the architectures to "
		"mntsnap_seccomp_allow_arches() instead" },
	{ EFAULT, "libseccomp 2.5.x refused a raw syscall number rule because the "
		  "filter holds a second architecture (add the architectures through "
		  "mntsnap_seccomp_allow_arches())" },
	{ EEXIST, "libseccomp: the filter already has a conflicting rule for one of "
		  "these system calls" },
};

const char *mntsnap_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (!err)
		return "success";
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		if (texts[i].err == err)
			return texts[i].text;
	return "an error this library does not document (see strerror(3) for the number)";
}

/* Fill e (when the caller gave one) and return err, for one-line error returns. */
int mntsnap__set_error(struct mntsnap_error *e, int err, unsigned line, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return err;
	e->err = err;
	e->line = line;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return err;
}

/*
 * The header's numbers as the library was compiled with them: a program
 * that runs with a newer shared library gets that library's version, not
 * the one of the header it was built against.
 */
#define VERSION_STR_(x) #x
#define VERSION_STR(x) VERSION_STR_(x)

const char *mntsnap_version(void)
{
	return VERSION_STR(MNTSNAP_VERSION_MAJOR) "." VERSION_STR(MNTSNAP_VERSION_MINOR) "."
		VERSION_STR(MNTSNAP_VERSION_PATCH);
}
