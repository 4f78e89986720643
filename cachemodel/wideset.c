/* Wide sets: O(1) lookups through a hash table; see wideset.h. */
#include "wideset.h"
#include "level.h"

#include <stdlib.h>

#define NONE UINT32_MAX

static uint64_t home_slot(uint64_t line, uint64_t mask) {
  uint64_t h = line * 0x9E3779B97F4A7C15ull;
  return (h ^ (h >> 31)) & mask;
}

static uint32_t table_find(const cb_wideset *ws, uint64_t line) {
  for (uint64_t s = home_slot(line, ws->mask); ws->keys[s] != NO_LINE;
       s = (s + 1) & ws->mask)
    if (ws->keys[s] == line)
      return ws->ways[s];
  return NONE;
}

static void table_insert(cb_wideset *ws, uint64_t line, uint32_t way) {
  uint64_t s = home_slot(line, ws->mask);
  while (ws->keys[s] != NO_LINE)
    s = (s + 1) & ws->mask;
  ws->keys[s] = line;
  ws->ways[s] = way;
}

/* Backward-shift deletion (Knuth, TAOCP 6.4, Algorithm R): later keys of
 * the probe run move up so that no search stops early at the hole. */
static void table_erase(cb_wideset *ws, uint64_t line) {
  uint64_t i = home_slot(line, ws->mask);
  while (ws->keys[i] != line)
    i = (i + 1) & ws->mask;
  for (uint64_t j = i;;) {
    j = (j + 1) & ws->mask;
    if (ws->keys[j] == NO_LINE)
      break;
    uint64_t k = home_slot(ws->keys[j], ws->mask);
    /* Key j may stay if its home lies cyclically in (i, j]. */
    bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
    if (stays)
      continue;
    ws->keys[i] = ws->keys[j];
    ws->ways[i] = ws->ways[j];
    i = j;
  }
  ws->keys[i] = NO_LINE;
}

static void list_unlink(cb_wideset *ws, uint64_t set, uint32_t g) {
  uint32_t p = ws->prev[g], n = ws->next[g];
  if (p != NONE)
    ws->next[p] = n;
  else
    ws->head[set] = n;
  if (n != NONE)
    ws->prev[n] = p;
  else
    ws->tail[set] = p;
}

static void list_push_front(cb_wideset *ws, uint64_t set, uint32_t g) {
  uint32_t h = ws->head[set];
  ws->prev[g] = NONE;
  ws->next[g] = h;
  if (h != NONE)
    ws->prev[h] = g;
  else
    ws->tail[set] = g;
  ws->head[set] = g;
}

static bool keeps_order(cb_policy p) {
  return p == CB_POLICY_LRU || p == CB_POLICY_FIFO || p == CB_POLICY_MRU;
}

bool cb_wideset_ref(cb_wideset *ws, cb_level *lv, uint64_t set, uint64_t line,
                    bool fill) {
  uint32_t base = (uint32_t)(set * lv->assoc);
  uint64_t *bits = lv->plru_bits ? lv->plru_bits + set * lv->plru_words : NULL;
  uint32_t g = table_find(ws, line);
  if (g != NONE) {
    if (lv->policy == CB_POLICY_LRU || lv->policy == CB_POLICY_MRU) {
      list_unlink(ws, set, g);
      list_push_front(ws, set, g);
    } else if (lv->policy == CB_POLICY_PLRU) {
      plru_touch_way(bits, lv->log2_assoc, g - base);
    }
    return true;
  }
  if (!fill)
    return false;
  if (ws->filled[set] < lv->assoc) {
    g = base + ws->filled[set]++; /* the lowest empty way */
  } else {
    switch (lv->policy) {
    case CB_POLICY_LRU:
    case CB_POLICY_FIFO:
      g = ws->tail[set]; /* least recently used / oldest fill */
      break;
    case CB_POLICY_MRU:
      g = ws->head[set];
      break;
    case CB_POLICY_PLRU:
      g = base + plru_victim(bits, lv->log2_assoc);
      break;
    case CB_POLICY_RANDOM:
      g = base + (uint32_t)(splitmix64_next(&lv->rng) % lv->assoc);
      break;
    }
    table_erase(ws, lv->tags[g]);
    if (keeps_order(lv->policy))
      list_unlink(ws, set, g);
  }
  lv->tags[g] = line;
  table_insert(ws, line, g);
  if (keeps_order(lv->policy))
    list_push_front(ws, set, g);
  else if (lv->policy == CB_POLICY_PLRU)
    plru_touch_way(bits, lv->log2_assoc, g - base);
  return false;
}

bool cb_wideset_init(cb_wideset *ws, uint64_t n_sets, uint32_t assoc) {
  memset(ws, 0, sizeof *ws);
  uint64_t lines = n_sets * assoc, slots = 1;
  while (slots < 2 * lines)
    slots *= 2;
  ws->n_sets = n_sets;
  ws->mask = slots - 1;
  ws->keys = malloc(slots * sizeof *ws->keys);
  ws->ways = malloc(slots * sizeof *ws->ways);
  ws->filled = malloc(n_sets * sizeof *ws->filled);
  ws->head = malloc(n_sets * sizeof *ws->head);
  ws->tail = malloc(n_sets * sizeof *ws->tail);
  ws->prev = malloc(lines * sizeof *ws->prev);
  ws->next = malloc(lines * sizeof *ws->next);
  if (!ws->keys || !ws->ways || !ws->filled || !ws->head || !ws->tail ||
      !ws->prev || !ws->next) {
    cb_wideset_free(ws);
    return false;
  }
  cb_wideset_reset(ws);
  return true;
}

void cb_wideset_free(cb_wideset *ws) {
  free(ws->keys);
  free(ws->ways);
  free(ws->filled);
  free(ws->head);
  free(ws->tail);
  free(ws->prev);
  free(ws->next);
  memset(ws, 0, sizeof *ws);
}

void cb_wideset_reset(cb_wideset *ws) {
  for (uint64_t s = 0; s <= ws->mask; s++)
    ws->keys[s] = NO_LINE;
  memset(ws->filled, 0, ws->n_sets * sizeof *ws->filled);
  for (uint64_t s = 0; s < ws->n_sets; s++)
    ws->head[s] = ws->tail[s] = NONE;
}
