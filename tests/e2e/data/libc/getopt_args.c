/* getopt over the command line, GNU's way: options with a required and
 * an optional argument, grouped flags, "--", unknown options and a
 * missing argument (messages on stderr), and the permutation that moves
 * the non-options behind the options (argv printed after, argv[0],
 * the path, left out); optind,
 * opterr and optopt start at libc's values. */
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
  int c, flags = 0;
  printf("optind %d, opterr %d, optopt %d\n", optind, opterr, optopt);
  while ((c = getopt(argc, argv, "ab:c::x")) != -1) {
    flags++;
    printf("'%c' optind %d optarg %s optopt %d\n", c, optind,
           optarg ? optarg : "(none)", optopt);
  }
  for (int i = 1; i < argc; i++)
    printf("argv[%d] %s\n", i, argv[i]);
  printf("%d options, operands from %d\n", flags, optind);
  return 0;
}
