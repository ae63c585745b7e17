// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the mount supervisor's policy file. JSON (json-mini,
 * which keeps positions) -> every key checked -> mntsnap_policy_add, then
 * decisions and the force list applied to fixed requests, so the glob
 * checks, fnmatch, forbid scanning and option merging all see what the
 * fuzzer builds.
 */
#include <stdint.h>
#include <stdlib.h>

#include "mntsnap-supervisor.h"
#include "policy-load.h"
#include "supervisor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const asked[] = { "", "uid=0,size=1m", "ro,nosuid,exec,noatime",
					     "gid,mode=1777,strictatime" };
	struct mntsnap_policy *p = NULL;
	char *msg = NULL;
	int rule;

	if (!policy_load_text("fuzz", (const char *)data, size, &p, &msg)) {
		for (size_t i = 0; i < sizeof(asked) / sizeof(asked[0]); i++) {
			char *applied;

			mntsnap_policy_check(p, "tmpfs", "none", "/mnt/a", asked[i], &rule);
			mntsnap_policy_check(p, "bind", "/data/x", "/mnt/[a]/b", asked[i], &rule);
			applied = mntsnap__policy_apply(p, rule, asked[i]);
			free(applied);
		}
	}
	mntsnap_policy_free(p);
	free(msg);
	return 0;
}
