/* the allocator's paths: the first call's set-up, the top, the tcache,
 * the unsorted list, calloc, realloc, an mmapped block, posix_memalign,
 * fastbins (docs/process-model.md section 9) */
#include <stdlib.h>
#include <string.h>

int main(void) {
  void *volatile p[40];
  p[0] = malloc(100);
  p[1] = malloc(100);
  p[2] = malloc(200);
  free(p[1]);
  p[1] = malloc(100);
  p[3] = malloc(5000);
  p[4] = malloc(16);
  free(p[3]);
  p[3] = malloc(5000);
  free(p[4]);
  p[5] = calloc(10, 8);
  p[6] = realloc(p[5], 400);
  p[7] = malloc(300000);
  free(p[7]);
  if (posix_memalign((void **)&p[8], 4096, 1000))
    return 1;
  free(p[8]);
  for (int i = 0; i < 10; i++)
    p[10 + i] = malloc(40);
  for (int i = 0; i < 10; i++)
    free(p[10 + i]);
  for (int i = 0; i < 10; i++)
    p[10 + i] = malloc(40);
  p[30] = malloc(120000);
  p[31] = malloc(120000);
  memset(p[31], 1, 1000);
  free(p[30]);
  return ((char *)p[31])[5] - 1;
}
