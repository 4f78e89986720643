/* The split's compact items (item_delta.h). */
#include "item_delta.h"

#include <string.h>

/* Everything but the address: a block access's or a record's shape. */
#define ACC_SHAPE_AT offsetof(cb_affine_access, stride)
#define ACC_SHAPE_BYTES (sizeof(cb_affine_access) - ACC_SHAPE_AT)
#define REC_SHAPE_AT offsetof(cb_access, site)
#define REC_SHAPE_BYTES (sizeof(cb_access) - REC_SHAPE_AT)

size_t item_delta_bytes(const stream_item *it) {
  switch (it->is_block) {
  case ITEM_RECORDS:
    return sizeof *it + it->n * sizeof(cb_access);
  case ITEM_BLOCK:
    return sizeof *it + it->n * sizeof(cb_affine_access);
  case ITEM_BLOCK_AT:
  case ITEM_RECORDS_AT:
    return sizeof *it + it->n * sizeof(uint64_t);
  default:
    return sizeof *it;
  }
}

/* -- blocks ---------------------------------------------------------------- */

static bool same_acc_shape(const cb_affine_access *a, const cb_affine_access *b,
                           uint32_t n) {
  for (uint32_t j = 0; j < n; j++)
    if (memcmp((const char *)&a[j] + ACC_SHAPE_AT,
               (const char *)&b[j] + ACC_SHAPE_AT, ACC_SHAPE_BYTES) != 0)
      return false;
  return true;
}

/* The last block takes these bases; each one's move is remembered. */
static void block_at(item_delta *d, const uint64_t *base) {
  for (uint32_t j = 0; j < d->n_acc; j++) {
    d->acc_moved[j] = base[j] - d->acc[j].base;
    d->acc[j].base = base[j];
  }
  d->acc_step = true;
}

static void block_whole(item_delta *d, const cb_affine_access *acc,
                        uint32_t n) {
  memcpy(d->acc, acc, n * sizeof *acc);
  d->n_acc = n;
  d->acc_step = false;
}

unsigned item_delta_block_kind(const item_delta *d, const cb_affine_block *b,
                               size_t *payload_bytes) {
  if (d->n_acc == 0 || d->n_acc != b->n_acc ||
      !same_acc_shape(d->acc, b->acc, b->n_acc)) {
    *payload_bytes = b->n_acc * sizeof(cb_affine_access);
    return ITEM_BLOCK;
  }
  bool step = d->acc_step;
  for (uint32_t j = 0; step && j < b->n_acc; j++)
    step = b->acc[j].base - d->acc[j].base == d->acc_moved[j];
  *payload_bytes = step ? 0 : b->n_acc * sizeof(uint64_t);
  return step ? ITEM_BLOCK_STEP : ITEM_BLOCK_AT;
}

void item_delta_write_block(item_delta *d, unsigned kind,
                            const cb_affine_block *b, void *out) {
  switch (kind) {
  case ITEM_BLOCK:
    memcpy(out, b->acc, b->n_acc * sizeof *b->acc);
    block_whole(d, b->acc, b->n_acc);
    break;
  case ITEM_BLOCK_AT: {
    uint64_t *o = out;
    for (uint32_t j = 0; j < b->n_acc; j++)
      o[j] = b->acc[j].base;
    block_at(d, o);
    break;
  }
  default: /* ITEM_BLOCK_STEP: every base moved as it moved last */
    for (uint32_t j = 0; j < b->n_acc; j++)
      d->acc[j].base = b->acc[j].base;
  }
}

const cb_affine_access *item_delta_read_block(item_delta *d,
                                              const stream_item *it,
                                              const void *payload) {
  switch (it->is_block) {
  case ITEM_BLOCK:
    block_whole(d, payload, it->n);
    break;
  case ITEM_BLOCK_AT:
    block_at(d, payload);
    break;
  default: /* ITEM_BLOCK_STEP */
    for (uint32_t j = 0; j < d->n_acc; j++)
      d->acc[j].base += d->acc_moved[j];
  }
  return d->acc;
}

/* -- records --------------------------------------------------------------- */

static bool same_rec_shape(const cb_access *a, const cb_access *b, uint32_t n) {
  for (uint32_t j = 0; j < n; j++)
    if (memcmp((const char *)&a[j] + REC_SHAPE_AT,
               (const char *)&b[j] + REC_SHAPE_AT, REC_SHAPE_BYTES) != 0)
      return false;
  return true;
}

/* Records sent whole: the last ones, if few enough to be coded against. */
static void records_whole(item_delta *d, const cb_access *rec, uint32_t n) {
  d->n_rec = n <= ITEM_DELTA_RECORDS_MAX ? n : 0;
  memcpy(d->rec, rec, d->n_rec * sizeof *rec);
  d->rec_step = false;
}

unsigned item_delta_pack_records(item_delta *d, cb_access *rec, uint32_t n,
                                 size_t *payload_bytes) {
  if (n == 0 || n != d->n_rec || !same_rec_shape(d->rec, rec, n)) {
    records_whole(d, rec, n);
    *payload_bytes = n * sizeof *rec;
    return ITEM_RECORDS;
  }
  bool step = d->rec_step;
  for (uint32_t j = 0; step && j < n; j++)
    step = rec[j].addr - d->rec[j].addr == d->rec_moved[j];
  if (step) {
    for (uint32_t j = 0; j < n; j++)
      d->rec[j].addr = rec[j].addr;
    *payload_bytes = 0;
    return ITEM_RECORDS_STEP;
  }
  /* The addresses over the records, front to back: the j-th lands on
   * bytes of record j / 2, already read. */
  for (uint32_t j = 0; j < n; j++) {
    const uint64_t x = rec[j].addr;
    d->rec_moved[j] = x - d->rec[j].addr;
    d->rec[j].addr = x;
    memcpy((char *)rec + j * sizeof x, &x, sizeof x);
  }
  d->rec_step = true;
  *payload_bytes = n * sizeof(uint64_t);
  return ITEM_RECORDS_AT;
}

const cb_access *item_delta_read_records(item_delta *d, const stream_item *it,
                                         const void *payload) {
  switch (it->is_block) {
  case ITEM_RECORDS:
    records_whole(d, payload, it->n);
    return payload;
  case ITEM_RECORDS_AT: {
    const uint64_t *x = payload;
    for (uint32_t j = 0; j < d->n_rec; j++) {
      d->rec_moved[j] = x[j] - d->rec[j].addr;
      d->rec[j].addr = x[j];
    }
    d->rec_step = true;
    return d->rec;
  }
  default: /* ITEM_RECORDS_STEP */
    for (uint32_t j = 0; j < d->n_rec; j++)
      d->rec[j].addr += d->rec_moved[j];
    return d->rec;
  }
}
