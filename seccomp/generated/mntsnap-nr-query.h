/* SPDX-License-Identifier: MIT */
/*
 * Generated from seccomp/syscalls.csv (set "query"): syscall numbers as the
 * kernel puts them in seccomp_data.nr (MIPS offsets and the x32 bit
 * included), per ABI, with the AUDIT_ARCH value seccomp_data.arch carries.
 * A syscall missing on an ABI has no define.
 */
#ifndef MNTSNAP_SECCOMP_NR_QUERY_H
#define MNTSNAP_SECCOMP_NR_QUERY_H

/* x86_64 */
#define MNTSNAP_SC_AUDIT_ARCH_x86_64 0xc000003eU
#define MNTSNAP_SC_NR_x86_64_statmount 457
#define MNTSNAP_SC_NR_x86_64_listmount 458

/* x32 */
#define MNTSNAP_SC_AUDIT_ARCH_x32 0xc000003eU
#define MNTSNAP_SC_NR_x32_statmount 1073742281
#define MNTSNAP_SC_NR_x32_listmount 1073742282

/* i386 */
#define MNTSNAP_SC_AUDIT_ARCH_i386 0x40000003U
#define MNTSNAP_SC_NR_i386_statmount 457
#define MNTSNAP_SC_NR_i386_listmount 458

/* aarch64 */
#define MNTSNAP_SC_AUDIT_ARCH_aarch64 0xc00000b7U
#define MNTSNAP_SC_NR_aarch64_statmount 457
#define MNTSNAP_SC_NR_aarch64_listmount 458

/* arm */
#define MNTSNAP_SC_AUDIT_ARCH_arm 0x40000028U
#define MNTSNAP_SC_NR_arm_statmount 457
#define MNTSNAP_SC_NR_arm_listmount 458

/* riscv64 */
#define MNTSNAP_SC_AUDIT_ARCH_riscv64 0xc00000f3U
#define MNTSNAP_SC_NR_riscv64_statmount 457
#define MNTSNAP_SC_NR_riscv64_listmount 458

/* riscv32 */
#define MNTSNAP_SC_AUDIT_ARCH_riscv32 0x400000f3U
#define MNTSNAP_SC_NR_riscv32_statmount 457
#define MNTSNAP_SC_NR_riscv32_listmount 458

/* s390x */
#define MNTSNAP_SC_AUDIT_ARCH_s390x 0x80000016U
#define MNTSNAP_SC_NR_s390x_statmount 457
#define MNTSNAP_SC_NR_s390x_listmount 458

/* s390 */
#define MNTSNAP_SC_AUDIT_ARCH_s390 0x00000016U
#define MNTSNAP_SC_NR_s390_statmount 457
#define MNTSNAP_SC_NR_s390_listmount 458

/* ppc64le */
#define MNTSNAP_SC_AUDIT_ARCH_ppc64le 0xc0000015U
#define MNTSNAP_SC_NR_ppc64le_statmount 457
#define MNTSNAP_SC_NR_ppc64le_listmount 458

/* ppc64 */
#define MNTSNAP_SC_AUDIT_ARCH_ppc64 0x80000015U
#define MNTSNAP_SC_NR_ppc64_statmount 457
#define MNTSNAP_SC_NR_ppc64_listmount 458

/* ppc */
#define MNTSNAP_SC_AUDIT_ARCH_ppc 0x00000014U
#define MNTSNAP_SC_NR_ppc_statmount 457
#define MNTSNAP_SC_NR_ppc_listmount 458

/* mips */
#define MNTSNAP_SC_AUDIT_ARCH_mips 0x00000008U
#define MNTSNAP_SC_NR_mips_statmount 4457
#define MNTSNAP_SC_NR_mips_listmount 4458

/* mipsel */
#define MNTSNAP_SC_AUDIT_ARCH_mipsel 0x40000008U
#define MNTSNAP_SC_NR_mipsel_statmount 4457
#define MNTSNAP_SC_NR_mipsel_listmount 4458

/* mips64 */
#define MNTSNAP_SC_AUDIT_ARCH_mips64 0x80000008U
#define MNTSNAP_SC_NR_mips64_statmount 5457
#define MNTSNAP_SC_NR_mips64_listmount 5458

/* mipsel64 */
#define MNTSNAP_SC_AUDIT_ARCH_mipsel64 0xc0000008U
#define MNTSNAP_SC_NR_mipsel64_statmount 5457
#define MNTSNAP_SC_NR_mipsel64_listmount 5458

/* mips64n32 */
#define MNTSNAP_SC_AUDIT_ARCH_mips64n32 0xa0000008U
#define MNTSNAP_SC_NR_mips64n32_statmount 6457
#define MNTSNAP_SC_NR_mips64n32_listmount 6458

/* mipsel64n32 */
#define MNTSNAP_SC_AUDIT_ARCH_mipsel64n32 0xe0000008U
#define MNTSNAP_SC_NR_mipsel64n32_statmount 6457
#define MNTSNAP_SC_NR_mipsel64n32_listmount 6458

/* loongarch64 */
#define MNTSNAP_SC_AUDIT_ARCH_loongarch64 0xc0000102U
#define MNTSNAP_SC_NR_loongarch64_statmount 457
#define MNTSNAP_SC_NR_loongarch64_listmount 458

/* parisc */
#define MNTSNAP_SC_AUDIT_ARCH_parisc 0x0000000fU
#define MNTSNAP_SC_NR_parisc_statmount 457
#define MNTSNAP_SC_NR_parisc_listmount 458

/* parisc64 */
#define MNTSNAP_SC_AUDIT_ARCH_parisc64 0x8000000fU
#define MNTSNAP_SC_NR_parisc64_statmount 457
#define MNTSNAP_SC_NR_parisc64_listmount 458

/* sparc */
#define MNTSNAP_SC_AUDIT_ARCH_sparc 0x00000002U
#define MNTSNAP_SC_NR_sparc_statmount 457
#define MNTSNAP_SC_NR_sparc_listmount 458

/* sparc64 */
#define MNTSNAP_SC_AUDIT_ARCH_sparc64 0x8000002bU
#define MNTSNAP_SC_NR_sparc64_statmount 457
#define MNTSNAP_SC_NR_sparc64_listmount 458

/* alpha */
#define MNTSNAP_SC_AUDIT_ARCH_alpha 0xc0009026U
#define MNTSNAP_SC_NR_alpha_statmount 567
#define MNTSNAP_SC_NR_alpha_listmount 568

/* m68k */
#define MNTSNAP_SC_AUDIT_ARCH_m68k 0x00000004U
#define MNTSNAP_SC_NR_m68k_statmount 457
#define MNTSNAP_SC_NR_m68k_listmount 458

/* sh */
#define MNTSNAP_SC_AUDIT_ARCH_sh 0x4000002aU
#define MNTSNAP_SC_NR_sh_statmount 457
#define MNTSNAP_SC_NR_sh_listmount 458

/* sheb */
#define MNTSNAP_SC_AUDIT_ARCH_sheb 0x0000002aU
#define MNTSNAP_SC_NR_sheb_statmount 457
#define MNTSNAP_SC_NR_sheb_listmount 458

/* microblaze */
#define MNTSNAP_SC_AUDIT_ARCH_microblaze 0x000000bdU
#define MNTSNAP_SC_NR_microblaze_statmount 457
#define MNTSNAP_SC_NR_microblaze_listmount 458

/* xtensa */
#define MNTSNAP_SC_AUDIT_ARCH_xtensa 0x0000005eU
#define MNTSNAP_SC_NR_xtensa_statmount 457
#define MNTSNAP_SC_NR_xtensa_listmount 458

#endif
