// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the seccomp profile merger (examples/mntsnap/
 * seccomp-merge.c). The first byte picks the mode (output format, set,
 * --errno-enosys, whether the stated bounding set holds CAP_SYS_ADMIN);
 * the rest is the profile. An accepted profile must merge into valid JSON
 * that merges again to the same bytes, and a merge (not a Docker -> OCI
 * resolution) must keep every rule of the input that mntsnap did not
 * write: with --errno-enosys only statmount/listmount may leave a rule.
 *
 *   fuzz-seccomp-merge -max_total_time=60 -max_len=20000 CORPUS tests/fuzz/seed-seccomp-merge
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "seccomp-merge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static json_object *syscalls_of(json_object *root)
{
	json_object *l, *sc, *sys;

	if (json_object_object_get_ex(root, "linux", &l) &&
	    json_object_object_get_ex(l, "seccomp", &sc))
		root = sc;
	return json_object_object_get_ex(root, "syscalls", &sys) &&
			       json_object_is_type(sys, json_type_array)
		       ? sys
		       : NULL;
}

/* names of e without statmount/listmount, as a new array */
static json_object *names_but_query(json_object *e)
{
	json_object *names, *out = json_object_new_array();

	if (json_object_object_get_ex(e, "name", &names)) {
		if (!mntsnap__sc_is_query(json_object_get_string(names)))
			json_object_array_add(out, json_object_get(names));
		return out;
	}
	if (!json_object_object_get_ex(e, "names", &names))
		abort();
	for (size_t i = 0; i < json_object_array_length(names); i++) {
		json_object *n = json_object_array_get_idx(names, i);

		if (!mntsnap__sc_is_query(json_object_get_string(n)))
			json_object_array_add(out, json_object_get(n));
	}
	return out;
}

/* Is every input rule (not mntsnap's) in the output? */
static void check_kept(json_object *in, json_object *out, bool enosys)
{
	json_object *si = syscalls_of(in), *so = syscalls_of(out);

	for (size_t i = 0; si && i < json_object_array_length(si); i++) {
		json_object *e = json_object_array_get_idx(si, i), *want;
		bool found = false;

		if (mntsnap__sc_entry_is_ours(e))
			continue;
		if (!so)
			abort();
		if (!enosys) {
			for (size_t k = 0; !found && k < json_object_array_length(so); k++)
				found = json_object_equal(e, json_object_array_get_idx(so, k));
			if (!found)
				abort();
			continue;
		}
		/* --errno-enosys: the same rule, maybe without statmount/listmount */
		want = names_but_query(e);
		found = !json_object_array_length(want);
		for (size_t k = 0; !found && k < json_object_array_length(so); k++) {
			json_object *got = names_but_query(json_object_array_get_idx(so, k));

			found = json_object_equal(want, got);
			json_object_put(got);
		}
		json_object_put(want);
		if (!found)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mntsnap__merge_opts o = { .kmaj = 6, .kmin = 18, .machine = "x86_64" };
	char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL;
	static const int formats[] = { MNTSNAP__SC_AUTO, MNTSNAP__SC_OCI, MNTSNAP__SC_DOCKER,
				       MNTSNAP__SC_AUTO };
	json_object *in, *res;
	int r;

	if (size < 1)
		return 0;
	o.format = formats[data[0] & 3];
	o.set = data[0] & 4 ? MNTSNAP__SC_FULL : MNTSNAP__SC_QUERY;
	o.enosys = data[0] & 8;
	o.caps = data[0] & 16 ? "CAP_KILL,CAP_SYS_ADMIN" : data[0] & 32 ? "CAP_KILL" : NULL;
	data++;
	size--;
	r = mntsnap__sc_merge((const char *)data, size, &o, &out, &err);
	if (r) {
		/* a refusal always says why */
		if (r != -ENOMEM && !err)
			abort();
		free(err);
		return 0;
	}
	if (err || !out)
		abort();
	res = json_tokener_parse(out);
	if (!res)
		abort();
	/* idempotent: the result merged again is the same text */
	if (mntsnap__sc_merge(out, strlen(out), &o, &out2, &err2) || strcmp(out, out2))
		abort();
	/* --format oci may resolve a Docker profile: gated rules go, by design */
	if (o.format != MNTSNAP__SC_OCI) {
		char *text = strndup((const char *)data, size);

		in = text ? json_tokener_parse(text) : NULL;
		free(text);
		if (!in)
			abort();
		check_kept(in, res, o.enosys);
		json_object_put(in);
	}
	json_object_put(res);
	free(out);
	free(out2);
	free(err2);
	return 0;
}
