/* SPDX-License-Identifier: MIT */
/*
 * Internal to the mntsnap CLI: a merged seccomp profile written into the
 * input's own text (seccomp-splice.c).
 */
#ifndef MNTSNAP_SECCOMP_SPLICE_H
#define MNTSNAP_SECCOMP_SPLICE_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;

/*
 * The document after (the merge's result) written as text[0..len) (which
 * parses to before) would be, changing only what differs: text itself
 * when nothing does, else its bytes with the profile's syscalls[] rules
 * the merge added or changed spliced in (in the text's style), else the
 * whole document in the text's style. is_config: the profile is
 * linux.seccomp of an OCI config. *ret_what (malloc'ed) is one line
 * saying what changed. 0 or -ENOMEM.
 */
int mntsnap__sc_splice(const char *text, size_t len, struct json_object *before,
		       struct json_object *after, bool is_config, char **ret_text, char **ret_what);

#endif
