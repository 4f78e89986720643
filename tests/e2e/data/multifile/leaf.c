__attribute__((noinline)) int leaf(int x) { return x * 2 + 1; }
