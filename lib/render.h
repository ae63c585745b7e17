/* SPDX-License-Identifier: MIT */
/* One renderer per file; render.c dispatches. */
#ifndef MNTSNAP_RENDER_H
#define MNTSNAP_RENDER_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mntsnap.h"

int mntsnap__render_mountinfo(const struct mntsnap_snapshot *snap, FILE *f);
int mntsnap__render_json(const struct mntsnap_snapshot *snap, FILE *f);
int mntsnap__render_table(const struct mntsnap_snapshot *snap, FILE *f);
int mntsnap__render_tree(const struct mntsnap_snapshot *snap, FILE *f);

/*
 * 0, or why writing to f failed: f is flushed, so a full disk or a closed
 * pipe shows now and with its own errno (-ENOSPC, -EPIPE, ...); -EIO when
 * an earlier write failed and its errno is gone.
 */
int mntsnap__stream_status(FILE *f);

/*
 * Checked after each record: a stream in error stops the render at once,
 * while errno still holds the failed write's reason (stdio forgets it).
 */
static inline int mntsnap__record_written(FILE *f)
{
	return ferror(f) ? (errno ? -errno : -EIO) : 0;
}

/*
 * Column 6 of mountinfo ("rw,nosuid,relatime") into buf, \ooo unmangled;
 * its length, or when that is len or more, the size less one of a buffer
 * that holds it (as snprintf(): any length, kept text has no limit).
 */
size_t mntsnap__vfs_options(const struct mntsnap_mount *m, char *buf, size_t len);

/*
 * A growable output buffer: renderers build a record (or many) here and
 * write it with one fwrite. err is set once an allocation failed; later
 * puts are dropped.
 */
struct mntsnap__buf {
	char *p;
	size_t len, cap;
	int err;
};

int mntsnap__buf_grow(struct mntsnap__buf *b, size_t more);

/*
 * Renderers write every MNTSNAP__FLUSH_AT bytes: the buffer then stays
 * under malloc's mmap threshold (128 KiB), so a render reuses heap pages
 * instead of mapping and faulting in fresh ones each call.
 */
#define MNTSNAP__FLUSH_AT 32768

static inline void mntsnap__put(struct mntsnap__buf *b, const char *s, size_t n)
{
	if (!n || (b->len + n > b->cap && mntsnap__buf_grow(b, n)))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

void mntsnap__put_u64(struct mntsnap__buf *b, uint64_t v);

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/*
 * The first i' >= i (< n) where s[i'] is not ok[], or n: the escapers'
 * scan for the next byte to escape. With SSE2, sixteen bytes a step: a
 * byte stops the run when, as a signed byte, it is < lo (so every byte
 * >= 0x80 stops it too) or equals a or b; ok[] must say exactly the same
 * for bytes < 0x80. The last bytes (and without SSE2, all) go by ok[].
 */
static inline size_t mntsnap__plain_run(const unsigned char *s, size_t i, size_t n,
					const unsigned char ok[256], char lo, char a, char b)
{
#ifdef __SSE2__
	const __m128i vlo = _mm_set1_epi8(lo), va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b);

	for (; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		unsigned k = (unsigned)_mm_movemask_epi8(_mm_or_si128(
			_mm_cmplt_epi8(v, vlo),
			_mm_or_si128(_mm_cmpeq_epi8(v, va), _mm_cmpeq_epi8(v, vb))));

		if (k)
			return i + (size_t)__builtin_ctz(k);
	}
#else
	(void)lo;
	(void)a;
	(void)b;
#endif
	while (i < n && ok[s[i]])
		i++;
	return i;
}

/* Length of a valid UTF-8 sequence at s (s[0] >= 0x80), 0 if invalid. */
static inline int mntsnap__utf8_len(const unsigned char *s)
{
	int n;
	uint32_t cp;

	if ((s[0] & 0xe0) == 0xc0)
		n = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and out-of-range code points are invalid */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/* Room for more bytes at b->p + b->len: 0, or b->err. */
static inline int mntsnap__reserve(struct mntsnap__buf *b, size_t more)
{
	/* never leaves p NULL: writers memcpy to p + len even for 0 bytes */
	return b->len + more > b->cap || !b->p ? mntsnap__buf_grow(b, more) : 0;
}

/* Write and empty b: 0, the write's error, or b->err. */
int mntsnap__buf_flush(struct mntsnap__buf *b, FILE *f);

/*
 * libmount's OPTIONS from VFS and FS option strings (see render-options.c)
 * into out, which has room for vlen + flen + 5 bytes (nothing cut:
 * "rw," + vfs + "," + fs and the NUL); returns its length (out is
 * NUL-terminated).
 */
size_t mntsnap__merge_options(const char *vfs, size_t vlen, const char *fs, size_t flen,
			      char *out);

/*
 * FS-OPTIONS (see render-options.c) into buf, NUL-terminated when it
 * fits: its length, which is >= len when it did not fit.
 */
size_t mntsnap__fs_options(const struct mntsnap_mount *m, char *buf, size_t len);

/* JSON helpers shared with the snapshot export (render-json.c). */
void mntsnap__json_str(FILE *f, const char *str);
int mntsnap__json_mount(FILE *f, const struct mntsnap_mount *m);

/*
 * The bodies of public functions, for the inside of the library: a lib
 * file never calls the public API (the wrappers are what callers see).
 */
long mntsnap__mount_options(const struct mntsnap_mount *m, int which, char *buf, size_t len);

#endif
