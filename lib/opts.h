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

/* Fill a struct mntsnap_error (if any) and return err. */
int mntsnap__set_error(struct mntsnap_error *e, int err, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
