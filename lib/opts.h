/* SPDX-License-Identifier: MIT */
/* Option structs and error reports: the bottom of the library (lib/opts.c, lib/errors.c). */
#ifndef MNTSNAP_OPTS_H
#define MNTSNAP_OPTS_H

#include <stddef.h>

#include "mntsnap.h"

/*
 * libbpf-style check of a caller's option struct: sz must cover at least
 * the first field, and bytes past what this library knows must be zero.
 */
int mntsnap__opts_valid(const void *opts, size_t user_sz, size_t known_sz);
/*
 * The same, and the reason in words in e (sz 0: MNTSNAP_OPTS forgotten;
 * unknown bytes: a newer header). Callers pass the struct's error pointer
 * even when sz is 0: every layout of the option structs that have one
 * has it at the same offset, and a forgotten sz is exactly when the
 * caller most needs the message.
 */
int mntsnap__opts_check(const void *opts, size_t user_sz, size_t known_sz, const char *type,
		       struct mntsnap_error *e);

/*
 * Load a caller's option struct src (may be NULL) into the library's own
 * copy dst, which the caller has zeroed and whose sz it has set: check src
 * (mntsnap__opts_valid; with type, mntsnap__opts_check and the reason in
 * err), then copy the bytes both sides know. 0, -EINVAL or -E2BIG; dst is
 * untouched on error. Use the macros, which take the sizes from the types.
 */
int mntsnap__opts_load(void *dst, size_t known_sz, const void *src, size_t user_sz,
		       const char *type, struct mntsnap_error *err);

/*
 * OPTS_LOAD(&o, opts): the one preamble of every function taking an
 * option struct (libbpf's OPTS_VALID + copy). OPTS_LOAD_ERR also says why
 * in opts->error, for the structs that have one: read even when sz is 0,
 * since every layout of such a struct has it at the same offset, and a
 * forgotten sz is exactly when the caller needs the message.
 */
#define OPTS_LOAD(dst, src) \
	mntsnap__opts_load((dst), sizeof(*(dst)), (src), (src) ? (src)->sz : 0, NULL, NULL)
#define OPTS_LOAD_ERR(dst, src, type)                                                   \
	mntsnap__opts_load((dst), sizeof(*(dst)), (src), (src) ? (src)->sz : 0, (type), \
			   (src) ? (src)->error : NULL)

/* Fill a struct mntsnap_error (if any) and return err. */
int mntsnap__set_error(struct mntsnap_error *e, int err, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
