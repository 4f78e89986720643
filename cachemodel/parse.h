/* Value parsers shared by the configuration file and the cachegrind-style
 * flags. Internal to cachemodel. */
#ifndef CBANA_CACHEMODEL_PARSE_H
#define CBANA_CACHEMODEL_PARSE_H

#include <stdbool.h>
#include <stdint.h>

/* A byte count: decimal digits and an optional K, M or G (x1024^n). */
bool cb_parse_size(const char *s, uint64_t *out);
/* A positive number of ways, or "full" (CB_ASSOC_FULL). */
bool cb_parse_assoc(const char *s, uint32_t *out);
/* A line size in bytes, decimal (checked for the rules elsewhere). */
bool cb_parse_line(const char *s, uint32_t *out);

#endif
