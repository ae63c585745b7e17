// SPDX-License-Identifier: MIT
/*
 * findmnt --vfs-all (libmount's mnt_fs_get_vfs_options_all()): the VFS
 * options column lists every fs-independent option, the default ones too
 * ("rw,exec,suid,dev,async,loud,..."), so a reader sees what a mount does
 * not restrict as well as what it does.
 *
 * libmount gets there in two steps, and so does this file: the option
 * string is turned into MS_* flags (each known name sets its flag, its
 * inverse clears it, the last one said wins), then its table of names is
 * walked in order, printing each flag-setting name whose flag is set and
 * each inverse name whose flag is clear. The table below is libmount
 * 2.38's, in its order, with what its build has (no "sub"/"nosub").
 */
#include <stdbool.h>
#include <string.h>

#include <sys/mount.h>

#include "vfs-all.h"

/* sys/mount.h of an older libc may lack these; the kernel's values */
#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256
#endif
#ifndef MS_LAZYTIME
#define MS_LAZYTIME (1 << 25)
#endif

#define INV 1 /* the name clears the flag ("rw", "exec", ...) */

static const struct {
	const char *name;
	unsigned long flag;
	unsigned char inv;
} vfs_names[] = {
	{ "ro", MS_RDONLY },
	{ "rw", MS_RDONLY, INV },
	{ "exec", MS_NOEXEC, INV },
	{ "noexec", MS_NOEXEC },
	{ "suid", MS_NOSUID, INV },
	{ "nosuid", MS_NOSUID },
	{ "dev", MS_NODEV, INV },
	{ "nodev", MS_NODEV },
	{ "sync", MS_SYNCHRONOUS },
	{ "async", MS_SYNCHRONOUS, INV },
	{ "dirsync", MS_DIRSYNC },
	{ "remount", MS_REMOUNT },
	{ "bind", MS_BIND },
	/* the recursive forms share MS_REC: "rbind" in an fstab makes
	 * every r* name below print too, as in findmnt */
	{ "rbind", MS_BIND | MS_REC },
	{ "silent", MS_SILENT },
	{ "loud", MS_SILENT, INV },
	{ "mand", MS_MANDLOCK },
	{ "nomand", MS_MANDLOCK, INV },
	{ "atime", MS_NOATIME, INV },
	{ "noatime", MS_NOATIME },
	{ "iversion", MS_I_VERSION },
	{ "noiversion", MS_I_VERSION, INV },
	{ "diratime", MS_NODIRATIME, INV },
	{ "nodiratime", MS_NODIRATIME },
	{ "relatime", MS_RELATIME },
	{ "norelatime", MS_RELATIME, INV },
	{ "strictatime", MS_STRICTATIME },
	{ "nostrictatime", MS_STRICTATIME, INV },
	{ "lazytime", MS_LAZYTIME },
	{ "nolazytime", MS_LAZYTIME, INV },
	{ "unbindable", MS_UNBINDABLE },
	{ "runbindable", MS_UNBINDABLE | MS_REC },
	{ "private", MS_PRIVATE },
	{ "rprivate", MS_PRIVATE | MS_REC },
	{ "slave", MS_SLAVE },
	{ "rslave", MS_SLAVE | MS_REC },
	{ "shared", MS_SHARED },
	{ "rshared", MS_SHARED | MS_REC },
	{ "symfollow", MS_NOSYMFOLLOW, INV },
	{ "nosymfollow", MS_NOSYMFOLLOW },
};

/*
 * The next option of s[*pos..n) as libmount splits them: leading commas
 * skipped, a comma inside double quotes is part of the value, the name
 * ends at the first '=' past its first byte. An option whose quote is
 * never closed is not an option (libmount drops it). false at the end.
 */
static bool next_option(const char *s, size_t n, size_t *pos, size_t *name, size_t *namelen,
			bool *has_value)
{
	size_t i = *pos, start, sep = 0;
	bool quote = false;

	while (i < n && s[i] == ',')
		i++;
	start = i;
	for (; i < n; i++) {
		if (s[i] == '"')
			quote = !quote;
		if (quote)
			continue;
		if (!sep && i > start && s[i] == '=')
			sep = i;
		if (s[i] == ',' || i + 1 == n)
			break;
	}
	if (i >= n || quote)
		return false;
	/* the option ends before its comma, or with the string */
	if (s[i] != ',')
		i++;
	*name = start;
	*namelen = (sep ? sep : i) - start;
	/* "ro=" has an empty value, which libmount counts as none */
	*has_value = sep && i > sep + 1;
	*pos = i < n ? i + 1 : i;
	return true;
}

static bool is(const char *s, size_t len, const char *name)
{
	return strlen(name) == len && !memcmp(s, name, len);
}

/*
 * libmount reads the userspace options too: a bare "user" or "users"
 * means noexec,nosuid,nodev; "owner" or "group" nosuid,nodev.
 */
static unsigned long user_flags(const char *s, size_t len)
{
	if (is(s, len, "user") || is(s, len, "users"))
		return MS_NOEXEC | MS_NOSUID | MS_NODEV;
	if (is(s, len, "owner") || is(s, len, "group"))
		return MS_NOSUID | MS_NODEV;
	return 0;
}

static unsigned long option_flags(const char *opts, size_t n)
{
	unsigned long flags = 0;
	size_t pos = 0, name, len, k;
	bool value;

	while (next_option(opts, n, &pos, &name, &len, &value)) {
		for (k = 0; k < sizeof(vfs_names) / sizeof(vfs_names[0]); k++)
			if (is(opts + name, len, vfs_names[k].name))
				break;
		if (k == sizeof(vfs_names) / sizeof(vfs_names[0])) {
			if (!value)
				flags |= user_flags(opts + name, len);
			continue;
		}
		/* "ro=1" is no flag: these names take no value */
		if (value)
			continue;
		if (vfs_names[k].inv)
			flags &= ~vfs_names[k].flag;
		else
			flags |= vfs_names[k].flag;
	}
	return flags;
}

void vfs_all_options(struct obuf *b, const char *opts, size_t n)
{
	unsigned long flags = option_flags(opts, n);
	size_t start = b->len;

	for (size_t k = 0; k < sizeof(vfs_names) / sizeof(vfs_names[0]); k++) {
		bool set = vfs_names[k].flag & flags;

		if (set == (bool)vfs_names[k].inv)
			continue;
		if (b->len > start)
			ob_putc(b, ',');
		ob_puts(b, vfs_names[k].name);
	}
}
