// SPDX-License-Identifier: MIT
/* Consumer in ISO C11: the library's mountinfo rendering of the caller's
 * namespace must equal the kernel's /proc/self/mountinfo byte for byte. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mntsnap.h>

static char *slurp(FILE *f, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);

	while (buf) {
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		cap *= 2;
		buf = realloc(buf, cap);
	}
	*len = n;
	return buf;
}

int main(void)
{
	MNTSNAP_OPTS(mntsnap_capture_opts, opts, .mask = MNTSNAP_MASK_DEFAULT);
	struct mntsnap_snapshot *snap;
	size_t klen, mlen;
	char *kernel, *ours;
	FILE *f, *tmp;
	int r;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return 2;
	kernel = slurp(f, &klen);
	fclose(f);
	r = mntsnap_capture(&opts, &snap);
	if (r < 0) {
		fprintf(stderr, "mntsnap_capture: %s\n", mntsnap_strerror(r));
		return 1;
	}
	tmp = tmpfile();
	if (!tmp || mntsnap_render(snap, MNTSNAP_FORMAT_MOUNTINFO, tmp))
		return 1;
	rewind(tmp);
	ours = slurp(tmp, &mlen);
	fclose(tmp);
	printf("%zu mounts (%s), %zu bytes; kernel %zu bytes\n", mntsnap_snapshot_count(snap),
	       mntsnap_backend_name(mntsnap_snapshot_backend(snap)), mlen, klen);
	mntsnap_snapshot_free(snap);
	r = !kernel || !ours || klen != mlen || memcmp(kernel, ours, klen);
	free(kernel);
	free(ours);
	return r;
}
