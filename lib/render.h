/* SPDX-License-Identifier: MIT */
/* One renderer per file; render.c dispatches. */
#ifndef MNTSNAP_RENDER_H
#define MNTSNAP_RENDER_H

#include <errno.h>
#include <stdio.h>

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

/* JSON helpers shared with the snapshot export (render-json.c). */
void mntsnap_json_str(FILE *f, const char *str);
int mntsnap_json_mount(FILE *f, const struct mntsnap_mount *m);

#endif
