// SPDX-License-Identifier: MIT
/*
 * Prints what a consumer sees: the version the linked library reports
 * (mntsnap_version(), through the public library, so the symbol must be
 * exported) and the one the header it was compiled with says.
 */
#include <stdio.h>

#include <mntsnap.h>

int main(void)
{
	printf("library %s\nheader %d.%d.%d\n", mntsnap_version(), MNTSNAP_VERSION_MAJOR,
	       MNTSNAP_VERSION_MINOR, MNTSNAP_VERSION_PATCH);
	return 0;
}
