/* A 16 MiB global array written and read once per line: its misses are
 * all compulsory; exit's traffic then meets a cache the array flushed. */
static double a[1 << 21];

int main(int argc, char **argv) {
  (void)argv;
  double s = 0;
  for (int i = 0; i < (1 << 21); i += 8)
    a[i] = i + argc;
  for (int i = 0; i < (1 << 21); i += 64)
    s += a[i];
  return s > 1e30;
}
