// SPDX-License-Identifier: MIT
/*
 * The supervisor's decode and decide stages on plain structs: no
 * notification, no caller, no namespace, no syscall. A struct sv_req is
 * filled the way the read stage and the perform stage's resolution
 * would, and the stages' answers are checked field by field.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor.h"
#include "uapi.h"

static struct sv_req *req(const char *fstype, const char *source, const char *target)
{
	struct sv_req *q = calloc(1, sizeof(*q));

	cr_assert(q);
	q->rule = -2;
	if (fstype) {
		q->has_fstype = true;
		snprintf(q->fstype, sizeof(q->fstype), "%s", fstype);
	}
	if (source) {
		q->has_source = true;
		snprintf(q->source, sizeof(q->source), "%s", source);
	}
	snprintf(q->target, sizeof(q->target), "%s", target);
	return q;
}

static void req_free(struct sv_req *q)
{
	free(q->asked);
	free(q->applied);
	free(q);
}

/* A decoded mount(2) request, its paths resolved to themselves. */
static struct sv_req *decoded(const char *fstype, const char *source, const char *target,
			      uint64_t flags, const char *data)
{
	struct sv_req *q = req(fstype, source, target);

	if (data) {
		q->has_data = true;
		snprintf(q->data, sizeof(q->data), "%s", data);
	}
	cr_assert_eq(mntsnap__sv_decode_mount(q, flags), 0);
	q->asked = mntsnap__sv_decode_asked(q);
	cr_assert(q->asked);
	snprintf(q->rtarget, sizeof(q->rtarget), "%s", target);
	if (source)
		snprintf(q->rsource, sizeof(q->rsource), "%s", source);
	return q;
}

static struct mntsnap_policy *policy(bool default_allow, const struct mntsnap_policy_rule *rules,
				     size_t n)
{
	struct mntsnap_policy *p = NULL;

	cr_assert_eq(mntsnap_policy_new(default_allow, 0, &p), 0);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(mntsnap_policy_add(p, &rules[i], NULL), 0);
	return p;
}

Test(decode, kinds_in_mount2s_order)
{
	struct sv_req q = { 0 };

	cr_expect_eq(mntsnap__sv_decode_mount(&q, MNTSNAP_K_MS_BIND | MNTSNAP_K_MS_REC), 0);
	cr_expect_eq(q.kind, SV_BIND);
	cr_expect(q.rec);
	cr_expect_eq(mntsnap__sv_decode_mount(&q, MNTSNAP_K_MS_REMOUNT | MNTSNAP_K_MS_BIND |
						      MNTSNAP_MS_RDONLY), 0);
	cr_expect_eq(q.kind, SV_REMOUNT_BIND);
	cr_expect_eq(q.ms, MNTSNAP_MS_RDONLY);
	/* MS_MOVE ignores every other flag, as mount(2) does */
	cr_expect_eq(mntsnap__sv_decode_mount(&q, MNTSNAP_K_MS_MOVE | (1U << 30)), 0);
	cr_expect_eq(q.kind, SV_MOVE);
	cr_expect_eq(mntsnap__sv_decode_mount(&q, MNTSNAP_K_MS_MGC_VAL | MNTSNAP_K_MS_NOSUID), 0);
	cr_expect_eq(q.kind, SV_NEW);
	cr_expect_eq(q.ms, MNTSNAP_K_MS_NOSUID);
}

Test(decode, refusals)
{
	struct sv_req q = { 0 };

	cr_expect_eq(mntsnap__sv_decode_mount(&q, 1ULL << 32), -EINVAL);
	cr_expect_eq(mntsnap__sv_decode_mount(&q, MNTSNAP_MS_SHARED | MNTSNAP_MS_PRIVATE), -EINVAL);
	cr_expect_eq(mntsnap__sv_decode_mount(&q, 1U << 30), -EOPNOTSUPP);
	cr_expect_eq(mntsnap__sv_decode_umount(&q, 2 /* MNT_DETACH */), 0);
	cr_expect_eq(q.kind, SV_UMOUNT);
	cr_expect_eq(mntsnap__sv_decode_umount(&q, 1 /* MNT_FORCE */), -EOPNOTSUPP);
	cr_expect_eq(mntsnap__sv_decode_umount(&q, 0x100), -EINVAL);
	cr_expect_eq(mntsnap__sv_decode_umount(&q, 1ULL << 32), -EINVAL);
}

Test(decode, asked_options)
{
	struct sv_req *q = decoded(NULL, NULL, "/mnt", MNTSNAP_MS_PRIVATE | MNTSNAP_K_MS_REC, NULL);

	cr_expect_eq(q->kind, SV_PROPAGATION);
	cr_expect_str_eq(q->asked, "private,rec");
	req_free(q);
	q = decoded("tmpfs", "none", "/mnt", MNTSNAP_MS_RDONLY | MNTSNAP_K_MS_NOSUID, "size=1m");
	cr_expect(strstr(q->asked, "ro") && strstr(q->asked, "nosuid") &&
		  strstr(q->asked, "size=1m"), "asked: %s", q->asked);
	req_free(q);
}

Test(decide, early_refuses_a_type_no_rule_allows)
{
	static const struct mntsnap_policy_rule r = { .sz = sizeof(r), .fstype = "tmpfs" };
	struct mntsnap_policy *p = policy(false, &r, 1);
	struct sv_req *q = decoded("ext4", "/dev/sda", "/mnt", 0, NULL);

	cr_expect_eq(mntsnap__sv_decide_early(p, q), -EPERM);
	cr_expect_str_eq(q->reason, "policy");
	cr_expect_eq(q->rule, -1);
	req_free(q);
	q = decoded("tmpfs", "none", "/mnt", 0, NULL);
	cr_expect_eq(mntsnap__sv_decide_early(p, q), 0);
	cr_expect_null(q->reason);
	req_free(q);
	/* a remount's type is the mount's own, known only once resolved */
	q = decoded("ext4", NULL, "/mnt", MNTSNAP_K_MS_REMOUNT, NULL);
	cr_expect_eq(mntsnap__sv_decide_early(p, q), 0);
	req_free(q);
	mntsnap_policy_free(p);
}

Test(decide, force_and_type_defaults)
{
	static const char *const force[] = { "nosuid", NULL };
	static const struct mntsnap_policy_rule r[] = {
		{ .sz = sizeof(r[0]), .fstype = "tmpfs", .force = force },
		{ .sz = sizeof(r[0]), .fstype = "proc", .target = "/full" ,
		  .grant = MNTSNAP_POLICY_GRANT_FULL_PROC },
		{ .sz = sizeof(r[0]), .fstype = "proc" },
		{ .sz = sizeof(r[0]), .fstype = "sysfs" },
	};
	struct mntsnap_policy *p = policy(false, r, 4);
	struct sv_req *q = decoded("tmpfs", "none", "/mnt", 0, "size=1m");

	cr_expect_eq(mntsnap__sv_decide(q, p, NULL), 0);
	cr_expect_eq(q->rule, 0);
	cr_expect(strstr(q->applied, "nosuid"), "applied: %s", q->applied);
	req_free(q);
	q = decoded("proc", "proc", "/proc", 0, NULL);
	cr_expect_eq(mntsnap__sv_decide(q, p, NULL), 0);
	cr_expect_eq(q->rule, 2);
	cr_expect(strstr(q->applied, "subset=pid"), "applied: %s", q->applied);
	cr_expect_str_eq(q->grant, "");
	req_free(q);
	q = decoded("proc", "proc", "/full", 0, NULL);
	cr_expect_eq(mntsnap__sv_decide(q, p, NULL), 0);
	cr_expect_eq(q->rule, 1);
	cr_expect_null(strstr(q->applied, "subset"), "applied: %s", q->applied);
	cr_expect_str_eq(q->grant, "full-proc");
	req_free(q);
	q = decoded("sysfs", "sysfs", "/sys", 0, NULL);
	cr_expect_eq(mntsnap__sv_decide(q, p, NULL), 0);
	cr_expect(strstr(q->applied, "ro"), "applied: %s", q->applied);
	req_free(q);
	mntsnap_policy_free(p);
}

Test(decide, binds_and_moves_go_by_the_resolved_source)
{
	static const struct mntsnap_policy_rule r = { .sz = sizeof(r), .fstype = "bind",
						      .source = "/data/*" };
	struct mntsnap_policy *p = policy(false, &r, 1);
	struct sv_req *q = decoded(NULL, "/link", "/mnt", MNTSNAP_K_MS_BIND, NULL);

	/* asked "/link", resolved inside the root to /data/x */
	snprintf(q->rsource, sizeof(q->rsource), "/data/x");
	cr_expect_eq(mntsnap__sv_decide(q, p, NULL), 0);
	cr_expect_eq(q->rule, 0);
	req_free(q);
	q = decoded(NULL, "/data/x", "/mnt", MNTSNAP_K_MS_BIND, NULL);
	snprintf(q->rsource, sizeof(q->rsource), "/etc");
	cr_expect_eq(mntsnap__sv_decide(q, p, NULL), -EPERM);
	cr_expect_str_eq(q->reason, "policy");
	req_free(q);
	/* a moved bind goes by the source it was made from (src), as a bind */
	q = decoded(NULL, "/mnt", "/other", MNTSNAP_K_MS_MOVE, NULL);
	snprintf(q->mfstype, sizeof(q->mfstype), "bind");
	cr_expect_eq(mntsnap__sv_decide(q, p, "/data/y"), 0);
	cr_expect_str_eq(q->applied, q->asked);
	req_free(q);
	mntsnap_policy_free(p);
}

Test(decide, forbid_refuses_with_the_rules_errno)
{
	static const char *const forbid[] = { "uid", NULL };
	static const struct mntsnap_policy_rule r = { .sz = sizeof(r), .fstype = "tmpfs",
						      .forbid = forbid, .err = EACCES };
	struct mntsnap_policy *p = policy(true, &r, 1);
	struct sv_req *q = decoded("tmpfs", "none", "/mnt", 0, "uid=0");

	cr_expect_eq(mntsnap__sv_decide(q, p, NULL), -EACCES);
	cr_expect_null(q->applied);
	req_free(q);
	mntsnap_policy_free(p);
}

Test(decide, binfmt_misc_never_the_hosts_instance)
{
	static const struct mntsnap_policy_rule r[] = {
		{ .sz = sizeof(r[0]), .fstype = "binfmt_misc", .target = "/host",
		  .grant = MNTSNAP_POLICY_GRANT_HOST_CREDENTIALS },
		{ .sz = sizeof(r[0]), .fstype = "binfmt_misc" },
	};
	struct mntsnap_policy *p = policy(false, r, 2);
	struct sv_req *q = decoded("binfmt_misc", "none", "/b", 0, NULL);

	cr_expect_eq(mntsnap__sv_decide(q, p, NULL), 0);
	cr_expect_eq(mntsnap__sv_decide_instance(q, p, true), 0);
	cr_expect_eq(mntsnap__sv_decide_instance(q, p, false), -EPERM);
	cr_expect_str_eq(q->reason, "host's instance");
	req_free(q);
	q = decoded("binfmt_misc", "none", "/host", 0, NULL);
	cr_expect_eq(mntsnap__sv_decide(q, p, NULL), 0);
	cr_expect_eq(mntsnap__sv_decide_instance(q, p, true), -EPERM);
	cr_expect_str_eq(q->grant, "host-credentials");
	req_free(q);
	mntsnap_policy_free(p);
}
