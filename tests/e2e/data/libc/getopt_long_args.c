/* getopt_long: long options with and without arguments ("--x 3",
 * "--x=3"), a flag option, an unambiguous abbreviation, an unknown one,
 * short options among them and the permuted non-options. */
#include <getopt.h>
#include <stdio.h>

static int verbose;

int main(int argc, char **argv) {
  static struct option opts[] = {{"size", required_argument, 0, 's'},
                                 {"verbose", no_argument, &verbose, 1},
                                 {"level", optional_argument, 0, 'l'},
                                 {"potdir", required_argument, 0, 'p'},
                                 {0, 0, 0, 0}};
  int c, idx = -1;
  while ((c = getopt_long(argc, argv, "s:l::p:x", opts, &idx)) != -1)
    printf("c=%d idx=%d optarg=%s optind=%d\n", c, idx,
           optarg ? optarg : "(null)", optind);
  printf("verbose %d\n", verbose);
  for (int i = optind; i < argc; i++)
    printf("rest %s\n", argv[i]);
  return 0;
}
