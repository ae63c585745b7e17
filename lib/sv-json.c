// SPDX-License-Identifier: MIT
/* An audit event of the mount supervisor as one JSON line. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "supervisor.h"

/* p NULL: only count (len), never full */
struct jbuf {
	char *p;
	size_t len, cap;
	bool full;
};

static void jraw(struct jbuf *b, const char *s, size_t n)
{
	if (!b->p) {
		b->len += n;
		return;
	}
	if (b->full || b->len + n + 1 > b->cap) {
		b->full = true;
		return;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

/*
 * s as a JSON string; with max, at most max bytes of it (escapes count as
 * what they take in the line, never cut in two): what is left out is
 * reported by the caller in the line's "truncated". Returns the bytes of
 * s written, strlen(s) when whole.
 */
static size_t jstr_max(struct jbuf *b, const char *key, const char *s, size_t max)
{
	const unsigned char *c;
	size_t out = 0;
	char esc[8];

	jraw(b, ",\"", 2);
	jraw(b, key, strlen(key));
	jraw(b, "\":", 2);
	if (!s) {
		jraw(b, "null", 4);
		return 0;
	}
	jraw(b, "\"", 1);
	for (c = (const unsigned char *)s; *c; c++) {
		size_t n = *c == '"' || *c == '\\' ? 2 : *c < 0x20 || *c >= 0x7f ? 6 : 1;

		if (max && out + n > max)
			break;
		out += n;
		if (n == 2) {
			esc[0] = '\\';
			esc[1] = (char)*c;
			jraw(b, esc, 2);
		} else if (n == 6) {
			/* bytes outside ASCII as \u00XX: the line stays valid UTF-8 */
			snprintf(esc, sizeof(esc), "\\u%04x", *c);
			jraw(b, esc, 6);
		} else {
			jraw(b, (const char *)c, 1);
		}
	}
	jraw(b, "\"", 1);
	return (size_t)((const char *)c - s);
}

static void jstr(struct jbuf *b, const char *key, const char *s)
{
	jstr_max(b, key, s, 0);
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
		{ EMFILE, "EMFILE" },   { ENFILE, "ENFILE" },
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

/*
 * The fields a container writes, each cut to MNTSNAP_SV_AUDIT_FIELD_MAX
 * bytes of the line: a refused request of 4 KB strings of bytes >= 0x80
 * made a 68 KB line, and one container could fill the audit filesystem
 * in seconds (after which every container is refused). What was cut is
 * named with its length in bytes in "truncated".
 */
static void jevent(struct jbuf *b, const struct mntsnap_sv_event *ev)
{
	static const size_t max = MNTSNAP_SV_AUDIT_FIELD_MAX;
	const struct {
		const char *key, *s;
	} f[] = {
		{ "fstype", ev->fstype },
		{ "source", ev->source },
		{ "target", ev->target },
		{ "source_resolved", ev->source_resolved },
		{ "target_resolved", ev->target_resolved },
		{ "options_asked", ev->options_asked },
		{ "options_applied", ev->options_applied },
	};
	size_t cut[sizeof(f) / sizeof(f[0])], ncut = 0;
	char t[64];

	snprintf(t, sizeof(t), "{\"time\":%llu.%09llu", (unsigned long long)(ev->time_ns / 1000000000ULL),
		 (unsigned long long)(ev->time_ns % 1000000000ULL));
	jraw(b, t, strlen(t));
	jstr(b, "container", ev->container);
	jnum(b, "pid", ev->pid);
	jstr(b, "syscall", ev->syscall);
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		cut[i] = f[i].s ? strlen(f[i].s) : 0;
		if (jstr_max(b, f[i].key, f[i].s, max) == cut[i])
			cut[i] = 0;
		else
			ncut++;
	}
	if (ev->rule >= -1)
		jnum(b, "rule", ev->rule);
	else
		jraw(b, ",\"rule\":null", 12);
	jnum(b, "result", ev->result);
	jstr(b, "error", ev->result ? errno_name(-ev->result, t, sizeof(t)) : NULL);
	if (ev->mnt_id) {
		snprintf(t, sizeof(t), ",\"mnt_id\":%llu", (unsigned long long)ev->mnt_id);
		jraw(b, t, strlen(t));
	} else {
		jraw(b, ",\"mnt_id\":null", 14);
	}
	jstr(b, "reason", ev->reason);
	jstr(b, "grant", ev->grant);
	/* present only when something was cut: {"source":4095,...}, whole lengths */
	if (ncut) {
		const char *sep = "{";

		jraw(b, ",\"truncated\":", 13);
		for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
			if (!cut[i])
				continue;
			snprintf(t, sizeof(t), "%s\"%s\":%zu", sep, f[i].key, cut[i]);
			jraw(b, t, strlen(t));
			sep = ",";
		}
		jraw(b, "}", 1);
	}
	/* present only on the line that sums up refusals left out */
	if (ev->unlogged) {
		snprintf(t, sizeof(t), ",\"unlogged\":%llu", (unsigned long long)ev->unlogged);
		jraw(b, t, strlen(t));
	}
	jraw(b, "}\n", 2);
}

int mntsnap_sv_event_json(const struct mntsnap_sv_event *ev, char *buf, size_t len)
{
	struct jbuf b = { .p = buf, .cap = len };

	if (!ev || !buf)
		return -EINVAL;
	jevent(&b, ev);
	if (b.full) {
		if (len)
			buf[0] = '\0';
		return -ENOSPC;
	}
	return (int)b.len;
}

size_t mntsnap__sv_event_json_len(const struct mntsnap_sv_event *ev)
{
	struct jbuf b = { 0 };

	jevent(&b, ev);
	return b.len;
}
