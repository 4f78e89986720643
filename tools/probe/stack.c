/* Probe: the initial process stack as the program sees it at main's entry.
 * Prints the stack pointer at main's entry (the address of main's return
 * address slot), argc's slot, argv/envp/auxv and the strings they point to.
 * Prints through write(2) on a stack buffer so that it allocates nothing. */
#include <elf.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void out(const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n > 0)
    (void)!write(1, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static const char *auxname(unsigned long t) {
  switch (t) {
  case AT_IGNORE:
    return "AT_IGNORE";
  case AT_PHDR:
    return "AT_PHDR";
  case AT_PHENT:
    return "AT_PHENT";
  case AT_PHNUM:
    return "AT_PHNUM";
  case AT_PAGESZ:
    return "AT_PAGESZ";
  case AT_BASE:
    return "AT_BASE";
  case AT_FLAGS:
    return "AT_FLAGS";
  case AT_ENTRY:
    return "AT_ENTRY";
  case AT_UID:
    return "AT_UID";
  case AT_EUID:
    return "AT_EUID";
  case AT_GID:
    return "AT_GID";
  case AT_EGID:
    return "AT_EGID";
  case AT_PLATFORM:
    return "AT_PLATFORM";
  case AT_HWCAP:
    return "AT_HWCAP";
  case AT_CLKTCK:
    return "AT_CLKTCK";
  case AT_SECURE:
    return "AT_SECURE";
  case AT_BASE_PLATFORM:
    return "AT_BASE_PLATFORM";
  case AT_RANDOM:
    return "AT_RANDOM";
  case AT_HWCAP2:
    return "AT_HWCAP2";
  case AT_EXECFN:
    return "AT_EXECFN";
  case AT_SYSINFO_EHDR:
    return "AT_SYSINFO_EHDR";
  case 51:
    return "AT_MINSIGSTKSZ";
  default:
    return "?";
  }
}

__attribute__((noinline)) static void report(uintptr_t entry_sp, int argc,
                                             char **argv, char **envp) {
  long *argc_slot = (long *)argv - 1;
  out("main_entry_sp 0x%lx\n", (unsigned long)entry_sp);
  out("argc_slot 0x%lx argc %ld\n", (unsigned long)argc_slot, *argc_slot);
  for (int i = 0; i < argc; i++)
    out("argv[%d] 0x%lx len %zu \"%s\"\n", i, (unsigned long)argv[i],
        strlen(argv[i]), argv[i]);
  int envc = 0;
  char **e = envp;
  for (; *e; e++, envc++)
    out("envp[%d] 0x%lx len %zu \"%s\"\n", envc, (unsigned long)*e, strlen(*e),
        *e);
  unsigned long *aux = (unsigned long *)(e + 1);
  out("auxv 0x%lx\n", (unsigned long)aux);
  int n = 0;
  for (; aux[0] != AT_NULL; aux += 2, n++) {
    if (aux[0] == AT_EXECFN || aux[0] == AT_PLATFORM ||
        aux[0] == AT_BASE_PLATFORM)
      out("aux %-16s 0x%lx \"%s\"\n", auxname(aux[0]), aux[1],
          (const char *)aux[1]);
    else
      out("aux %-16s 0x%lx\n", auxname(aux[0]), aux[1]);
  }
  out("auxv_entries %d (plus AT_NULL)\n", n);
}

int main(int argc, char **argv, char **envp) {
  /* With a frame pointer: rbp = entry_sp - 8. */
  uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
  report(fp + 8, argc, argv, envp);
  return 0;
}
