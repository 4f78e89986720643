/* condtext.c: the text of branch conditions (filled in later). */
#include "fe_internal.h"

void fe_branch_texts(fe *f, fe_build *b) {
  (void)f;
  (void)b;
}
