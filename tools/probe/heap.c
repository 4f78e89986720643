/* Probe: where glibc's allocator places blocks, and where brk and mmap
 * regions start. argv[1] picks a scenario; every scenario starts in a
 * fresh process. Output goes through write(2) on a stack buffer so that
 * stdio allocates nothing unless the scenario asks for it. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void out(const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n > 0)
    (void)!write(2, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static uintptr_t brk0;

static void *M(size_t n, const char *what) {
  void *p = malloc(n);
  out("%-28s malloc(%zu) = 0x%lx  (brk0+0x%lx) brk=+0x%lx\n", what, n,
      (unsigned long)p, (unsigned long)((uintptr_t)p - brk0),
      (unsigned long)((uintptr_t)sbrk(0) - brk0));
  return p;
}

static void show(const char *what, void *p) {
  out("%-28s = 0x%lx  (brk0+0x%lx) pageoff 0x%03lx brk=+0x%lx\n", what,
      (unsigned long)p, (unsigned long)((uintptr_t)p - brk0),
      (unsigned long)((uintptr_t)p & 0xfff),
      (unsigned long)((uintptr_t)sbrk(0) - brk0));
}

extern char end[], etext[], edata[];

int main(int argc, char **argv) {
  brk0 = (uintptr_t)sbrk(0);
  const char *s = argc > 1 ? argv[1] : "basic";
  out("scenario %s\n", s);
  out("main=0x%lx etext=0x%lx edata=0x%lx end=0x%lx brk0=0x%lx\n",
      (unsigned long)(uintptr_t)main, (unsigned long)(uintptr_t)etext,
      (unsigned long)(uintptr_t)edata, (unsigned long)(uintptr_t)end,
      (unsigned long)brk0);
  if (!strcmp(s, "basic")) {
    M(1, "first");
    M(24, "second");
    M(25, "third (0x30 chunk)");
    M(100, "");
    M(1000, "");
    M(4096, "");
    M(100000, "");
    M(120000, "grows top");
    M(131072, "128K");
    M(200000, "200K");
    M(1 << 20, "1M (mmap)");
    M(1 << 20, "1M (mmap)");
    M(10 << 20, "10M (mmap)");
    M(24, "small after");
  } else if (!strcmp(s, "first128k")) {
    M(131072, "first 128K");
    M(131072, "second 128K");
    M(131072, "third 128K");
  } else if (!strcmp(s, "firstbig")) {
    M(1 << 20, "first 1M");
    M(8 << 20, "8M");
    M(24, "small");
  } else if (!strcmp(s, "memalign")) {
    void *p;
    M(16, "before");
    int r = posix_memalign(&p, 4096, 4096);
    show("posix_memalign(4096,4096)", r ? NULL : p);
    r = posix_memalign(&p, 4096, 100 * 8);
    show("posix_memalign(4096,800)", r ? NULL : p);
    M(16, "after");
    r = posix_memalign(&p, 4096, 200000);
    show("posix_memalign(4096,200000)", r ? NULL : p);
    r = posix_memalign(&p, 4096, 2000000);
    show("posix_memalign(4096,2e6)", r ? NULL : p);
    r = posix_memalign(&p, 64, 1000);
    show("posix_memalign(64,1000)", r ? NULL : p);
    M(16, "after");
  } else if (!strcmp(s, "memalign1")) {
    void *p;
    int r = posix_memalign(&p, 4096, 4096);
    show("first posix_memalign(4096,4096)", r ? NULL : p);
    r = posix_memalign(&p, 4096, 4096);
    show("posix_memalign(4096,4096)", r ? NULL : p);
    M(16, "after");
  } else if (!strcmp(s, "calloc")) {
    show("calloc(10,8)", calloc(10, 8));
    show("calloc(1000,8)", calloc(1000, 8));
    show("calloc(100000,1)", calloc(100000, 1));
    show("calloc(1000000,1)", calloc(1000000, 1));
  } else if (!strcmp(s, "realloc")) {
    char *a = M(100, "a");
    show("realloc(a,200) (top)", a = realloc(a, 200));
    char *b = M(100, "b");
    show("realloc(a,400) (b after)", a = realloc(a, 400));
    show("realloc(b,50) shrink", b = realloc(b, 50));
    char *c = M(100000, "c");
    show("realloc(c,200000) top", c = realloc(c, 200000));
    M(16, "d");
    show("realloc(c,400000)", c = realloc(c, 400000));
    char *e = M(1000000, "e (mmap)");
    show("realloc(e,2000000) mremap", e = realloc(e, 2000000));
  } else if (!strcmp(s, "reuse")) {
    char *a = M(24, "a");
    char *b = M(24, "b");
    free(a);
    M(24, "after free(a) same size");
    free(b);
    M(40, "after free(b), size 40");
    char *c = M(2000, "c 2000");
    M(16, "guard");
    free(c);
    M(2000, "2000 after free(c) tcache");
    char *d[9];
    for (int i = 0; i < 9; i++)
      d[i] = M(200, "d[i] 200");
    M(16, "guard");
    for (int i = 0; i < 9; i++)
      free(d[i]);
    M(200, "200 after 9 frees");
    M(200, "200 again");
    char *e = M(5000, "e 5000 (> tcache max)");
    M(16, "guard");
    free(e);
    M(5000, "5000 after free(e) unsorted");
    char *f = M(5000, "f");
    M(16, "guard");
    free(f);
    M(100, "100 after free(f): split");
  } else if (!strcmp(s, "stdout")) {
    M(16, "before printf");
    printf("x\n");
    fflush(stdout);
    M(16, "after printf");
  } else if (!strcmp(s, "stdin")) {
    M(16, "before scanf");
    int x = 0;
    if (scanf("%d", &x) != 1)
      x = -1;
    M(16, "after scanf");
    printf("%d\n", x);
    fflush(stdout);
    M(16, "after printf");
  }
  out("brk end +0x%lx\n", (unsigned long)((uintptr_t)sbrk(0) - brk0));
  return 0;
}
