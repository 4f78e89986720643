/* Output to and input from /dev/null, as benchmarks that discard their
 * output do (the path from argv[1]): a stream opened for writing takes
 * formatted text, fwrite's blocks and single bytes (glibc buffers it in
 * 4096 bytes, the null device's st_blksize, and isatty's failure leaves
 * errno as it was); one opened for reading is at its end at once; the
 * descriptor calls read nothing, write everything, seek to 0; fstat shows
 * the character device 1:3. A work array is summed between the writes so
 * that the library's traffic shares the cache with the program's (8 KiB:
 * the streams' own traffic is not modelled, docs/process-model.md 9.4). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static double work[1024];

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "/dev/null";
  int lines = argc > 2 ? atoi(argv[2]) : 100;
  FILE *out = fopen(path, "wb");
  if (!out) {
    perror(path);
    return 1;
  }
  errno = 0;
  double sum = 0;
  unsigned char block[300];
  memset(block, 'x', sizeof block);
  for (int i = 0; i < lines; i++) {
    for (int k = 0; k < 1024; k += 8)
      work[(k + i) & 1023] += k * 0.5;
    sum += work[i & 1023];
    fprintf(out, "line %d: %d\n", i, (int)sum);
    fwrite(block, 1, (size_t)(i % 300), out);
    fputc('\n', out);
  }
  printf("errno after the first output: %d\n", errno);
  printf("ftell: %ld\n", ftell(out));
  printf("fclose: %d\n", fclose(out));

  FILE *in = fopen(path, "rb");
  int c = fgetc(in);
  size_t got = fread(block, 1, sizeof block, in);
  printf("fgetc %d, fread %zu, feof %d\n", c, got, feof(in) != 0);
  fclose(in);

  int fd = open(path, O_RDWR);
  printf("write: %zd\n", write(fd, block, sizeof block));
  printf("read: %zd\n", read(fd, block, sizeof block));
  printf("lseek: %ld %ld\n", (long)lseek(fd, 100, SEEK_SET),
         (long)lseek(fd, 0, SEEK_END));
  struct stat st;
  if (fstat(fd, &st) == 0)
    printf("fstat: chr %d, size %ld, blksize %ld, rdev %u:%u\n",
           S_ISCHR(st.st_mode) != 0, (long)st.st_size, (long)st.st_blksize,
           major(st.st_rdev), minor(st.st_rdev));
  close(fd);
  printf("sum %.3f\n", sum);
  return 0;
}
