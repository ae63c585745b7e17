#!/bin/sh
# SPDX-License-Identifier: MIT
# build-static.sh CC OUT SRCDIR PRIVDIR SOURCES...
# The statically linked mntsnap CLI (musl): core library + CLI only, libc
# only, no json-c (so no `seccomp --merge`), no libseccomp, no libcap. This
# is the binary that goes into container images (the crun test's rootfs).
set -eu
cc=$1 out=$2 src=$3 priv=$4
shift 4
mkdir -p "$priv"
# The optional modules are off in this build, whatever the host has.
printf '#pragma once\n#define MNTSNAP_HAVE_LIBSECCOMP 0\n#define MNTSNAP_HAVE_LIBCAP 0\n' \
	>"$priv/mntsnap-config.h"
srcs=
for f in "$@"; do
	case "$f" in
	*/lib/seccomp.c) ;; # needs libseccomp
	*) srcs="$srcs $f" ;;
	esac
done
# shellcheck disable=SC2086
exec "$cc" -static -O2 -std=gnu11 -D_GNU_SOURCE -Wno-comment \
	-I"$priv" -I"$src/include" -I"$src/lib" -I"$src/seccomp/generated" \
	-o "$out" $srcs -lpthread
