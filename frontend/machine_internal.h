/* machine_internal.h: shared between disasm.c (decoding the executable's
 * instructions, its line table and call-frame rules) and machine.c (pairing
 * machine blocks with IR blocks); never installed. */
#ifndef CBANA_MACHINE_INTERNAL_H
#define CBANA_MACHINE_INTERNAL_H

#include "fe_internal.h"

#include <elfutils/libdw.h>
#include <llvm-c/Disassembler.h>

/* ---- line table ---------------------------------------------------------
 */

typedef struct lrow {
  uint64_t addr;
  const char *file; /* interned in the frontend's pool */
  uint32_t line;
  bool end;
} lrow;

typedef FE_VEC(lrow) lrows;

/* ---- instructions --------------------------------------------------------
 */

enum {
  MK_NONE,   /* no data access */
  MK_MEM,    /* an IR-visible access */
  MK_STACK,  /* hidden: frame-relative, no index register */
  MK_CONST,  /* hidden: rip-relative, no IR global */
  MK_PUSH,   /* push of a register */
  MK_POP,    /* pop of a register */
  MK_CALL,   /* call */
  MK_RET,    /* ret */
  MK_JMP,    /* unconditional jump (direct) */
  MK_JCC,    /* conditional jump */
  MK_IJMP,   /* indirect jump: successors unknown */
  MK_UNKNOWN /* an access cbana does not classify (left to the IR) */
};

typedef struct minst {
  uint64_t pc; /* file address */
  uint8_t len, kind, size, write;
  bool stack_indexed; /* MK_MEM through the frame with an index register */
  uint64_t target;    /* branch target (file address), or rip-relative
                         address (MK_CONST / MK_MEM) */
  int64_t cfa_off;    /* MK_STACK: from the CFA */
  uint32_t file, line;
  bool has_cfa;
  /* a store's source, when an argument register: 0..5 rdi, rsi, rdx, rcx,
     r8, r9; 8..15 xmm0..xmm7; else -1 (a vararg prologue's spills) */
  int8_t src_arg;
  bool is_sqrt; /* sqrtsd, sqrtss (or their VEX forms) */
  /* bt (1) or bts, btr, btc (2) of a register by a register: valgrind
     copies the register to rsp - 288 and tests the bit there (VEX's
     guest_amd64_toIR.c, dis_bt_G_E); size: the register's */
  uint8_t vex_bt;
  bool wrapped;  /* a push or pop of a shrink-wrapped prologue (MK_STACK) */
  bool arg_push; /* a push of a call's stack argument (MK_STACK) */
  /* `sub rsp, IMM` (1) or `and rsp, IMM` (2, a realignment), with IMM:
     the prologue's frame allocation */
  uint8_t sp_op;
  int64_t sp_imm;
  /* MK_MEM: the displacement, and the base and index registers as one
     number (equal numbers: the same registers) */
  int64_t disp;
  int32_t areg;
  /* general registers (bit i: rax 0 .. r15 15) the instruction reads, and
     those it writes whole without reading; a barrier uses others or
     changes control; load_dst: the register a plain load fills, else -1 */
  uint16_t gpr_read, gpr_full;
  bool reg_barrier;
  int8_t load_dst;
  /* a load whose value the next instructions overwrite unread: VEX's
     optimiser drops it (fe_mc_dead_loads) and cachegrind never sees it */
  bool dead;
} minst;

typedef struct mctx {
  fe *f;
  LLVMDisasmContextRef dc;
  lrows rows;
  Dwarf_CFI *cfi;
  fe_map file_of;         /* interned DWARF path -> files index + 1 */
  const char **real_srcs; /* realpath of each program file, lazily */
  uint32_t n_real;
  uint64_t base;
  FE_VEC(uint32_t) mach_sites_keys;
  fe_map site_map; /* interned key text -> site */
  /* frame offsets of stack objects DWARF did not place, from the machine
     accesses matched with the IR's accesses of them (per frame object;
     CB_FRAME_OFFSET_UNKNOWN: none seen; fo_bad: two disagree) */
  int64_t *fo_new;
  uint8_t *fo_bad;
} mctx;

/* machine_ir.c: each inline copy of function fi (lower_memop.c) in the
 * order of the machine code's accesses; the machine blocks: IR block
 * paired with each (CB_NONE: none, or on an edge), first instruction and
 * count. */
void fe_mc_order_copies(mctx *c, uint32_t fi, const minst *ins, uint32_t n_mb,
                        const uint32_t *mir, const uint32_t *mfirst,
                        const uint32_t *mcount);
/* machine_merge.c: the loads and stores of function fi that the machine
 * code merged into one wider access (fe.op_access); the machine blocks
 * as for fe_mc_order_copies. */
void fe_mc_merged(mctx *c, uint32_t fi, const minst *ins, uint32_t n_mb,
                  const uint32_t *mir, const uint32_t *mfirst,
                  const uint32_t *mcount);
/* machine_merge.c: the accesses the machine code makes for function fi's
 * odd-width integer loads and stores (lower_wide.c's pieces), in
 * fe.op_access; the lines it cannot pair go to fe.unpaired. */
void fe_mc_wide(mctx *c, uint32_t fi, const minst *ins, uint32_t n_mb,
                const uint32_t *mir, const uint32_t *mfirst,
                const uint32_t *mcount);
/* Notes file:line in fe.unpaired (once). */
void fe_mc_unpaired(fe *f, uint32_t file, uint32_t line);
/* disasm.c */
/* Marks the loads of ins[0..n) whose register the straight-line code
   after them overwrites before anything reads it. */
void fe_mc_dead_loads(minst *ins, uint32_t n);
void fe_mc_read_lines(fe *f, Dwarf *dw, lrows *rows);
/* The row in effect at pc (file address), or NULL. */
const lrow *fe_mc_line_at(const lrows *rows, uint64_t pc);
/* The CFA rule at pc: CFA = reg + off (DWARF register numbers). */
bool fe_mc_cfa_rule(mctx *c, uint64_t pc, int *reg, int64_t *off);
/* The program file for a DWARF path. */
uint32_t fe_mc_file_index(mctx *c, const char *path);
/* Decodes one instruction's text into m. */
void fe_mc_classify(mctx *c, minst *m, const char *text, uint64_t frame);
/* The source function of Program function fi, or CB_NONE. */
uint32_t fe_mc_src_func(fe *f, uint32_t fi);
/* The site (made on first use) of a machine-code access. */
uint32_t fe_mc_site(mctx *c, uint32_t file, uint32_t line, uint32_t func,
                    uint32_t size, bool write, const char *what);

/* machine_ir.c */
/* Per slot of function fi: FE_MC_ALLOCA and/or FE_MC_BYVAL when it
   holds an address derived from an alloca or a by-value parameter
   (through GEPs, casts, phis and selects); calloc'ed. */
enum { FE_MC_ALLOCA = 1, FE_MC_BYVAL = 2 };
uint8_t *fe_mc_alloca_slots(fe *f, uint32_t fi);
/* Is this call op a call in the machine code too (not an intrinsic the
   backend expands inline)? */
bool fe_mc_real_call(fe *f, const cb_op *op);
/* For each slot holding a stack object's address plus a constant: the
   frame object (else CB_NONE) and the offset. */
void fe_mc_alloca_bases(fe *f, uint32_t fi, uint32_t *fo_of, int64_t *off);
/* Machine access m is the IR's access ops[opi] of a stack object: records
   where the machine code put it (c->fo_new) when DWARF did not say. */
void fe_mc_derive_offset(mctx *c, uint32_t opi, const minst *m,
                         const uint32_t *fo_of, const int64_t *off,
                         uint32_t n_slots);

#endif
