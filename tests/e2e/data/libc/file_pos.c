/* fgetpos and fsetpos on a file the program writes and reads back, as
 * SimpleMOC reads its input twice: a first pass counts the records from
 * a checkpoint, fsetpos goes back to it and a second pass sums them;
 * then fgetpos in the middle of a buffered read and after writes.
 * argv[1]: records. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100;
  FILE *f = fopen("file_pos.tmp", "w+");
  if (!f) {
    perror("file_pos.tmp");
    return 1;
  }
  fprintf(f, "header line\n");
  fpos_t start, mid, end;
  printf("fgetpos after the header: %d\n", fgetpos(f, &start));
  for (int i = 0; i < n; i++)
    fprintf(f, "%d %d\n", i, i * i % 1000);
  fgetpos(f, &end);
  printf("fsetpos to the header's end: %d\n", fsetpos(f, &start));
  long count = 0, sum = 0;
  int x, y;
  while (fscanf(f, "%d %d", &x, &y) == 2) {
    count++;
    if (count == n / 2)
      fgetpos(f, &mid);
  }
  printf("first pass: %ld records, eof %d\n", count, feof(f) != 0);
  printf("fsetpos to the middle: %d, eof %d\n", fsetpos(f, &mid), feof(f) != 0);
  while (fscanf(f, "%d %d", &x, &y) == 2)
    sum += y;
  printf("second half sum %ld\n", sum);
  fsetpos(f, &end);
  fprintf(f, "trailer\n");
  fpos_t after;
  fgetpos(f, &after);
  printf("ftell at the trailer's end %ld\n", ftell(f));
  fclose(f);
  remove("file_pos.tmp");
  return 0;
}
