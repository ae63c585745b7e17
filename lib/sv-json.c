// SPDX-License-Identifier: MIT
/* An audit event of the mount supervisor as one JSON line. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "supervisor.h"

struct jbuf {
	char *p;
	size_t len, cap;
	bool full;
};

static void jraw(struct jbuf *b, const char *s, size_t n)
{
	if (b->full || b->len + n + 1 > b->cap) {
		b->full = true;
		return;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void jstr(struct jbuf *b, const char *key, const char *s)
{
	char esc[8];

	jraw(b, ",\"", 2);
	jraw(b, key, strlen(key));
	jraw(b, "\":", 2);
	if (!s) {
		jraw(b, "null", 4);
		return;
	}
	jraw(b, "\"", 1);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*c;
			jraw(b, esc, 2);
		} else if (*c < 0x20 || *c >= 0x7f) {
			/* bytes outside ASCII as \u00XX: the line stays valid UTF-8 */
			snprintf(esc, sizeof(esc), "\\u%04x", *c);
			jraw(b, esc, 6);
		} else {
			jraw(b, (const char *)c, 1);
		}
	}
	jraw(b, "\"", 1);
}

/* The symbolic name of an errno a mount can return (strerrorname_np is glibc-only). */
static const char *errno_name(int e, char *buf, size_t len)
{
	static const struct {
		int e;
		const char *name;
	} names[] = {
		{ EPERM, "EPERM" },     { ENOENT, "ENOENT" },   { ESRCH, "ESRCH" },
		{ EINTR, "EINTR" },     { EIO, "EIO" },         { EBADF, "EBADF" },
		{ ENOMEM, "ENOMEM" },   { EACCES, "EACCES" },   { EFAULT, "EFAULT" },
		{ EBUSY, "EBUSY" },     { EEXIST, "EEXIST" },   { EXDEV, "EXDEV" },
		{ ENODEV, "ENODEV" },   { ENOTDIR, "ENOTDIR" }, { EISDIR, "EISDIR" },
		{ EINVAL, "EINVAL" },   { ENOSPC, "ENOSPC" },   { EROFS, "EROFS" },
		{ ENAMETOOLONG, "ENAMETOOLONG" }, { ENOSYS, "ENOSYS" },
		{ ELOOP, "ELOOP" },     { EOPNOTSUPP, "EOPNOTSUPP" },
		{ ETIMEDOUT, "ETIMEDOUT" }, { ECHILD, "ECHILD" }, { ENOTBLK, "ENOTBLK" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == e)
			return names[i].name;
	snprintf(buf, len, "E%d", e);
	return buf;
}

static void jnum(struct jbuf *b, const char *key, long long v)
{
	char t[64];
	int n = snprintf(t, sizeof(t), ",\"%s\":%lld", key, v);

	jraw(b, t, (size_t)n);
}

int mntsnap_sv_event_json(const struct mntsnap_sv_event *ev, char *buf, size_t len)
{
	struct jbuf b = { .p = buf, .cap = len };
	char t[64];

	if (!ev || !buf)
		return -EINVAL;
	snprintf(t, sizeof(t), "{\"time\":%llu.%09llu", (unsigned long long)(ev->time_ns / 1000000000ULL),
		 (unsigned long long)(ev->time_ns % 1000000000ULL));
	jraw(&b, t, strlen(t));
	jstr(&b, "container", ev->container);
	jnum(&b, "pid", ev->pid);
	jstr(&b, "syscall", ev->syscall);
	jstr(&b, "fstype", ev->fstype);
	jstr(&b, "source", ev->source);
	jstr(&b, "target", ev->target);
	jstr(&b, "source_resolved", ev->source_resolved);
	jstr(&b, "target_resolved", ev->target_resolved);
	jstr(&b, "options_asked", ev->options_asked);
	jstr(&b, "options_applied", ev->options_applied);
	if (ev->rule >= -1)
		jnum(&b, "rule", ev->rule);
	else
		jraw(&b, ",\"rule\":null", 12);
	jnum(&b, "result", ev->result);
	jstr(&b, "error", ev->result ? errno_name(-ev->result, t, sizeof(t)) : NULL);
	if (ev->mnt_id) {
		snprintf(t, sizeof(t), ",\"mnt_id\":%llu", (unsigned long long)ev->mnt_id);
		jraw(&b, t, strlen(t));
	} else {
		jraw(&b, ",\"mnt_id\":null", 14);
	}
	jstr(&b, "reason", ev->reason);
	jstr(&b, "grant", ev->grant);
	jraw(&b, "}\n", 2);
	if (b.full) {
		if (len)
			buf[0] = '\0';
		return -ENOSPC;
	}
	return (int)b.len;
}
