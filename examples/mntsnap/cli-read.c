// SPDX-License-Identifier: MIT
/*
 * cli_read_fd() (cli.h), alone in its file: the fstab reader uses it, and
 * the fuzz target that links that reader needs none of the rest of the
 * CLI's shared code.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"

int cli_read_fd(int fd, size_t max, char **ret, size_t *ret_len)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;

	for (;;) {
		ssize_t n;

		/* room for a read of a page or more, and the NUL */
		if (cap - len < 4096) {
			char *p = realloc(buf, cap ? cap * 2 : 8192);

			if (!p) {
				free(buf);
				return -ENOMEM;
			}
			buf = p;
			cap = cap ? cap * 2 : 8192;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (!n)
			break;
		if (n < 0 || (len += (size_t)n) > max) {
			int r = n < 0 ? -errno : -EFBIG;

			free(buf);
			return r;
		}
	}
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	return 0;
}
