/* A tour of libmntsnap: capture, lookup, diff, another namespace, watch.
 * Build: cc tour.c $(pkg-config --cflags --libs mntsnap) -o tour
 * Run:   ./tour [PATH [PID]]    (PATH: a path to look up, PID: a process
 *        in another mount namespace; both have defaults) */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <mntsnap.h>

static int fail(const char *what, int err)
{
	fprintf(stderr, "%s: %s\n", what, mntsnap_strerror(err));
	return 1;
}

/* The mount a path is on, what it is stacked on, its parents. */
static void lookup(const struct mntsnap_snapshot *snap, const char *path)
{
	struct mntsnap_mount m;
	long i = mntsnap_snapshot_find_path(snap, path), j;

	if (i < 0 || mntsnap_snapshot_get(snap, (size_t)i, &m))
		return;
	printf("%s is on %s (%s from %s)\n", path, m.mount_point, m.fs_type, m.source);
	for (j = mntsnap_snapshot_stacked_on(snap, (size_t)i); j >= 0;
	     j = mntsnap_snapshot_stacked_on(snap, (size_t)j))
		printf("  stacked on record %ld\n", j);
	for (j = mntsnap_snapshot_parent(snap, (size_t)i); j >= 0;
	     j = mntsnap_snapshot_parent(snap, (size_t)j))
		if (!mntsnap_snapshot_get(snap, (size_t)j, &m))
			printf("  below %s\n", m.mount_point);
	/* the mounts right below "/", in findmnt's order */
	i = mntsnap_snapshot_find_mount_point(snap, "/");
	for (j = i >= 0 ? mntsnap_snapshot_first_child(snap, (size_t)i) : -1; j >= 0;
	     j = mntsnap_snapshot_next_sibling(snap, (size_t)j))
		if (!mntsnap_snapshot_get(snap, (size_t)j, &m))
			printf("  / has %s\n", m.mount_point);
}

/* Mount events as they come: at most rounds waits of 200 ms. */
static int watch(int rounds)
{
	MNTSNAP_OPTS(mntsnap_watch_opts, opts, .mask = MNTSNAP_MASK_DEFAULT);
	struct mntsnap_watch *w = NULL;
	struct mntsnap_watch_event ev;
	int r = mntsnap_watch_new(&opts, &w);

	if (r)
		return fail("watch", r);
	while (rounds-- > 0) {
		struct pollfd pfd = { .fd = mntsnap_watch_fd(w), .events = POLLIN };

		if (poll(&pfd, 1, 200) <= 0)
			continue;
		r = mntsnap_watch_drain(w);
		if (r < 0)
			break;
		while (mntsnap_watch_next(w, &ev) == 0)
			printf("%s %s\n", mntsnap_watch_kind_name(ev.kind),
			       ev.kind == MNTSNAP_WATCH_UMOUNT ? ev.old.mount_point : ev.mount.mount_point);
	}
	mntsnap_watch_free(w);
	return r < 0 ? fail("watch", r) : 0;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/proc/self";
	int pid = argc > 2 ? atoi(argv[2]) : 1;
	MNTSNAP_OPTS(mntsnap_capture_opts, opts, .mask = MNTSNAP_MASK_DEFAULT);
	struct mntsnap_snapshot *snap = NULL, *later = NULL, *theirs = NULL;
	struct mntsnap_diff *diff = NULL;
	struct mntsnap_ns *ns = NULL;
	int r;

	/* capture: the caller's mount namespace (statmount, else mountinfo) */
	r = mntsnap_capture(&opts, &snap);
	if (r)
		return fail("capture", r);
	printf("%zu mounts, read by %s\n", mntsnap_snapshot_count(snap),
	       mntsnap_backend_name(mntsnap_snapshot_backend(snap)));
	mntsnap_render(snap, MNTSNAP_FORMAT_TREE, stdout);

	/* lookup: no file system access, the snapshot's text alone */
	lookup(snap, path);

	/* diff: what changed since */
	r = mntsnap_capture(&opts, &later);
	if (!r)
		r = mntsnap_diff(snap, later, &diff);
	if (!r)
		r = mntsnap_diff_render(diff, MNTSNAP_DIFF_FORMAT_TEXT, stdout);
	if (r)
		fail("diff", r);

	/* another mount namespace: the one process pid is in */
	r = mntsnap_ns_open_pid(pid, &ns);
	if (!r) {
		opts.ns = ns;
		r = mntsnap_capture(&opts, &theirs);
		opts.ns = NULL;
	}
	if (r)
		fail("the namespace of that process", r);
	else
		printf("pid %d sees %zu mounts\n", pid, mntsnap_snapshot_count(theirs));

	r = watch(3);
	mntsnap_snapshot_free(theirs);
	mntsnap_ns_free(ns);
	mntsnap_diff_free(diff);
	mntsnap_snapshot_free(later);
	mntsnap_snapshot_free(snap);
	return r;
}
