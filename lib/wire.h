/* SPDX-License-Identifier: MIT */
/*
 * The binary snapshot format of saved files (a namespace helper hands its
 * snapshot over in memory, not in this format).
 * The layout is documented at the top of wire.c.
 */
#ifndef MNTSNAP_WIRE_H
#define MNTSNAP_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "mntsnap.h"

struct mntsnap_snapshot;

/* Current format version; readers refuse newer ones with -EPROTO. */
#define MNTSNAP_WIRE_VERSION 1

/*
 * Encode s into a malloc'd buffer (*ret_buf, *ret_len; free() it).
 * Returns 0, -EINVAL (NULL arguments), -ENOMEM, -EOVERFLOW (> 4 GiB).
 */
int mntsnap__wire_encode(const struct mntsnap_snapshot *s, void **ret_buf, size_t *ret_len);

/*
 * The same with another field table: a test writes the files a build with
 * a field this one does not know would write.
 */
struct mntsnap_field;
int mntsnap__wire_encode_fields(const struct mntsnap_snapshot *s, const struct mntsnap_field *tab,
				int ntab, void **ret_buf, size_t *ret_len);

/*
 * Decode and validate buf (never trusts it: every offset, length, count,
 * string, id and parent link is checked, and so is the CRC32C).
 * Returns 0 and *ret, or:
 *  -EBADMSG     corrupt: bad magic, checksum, truncation, bounds, strings,
 *               duplicate ids, parent links that point nowhere or loop;
 *  -EPROTO      a format version newer than this reader;
 *  -EOPNOTSUPP  a required feature flag or required section it does not know;
 *  -ENOMEM, -EINVAL (NULL arguments).
 * err (optional) gets a message saying what was wrong, with the byte
 * offset where it was found.
 */
int mntsnap__wire_decode(const void *buf, size_t len, struct mntsnap_error *err,
			struct mntsnap_snapshot **ret);

/* CRC32C (Castagnoli) of len bytes, continuing from crc (start with 0). */
uint32_t mntsnap__crc32c(uint32_t crc, const void *buf, size_t len);

#endif
