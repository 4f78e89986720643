/* cbana-glibc-probe: prints the thresholds glibc's string functions
 * compare sizes with, as this process's libc computed them at start-up
 * from the CPU it was shown. Run under valgrind (glibc_tunables.c), it
 * tells what the analysed program's memcpy and memset will do there:
 * valgrind presents its own CPUID, and glibc 2.36 derives the `rep
 * movsb` threshold (sysdeps/x86/dl-cacheinfo.h: 4096 * VEC_SIZE / 16 on
 * AVX machines, 2112 with FSRM) and the non-temporal one (from the
 * shared cache's size) from it, so they differ between hosts: 4096 and
 * about 3 MiB on the Intel machines of docs/process-model.md, 8192 and 2
 * MiB on an AMD EPYC.
 *
 * The variables are hidden symbols of libc.so.6; their offsets are those
 * of Debian 12's glibc 2.36, which proc_traffic.c models (its reads
 * of them are part of the traffic). Any other libc prints nothing. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#define OFF_STOSB 0x1d33d0      /* __x86_rep_stosb_threshold */
#define OFF_MOVSB 0x1d33d8      /* __x86_rep_movsb_threshold */
#define OFF_MOVSB_STOP 0x1da548 /* __x86_rep_movsb_stop_threshold */
#define OFF_NT 0x1da550         /* __x86_shared_non_temporal_threshold */

int main(void) {
  if (strcmp(gnu_get_libc_version(), "2.36") != 0)
    return 1;
  void *h = dlopen("libc.so.6", RTLD_NOLOAD | RTLD_NOW);
  struct link_map *lm = NULL;
  if (!h || dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || !lm)
    return 1;
  const unsigned char *base = (const unsigned char *)lm->l_addr;
  long v[4];
  memcpy(&v[0], base + OFF_STOSB, sizeof v[0]);
  memcpy(&v[1], base + OFF_MOVSB, sizeof v[1]);
  memcpy(&v[2], base + OFF_MOVSB_STOP, sizeof v[2]);
  memcpy(&v[3], base + OFF_NT, sizeof v[3]);
  printf("stosb %ld movsb %ld movsb_stop %ld nt %ld\n", v[0], v[1], v[2], v[3]);
  return 0;
}
