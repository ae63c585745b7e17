/* SPDX-License-Identifier: MIT */
/*
 * The order libmount reads a directory of fstabs in (scandir with
 * versionsort: glibc's strverscmp), as the CLI's own function, because
 * musl's strverscmp orders otherwise ("1.fstab" after "a.fstab") and the
 * static musl CLI must read such a directory as findmnt does.
 */
#ifndef MNTSNAP_VERSCMP_H
#define MNTSNAP_VERSCMP_H

/*
 * <0, 0 or >0 as glibc's strverscmp(a, b): bytes compare as strcmp()
 * does, but a run of digits as a number ("9" < "10"), and a run with
 * leading zeros as a fraction, before the numbers ("09" < "0" < "1").
 */
int cli_verscmp(const char *a, const char *b);

#endif
