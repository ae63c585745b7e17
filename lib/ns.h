/* SPDX-License-Identifier: MIT */
/* Namespace handle internals (lib/ns.c owns them; backends read them). */
#ifndef MNTSNAP_NS_INTERNAL_H
#define MNTSNAP_NS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "uapi.h"

struct mntsnap_ns {
	int nsfd;        /* nsfs fd of the mount namespace, -1 for "own" */
	int pidfd;       /* process the handle came from, -1 if none */
	uint64_t ns_id;  /* 64-bit mount namespace id, 0 if unknown */
	bool self;       /* the caller's own namespace */
};

/*
 * Point a listmount/statmount request at ns. Prefers mnt_ns_fd (6.18+,
 * holding the fd is the permission) when use_fd, else mnt_ns_id (6.11+,
 * needs CAP_SYS_ADMIN over the owning user namespace). Always sends the
 * smallest request size that carries what is needed.
 */
static inline void mntsnap_ns_fill_req(const struct mntsnap_ns *ns, bool use_fd,
				       struct mnt_id_req *req)
{
	req->size = MNT_ID_REQ_SIZE_VER0;
	if (!ns || ns->self)
		return;
	if (use_fd && ns->nsfd >= 0) {
		req->mnt_ns_fd = (uint32_t)ns->nsfd;
	} else if (ns->ns_id) {
		req->size = MNT_ID_REQ_SIZE_VER1;
		req->mnt_ns_id = ns->ns_id;
	}
}

#endif
