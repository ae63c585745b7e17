/* SPDX-License-Identifier: MIT */
/*
 * A small JSON reader for the supervisor's inputs (the policy file, the
 * OCI container state a runtime sends). Unlike json-c it keeps the line
 * and column of every value, so a policy error names where it is.
 */
#ifndef MNTSNAP_JSON_MINI_H
#define MNTSNAP_JSON_MINI_H

#include <stdbool.h>
#include <stddef.h>

enum jm_type { JM_NULL, JM_BOOL, JM_NUMBER, JM_STRING, JM_ARRAY, JM_OBJECT };

struct jm {
	enum jm_type type;
	unsigned line, col;   /* where the value starts, 1-based */
	char *str;            /* JM_STRING: decoded, NUL-terminated; JM_NUMBER: its text */
	bool b;               /* JM_BOOL */
	size_t n;             /* JM_ARRAY/JM_OBJECT: number of items */
	struct jm **items;    /* the items (values) */
	char **keys;          /* JM_OBJECT: the items' keys */
};

/*
 * Parse text (len bytes, NUL inside refused) into *ret. On a syntax error
 * returns -EINVAL and writes "LINE:COLUMN: what" into err. Depth is
 * limited to 64. -ENOMEM.
 */
int jm_parse(const char *text, size_t len, struct jm **ret, char *err, size_t errlen);

/* The value of key in object o, or NULL. */
const struct jm *jm_get(const struct jm *o, const char *key);

/* Accepts NULL. */
void jm_free(struct jm *v);

#endif
