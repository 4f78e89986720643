/* names.c: short names for the enums of program.h (frontend.h). */
#include "cbana/frontend.h"

const char *cb_opcode_name(cb_opcode op) {
  static const char *const names[CB_OP_COUNT] = {
      "add",       "sub",      "mul",        "udiv",      "sdiv",
      "urem",      "srem",     "shl",        "lshr",      "ashr",
      "and",       "or",       "xor",        "fadd",      "fsub",
      "fmul",      "fdiv",     "frem",       "fneg",      "icmp",
      "fcmp",      "select",   "trunc",      "zext",      "sext",
      "fptrunc",   "fpext",    "fptoui",     "fptosi",    "uitofp",
      "sitofp",    "ptrtoint", "inttoptr",   "bitcast",   "mov",
      "gep",       "load",     "store",      "alloca",    "extractelt",
      "insertelt", "shuffle",  "extractval", "insertval", "phi",
      "call",      "br",       "switch",     "ret",       "unreachable",
      "wide"};
  return (unsigned)op < CB_OP_COUNT ? names[op] : "?";
}

const char *cb_ty_name(cb_ty t) {
  static const char *const names[CB_TY_COUNT] = {
      "void", "i1", "i8", "i16", "i32", "i64", "f32", "f64", "ptr", "f80"};
  return (unsigned)t < CB_TY_COUNT ? names[t] : "?";
}

const char *cb_libfn_name(cb_libfn fn) {
  static const char *const names[] = {
#define X(id, nm) nm,
      CB_LIBC_FUNCTIONS(X)
#undef X
  };
  return (unsigned)fn < CB_LIBC_COUNT ? names[fn] : "?";
}

const char *cb_intrinsic_name(cb_intrinsic i) {
  static const char *const names[] = {
#define X(id, nm) nm,
      CB_INTRINSICS(X)
#undef X
  };
  return (unsigned)i < CB_INTR_COUNT ? names[i] : "?";
}
