/* SPDX-License-Identifier: MIT */
/* One renderer per file; render.c dispatches. */
#ifndef MNTSNAP_RENDER_H
#define MNTSNAP_RENDER_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mntsnap.h"

int mntsnap_render_mountinfo(const struct mntsnap_snapshot *snap, FILE *f);
int mntsnap_render_json(const struct mntsnap_snapshot *snap, FILE *f);
int mntsnap_render_table(const struct mntsnap_snapshot *snap, FILE *f);
int mntsnap_render_tree(const struct mntsnap_snapshot *snap, FILE *f);

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

/* Column 6 of mountinfo ("rw,nosuid,relatime") into buf. */
void mntsnap_vfs_options(const struct mntsnap_mount *m, char *buf, size_t len);

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

/* Write and empty b: 0, the write's error, or b->err. */
int mntsnap__buf_flush(struct mntsnap__buf *b, FILE *f);

/*
 * libmount's OPTIONS from VFS and FS option strings (see render-options.c)
 * into out, which has room for vlen + flen + 4 bytes; returns its length
 * (out is NUL-terminated).
 */
size_t mntsnap__merge_options(const char *vfs, size_t vlen, const char *fs, size_t flen,
			      char *out);

/*
 * FS-OPTIONS (see render-options.c) into buf, NUL-terminated when it
 * fits: its length, which is >= len when it did not fit.
 */
size_t mntsnap__fs_options(const struct mntsnap_mount *m, char *buf, size_t len);

/* JSON helpers shared with the snapshot export (render-json.c). */
void mntsnap_json_str(FILE *f, const char *str);
int mntsnap_json_mount(FILE *f, const struct mntsnap_mount *m);

#endif
