int table[4096];

__attribute__((noinline)) static int step(int i) { return (i * 13) & 4095; }

__attribute__((noinline)) static void fill(void) {
  for (int i = 0; i < 4096; i++)
    table[i] = i * 3 + 1;
}

long table_sum(int n) {
  fill();
  long s = 0;
  for (int i = 0; i < n; i++)
    s += table[step(i)];
  return s;
}
