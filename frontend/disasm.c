/* disasm.c: decoding the executable's machine code for machine.c.
 *
 * The DWARF line table (libdw) gives each instruction's file:line and the
 * call-frame information the CFA rule at each instruction. Each
 * instruction is disassembled (LLVM-C disassembler, Intel syntax) and its
 * memory operands parsed from the text, then classified: IR-visible
 * accesses (loads and stores through other registers, rip-relative
 * accesses of the IR's globals, indexed stack accesses) and hidden ones:
 * rsp/frame-pointer-relative accesses without an index (spills, reloads,
 * scalars kept on the stack) and rip-relative accesses of no IR global
 * (constant pools, GOT slots). Also the sites of machine-code accesses. */
#include "machine_internal.h"

#include <dwarf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- line table ---------------------------------------------------------
 */

static int lrow_cmp(const void *a, const void *b) {
  const lrow *x = a, *y = b;
  if (x->addr != y->addr)
    return x->addr < y->addr ? -1 : 1;
  /* an end of sequence first: the row that starts there wins */
  return (int)y->end - (int)x->end;
}

void fe_mc_read_lines(fe *f, Dwarf *dw, lrows *rows) {
  Dwarf_Off off = 0, next;
  size_t hsize;
  while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
    Dwarf_Die cu;
    Dwarf_Lines *lines;
    size_t n;
    if (dwarf_offdie(dw, off + hsize, &cu) &&
        dwarf_getsrclines(&cu, &lines, &n) == 0) {
      /* a relative name is the compilation directory's (DWARF 4, 6.2.4);
       * realpath() would resolve it against ours */
      Dwarf_Attribute at;
      const char *comp_dir =
          dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &at));
      for (size_t i = 0; i < n; i++) {
        Dwarf_Line *l = dwarf_onesrcline(lines, i);
        Dwarf_Addr a;
        int ln = 0;
        bool end = false;
        if (!l || dwarf_lineaddr(l, &a) != 0)
          continue;
        dwarf_lineno(l, &ln);
        dwarf_lineendsequence(l, &end);
        const char *src = dwarf_linesrc(l, NULL, NULL);
        char joined[8200];
        if (src && src[0] != '/' && comp_dir && comp_dir[0]) {
          snprintf(joined, sizeof joined, "%s/%s", comp_dir, src);
          src = joined;
        }
        lrow r = {a, src ? fe_pool_intern(f->pool, src, strlen(src)) : NULL,
                  ln > 0 ? (uint32_t)ln : 0, end};
        FE_PUSH(*rows, r);
      }
    }
    off = next;
  }
  if (rows->n)
    qsort(rows->v, rows->n, sizeof *rows->v, lrow_cmp);
}

/* The row in effect at pc (file address), or NULL. */
const lrow *fe_mc_line_at(const lrows *rows, uint64_t pc) {
  uint32_t lo = 0, hi = rows->n;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (rows->v[mid].addr <= pc)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0)
    return NULL;
  const lrow *r = &rows->v[lo - 1];
  return r->end ? NULL : r;
}

/* ---- instructions --------------------------------------------------------
 */

/* Register name -> 0..15 in x86 encoding order for the 64-bit ones, 16 for
 * rip, -1 otherwise. */
static int reg64(const char *s, size_t n) {
  static const char *const names[] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp",
                                      "rsi", "rdi", "r8",  "r9",  "r10", "r11",
                                      "r12", "r13", "r14", "r15", "rip"};
  for (int i = 0; i < 17; i++)
    if (strlen(names[i]) == n && memcmp(names[i], s, n) == 0)
      return i;
  return -1;
}

static bool starts(const char *s, const char *p) {
  return strncmp(s, p, strlen(p)) == 0;
}

/* The general-purpose register (0 rax .. 15 r15) a name denotes in any
 * width, and its width in bytes; -1 for another name. */
static int gpr(const char *t, size_t n, unsigned *width) {
  static const char *const w8[] = {"rax", "rcx", "rdx", "rbx",
                                   "rsp", "rbp", "rsi", "rdi"};
  static const char *const w4[] = {"eax", "ecx", "edx", "ebx",
                                   "esp", "ebp", "esi", "edi"};
  static const char *const w2[] = {"ax", "cx", "dx", "bx",
                                   "sp", "bp", "si", "di"};
  static const char *const w1[] = {"al",  "cl",  "dl", "bl", "spl", "bpl",
                                   "sil", "dil", "ah", "ch", "dh",  "bh"};
  for (int i = 0; i < 8; i++) {
    if (strlen(w8[i]) == n && !memcmp(w8[i], t, n))
      return *width = 8, i;
    if (strlen(w4[i]) == n && !memcmp(w4[i], t, n))
      return *width = 4, i;
    if (strlen(w2[i]) == n && !memcmp(w2[i], t, n))
      return *width = 2, i;
  }
  for (int i = 0; i < 12; i++)
    if (strlen(w1[i]) == n && !memcmp(w1[i], t, n))
      return *width = 1, i < 8 ? i : i - 8;
  if (n >= 2 && t[0] == 'r' && t[1] >= '0' && t[1] <= '9') {
    int r = t[1] - '0';
    size_t k = 2;
    if (n > 2 && t[2] >= '0' && t[2] <= '9')
      r = r * 10 + (t[k++] - '0');
    if (r < 8 || r > 15)
      return -1;
    if (k == n)
      return *width = 8, r;
    if (k + 1 == n)
      return *width = t[k] == 'd'   ? 4
                      : t[k] == 'w' ? 2
                      : t[k] == 'b' ? 1
                                    : 0,
             *width ? r : -1;
  }
  return -1;
}

/* Which general registers instruction mn with operands s reads and which
 * it writes whole (a mov, movzx, movsx or lea into a 32- or 64-bit
 * register: the 32-bit forms zero the upper half; mov rdx, [rdx] reads
 * and writes rdx), for the
 * loads whose value nothing reads (fe_mc_dead_loads). An instruction that
 * uses registers it does not name, or changes control, is a barrier. */
static void reg_use(minst *m, const char *mn, const char *s, bool rep) {
  static const char *const implicit[] = {
      "cdq",   "cqo",     "cwd",     "cbw",    "div",   "idiv", "mul",
      "stos",  "scas",    "lods",    "cmps",   "movs",  "ins",  "outs",
      "xchg",  "cmpxchg", "syscall", "cpuid",  "rdtsc", "xlat", "loop",
      "enter", "leave",   "push",    "pop",    "call",  "ret",  "j",
      "ud",    "int",     "hlt",     "xadd",   "lock",  "rep",  "fn",
      "vzero", "xgetbv",  "rdrand",  "rdseed", "pause"};
  m->gpr_read = 0;
  m->gpr_full = 0;
  m->reg_barrier = rep;
  bool two = strchr(s, ',') != NULL;
  for (size_t i = 0; i < sizeof implicit / sizeof *implicit; i++)
    if (starts(mn, implicit[i]) &&
        !(starts(mn, "movs") &&
          (!strcmp(mn, "movsx") || !strcmp(mn, "movsxd") || two)))
      m->reg_barrier = true;
  if (!strcmp(mn, "imul") && !two)
    m->reg_barrier = true;
  bool full_mov = !strcmp(mn, "mov") || !strcmp(mn, "movzx") ||
                  !strcmp(mn, "movsx") || !strcmp(mn, "movsxd") ||
                  !strcmp(mn, "lea") || !strcmp(mn, "movabs");
  unsigned opnd = 0;
  bool in_mem = false;
  for (const char *q = s; *q;) {
    if (*q == ',') {
      opnd++;
      q++;
      continue;
    }
    if (*q == '[' || *q == ']') {
      in_mem = *q == '[';
      q++;
      continue;
    }
    if (!((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9'))) {
      q++;
      continue;
    }
    const char *t = q;
    while ((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9'))
      q++;
    unsigned w = 0;
    int r = gpr(t, (size_t)(q - t), &w);
    if (r < 0)
      continue;
    if (opnd == 0 && !in_mem && full_mov && w >= 4)
      m->gpr_full |= (uint16_t)(1u << r);
    else
      m->gpr_read |= (uint16_t)(1u << r);
  }
  if (m->gpr_full && full_mov && strcmp(mn, "lea"))
    m->load_dst = (int8_t)__builtin_ctz(m->gpr_full);
}

/* Mnemonics that only write their memory destination. */
static bool pure_store(const char *m) {
  static const char *const pre[] = {
      "mov",      "vmov",      "stos",      "set",      "pextr",
      "vpextr",   "extractps", "vextract",  "fst",      "fist",
      "vmaskmov", "vpmaskmov", "vpscatter", "vscatter", "vcvtps2ph",
      "fnst",     "stmxcsr",   "vstmxcsr",  "movnt"};
  for (size_t i = 0; i < sizeof pre / sizeof *pre; i++)
    if (starts(m, pre[i]))
      return true;
  return false;
}

static uint32_t size_word(const char *s) {
  static const struct {
    const char *w;
    uint32_t n;
  } t[] = {{"byte ptr", 1},     {"word ptr", 2},     {"dword ptr", 4},
           {"qword ptr", 8},    {"xmmword ptr", 16}, {"ymmword ptr", 32},
           {"zmmword ptr", 64}, {"tbyte ptr", 10}};
  for (size_t i = 0; i < sizeof t / sizeof *t; i++)
    if (starts(s, t[i].w))
      return t[i].n;
  return 0;
}

/* The CFA rule at pc: CFA = reg + off (DWARF register numbers). */
bool fe_mc_cfa_rule(mctx *c, uint64_t pc, int *reg, int64_t *off) {
  if (!c->cfi)
    return false;
  Dwarf_Frame *fr = NULL;
  if (dwarf_cfi_addrframe(c->cfi, pc, &fr) != 0 || !fr)
    return false;
  Dwarf_Op *ops;
  size_t n;
  bool ok = false;
  if (dwarf_frame_cfa(fr, &ops, &n) == 0 && n == 1) {
    if (ops[0].atom == DW_OP_bregx) {
      *reg = (int)ops[0].number;
      *off = (int64_t)ops[0].number2;
      ok = true;
    } else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
      *reg = ops[0].atom - DW_OP_breg0;
      *off = (int64_t)ops[0].number;
      ok = true;
    }
  }
  free(fr);
  return ok;
}

/* The program file for a DWARF path. */
uint32_t fe_mc_file_index(mctx *c, const char *path) {
  fe *f = c->f;
  if (!path)
    return CB_NONE;
  uint64_t x;
  if (fe_map_get(&c->file_of, path, &x))
    return (uint32_t)x - 1;
  char real[PATH_MAX];
  const char *rp = realpath(path, real) ? real : path;
  uint32_t idx = CB_NONE;
  for (uint32_t i = 0; i < f->file_paths.n && idx == CB_NONE; i++) {
    if (i >= c->n_real) {
      c->real_srcs = realloc(c->real_srcs, (i + 1) * sizeof *c->real_srcs);
      char r2[PATH_MAX];
      c->real_srcs[i] =
          realpath(f->file_paths.v[i], r2) ? fe_pool_str(f->pool, r2) : NULL;
      c->n_real = i + 1;
    }
    if (c->real_srcs[i] && strcmp(c->real_srcs[i], rp) == 0)
      idx = i;
  }
  if (idx == CB_NONE) {
    /* the same base name and no better candidate */
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    for (uint32_t i = 0; i < f->files.n && idx == CB_NONE; i++) {
      const char *fb = strrchr(f->files.v[i], '/');
      fb = fb ? fb + 1 : f->files.v[i];
      if (strcmp(fb, b) == 0)
        idx = i;
    }
  }
  if (idx == CB_NONE)
    idx = fe_file_index(f, path, NULL);
  fe_map_put(&c->file_of, path, (uint64_t)idx + 1);
  return idx;
}

static bool in_ir_global(const fe *f, uint64_t addr) {
  for (uint32_t i = 0; i < f->globals.n; i++) {
    const cb_global *g = &f->globals.v[i];
    if (addr >= g->addr && addr < g->addr + (g->size ? g->size : 1))
      return true;
  }
  return false;
}

/* Decodes one instruction's text into m. */
/* The argument register a store's last operand names (minst.src_arg). */
static int8_t arg_register(const char *ops) {
  static const char *const gp[] = {"rdi", "rsi", "rdx", "rcx", "r8", "r9"};
  const char *r = strrchr(ops, ',');
  if (!r)
    return -1;
  r++;
  while (*r == ' ')
    r++;
  size_t n = strlen(r);
  while (n && (r[n - 1] == ' ' || r[n - 1] == '\n'))
    n--;
  for (int k = 0; k < 6; k++)
    if (n == strlen(gp[k]) && !strncmp(r, gp[k], n))
      return (int8_t)k;
  if (n == 4 && !strncmp(r, "xmm", 3) && r[3] >= '0' && r[3] <= '7')
    return (int8_t)(8 + r[3] - '0');
  return -1;
}

void fe_mc_classify(mctx *c, minst *m, const char *text, uint64_t frame) {
  m->src_arg = -1;
  m->load_dst = -1;
  bool rep = false;
  const char *s = text;
  while (*s == ' ' || *s == '\t')
    s++;
  char mn[32];
  size_t k = 0;
  for (;;) {
    k = 0;
    while (*s && *s != ' ' && *s != '\t' && k + 1 < sizeof mn)
      mn[k++] = *s++;
    mn[k] = 0;
    while (*s == ' ' || *s == '\t')
      s++;
    if (strcmp(mn, "rep") && strcmp(mn, "repe") && strcmp(mn, "repne") &&
        strcmp(mn, "lock") && strcmp(mn, "notrack") && strcmp(mn, "data16") &&
        strcmp(mn, "cs") && strcmp(mn, "ds"))
      break;
    rep = true;
  }
  reg_use(m, mn, s, rep);
  m->kind = MK_NONE;
  if ((!strcmp(mn, "sub") || !strcmp(mn, "and")) && starts(s, "rsp, ")) {
    char *end;
    long long v = strtoll(s + 5, &end, 0);
    if (end != s + 5 && (*end == 0 || *end == ' ' || *end == '\n')) {
      m->sp_op = mn[0] == 's' ? 1 : 2;
      m->sp_imm = v;
    }
  }
  m->is_sqrt = !strcmp(mn, "sqrtsd") || !strcmp(mn, "sqrtss") ||
               !strcmp(mn, "vsqrtsd") || !strcmp(mn, "vsqrtss");
  if (starts(mn, "call")) {
    m->kind = MK_CALL;
    return;
  }
  if ((!strcmp(mn, "bt") || !strcmp(mn, "bts") || !strcmp(mn, "btr") ||
       !strcmp(mn, "btc")) &&
      !strchr(s, '[')) {
    /* "bt ebx, eax": a register by a register (an immediate bit number
       is tested in the register itself) */
    const char *cm = strchr(s, ',');
    const char *src = cm ? cm + 1 : "";
    while (*src == ' ')
      src++;
    if (cm && !(*src >= '0' && *src <= '9')) {
      m->vex_bt = mn[2] ? 2 : 1;
      m->size = s[0] == 'r' ? 8 : s[0] == 'e' ? 4 : 2;
      if (s[0] == 'r' && s[1] >= '0' && s[1] <= '9')
        m->size = cm[-1] == 'd' ? 4 : cm[-1] == 'w' ? 2 : 8;
    }
    return;
  }
  if (strcmp(mn, "ret") == 0 || strcmp(mn, "retq") == 0) {
    m->kind = MK_RET;
    return;
  }
  if (mn[0] == 'j') {
    if (strchr(s, '[') || reg64(s, strlen(s)) >= 0 ||
        (s[0] == 'r' || s[0] == 'e')) {
      m->kind = MK_IJMP;
      return;
    }
    char *e;
    long long rel = strtoll(s, &e, 0);
    m->target = m->pc + m->len + (uint64_t)rel;
    m->kind = strcmp(mn, "jmp") == 0 ? MK_JMP : MK_JCC;
    return;
  }
  if (strcmp(mn, "push") == 0) {
    m->kind = strchr(s, '[') ? MK_UNKNOWN : MK_PUSH;
    return;
  }
  if (strcmp(mn, "pop") == 0) {
    m->kind = strchr(s, '[') ? MK_UNKNOWN : MK_POP;
    return;
  }
  if (strcmp(mn, "leave") == 0) {
    m->kind = MK_POP;
    return;
  }
  if (starts(mn, "lea") || starts(mn, "nop") || starts(mn, "prefetch") ||
      starts(mn, "clflush") || strcmp(mn, "ud2") == 0 ||
      strcmp(mn, "int3") == 0 || starts(mn, "endbr"))
    return;
  const char *br = strchr(s, '[');
  if (!br)
    return;
  /* which operand holds it */
  unsigned opnd = 0;
  for (const char *q = s; q < br; q++)
    if (*q == ',')
      opnd++;
  /* size: the word before "ptr" */
  const char *start = br;
  while (start > s && start[-1] != ',' && start[-1] != ' ')
    start--;
  const char *w = start;
  uint32_t size = 0;
  for (const char *q = s; q < br; q++) {
    uint32_t z = size_word(q);
    if (z && (q == s || q[-1] == ' ' || q[-1] == ','))
      size = z;
  }
  (void)w;
  if (!size)
    size = 8;
  /* the address: base, index, displacement */
  int base = -1, index = -1;
  int64_t disp = 0;
  const char *q = br + 1;
  int sign = 1;
  while (*q && *q != ']') {
    while (*q == ' ')
      q++;
    if (*q == '+') {
      sign = 1;
      q++;
      continue;
    }
    if (*q == '-') {
      sign = -1;
      q++;
      continue;
    }
    const char *t = q;
    while (*q && *q != ' ' && *q != ']')
      q++;
    size_t tl = (size_t)(q - t);
    const char *star = memchr(t, '*', tl);
    if (star) {
      index = reg64(star + 1, tl - (size_t)(star + 1 - t));
      if (index < 0)
        index = 99;
    } else if ((t[0] >= '0' && t[0] <= '9')) {
      disp += sign * strtoll(t, NULL, 0);
    } else {
      int r = reg64(t, tl);
      if (r < 0)
        r = 99; /* a 32-bit or other register */
      if (base < 0)
        base = r;
      else
        index = r;
    }
  }
  bool is_write = false;
  if (opnd == 0) {
    if (pure_store(mn))
      is_write = true;
    /* else: compare/test (a read), or read-modify-write, which cachegrind
       counts as one read */
  }
  if (strcmp(mn, "xchg") == 0 || starts(mn, "cmpxchg")) {
    m->kind = MK_UNKNOWN;
    return;
  }
  m->size = (uint8_t)(size > 255 ? 255 : size);
  m->write = is_write;
  m->kind = MK_MEM;
  m->disp = disp;
  m->areg = (base + 1) * 128 + (index + 1);
  if (is_write)
    m->src_arg = arg_register(s);
  if (base == 16 && index < 0) {
    uint64_t a = m->pc + m->len + (uint64_t)disp;
    m->target = a;
    if (!in_ir_global(c->f, a + c->base))
      m->kind = MK_CONST;
    return;
  }
  if (base == 4 || base == 5) {
    int reg;
    int64_t off;
    if (!fe_mc_cfa_rule(c, m->pc, &reg, &off))
      return;
    /* CFA = reg + off, DWARF registers 6 = rbp, 7 = rsp */
    int64_t cfa_off;
    if (base == 4 && reg == 7)
      cfa_off = disp - off;
    else if (base == 5 && reg == 6)
      cfa_off = disp - off;
    else if (base == 4 && frame)
      cfa_off = disp - (int64_t)frame; /* rsp is CFA - frame in the body */
    else
      return; /* rbp is no frame pointer here: an IR access */
    if (index >= 0) {
      m->stack_indexed = true;
      return;
    }
    m->kind = MK_STACK;
    m->cfa_off = cfa_off;
    m->has_cfa = true;
  }
}

/* ---- sites ---------------------------------------------------------------
 */

uint32_t fe_mc_src_func(fe *f, uint32_t fi) {
  const cb_function *fn = &f->functions.v[fi];
  /* the function's own DISubprogram: a function whose IR makes no access
   * (a leaf on registers) has only its machine code's, and none of its
   * sites has named it yet */
  LLVMValueRef fv = f->mod ? LLVMGetNamedFunction(f->mod, fn->name) : NULL;
  LLVMMetadataRef sp = fv ? LLVMGetSubprogram(fv) : NULL;
  if (sp)
    return fe_src_func(f, sp);
  for (uint32_t i = 0; i < f->src_funcs.n; i++)
    if (strcmp(f->src_funcs.v[i].name, fn->name) == 0)
      return i;
  return CB_NONE;
}

uint32_t fe_mc_site(mctx *c, uint32_t file, uint32_t line, uint32_t func,
                    uint32_t size, bool write, const char *what) {
  fe *f = c->f;
  char key[160];
  int n = snprintf(key, sizeof key, "%u:%u:%u:%u:%d:%s", file, line, func, size,
                   write, what);
  const char *ik = fe_pool_intern(f->pool, key, (size_t)n);
  uint64_t x;
  if (fe_map_get(&c->site_map, ik, &x))
    return (uint32_t)x;
  cb_site s;
  memset(&s, 0, sizeof s);
  s.file = file;
  s.line = line;
  s.func = func;
  s.var = s.type = s.field = CB_NONE;
  s.size = size;
  s.is_write = write;
  s.is_mach = 1;
  s.text = fe_pool_intern(f->pool, what, strlen(what));
  FE_PUSH(f->sites, s);
  fe_map_put(&c->site_map, ik, f->sites.n - 1);
  return f->sites.n - 1;
}

/* VEX (valgrind's ir_opt.c) removes a guest register's write that a later
 * write of the same register in the superblock overwrites unread
 * (redundant_put_removal_BB), and then the load that computed it, whose
 * temporary nothing uses any more (dead code removal): cachegrind, which
 * instruments the optimised IR, never counts such a load. A volatile
 * bit-field's storage is read whole and mostly discarded
 * (movzx eax, byte ptr [g + 18]; movzx eax, word ptr [g + 16]; mov rax,
 * ...): those loads. Only within straight-line code: a branch or call
 * ends the search (a side exit makes the registers observable). */
void fe_mc_dead_loads(minst *ins, uint32_t n) {
  /* from the last: a load whose value only dead loads read (as their
     address: mov rdx, [rip + g]; mov rdx, [rdx]; mov edx, [rdx]; then rdx
     overwritten) is dead too, as VEX's dead code removal finds it */
  for (uint32_t i = n; i-- > 0;) {
    minst *m = &ins[i];
    m->dead = false;
    if (m->kind != MK_MEM || m->write || m->load_dst < 0 || m->len == 0 ||
        m->reg_barrier)
      continue;
    uint16_t bit = (uint16_t)(1u << m->load_dst);
    unsigned jumps = 0, steps = 0;
    for (uint32_t j = i + 1; j < n && steps++ < 256; j++) {
      const minst *x = &ins[j];
      if (x->len == 0)
        continue; /* valgrind's copies for bt: no register of ours */
      if (x->kind == MK_JMP && jumps < 3) {
        /* VEX chases an unconditional jump into the same superblock
           (--vex-guest-chase=yes, valgrind's default) */
        uint32_t lo = 0, hi = n;
        while (lo < hi) {
          uint32_t mid = lo + (hi - lo) / 2;
          if (ins[mid].pc < x->target)
            lo = mid + 1;
          else
            hi = mid;
        }
        if (lo < n && ins[lo].pc == x->target && lo != i) {
          jumps++;
          j = lo - 1;
          continue;
        }
        break;
      }
      if (x->reg_barrier || x->kind == MK_CALL || x->kind == MK_RET ||
          x->kind == MK_JMP || x->kind == MK_JCC || x->kind == MK_IJMP ||
          x->kind == MK_UNKNOWN)
        break;
      if ((x->gpr_read & bit) && !x->dead)
        break;
      if (x->gpr_full & bit) {
        m->dead = true;
        break;
      }
    }
  }
}
