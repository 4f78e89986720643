/* The time split's compact items (analysis/pipeline/item_delta.c): streams of
 * blocks and records written as the split's producer writes them, into
 * chunks that each start afresh, and read back as its simulation threads
 * read them. Every item must come back as it went in, access for access;
 * and a steady loop nest must take a header an item. */
#include "check.h"
#include "item_delta.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_BYTES (64u << 10)
#define ITEMS 20000

/* What was sent, to compare with what is read. */
typedef struct sent {
  stream_item it; /* is_block: 0 records, 1 a block (the sort, not kind) */
  cb_affine_access acc[ITEM_DELTA_BLOCK_MAX];
  cb_access rec[2 * ITEM_DELTA_RECORDS_MAX];
} sent;

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* A stream like a loop nest's: shapes that hold for a while, addresses
 * that mostly move by the same steps, sometimes not. */
static void make_stream(sent *s, size_t n) {
  uint32_t n_acc = 3, n_rec = 2;
  uint64_t move[ITEM_DELTA_BLOCK_MAX], rmove[2 * ITEM_DELTA_RECORDS_MAX];
  cb_affine_access acc[ITEM_DELTA_BLOCK_MAX];
  cb_access rec[2 * ITEM_DELTA_RECORDS_MAX];
  memset(acc, 0, sizeof acc);
  memset(rec, 0, sizeof rec);
  for (size_t i = 0; i < n; i++) {
    uint64_t r = next_rand();
    bool block = r & 1;
    if ((r >> 1) % 97 == 0) { /* a new shape */
      n_acc = 1 + (uint32_t)(next_rand() % ITEM_DELTA_BLOCK_MAX);
      n_rec = 1 + (uint32_t)(next_rand() % (2 * ITEM_DELTA_RECORDS_MAX));
      for (uint32_t j = 0; j < ITEM_DELTA_BLOCK_MAX; j++) {
        acc[j] = (cb_affine_access){next_rand() >> 8,
                                    (int64_t)(next_rand() % 4096) - 2048,
                                    (uint32_t)(next_rand() % 50),
                                    8,
                                    (uint8_t)(next_rand() & 1),
                                    0};
        move[j] = next_rand() % 3 == 0 ? 0 : next_rand() % 100000;
      }
      for (uint32_t j = 0; j < 2 * ITEM_DELTA_RECORDS_MAX; j++) {
        rec[j] = (cb_access){next_rand() >> 8, (uint32_t)(next_rand() % 50),
                             (uint16_t)(1 + next_rand() % 16),
                             (uint8_t)(next_rand() & 1), 0};
        rmove[j] = next_rand() % 100000;
      }
    }
    if ((r >> 8) % 13 == 0) /* one address moves otherwise, once */
      acc[(r >> 16) % n_acc].base += 8;
    if ((r >> 24) % 17 == 0)
      rec[(r >> 32) % n_rec].addr -= 64;
    if ((r >> 40) % 61 == 0) /* a step changes for good */
      move[(r >> 48) % n_acc] += 64;
    sent *x = &s[i];
    if (block) {
      x->it = (stream_item){1, n_acc, 1 + (r >> 50) % 1000};
      for (uint32_t j = 0; j < n_acc; j++) {
        acc[j].base += move[j];
        x->acc[j] = acc[j];
      }
    } else {
      x->it = (stream_item){0, n_rec, 0};
      for (uint32_t j = 0; j < n_rec; j++) {
        rec[j].addr += rmove[j];
        x->rec[j] = rec[j];
      }
    }
  }
}

/* Writes the stream into chunks as split.c's producer does; returns the
 * chunks' bytes, and the items of each kind in kinds[]. */
static size_t write_stream(const sent *s, size_t n, unsigned char **chunks,
                           size_t *used, size_t *n_chunks, size_t kinds[6]) {
  static item_delta d;
  size_t c = 0, total = 0;
  used[0] = 0;
  item_delta_reset(&d);
  for (size_t i = 0; i < n; i++) {
    const sent *x = &s[i];
    size_t whole = sizeof(stream_item) +
                   x->it.n * (x->it.is_block ? sizeof(cb_affine_access)
                                             : sizeof(cb_access));
    if (used[c] + whole > CHUNK_BYTES) {
      used[++c] = 0;
      item_delta_reset(&d);
    }
    unsigned char *q = chunks[c] + used[c];
    stream_item it = x->it;
    size_t bytes;
    if (it.is_block) {
      cb_affine_block b = {it.n_iter, it.n, x->acc};
      it.is_block = item_delta_block_kind(&d, &b, &bytes);
      item_delta_write_block(&d, it.is_block, &b, q + sizeof it);
    } else {
      memcpy(q + sizeof it, x->rec, it.n * sizeof(cb_access));
      it.is_block = item_delta_pack_records(
          &d, (cb_access *)(void *)(q + sizeof it), it.n, &bytes);
    }
    memcpy(q, &it, sizeof it);
    CHECK_EQ_U64(item_delta_bytes(&it), sizeof it + bytes);
    used[c] += sizeof it + bytes;
    total += sizeof it + bytes;
    kinds[it.is_block]++;
  }
  *n_chunks = c + 1;
  return total;
}

/* Reads the chunks back as split.c's run_epoch does; counts mismatches. */
static size_t read_stream(const sent *s, size_t n, unsigned char **chunks,
                          const size_t *used, size_t n_chunks) {
  static item_delta d;
  size_t i = 0, bad = 0;
  for (size_t c = 0; c < n_chunks; c++) {
    item_delta_reset(&d);
    for (size_t pos = 0; pos < used[c]; i++) {
      const stream_item *it = (const stream_item *)(void *)(chunks[c] + pos);
      const void *payload = chunks[c] + pos + sizeof *it;
      const sent *x = &s[i];
      if (i >= n || it->n != x->it.n ||
          item_is_records(it) != !x->it.is_block) {
        return bad + 1;
      }
      if (item_is_records(it)) {
        const cb_access *r = item_delta_read_records(&d, it, payload);
        bad += memcmp(r, x->rec, it->n * sizeof *r) != 0;
        CHECK_EQ_U64(item_delta_accesses(it), it->n);
      } else {
        const cb_affine_access *a = item_delta_read_block(&d, it, payload);
        bad += memcmp(a, x->acc, it->n * sizeof *a) != 0 ||
               it->n_iter != x->it.n_iter;
        CHECK_EQ_U64(item_delta_accesses(it), it->n * it->n_iter);
      }
      pos += item_delta_bytes(it);
    }
  }
  return bad + (i != n);
}

/* A steady nest: gemm's inner loop, one block an instance, each base
 * moving by a row or not at all, and a remainder record after each. */
static void steady_nest(void) {
  static unsigned char chunk[CHUNK_BYTES];
  static item_delta w, r;
  item_delta_reset(&w);
  item_delta_reset(&r);
  cb_affine_access acc[3] = {{0x10000, 8, 1, 8, 0, 0},
                             {0x200000, 8, 2, 8, 0, 0},
                             {0x10000, 8, 1, 8, 1, 0}};
  size_t used = 0, headers_only = 0;
  for (int k = 0; k < 1000; k++) {
    acc[1].base += 8800; /* B[k][j]: a row further */
    cb_affine_block b = {1100, 3, acc};
    size_t bytes;
    stream_item it = {item_delta_block_kind(&w, &b, &bytes), 3, 1100};
    item_delta_write_block(&w, it.is_block, &b, chunk + used + sizeof it);
    memcpy(chunk + used, &it, sizeof it);
    used += sizeof it + bytes;
    headers_only += bytes == 0;
    cb_access rec = {0x300000 + 8 * (uint64_t)k, 3, 8, 0, 0};
    memcpy(chunk + used + sizeof it, &rec, sizeof rec);
    stream_item ir = {0, 1, 0};
    ir.is_block = item_delta_pack_records(
        &w, (cb_access *)(void *)(chunk + used + sizeof ir), 1, &bytes);
    memcpy(chunk + used, &ir, sizeof ir);
    used += sizeof ir + bytes;
    headers_only += bytes == 0;
  }
  /* all but the first two of each sort: 2 x 998 */
  CHECK_EQ_U64(headers_only, 1996);
  CHECK(used < 2000 * sizeof(stream_item) + 200);
  uint64_t base1 = 0x200000, addr = 0x300000;
  size_t bad = 0;
  for (size_t pos = 0; pos < used;) {
    const stream_item *it = (const stream_item *)(void *)(chunk + pos);
    if (item_is_records(it)) {
      bad += item_delta_read_records(&r, it, chunk + pos + sizeof *it)->addr !=
             addr;
      addr += 8;
    } else {
      base1 += 8800;
      const cb_affine_access *a =
          item_delta_read_block(&r, it, chunk + pos + sizeof *it);
      bad += a[0].base != 0x10000 || a[1].base != base1 || a[2].is_write != 1;
    }
    pos += item_delta_bytes(it);
  }
  CHECK_EQ_U64(bad, 0);
}

int main(void) {
  static sent s[ITEMS];
  make_stream(s, ITEMS);
  size_t cap =
      ITEMS *
      (sizeof(stream_item) + ITEM_DELTA_BLOCK_MAX * sizeof(cb_affine_access)) /
      (CHUNK_BYTES / 2);
  unsigned char **chunks = calloc(cap, sizeof *chunks);
  size_t *used = calloc(cap, sizeof *used);
  for (size_t c = 0; c < cap; c++)
    chunks[c] = aligned_alloc(64, CHUNK_BYTES);
  size_t n_chunks, kinds[6] = {0};
  size_t bytes = write_stream(s, ITEMS, chunks, used, &n_chunks, kinds);
  CHECK(n_chunks > 10 && n_chunks < cap);
  CHECK_EQ_U64(read_stream(s, ITEMS, chunks, used, n_chunks), 0);
  /* every kind was written, and fewer bytes than whole items */
  for (int k = 0; k < 6; k++)
    CHECK(kinds[k] > 0);
  size_t whole = 0;
  for (size_t i = 0; i < ITEMS; i++)
    whole += sizeof(stream_item) + s[i].it.n * (s[i].it.is_block
                                                    ? sizeof(cb_affine_access)
                                                    : sizeof(cb_access));
  CHECK(bytes < whole);
  steady_nest();
  for (size_t c = 0; c < cap; c++)
    free(chunks[c]);
  free(chunks);
  free(used);
  return check_done();
}
