// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the mount supervisor's policy file. JSON (json-mini,
 * which keeps positions) -> every key checked -> mntsnap_policy_add, then
 * decisions and the force list applied to fixed requests, so the glob
 * checks, fnmatch, forbid scanning and option merging all see what the
 * fuzzer builds; then the supervisor's decide stage (lib/sv-decide.c)
 * over plain decoded requests of each kind, with the policy built.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mntsnap-supervisor.h"
#include "policy-load.h"
#include "supervisor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The decide stage over one decoded request per kind and type. */
static void decide_stage(const struct mntsnap_policy *p, const char *asked)
{
	static const char *const types[] = { "tmpfs", "proc", "sysfs", "binfmt_misc" };
	static const enum sv_kind kinds[] = { SV_NEW, SV_BIND, SV_REMOUNT, SV_REMOUNT_BIND,
					      SV_PROPAGATION, SV_MOVE };
	static struct sv_req q;

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
			memset(&q, 0, sizeof(q));
			q.kind = kinds[k];
			q.has_fstype = q.has_source = true;
			snprintf(q.fstype, sizeof(q.fstype), "%s", types[t]);
			snprintf(q.mfstype, sizeof(q.mfstype), "%s", types[t]);
			snprintf(q.source, sizeof(q.source), "none");
			snprintf(q.rsource, sizeof(q.rsource), "/data/x");
			snprintf(q.rtarget, sizeof(q.rtarget), "/mnt/a");
			q.asked = (char *)asked;
			if (!mntsnap__sv_decide_early(p, &q) && !mntsnap__sv_decide(&q, p, NULL))
				mntsnap__sv_decide_instance(&q, p, t & 1);
			free(q.applied);
		}
}

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
			decide_stage(p, asked[i]);
		}
	}
	mntsnap_policy_free(p);
	free(msg);
	return 0;
}
