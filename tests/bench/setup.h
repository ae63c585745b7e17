/* SPDX-License-Identifier: MIT */
/*
 * Mount setups for bench-mounts, kept apart from the code that includes
 * lib/uapi.h (glibc's <sys/mount.h> defines the same MOUNT_ATTR_* names).
 * Both exit(2) with a message on failure: a half-built setup is useless.
 */
#ifndef MNTSNAP_BENCH_SETUP_H
#define MNTSNAP_BENCH_SETUP_H

/* Private mount namespace with n bind mounts of <base>/src on <base>/m/<i>. */
void bench_setup_plain(const char *base, unsigned n);

/*
 * Same, but <base>/src is a shared mount and the n binds are its peers;
 * then a second namespace in which all of them are slaves of that group
 * (the first one is kept alive by an fd until the process exits).
 */
void bench_setup_peers(const char *base, unsigned n);

/*
 * Private mount namespace with n tmpfs mounts on <base>/m/<i>, each with
 * options and a source name of its own (no two records share options).
 */
void bench_setup_opts(const char *base, unsigned n);

/* One change to the table: mount a small tmpfs on path (on), or unmount it. */
void bench_toggle_mount(const char *path, int on);

/* Print "bench-mounts: what: strerror(errno)" and exit(2). */
void bench_die(const char *what) __attribute__((noreturn));

#endif
