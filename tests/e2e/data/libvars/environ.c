/* environ, libc's variable, walked as MallocBench/gawk's main.c does:
 * it holds envp from the start. Under `env -i valgrind` the process has
 * valgrind's environment strings (docs/process-model.md 2). */
#include <stdio.h>
#include <string.h>

extern char **environ;

int main(void) {
  size_t n = 0, bytes = 0, eq = 0;
  for (int i = 0; environ[i]; i++) {
    const char *s = environ[i];
    n++;
    bytes += strlen(s);
    eq += strchr(s, '=') != NULL;
  }
  printf("%zu strings, %zu bytes, %zu with '='\n", n, bytes, eq);
  return 0;
}
