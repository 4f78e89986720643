/* program.h: the Program, the contract between frontend/ and analysis/.
 *
 * A Program is a whole C program lowered from LLVM IR into flat arrays
 * that an engine can run without LLVM: functions made of blocks, blocks
 * made of operations on numbered value slots, memory operations tagged
 * with a site (where in the source, what it touches), the globals with the
 * addresses the linker gave them and their initial bytes, the debug-info
 * view of variables and C types, and the branch points with the text of
 * their conditions. The frontend builds it once; afterwards it is
 * immutable and shared by every input and every thread. Nothing here
 * refers to LLVM.
 *
 * Values. Every SSA value of a function lives in "slots" of the function's
 * frame: one 8-byte slot per scalar (cb_value), `lanes` consecutive slots
 * for a vector, one slot per flattened member for an aggregate ({i64, i1}
 * of an overflow intrinsic uses two). Integers are kept zero-extended from
 * their width; f32 is kept as a float in the slot (cb_value.f), f64 as a
 * double, pointers as the 64-bit address in the modelled process.
 *
 * Operands. A cb_operand below CB_OPND_CONST names a slot of the current
 * frame; with CB_OPND_CONST set, its low bits index program->consts (a
 * vector constant takes `lanes` consecutive entries). Addresses of globals
 * and functions are constants: the frontend has already placed them.
 */
#ifndef CBANA_PROGRAM_H
#define CBANA_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cbana/libc_names.h"

#define CB_NONE UINT32_MAX
#define CB_OPND_CONST 0x80000000u

typedef uint32_t cb_operand;

typedef union cb_value {
  uint64_t u;
  int64_t s;
  double d;
  float f;
} cb_value;

/* Element types of values. */
typedef enum cb_ty {
  CB_TY_VOID,
  CB_TY_I1,
  CB_TY_I8,
  CB_TY_I16,
  CB_TY_I32,
  CB_TY_I64,
  CB_TY_F32,
  CB_TY_F64,
  CB_TY_PTR,
  /* x87's 80-bit extended double (C's long double): 10 bytes in memory,
   * two slots as a value (see "Wide values" below). */
  CB_TY_F80,
  CB_TY_COUNT
} cb_ty;

/* Bytes an element of the type occupies in memory (I1 as one byte). */
static inline unsigned cb_ty_bytes(cb_ty t) {
  static const unsigned bytes[CB_TY_COUNT] = {0, 1, 1, 2, 4, 8, 4, 8, 8, 10};
  return bytes[t];
}

/* cb_program.op_access: the op makes no data access of its own. */
#define CB_ACCESS_NONE 0xffffu

/* A value's bits in its 8-byte slot word (integers are kept masked to
 * their type), and the shift pair that sign-extends it ((v << s) >> s):
 * the engine's interpreter and the frontend's native kernels compute
 * with both. */
static inline uint64_t cb_ty_mask(cb_ty t) {
  static const uint64_t mask[CB_TY_COUNT] = {
      0, 1, 0xff, 0xffff, 0xffffffffu, ~0ull, 0xffffffffu, ~0ull, ~0ull, ~0ull};
  return mask[t];
}
static inline unsigned cb_ty_sx_shift(cb_ty t) {
  static const unsigned shift[CB_TY_COUNT] = {0, 63, 56, 48, 32,
                                              0, 32, 0,  0,  0};
  return shift[t];
}

/* Integer predicates (LLVM's order) and floating-point predicates. */
typedef enum cb_icmp {
  CB_ICMP_EQ,
  CB_ICMP_NE,
  CB_ICMP_UGT,
  CB_ICMP_UGE,
  CB_ICMP_ULT,
  CB_ICMP_ULE,
  CB_ICMP_SGT,
  CB_ICMP_SGE,
  CB_ICMP_SLT,
  CB_ICMP_SLE
} cb_icmp;

/* Bit-encoded as in LLVM: 1 equal, 2 greater, 4 less, 8 unordered. */
typedef enum cb_fcmp {
  CB_FCMP_FALSE,
  CB_FCMP_OEQ,
  CB_FCMP_OGT,
  CB_FCMP_OGE,
  CB_FCMP_OLT,
  CB_FCMP_OLE,
  CB_FCMP_ONE,
  CB_FCMP_ORD,
  CB_FCMP_UNO,
  CB_FCMP_UEQ,
  CB_FCMP_UGT,
  CB_FCMP_UGE,
  CB_FCMP_ULT,
  CB_FCMP_ULE,
  CB_FCMP_UNE,
  CB_FCMP_TRUE
} cb_fcmp;

/* Operations. Field use per opcode (see cb_op):
 *   binary arithmetic    dst = a OP b                   ty, lanes
 *   CB_OP_FNEG           dst = -a                       ty, lanes
 *   CB_OP_ICMP/FCMP      dst(i1 x lanes) = a PRED b     ty = operand type,
 *                                                       aux = predicate
 *   CB_OP_SELECT         dst = a ? b : c (a may be a lane vector: then
 *                        ty2 = CB_TY_I1; ty2 = CB_TY_VOID (0) when a is
 *                        one i1 for all lanes)
 *   casts                dst(ty) = (ty) a(ty2)          lanes
 *   CB_OP_BITCAST        reinterpret bytes: dst ty x lanes from a of ty2
 *                        (source lanes = total bytes / bytes of ty2)
 *   CB_OP_MOV            dst = a (also freeze, and copies of aggregates of
 *                        `lanes` slots)
 *   CB_OP_GEP            dst = a + extra[aux] + sum(index_k * scale_k);
 *                        extra[aux+1] = n; for k < n:
 *                        extra[aux+2+2k] = operand | (index bits << 32)
 *                        (the index is sign-extended from its bits),
 *                        extra[aux+3+2k] = scale in bytes
 *   CB_OP_LOAD           dst = *(ty x lanes *)a         aux = site
 *   CB_OP_STORE          *(ty x lanes *)b = a           aux = site
 *   CB_OP_ALLOCA         dst = address of frame object aux (program
 *                        frame_objs); a = element count operand for a
 *                        dynamic alloca (then size = count * obj size),
 *                        CB_NONE for a fixed one
 *   CB_OP_EXTRACTELT     dst(ty) = a[b]                 lanes = of a
 *   CB_OP_INSERTELT      dst = a with [c] = b           ty, lanes
 *   CB_OP_SHUFFLE        dst[i] = concat(a, b)[mask[i]] ty, lanes = result
 *                        lanes; extra[aux] = source lanes, extra[aux+1+i]
 *                        = mask[i] (-1: undefined, any value will do)
 *   CB_OP_EXTRACTVAL     dst(lanes slots) = slots a+aux .. of an aggregate
 *   CB_OP_INSERTVAL      dst = aggregate a (extra[aux] slots in all) with
 *                        slots from extra[aux+1] replaced by b (lanes)
 *   CB_OP_PHI            dst = the value for the predecessor control came
 *                        from; extra[aux] = n; pairs (predecessor block
 *                        index within the function, operand). Phis come
 *                        first in their block and are parallel.
 *   CB_OP_CALL           dst = call; extra[aux..]: see cb_call_kind
 *   CB_OP_BR             a = i1 condition, or CB_NONE when unconditional;
 *                        successors of the block: [0] taken when true (or
 *                        the only one), [1] when false; aux = branch point
 *                        (program->branches) or CB_NONE
 *   CB_OP_SWITCH         a = value (ty); extra[aux] = n cases; pairs
 *                        (case value, successor index); default is
 *                        successor 0; branch point in extra[aux+1+2n]
 *   CB_OP_RET            a = value (lanes slots) or CB_NONE
 *   CB_OP_UNREACHABLE    the engine stops the input with an error
 *   CB_OP_WIDE           dst (lanes slots) = an operation on wide values
 *                        (below): aux = CB_WIDE_AUX(sub-op, predicate,
 *                        result bits, operand bits); a, b its operands
 *                        (b CB_NONE for one); ty, ty2 as for the sub-op
 *
 * Wide values. Integers whose width is not 1, 8, 16, 32 or 64 (clang's
 * coalesced bit-fields: i24, i40, i112, ...; __int128) live in
 * ceil(width / 64) consecutive slots of type CB_TY_I64, least significant
 * first, zero-extended from their width; an x86_fp80 (long double) in two
 * slots: its 10 bytes as in memory, the other 6 zero. Copies (phi, select,
 * mov, calls, returns, aggregates) move them as `lanes` slots like any
 * other; memory holds them in the bytes the machine code accesses (the
 * frontend splits an odd integer's load or store into the 8-, 4-, 2- and
 * 1-byte accesses of the x86 backend; an x86_fp80 is one 10-byte LOAD or
 * STORE of CB_TY_F80, its lanes 1 and its value two slots). Arithmetic,
 * compares and casts on them are CB_OP_WIDE ops, which the reference
 * interpreter alone runs (analysis/engine/engine_wide.c): the 64-bit ops keep
 * their one-slot form and their fast paths, and a wide value costs only
 * where a program has one.
 */
typedef enum cb_opcode {
  CB_OP_ADD,
  CB_OP_SUB,
  CB_OP_MUL,
  CB_OP_UDIV,
  CB_OP_SDIV,
  CB_OP_UREM,
  CB_OP_SREM,
  CB_OP_SHL,
  CB_OP_LSHR,
  CB_OP_ASHR,
  CB_OP_AND,
  CB_OP_OR,
  CB_OP_XOR,
  CB_OP_FADD,
  CB_OP_FSUB,
  CB_OP_FMUL,
  CB_OP_FDIV,
  CB_OP_FREM,
  CB_OP_FNEG,
  CB_OP_ICMP,
  CB_OP_FCMP,
  CB_OP_SELECT,
  CB_OP_TRUNC,
  CB_OP_ZEXT,
  CB_OP_SEXT,
  CB_OP_FPTRUNC,
  CB_OP_FPEXT,
  CB_OP_FPTOUI,
  CB_OP_FPTOSI,
  CB_OP_UITOFP,
  CB_OP_SITOFP,
  CB_OP_PTRTOINT,
  CB_OP_INTTOPTR,
  CB_OP_BITCAST,
  CB_OP_MOV,
  CB_OP_GEP,
  CB_OP_LOAD,
  CB_OP_STORE,
  CB_OP_ALLOCA,
  CB_OP_EXTRACTELT,
  CB_OP_INSERTELT,
  CB_OP_SHUFFLE,
  CB_OP_EXTRACTVAL,
  CB_OP_INSERTVAL,
  CB_OP_PHI,
  CB_OP_CALL,
  CB_OP_BR,
  CB_OP_SWITCH,
  CB_OP_RET,
  CB_OP_UNREACHABLE,
  CB_OP_WIDE,
  CB_OP_COUNT
} cb_opcode;

/* CB_OP_WIDE's aux: the sub-op (a cb_opcode among the arithmetic,
 * compares and casts), the predicate of a compare, the widths in bits of
 * the integer result and of the integer operand (0 for a floating-point
 * one); widths up to CB_WIDE_MAX_BITS. */
#define CB_WIDE_MAX_BITS 1023u
#define CB_WIDE_AUX(sub, pred, rbits, obits)                                   \
  ((uint32_t)(sub) | ((uint32_t)(pred) << 8) | ((uint32_t)(rbits) << 12) |     \
   ((uint32_t)(obits) << 22))
#define CB_WIDE_SUB(aux) ((aux)&0xffu)
#define CB_WIDE_PRED(aux) (((aux) >> 8) & 0xfu)
#define CB_WIDE_RBITS(aux) (((aux) >> 12) & 0x3ffu)
#define CB_WIDE_OBITS(aux) (((aux) >> 22) & 0x3ffu)

typedef struct cb_op {
  uint8_t code;  /* cb_opcode */
  uint8_t ty;    /* cb_ty of the result (or of the operands, see above) */
  uint8_t ty2;   /* source element type of casts */
  uint8_t lanes; /* 1 for scalars */
  uint32_t dst;  /* destination slot, CB_NONE when the op has no value */
  cb_operand a, b, c;
  uint32_t aux; /* site, predicate, frame object, or index into extra */
} cb_op;

/* A call's record in program->extra, starting at op.aux:
 *   [0] cb_call_kind
 *   [1] callee: function index (DIRECT), cb_libfn (LIBC), cb_intrinsic
 *       (INTRINSIC), unused (INDIRECT: the callee address is op.a)
 *   [2] site of the call (file, line, function; for library traffic)
 *   [3] n arguments
 *   [4+k] operand | (cb_ty << 32) | (lanes << 40) | (byval bytes << 48);
 *         byval bytes is non-zero for a pointer argument passed by value
 *         (the callee gets a copy of that many bytes)
 * The result type is op.ty x op.lanes (CB_TY_VOID: no result). */
typedef enum cb_call_kind {
  CB_CALL_DIRECT,
  CB_CALL_INDIRECT,
  CB_CALL_LIBC,
  CB_CALL_INTRINSIC,
  /* a C library function the program links against (the executable
   * imports or defines it) that the library model does not know:
   * callee indexes program->unmodelled. An input that reaches the call
   * stops there (CB_RUN_ERROR, naming the function). */
  CB_CALL_UNMODELLED
} cb_call_kind;

#define CB_CALL_ARG_OPERAND(x) ((cb_operand)((uint64_t)(x)&0xffffffffu))
#define CB_CALL_ARG_TY(x) ((cb_ty)(((uint64_t)(x) >> 32) & 0xff))
#define CB_CALL_ARG_LANES(x) ((unsigned)(((uint64_t)(x) >> 40) & 0xff))
#define CB_CALL_ARG_BYVAL(x) ((uint32_t)((uint64_t)(x) >> 48))

typedef struct cb_block {
  uint32_t first_op, n_ops;    /* into program->ops; the last op ends it */
  uint32_t first_succ, n_succ; /* into program->succs (block indexes
                                  within the function) */
  uint32_t first_pred, n_pred; /* into program->preds */
  uint32_t first_mach, n_mach; /* into program->mach: accesses of the
                                  machine code that the IR does not show,
                                  made each time the block runs (0: none) */
} cb_block;

/* A data access the compiled code makes beyond the IR's loads and stores:
 * a spill or reload, a scalar kept on the stack, a constant-pool load
 * (found in the executable's disassembly by the frontend). The engine
 * emits it, in block order (see `op`), at CFA + cfa_offset for a stack
 * access, else at the absolute addr. */
typedef struct cb_mach_access {
  int64_t cfa_offset; /* stack: from the function's CFA (negative) */
  uint64_t addr;      /* not stack (cfa_offset == 0): absolute address */
  uint32_t site;      /* program->sites (its line) */
  uint8_t size;
  uint8_t is_write;
  /* Where in the block the access happens. 0 or the
   * block's first op: on entry, before the block's own accesses. Else the
   * op just after a call op of the block (program->ops index): made when
   * that call returns, so that what the machine code does after a call
   * comes after the callee's traffic. A block's list is in this order. */
  uint32_t op;
  /* 0: on every entry to the block. Else only when the block is entered
   * from the function's IR block from1 - 1: the access belongs to that
   * edge in the machine code (a split edge, a loop preheader the IR does
   * not have, a copy of the block that tail duplication made for that
   * predecessor). */
  uint32_t from1;
  /* A vararg function's prologue storing a vector register into its
   * register save area: made only when the call passed a value in a vector
   * register (the caller's %al, which the prologue tests to skip the
   * eight stores; LLVM's VASTART_SAVE_XMM_REGS). */
  uint8_t va_xmm;
  /* 0: always. 1: only when the sqrt or sqrtf call just before (`op`)
   * called the library (its argument failed `x >= 0`); 2: only when it
   * did not. The code generator computes sqrt inline and calls libm in a
   * block of its own (LLVM's PartiallyInlineLibCalls): the register
   * allocator's spills around that call are made only on that path. */
  uint8_t sqrt_path;
} cb_mach_access;

typedef struct cb_param {
  uint32_t slot;
  uint8_t ty, lanes;
  uint32_t byval; /* bytes copied for a by-value aggregate, else 0 */
} cb_param;

typedef struct cb_function {
  const char *name;               /* the linker's name */
  uint32_t first_block, n_blocks; /* into program->blocks; entry first */
  uint32_t n_slots;               /* frame size in slots */
  uint32_t first_param, n_params; /* into program->params */
  uint8_t ret_ty, ret_lanes;
  bool is_vararg;
  uint64_t addr;       /* code address in the modelled process, 0 if none */
  uint32_t file, line; /* definition (program->files) */
  /* Bytes from the CFA down to rsp in the body (return address, pushes,
   * locals and spills, outgoing area), from the CFI of the machine code;
   * 0 when unknown (the engine then sizes the frame from frame_objs). */
  uint32_t frame_size;
  /* Callee-saved registers the prologue pushes (and the epilogue pops),
   * from the CFI; 0 when unknown or none. The engine emits them as 8-byte
   * writes below the return address on entry and reads on return. */
  uint8_t n_saved_regs;
  /* Of those pushes, how many the epilogue drops with `add rsp` instead of
   * popping: LLVM allocates an 8-byte frame with a `push` of a scratch
   * register (X86FrameLowering::emitSPUpdate) and frees it with `add rsp, 8`
   * when no scratch register is free to pop into. The engine reads
   * n_saved_regs - n_unpopped slots on return; 0 when unknown. */
  uint8_t n_unpopped;
  /* Compiled without optimisation (clang -O0 marks functions optnone):
   * x86's FastISel emits every IR load and store as an instruction of its
   * own, and never folds a load, an operation and a store of one address
   * into a read-modify-write instruction as SelectionDAG does. */
  bool optnone;
  /* A variadic function that calls va_start (SysV x86-64 ABI 3.5.7): its
   * register save area, 176 bytes in its frame (the six integer argument
   * registers at 0..47, xmm0..7 at 48..175), is frame object va_save1 - 1
   * (0: none). A call writes the arguments' values there and past the
   * return address (the overflow area) as the caller's and the
   * prologue's stores would (their accesses are the machine code's own,
   * cb_mach_access); va_gp and va_fp count the named parameters passed in
   * integer and vector registers. */
  uint32_t va_save1;
  uint8_t va_gp, va_fp;
} cb_function;

/* Where an access or call comes from, and what it touches. Functions are
 * the source's: code inlined into a caller keeps the function it was
 * written in (the debug location's scope). Line 0: the compiler left no
 * line; file is then the function's file. */
typedef struct cb_site {
  uint32_t file, line, col;
  uint32_t func;  /* program->src_funcs: the source function */
  uint32_t var;   /* program->vars: the variable accessed, or CB_NONE */
  uint32_t type;  /* program->types: C type of the element, or CB_NONE */
  uint32_t field; /* program->fields: struct field, or CB_NONE */
  uint32_t size;  /* bytes accessed (calls: 0) */
  uint8_t is_write;
  uint8_t is_call;  /* a call site (library traffic attributed here) */
  const char *text; /* the access as written when known: "grid[i][j]" */
  /* an access of the machine code that the IR does
   * not show (a spill or reload, a constant-pool or GOT load, a call's
   * return address, the prologue's pushes, the epilogue's pops and ret);
   * the program's own traffic, which reports may show or hide. */
  uint8_t is_mach;
  /* Appended: the process's start-up or exit traffic (ld.so and libc
   * before main and after it returns, cb_process_info); also is_call, and
   * reports count it apart from both the program's and the library
   * calls'. */
  uint8_t is_process;
  /* Appended: a call the machine code makes as a jump after its
   * function's epilogue (a tail call): no return address is pushed, the
   * callee's frame takes the caller's place, and its `ret` is the
   * caller's. */
  uint8_t is_tail;
} cb_site;

/* Source-level functions (including ones fully inlined away). */
typedef struct cb_src_func {
  const char *name;
  uint32_t file, line;
} cb_src_func;

typedef enum cb_var_kind {
  CB_VAR_GLOBAL,
  CB_VAR_LOCAL,
  CB_VAR_PARAM
} cb_var_kind;

typedef struct cb_var {
  const char *name;
  cb_var_kind kind;
  uint32_t src_func; /* locals and parameters */
  uint32_t type;     /* program->types or CB_NONE */
  uint32_t file, line;
} cb_var;

typedef enum cb_ctype_kind {
  CB_CT_BASE,
  CB_CT_POINTER,
  CB_CT_ARRAY,
  CB_CT_STRUCT,
  CB_CT_UNION,
  CB_CT_ENUM,
  CB_CT_TYPEDEF,
  CB_CT_FUNCTION
} cb_ctype_kind;

typedef struct cb_ctype {
  cb_ctype_kind kind;
  const char *name; /* "double", "struct particle", "double[64][128]" */
  uint64_t size;
  uint32_t elem;  /* pointee, array element, typedef target, or CB_NONE */
  uint64_t count; /* array elements (0: unknown) */
  uint32_t first_field, n_fields; /* struct and union members */
} cb_ctype;

typedef struct cb_field {
  const char *name;
  uint64_t offset; /* bytes from the start of the struct */
  uint64_t size;
  uint32_t type;
} cb_field;

typedef struct cb_global {
  const char *name;
  uint64_t addr, size;
  uint32_t align;
  uint32_t var;        /* program->vars or CB_NONE (compiler-made) */
  const uint8_t *init; /* size bytes with pointers resolved; NULL: zeros */
  bool is_constant;
  const char *section; /* ".data", ".bss", ".rodata", ... */
  /* A variable a library defines (stdout, optind, environ; the
   * executable's GOT points at it): the library's index in program->dl's
   * objects (> 0) and the symbol's value there, placed at that object's
   * load base plus lib_off; lib_obj 0: none */
  uint32_t lib_obj;
  uint64_t lib_off;
} cb_global;

/* A stack object (an alloca). */
typedef struct cb_frame_obj {
  uint32_t func; /* program->functions */
  uint64_t size;
  uint32_t align;
  uint32_t var;         /* program->vars or CB_NONE */
  int64_t frame_offset; /* from the frame's CFA when the machine code says
                           so, else CB_FRAME_OFFSET_UNKNOWN */
} cb_frame_obj;
#define CB_FRAME_OFFSET_UNKNOWN INT64_MIN

/* A point where control splits on a condition of the source. */
typedef struct cb_branch {
  uint32_t func, block; /* program->functions, block within it */
  uint32_t file, line, col;
  const char *text; /* the condition as written: "n % 20 == 0" */
  bool loop_cond;   /* the condition of a for, while or do */
  int8_t sense;     /* the compiled branch against the source's condition:
                       +1 its true side (successor 0) is the source's true,
                       -1 inverted (LLVM negated the test or rotated the
                       loop), 0 unknown (counts stay in the compiled sense).
                       Set by the frontend from where each side leads. */
} cb_branch;

/* Where the engine attributes a function's entry and exit traffic that
 * the IR does not show (program->fn_mach, one per function). */
typedef struct cb_fn_mach {
  uint32_t entry_site; /* the prologue's pushes (writes); CB_NONE: unknown */
  uint32_t exit_site;  /* the epilogue's pops and ret's return-address read */
} cb_fn_mach;

/* How well the machine code matched the IR (frontend/machine.c). */
typedef struct cb_mach_stats {
  uint32_t functions;        /* functions disassembled */
  uint32_t blocks;           /* machine blocks with accesses the IR hides */
  uint32_t blocks_unmatched; /* of those, blocks matched to no IR block:
                                their accesses are left out (IR alone) */
  uint32_t accesses;         /* hidden accesses attached to IR blocks */
  uint32_t accesses_dropped; /* hidden accesses of unmatched blocks */
  /* Loads and stores the backend merged into one wider access of the
   * first of them (program->op_access); and the IR accesses of paired
   * blocks whose machine code made fewer, wider accesses that no group
   * proven from it explains (left one for one, as the IR has them). */
  uint32_t accesses_merged;
  uint32_t merges_unproven;
  /* Odd-width integer loads and stores (an i24's or i152's pieces) whose
   * accesses were read from the machine code's (program->op_access), and
   * those left as the Program splits them (program->unpaired). */
  uint32_t wide_paired, wide_unpaired;
  /* IR loads whose machine load valgrind's optimiser drops (its value
   * overwritten unread, VEX's redundant_put_removal_BB): no access. */
  uint32_t loads_dropped;
} cb_mach_stats;

/* Native kernels: the contract between the frontend's JIT and the
 * engine is cbana/kernel.h. */
typedef struct cb_kernel_io cb_kernel_io;
typedef int (*cb_kernel_fn)(cb_kernel_io *io);
typedef struct cb_tpl_kernel_io cb_tpl_kernel_io;
typedef uint64_t (*cb_tpl_kernel_fn)(cb_tpl_kernel_io *io);
typedef int (*cb_kernel_entry_fn)(cb_kernel_io *io, const uint64_t *args,
                                  uint32_t nargs, uint32_t call_op,
                                  uint32_t block, uint32_t site,
                                  uint32_t ret_dst, uint64_t ra_record);

/* The path signature's mix of one run of equal branch outcomes (outcome
 * word v, length n) into h, here because the kernels mix runs too. The
 * run is made one word first, off the chain of signatures; the chain
 * itself is an xor, a multiply and a rotation (murmur3's multiplier),
 * so that a branchy loop's kernel does not wait on it: two mixes in a
 * row, as this was before, cost pr's and tc's kernels 15 % of their
 * time (bench/results/fast_notes.md). */
#define CB_SIG_RUN_MUL 0x9e3779b97f4a7c15ull
#define CB_SIG_MIX_MUL 0xff51afd7ed558ccdull
#define CB_SIG_MIX_ROT 29
static inline uint64_t cb_path_sig_run(uint64_t h, uint64_t v, uint64_t n) {
  uint64_t w = v * CB_SIG_RUN_MUL + n;
  h = (h ^ w) * CB_SIG_MIX_MUL;
  return h << CB_SIG_MIX_ROT | h >> (64 - CB_SIG_MIX_ROT);
}

typedef struct cb_program {
  const char **files; /* source files, as given to the compiler */
  uint32_t n_files;
  cb_function *functions;
  uint32_t n_functions;
  uint32_t main_function; /* index of main, CB_NONE when absent */
  cb_block *blocks;
  uint32_t n_blocks;
  uint32_t *succs, *preds;
  cb_op *ops;
  uint32_t n_ops;
  cb_param *params;
  cb_value *consts;
  uint32_t n_consts;
  int64_t *extra;
  uint32_t n_extra;
  cb_site *sites;
  uint32_t n_sites;
  cb_src_func *src_funcs;
  uint32_t n_src_funcs;
  cb_var *vars;
  uint32_t n_vars;
  cb_ctype *types;
  uint32_t n_types;
  cb_field *fields;
  uint32_t n_fields;
  cb_global *globals;
  uint32_t n_globals;
  cb_frame_obj *frame_objs;
  uint32_t n_frame_objs;
  cb_branch *branches;
  uint32_t n_branches;
  cb_mach_access *mach; /* see cb_block.first_mach; NULL: none */
  uint32_t n_mach;
  /* The modelled process image. */
  uint64_t load_base;   /* where the PIE is placed (0 for a non-PIE) */
  uint64_t image_end;   /* first address past the executable's segments */
  const char *exe_path; /* the ELF executable built with the same flags
                           (NULL when the caller did not ask to keep it) */
  /* Added by the frontend: */
  uint64_t synth_end; /* first address past the globals the frontend placed
                         itself in the range past image_end (string
                         literals without a symbol it could not find in
                         .rodata, external objects such as stdout); a heap
                         model must start above it */
  void *owned;        /* the frontend's storage for strings and initial
                         bytes (freed by cb_program_free; NULL in a
                         hand-built Program) */
  /* the machine code's view, NULL when the frontend
   * had no executable. fn_mach: per function (n_functions). ra_site: per
   * site (n_sites); for a call site, the site (is_mach, same line) of the
   * `call`'s 8-byte return-address write, else CB_NONE. */
  cb_fn_mach *fn_mach;
  uint32_t *ra_site;
  cb_mach_stats mach_stats;
  /* Per op (n_ops), NULL when every load and store accesses what it
   * moves (its type x lanes): where the machine code merged adjacent
   * loads or stores into one wider access (x86's DAGCombiner,
   * MergeConsecutiveStores: a copy or swap of two adjacent doubles is one
   * 16-byte load and one 16-byte store), the first of a group accesses
   * the group's bytes and the others CB_ACCESS_NONE; each op still moves
   * its own value. 0: as the op says. The low byte is the access's size;
   * the high byte, a signed offset from the op's address: the machine
   * code reads an odd-width integer's piece elsewhere than the Program's
   * split puts it (machine_merge.c). See cb_op_access_bytes and
   * cb_op_access_off. */
  uint16_t *op_access;
  /* the tables ld.so reads when it binds each PLT
   * function on its first call; NULL when the frontend had no executable
   * or could not read the libraries. */
  struct cb_dl_info *dl;
  /* the target fuses llvm.fmuladd into one FMA
   * instruction (a function's target features have +fma: -mfma,
   * -march=haswell ...). Without, x86-64's backend emits a multiply and
   * an add, two roundings, and so must an engine, to print what the
   * program prints. */
  bool fmuladd_fused;
  /* Per function, its native kernel or NULL (cbana/kernel.h): filled by
   * the frontend's compile thread while the engine runs, each entry
   * read atomically. `jit` owns their code (cb_program_free). The engine
   * asks for a function's kernel through kernel_request once the
   * function is hot. */
  cb_kernel_fn *kernels;
  void *jit;
  void (*kernel_request)(const struct cb_program *p, uint32_t fi);
  bool kernel_eager;       /* ask at a function's first block; the compile is
                              waited for (the frontend's eager_kernels) */
  uint32_t n_kernels;      /* functions with a kernel */
  double kernel_compile_s; /* the compile's CPU time */
  /* translation units whose bitcode and object came from the cache
   * directory, not from clang (frontend/tu_cache.c) */
  uint32_t units_reused;
  /* A kernel has code only for the blocks that have run before its
   * compile, and leaves to the interpreter at the others; when those run
   * much, the function is compiled again with them (frontend/
   * jit_compile.c). kernel_ran, per global block: 1 once the engine has
   * run it outside a kernel (the engine writes, the compile reads, byte
   * by byte). kernel_code, per global block: 1 where the function's
   * kernel was compiled with the block (it has code for it, or never
   * compiles it: the engine calls it, and it leaves at once).
   * kernel_more, per function: the ops the engine may still run in its
   * blocks without code before it asks for the kernel again
   * (kernel_request); 0 once asked. All NULL without kernels. */
  uint8_t *kernel_ran;
  const uint8_t *kernel_code;
  uint64_t *kernel_more;
  /* Per function: the ops its kernel, compiled quickly to slower code,
   * may still run (counted from its entries) before the engine asks for
   * it again, to be compiled to faster code; 0 once asked or never. */
  uint64_t *kernel_up;
  /* Per function: the ops of its blocks the interpreter ran rather than
   * a kernel, counted a block at a time from where it took over (a
   * block's start, or where a kernel left), for --stats; NULL without
   * kernels. */
  uint64_t *kernel_interp;
  /* Per global block that is its own successor: its loop's iterations
   * made natively for a loop template (cbana/kernel.h's
   * cb_tpl_kernel_io), or NULL (none yet, or an op the kernels do not
   * compile); filled with the function's kernel, read atomically. */
  cb_tpl_kernel_fn *tpl_kernels;
  /* Per function: its frame's push for a call through a pointer made by
   * a kernel (cbana/kernel.h's cb_kernel_io.entries), or NULL (no kernel
   * yet, or a callee such a call leaves to the engine); filled with the
   * function's kernel, read atomically. */
  cb_kernel_entry_fn *kernel_entries;
  /* the kernels' ops compiled, their functions' ops, and the compiles
   * that replaced a kernel with more blocks or with faster code
   * (--stats), set with n_kernels */
  uint64_t kernel_ops_compiled, kernel_ops_whole;
  uint32_t kernel_recompiles, kernel_tier_ups;
  /* Appended: the process's start-up and exit, from cbana's own probes;
   * NULL when the frontend had no executable. */
  struct cb_process_info *process;
  /* Appended: the C library functions the program references that the
   * library model does not know (CB_CALL_UNMODELLED), by name, and the
   * address their function pointers hold (one of its own per function in
   * the synthetic range, 0 while none is taken), n_unmodelled of each. */
  const char **unmodelled;
  uint64_t *unmodelled_addr;
  uint32_t n_unmodelled;
  /* Appended: "file:line" of the source lines whose loads and stores the
   * machine code makes otherwise than the Program's ops and which the
   * frontend could not pair with it (an odd-width integer's pieces, an
   * inline copy's), so their accesses are the Program's and may differ
   * from cachegrind's; `analyze` warns of them. n_unpaired of them. */
  const char **unpaired;
  uint32_t n_unpaired;
} cb_program;

/* The ops of function fn, [*first, *end) in program->ops (its blocks'
 * ops are consecutive); none for a function without a body. */
static inline void cb_function_ops(const cb_program *p, const cb_function *fn,
                                   uint32_t *first, uint32_t *end) {
  if (fn->n_blocks == 0) {
    *first = *end = 0;
    return;
  }
  const cb_block *last = &p->blocks[fn->first_block + fn->n_blocks - 1];
  *first = p->blocks[fn->first_block].first_op;
  *end = last->first_op + last->n_ops;
}

/* The bytes load or store op i accesses, `bytes` being what it moves
 * (its type x lanes): 0 for none (program->op_access). */
static inline unsigned cb_op_access_bytes(const cb_program *p, uint32_t i,
                                          unsigned bytes) {
  if (__builtin_expect(!p->op_access || !p->op_access[i], 1))
    return bytes;
  return p->op_access[i] == CB_ACCESS_NONE ? 0u : p->op_access[i] & 0xffu;
}

/* Where op i's access starts, from the address it moves its value at. */
static inline int64_t cb_op_access_off(const cb_program *p, uint32_t i) {
  if (__builtin_expect(!p->op_access || !p->op_access[i], 1) ||
      p->op_access[i] == CB_ACCESS_NONE)
    return 0;
  return (int8_t)(p->op_access[i] >> 8);
}

/* The start-up and exit traffic of ld.so and libc (docs/process-model.md
 * section 8): what runs before main's first instruction (ld.so's
 * relocation and symbol lookups, libc's initialisation, _start up to
 * `call main`) and after main returns (exit: atexit handlers, _dl_fini,
 * stdio's flush and cleanup). cbana never runs the program for it: the
 * frontend builds two probes of its own with the program's compiler,
 * flags and libraries, the start-up probe importing the same symbols with
 * the same relocations as the executable (ld.so's work depends on them),
 * the exit probe leaving stdio in each state the engine may end in; the
 * analysis runs them once under `valgrind --tool=lackey` (cached) and the
 * engine replays their traces, with each address inside a probe's image
 * mapped onto the program's (same relocation target, else same section,
 * else same offset) and, for the exit, the stack moved to where exit runs. */
typedef struct cb_addr_map {
  uint64_t lo, hi, to; /* [lo, hi) of the probe -> to + (a - lo) */
} cb_addr_map;

typedef struct cb_process_probe {
  const char *exe;    /* the probe's executable (in the cache) */
  uint64_t main_addr; /* its main's first instruction, as loaded */
  uint64_t lo, hi;    /* its image as loaded: what the map applies to */
  cb_addr_map *map;   /* the narrowest entry holding an address wins */
  uint32_t n_map;
} cb_process_probe;

typedef struct cb_process_info {
  bool ok; /* false: not modelled, `why` says why */
  char why[200];
  cb_process_probe startup, exit;
  uint32_t startup_site, exit_site; /* is_process sites of the Program */
  /* The exit mode (enum cb_process_exit_mode) the run likely ends in,
   * from the executable's imports: only which exit trace the analysis
   * makes ahead of its need (process.c). */
  uint8_t exit_mode_guess;
} cb_process_info;

/* ld.so's lazy binding (glibc 2.36 elf/dl-runtime.c `_dl_fixup`,
 * elf/dl-lookup.c `_dl_lookup_symbol_x`, `do_lookup_x`, `check_match`):
 * what it reads of the ELF files for one symbol, as addresses relative to
 * each object's load base (the ELF's vaddrs). The frontend reads the
 * executable and the libraries it finds on this system; the engine adds
 * the load bases and ld.so's own data (docs/process-model.md section 7).
 * The search scope is the executable's: the executable, valgrind's core
 * preload (when installed), then DT_NEEDED breadth-first. */
#define CB_DL_MAX_OBJS 8
typedef struct {
  char soname[48];     /* "" for the executable */
  uint64_t dyn_symtab; /* where .dynamic's DT_SYMTAB value sits */
  uint64_t dyn_strtab; /* DT_STRTAB's */
  uint64_t dyn_jmprel; /* DT_JMPREL's (the executable's) */
  uint64_t dyn_versym; /* DT_VERSYM's (the executable's) */
  uint64_t span;       /* page-rounded extent of its PT_LOAD segments */
  bool has_gnu_hash;   /* false: do_lookup_x's walk is not modelled */
  /* its GNU build id (NT_GNU_BUILD_ID), which names the exact build the
   * library model's offsets belong to; build_id_len 0: none */
  uint8_t build_id[20];
  uint8_t build_id_len;
} cb_dl_object;

typedef struct {
  uint64_t bloom;   /* the bloom word read */
  uint64_t bucket;  /* the bucket read; 0: the bloom filter rejected */
  uint64_t chain;   /* the first chain word read; 0: empty bucket */
  uint32_t n_chain; /* chain words read (up to the match or the end) */
  bool found;       /* defined here: the lookup stops */
  bool ifunc;       /* STT_GNU_IFUNC: _dl_fixup calls its resolver */
  bool weak;        /* STB_WEAK: found_it reads GLRO(dl_dynamic_weak) */
  uint64_t sym;     /* the match's .dynsym entry */
  uint64_t name;    /* its name in .dynstr */
  uint64_t versym;  /* its .gnu.version entry */
  uint64_t vername; /* its version's name (.gnu.version_d aux), 0: none */
  uint16_t ver_ndx; /* its version index */
} cb_dl_probe;

typedef struct {
  char name[32];    /* the function */
  uint64_t got;     /* its GOT slot (the executable) */
  uint64_t rela;    /* its .rela.plt entry */
  uint64_t sym;     /* its .dynsym entry */
  uint64_t str;     /* its name in .dynstr */
  uint32_t len;     /* strlen of the name */
  uint16_t ver_ndx; /* its .gnu.version index (needed version) */
  uint64_t versym;  /* its .gnu.version entry */
  uint64_t vername; /* the needed version's name, 0: none */
  uint32_t vername_len;
  uint32_t hash;     /* dl_new_hash of the name */
  uint32_t n_probes; /* objects searched, the last one defines it */
  cb_dl_probe probes[CB_DL_MAX_OBJS];
} cb_plt_slot;

typedef struct cb_dl_info {
  uint32_t n_objs;
  bool preload;      /* objs[1] is valgrind's vgpreload_core */
  uint64_t pltgot;   /* the executable's .got.plt (DT_PLTGOT): PLT0 reads
                        its words 1 (the link map) and 2 (the resolver) */
  uint16_t ver_high; /* the executable's highest version index: the size of
                        its l_versions array, allocated before the
                        libraries' (elf/dl-version.c) */
  cb_dl_object objs[CB_DL_MAX_OBJS];
  uint32_t n_slots;
  cb_plt_slot *slots; /* malloc'd with the struct: freed as one block */
} cb_dl_info;

/* Frees a Program and everything it owns (implemented by the frontend,
 * which allocates it): the struct and every array with free(), strings
 * and initial bytes through `owned`. A hand-built Program may use it too
 * when it malloc's the struct and arrays and leaves `owned` NULL. */
void cb_program_free(cb_program *p);

static inline const cb_value *cb_program_const(const cb_program *p,
                                               cb_operand o) {
  return &p->consts[o & ~CB_OPND_CONST];
}

#endif
