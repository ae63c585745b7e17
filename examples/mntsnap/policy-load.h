/* SPDX-License-Identifier: MIT */
/* The supervisor's JSON policy file (see doc/supervisor.md, "The policy file"). */
#ifndef MNTSNAP_POLICY_LOAD_H
#define MNTSNAP_POLICY_LOAD_H

#include <stddef.h>

#include "mntsnap-supervisor.h"

/*
 * Build a policy from the JSON text (len bytes) of the file name. On
 * -EINVAL *ret_msg (free it) says "NAME:LINE:COLUMN: what": bad JSON, an
 * unknown key, a wrong type, a bad glob, an unknown errno. -ENOMEM.
 */
int policy_load_text(const char *name, const char *text, size_t len,
		     struct mntsnap_policy **ret, char **ret_msg);

#endif
