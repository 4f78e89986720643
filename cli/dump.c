/* cbana dump: compiles and lowers the program, then prints the Program:
 * functions, blocks, loops, memory sites with what they access, globals
 * with addresses and sizes, branch points with their conditions. */
#include "cache_dir.h"
#include "commands.h"

#include "cbana/cfg.h"
#include "cbana/engine.h"
#include "cbana/frontend.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dump_usage(void) {
  printf("usage: cbana dump FILE.c... [--cflags \"FLAGS\"] [-p DIR]\n"
         "                  [--format text|json] [--load-base ADDR]\n"
         "                  [--no-ops] [--no-reuse] [--keep-exe PATH]\n\n"
         "Compiles the program with clang (default flags -O2; -g is always\n"
         "added), lowers it and prints what the analysis sees: functions,\n"
         "blocks and operations, loops, memory sites with their source\n"
         "location and the variable, type and field they access, globals\n"
         "with addresses and sizes, and branch points with the condition as\n"
         "written. -p DIR takes each file's flags from\n"
         "DIR/compile_commands.json. --no-reuse compiles every source\n"
         "again (docs/speed.md).\n");
}

static const char *file_of(const cb_program *p, uint32_t f) {
  return f < p->n_files ? p->files[f] : "?";
}

static void json_str(FILE *o, const char *s) {
  if (!s) {
    fputs("null", o);
    return;
  }
  fputc('"', o);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(o, "\\%c", c);
    else if (c == '\n')
      fputs("\\n", o);
    else if (c == '\t')
      fputs("\\t", o);
    else if (c < 0x20)
      fprintf(o, "\\u%04x", c);
    else
      fputc(c, o);
  }
  fputc('"', o);
}

static void print_operand(FILE *o, const cb_program *p, cb_operand x) {
  if (x == CB_NONE) {
    fputs("-", o);
  } else if (x & CB_OPND_CONST) {
    const cb_value *v = cb_program_const(p, x);
    fprintf(o, "$%" PRId64, v->s);
  } else {
    fprintf(o, "%%%u", x);
  }
}

static void print_const(FILE *o, const cb_program *p, cb_operand x, cb_ty t) {
  if (!(x & CB_OPND_CONST) || x == CB_NONE) {
    print_operand(o, p, x);
    return;
  }
  const cb_value *v = cb_program_const(p, x);
  if (t == CB_TY_F64)
    fprintf(o, "%g", v->d);
  else if (t == CB_TY_F32)
    fprintf(o, "%gf", (double)v->f);
  else if (t == CB_TY_PTR)
    fprintf(o, "0x%" PRIx64, v->u);
  else
    fprintf(o, "%" PRId64, v->s);
}

static void site_desc(FILE *o, const cb_program *p, uint32_t si) {
  const cb_site *s = &p->sites[si];
  fprintf(o, "%s:%u:%u", file_of(p, s->file), s->line, s->col);
  if (s->func != CB_NONE)
    fprintf(o, " in %s", p->src_funcs[s->func].name);
  if (s->var != CB_NONE) {
    const cb_var *v = &p->vars[s->var];
    fprintf(o, " var %s", v->name);
  }
  if (s->field != CB_NONE)
    fprintf(o, " field %s", p->fields[s->field].name);
  if (s->type != CB_NONE)
    fprintf(o, " type %s", p->types[s->type].name);
}

static void print_op(FILE *o, const cb_program *p, const cb_op *op) {
  if (op->dst != CB_NONE)
    fprintf(o, "%%%u = ", op->dst);
  fprintf(o, "%s", cb_opcode_name((cb_opcode)op->code));
  if (op->code != CB_OP_BR && op->code != CB_OP_UNREACHABLE)
    fprintf(o, " %s", cb_ty_name((cb_ty)op->ty));
  if (op->lanes > 1)
    fprintf(o, "x%u", op->lanes);
  switch (op->code) {
  case CB_OP_GEP: {
    fputc(' ', o);
    print_operand(o, p, op->a);
    fprintf(o, " + %" PRId64, p->extra[op->aux]);
    int64_t n = p->extra[op->aux + 1];
    for (int64_t k = 0; k < n; k++) {
      uint64_t x = (uint64_t)p->extra[op->aux + 2 + 2 * k];
      fputs(" + ", o);
      print_operand(o, p, (cb_operand)(x & 0xffffffffu));
      fprintf(o, "*%" PRId64, p->extra[op->aux + 3 + 2 * k]);
    }
    return;
  }
  case CB_OP_LOAD:
    fputs(" [", o);
    print_operand(o, p, op->a);
    fprintf(o, "] ; s%u ", op->aux);
    site_desc(o, p, op->aux);
    return;
  case CB_OP_STORE:
    fputc(' ', o);
    print_const(o, p, op->a, (cb_ty)op->ty);
    fputs(" -> [", o);
    print_operand(o, p, op->b);
    fprintf(o, "] ; s%u ", op->aux);
    site_desc(o, p, op->aux);
    return;
  case CB_OP_ALLOCA:
    fprintf(o, " frame_obj %u", op->aux);
    return;
  case CB_OP_PHI: {
    int64_t n = p->extra[op->aux];
    for (int64_t k = 0; k < n; k++) {
      fprintf(o, " [bb%" PRId64 ": ", p->extra[op->aux + 1 + 2 * k]);
      print_const(o, p, (cb_operand)p->extra[op->aux + 2 + 2 * k],
                  (cb_ty)op->ty);
      fputc(']', o);
    }
    return;
  }
  case CB_OP_CALL: {
    const int64_t *x = &p->extra[op->aux];
    switch ((cb_call_kind)x[0]) {
    case CB_CALL_DIRECT:
      fprintf(o, " %s", p->functions[x[1]].name);
      break;
    case CB_CALL_LIBC:
      fprintf(o, " libc:%s", cb_libfn_name((cb_libfn)x[1]));
      break;
    case CB_CALL_INTRINSIC:
      fprintf(o, " llvm:%s", cb_intrinsic_name((cb_intrinsic)x[1]));
      break;
    case CB_CALL_UNMODELLED:
      fprintf(o, " unmodelled:%s",
              (uint64_t)x[1] < p->n_unmodelled ? p->unmodelled[x[1]] : "?");
      break;
    case CB_CALL_INDIRECT:
      fputs(" *", o);
      print_operand(o, p, op->a);
      break;
    }
    fputc('(', o);
    for (int64_t k = 0; k < x[3]; k++) {
      if (k)
        fputs(", ", o);
      print_const(o, p, CB_CALL_ARG_OPERAND(x[4 + k]),
                  CB_CALL_ARG_TY(x[4 + k]));
      if (CB_CALL_ARG_BYVAL(x[4 + k]))
        fprintf(o, " byval(%u)", CB_CALL_ARG_BYVAL(x[4 + k]));
    }
    fprintf(o, ") ; s%" PRId64 " ", x[2]);
    site_desc(o, p, (uint32_t)x[2]);
    return;
  }
  case CB_OP_BR:
    if (op->a != CB_NONE) {
      fputc(' ', o);
      print_operand(o, p, op->a);
    }
    if (op->aux != CB_NONE)
      fprintf(o, " ; branch %u", op->aux);
    return;
  case CB_OP_SWITCH: {
    fputc(' ', o);
    print_operand(o, p, op->a);
    int64_t n = p->extra[op->aux];
    for (int64_t k = 0; k < n; k++)
      fprintf(o, " [%" PRId64 " -> succ %" PRId64 "]",
              p->extra[op->aux + 1 + 2 * k], p->extra[op->aux + 2 + 2 * k]);
    fprintf(o, " ; branch %" PRId64, p->extra[op->aux + 1 + 2 * n]);
    return;
  }
  case CB_OP_ICMP:
  case CB_OP_FCMP:
    fprintf(o, " pred%u", op->aux);
    break;
  case CB_OP_EXTRACTVAL:
    fprintf(o, " @%u", op->aux);
    break;
  default:
    break;
  }
  cb_operand ops[3] = {op->a, op->b, op->c};
  for (int k = 0; k < 3; k++)
    if (ops[k] != CB_NONE) {
      fputc(' ', o);
      print_const(o, p, ops[k],
                  op->code == CB_OP_SELECT && k == 0 ? CB_TY_I1
                  : op->ty2 && k == 0                ? (cb_ty)op->ty2
                                                     : (cb_ty)op->ty);
    }
}

static void dump_text(FILE *o, const cb_program *p, const cb_cfg_info *cfg,
                      bool with_ops) {
  fprintf(o,
          "program: %u functions, %u blocks, %u ops, %u sites, %u globals, "
          "%u branch points\n",
          p->n_functions, p->n_blocks, p->n_ops, p->n_sites, p->n_globals,
          p->n_branches);
  fprintf(o,
          "image: load_base 0x%" PRIx64 " image_end 0x%" PRIx64
          " synth_end 0x%" PRIx64 "\n",
          p->load_base, p->image_end, p->synth_end);
  fprintf(o,
          "machine code: %u functions, %u blocks with hidden accesses, %u "
          "unmatched (IR alone there), %u accesses attached, %u left out\n",
          p->mach_stats.functions, p->mach_stats.blocks,
          p->mach_stats.blocks_unmatched, p->mach_stats.accesses,
          p->mach_stats.accesses_dropped);
  fprintf(o,
          "merged accesses: %u loads and stores merged into a neighbour's "
          "wider access, %u wider accesses unproven (IR alone there)\n",
          p->mach_stats.accesses_merged, p->mach_stats.merges_unproven);
  fprintf(o,
          "odd-width integers: %u loads and stores as the machine code "
          "makes them, %u unpaired (IR's pieces there); %u loads whose "
          "value is overwritten unread (no access)\n",
          p->mach_stats.wide_paired, p->mach_stats.wide_unpaired,
          p->mach_stats.loads_dropped);
  fprintf(o, "\nfiles:\n");
  for (uint32_t i = 0; i < p->n_files; i++)
    fprintf(o, "  f%u %s\n", i, p->files[i]);
  fprintf(o, "\nfunctions:\n");
  for (uint32_t fi = 0; fi < p->n_functions; fi++) {
    const cb_function *f = &p->functions[fi];
    const cb_func_cfg *fc = cfg ? &cfg->funcs[fi] : NULL;
    fprintf(o,
            "  function %s addr 0x%" PRIx64 " %s:%u params %u slots %u "
            "blocks %u loops %u\n",
            f->name, f->addr, f->file != CB_NONE ? file_of(p, f->file) : "?",
            f->line, f->n_params, f->n_slots, f->n_blocks,
            fc ? fc->n_loops : 0);
    if (f->frame_size || f->n_saved_regs)
      fprintf(o, "    frame %u bytes, %u pushes\n", f->frame_size,
              f->n_saved_regs);
    for (uint32_t l = 0; fc && l < fc->n_loops; l++) {
      const cb_loop *lp = &fc->loops[l];
      fprintf(o,
              "    loop L%u header bb%u depth %u parent %s%d blocks %u "
              "latches %u exits %u",
              l, lp->header, lp->depth, lp->parent == CB_NONE ? "" : "L",
              lp->parent == CB_NONE ? -1 : (int)lp->parent, lp->n_blocks,
              lp->n_latches, lp->n_exits);
      if (lp->line)
        fprintf(o, " at %s:%u", file_of(p, lp->file), lp->line);
      fputc('\n', o);
      for (uint32_t k = 0; k < lp->n_ivs; k++) {
        const cb_indvar *iv = &fc->ivs[lp->first_iv + k];
        fprintf(o, "      iv %%%u init ", iv->slot);
        print_const(o, p, iv->init, CB_TY_I64);
        fprintf(o, " step %" PRId64 " %s\n", iv->step,
                cb_ty_name((cb_ty)iv->ty));
      }
    }
    if (!with_ops)
      continue;
    for (uint32_t b = 0; b < f->n_blocks; b++) {
      const cb_block *bl = &p->blocks[f->first_block + b];
      fprintf(o, "    bb%u: preds [", b);
      for (uint32_t k = 0; k < bl->n_pred; k++)
        fprintf(o, "%s%u", k ? " " : "", p->preds[bl->first_pred + k]);
      fprintf(o, "] succs [");
      for (uint32_t k = 0; k < bl->n_succ; k++)
        fprintf(o, "%s%u", k ? " " : "", p->succs[bl->first_succ + k]);
      fprintf(o, "]");
      if (fc && fc->loop_of[b] != CB_NONE)
        fprintf(o, " loop L%u", fc->loop_of[b]);
      fputc('\n', o);
      for (uint32_t k = 0; k < bl->n_mach && p->mach; k++) {
        const cb_mach_access *m = &p->mach[bl->first_mach + k];
        if (m->cfa_offset)
          fprintf(o, "      mach %s %u cfa%+" PRId64 " s%u\n",
                  m->is_write ? "store" : "load", m->size, m->cfa_offset,
                  m->site);
        else
          fprintf(o, "      mach %s %u 0x%" PRIx64 " s%u\n",
                  m->is_write ? "store" : "load", m->size, m->addr, m->site);
      }
      for (uint32_t k = 0; k < bl->n_ops; k++) {
        fputs("      ", o);
        print_op(o, p, &p->ops[bl->first_op + k]);
        fputc('\n', o);
      }
    }
  }
  fprintf(o, "\nsites:\n");
  for (uint32_t i = 0; i < p->n_sites; i++) {
    const cb_site *s = &p->sites[i];
    fprintf(o, "  s%u %s %u ", i,
            s->is_call    ? "call"
            : s->is_write ? "store"
                          : "load",
            s->size);
    if (s->is_mach)
      fputs("machine ", o);
    site_desc(o, p, i);
    if (s->var != CB_NONE) {
      const cb_var *v = &p->vars[s->var];
      static const char *const kinds[] = {"global", "local", "param"};
      fprintf(o, " (%s %s%s%s)", kinds[v->kind],
              v->type != CB_NONE ? p->types[v->type].name : "?", " ", v->name);
    }
    if (s->text)
      fprintf(o, " \"%s\"", s->text);
    fputc('\n', o);
  }
  fprintf(o, "\nglobals:\n");
  for (uint32_t i = 0; i < p->n_globals; i++) {
    const cb_global *g = &p->globals[i];
    fprintf(o, "  %s addr 0x%" PRIx64 " size %" PRIu64 " align %u %s%s%s",
            g->name, g->addr, g->size, g->align, g->section ? g->section : "?",
            g->is_constant ? " const" : "", g->init ? " init" : "");
    if (g->var != CB_NONE && p->vars[g->var].type != CB_NONE)
      fprintf(o, " type %s", p->types[p->vars[g->var].type].name);
    fputc('\n', o);
  }
  fprintf(o, "\nframe objects:\n");
  for (uint32_t i = 0; i < p->n_frame_objs; i++) {
    const cb_frame_obj *fo = &p->frame_objs[i];
    fprintf(o, "  fo%u %s size %" PRIu64 " align %u", i,
            p->functions[fo->func].name, fo->size, fo->align);
    if (fo->var != CB_NONE)
      fprintf(o, " var %s type %s", p->vars[fo->var].name,
              p->vars[fo->var].type != CB_NONE
                  ? p->types[p->vars[fo->var].type].name
                  : "?");
    if (fo->frame_offset != CB_FRAME_OFFSET_UNKNOWN)
      fprintf(o, " cfa%+" PRId64, fo->frame_offset);
    fputc('\n', o);
  }
  fprintf(o, "\nbranch points:\n");
  for (uint32_t i = 0; i < p->n_branches; i++) {
    const cb_branch *b = &p->branches[i];
    fprintf(o, "  br%u %s bb%u %s:%u:%u", i, p->functions[b->func].name,
            b->block, file_of(p, b->file), b->line, b->col);
    if (b->text)
      fprintf(o, " \"%s\"", b->text);
    fprintf(o, " sense %+d", b->sense);
    fputc('\n', o);
  }
  fprintf(o, "\ntypes:\n");
  for (uint32_t i = 0; i < p->n_types; i++) {
    const cb_ctype *t = &p->types[i];
    fprintf(o, "  t%u %s size %" PRIu64, i, t->name, t->size);
    for (uint32_t k = 0; k < t->n_fields; k++) {
      const cb_field *fl = &p->fields[t->first_field + k];
      fprintf(o, "%s %s@%" PRIu64, k ? "," : " {", fl->name, fl->offset);
    }
    if (t->n_fields)
      fputs(" }", o);
    fputc('\n', o);
  }
}

static void dump_json(FILE *o, const cb_program *p, const cb_cfg_info *cfg) {
  fprintf(o,
          "{\n  \"load_base\": %" PRIu64 ",\n  \"image_end\": %" PRIu64
          ",\n  \"synth_end\": %" PRIu64 ",\n",
          p->load_base, p->image_end, p->synth_end);
  fputs("  \"files\": [", o);
  for (uint32_t i = 0; i < p->n_files; i++) {
    fputs(i ? ", " : "", o);
    json_str(o, p->files[i]);
  }
  fputs("],\n  \"functions\": [\n", o);
  for (uint32_t fi = 0; fi < p->n_functions; fi++) {
    const cb_function *f = &p->functions[fi];
    const cb_func_cfg *fc = cfg ? &cfg->funcs[fi] : NULL;
    fputs("    {\"name\": ", o);
    json_str(o, f->name);
    fprintf(o,
            ", \"addr\": %" PRIu64 ", \"file\": %d, \"line\": %u, "
            "\"params\": %u, \"slots\": %u, \"blocks\": %u, \"loops\": [",
            f->addr, f->file == CB_NONE ? -1 : (int)f->file, f->line,
            f->n_params, f->n_slots, f->n_blocks);
    for (uint32_t l = 0; fc && l < fc->n_loops; l++) {
      const cb_loop *lp = &fc->loops[l];
      fprintf(o,
              "%s{\"header\": %u, \"depth\": %u, \"parent\": %d, "
              "\"blocks\": %u, \"line\": %u, \"ivs\": %u}",
              l ? ", " : "", lp->header, lp->depth,
              lp->parent == CB_NONE ? -1 : (int)lp->parent, lp->n_blocks,
              lp->line, lp->n_ivs);
    }
    fprintf(o, "]}%s\n", fi + 1 < p->n_functions ? "," : "");
  }
  fputs("  ],\n  \"sites\": [\n", o);
  for (uint32_t i = 0; i < p->n_sites; i++) {
    const cb_site *s = &p->sites[i];
    fprintf(o,
            "    {\"id\": %u, \"kind\": \"%s\", \"size\": %u, "
            "\"file\": %u, \"line\": %u, \"col\": %u, \"func\": ",
            i,
            s->is_call    ? "call"
            : s->is_mach  ? (s->is_write ? "machine-store" : "machine-load")
            : s->is_write ? "store"
                          : "load",
            s->size, s->file, s->line, s->col);
    json_str(o, s->func != CB_NONE ? p->src_funcs[s->func].name : NULL);
    fputs(", \"var\": ", o);
    json_str(o, s->var != CB_NONE ? p->vars[s->var].name : NULL);
    fputs(", \"type\": ", o);
    json_str(o, s->type != CB_NONE ? p->types[s->type].name : NULL);
    fputs(", \"field\": ", o);
    json_str(o, s->field != CB_NONE ? p->fields[s->field].name : NULL);
    fputs(", \"text\": ", o);
    json_str(o, s->text);
    fprintf(o, "}%s\n", i + 1 < p->n_sites ? "," : "");
  }
  fputs("  ],\n  \"globals\": [\n", o);
  for (uint32_t i = 0; i < p->n_globals; i++) {
    const cb_global *g = &p->globals[i];
    fputs("    {\"name\": ", o);
    json_str(o, g->name);
    fprintf(o,
            ", \"addr\": %" PRIu64 ", \"size\": %" PRIu64
            ", \"align\": %u, \"section\": ",
            g->addr, g->size, g->align);
    json_str(o, g->section);
    fputs(", \"type\": ", o);
    json_str(o, g->var != CB_NONE && p->vars[g->var].type != CB_NONE
                    ? p->types[p->vars[g->var].type].name
                    : NULL);
    fprintf(o, "}%s\n", i + 1 < p->n_globals ? "," : "");
  }
  fputs("  ],\n  \"frame_objects\": [\n", o);
  for (uint32_t i = 0; i < p->n_frame_objs; i++) {
    const cb_frame_obj *fo = &p->frame_objs[i];
    fputs("    {\"function\": ", o);
    json_str(o, p->functions[fo->func].name);
    fprintf(o, ", \"size\": %" PRIu64 ", \"align\": %u, \"var\": ", fo->size,
            fo->align);
    json_str(o, fo->var != CB_NONE ? p->vars[fo->var].name : NULL);
    fputs(", \"cfa_offset\": ", o);
    if (fo->frame_offset == CB_FRAME_OFFSET_UNKNOWN)
      fputs("null", o);
    else
      fprintf(o, "%" PRId64, fo->frame_offset);
    fprintf(o, "}%s\n", i + 1 < p->n_frame_objs ? "," : "");
  }
  fputs("  ],\n  \"branches\": [\n", o);
  for (uint32_t i = 0; i < p->n_branches; i++) {
    const cb_branch *b = &p->branches[i];
    fputs("    {\"function\": ", o);
    json_str(o, p->functions[b->func].name);
    fprintf(o,
            ", \"block\": %u, \"file\": %u, \"line\": %u, \"col\": %u, "
            "\"text\": ",
            b->block, b->file, b->line, b->col);
    json_str(o, b->text);
    fprintf(o, ", \"sense\": %d}%s\n", b->sense,
            i + 1 < p->n_branches ? "," : "");
  }
  fputs("  ]\n}\n", o);
}

int dump_run(int argc, char **argv) {
  const char **srcs = calloc((size_t)argc + 1, sizeof *srcs);
  size_t n = 0;
  cb_frontend_options o;
  memset(&o, 0, sizeof o);
  o.cache_dir = cb_cli_cache_dir();
  const char *format = "text";
  bool with_ops = true;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    bool has_next = i + 1 < argc;
    if (strcmp(a, "--cflags") == 0 && has_next)
      o.cflags = argv[++i];
    else if (strncmp(a, "--cflags=", 9) == 0)
      o.cflags = a + 9;
    else if (strcmp(a, "-p") == 0 && has_next)
      o.compdb_dir = argv[++i];
    else if (strcmp(a, "--format") == 0 && has_next)
      format = argv[++i];
    else if (strncmp(a, "--format=", 9) == 0)
      format = a + 9;
    else if (strcmp(a, "--load-base") == 0 && has_next) {
      o.load_base = strtoull(argv[++i], NULL, 0);
      o.has_load_base = true;
    } else if (strcmp(a, "--keep-exe") == 0 && has_next)
      o.exe_out = argv[++i];
    else if (strcmp(a, "--no-ops") == 0)
      with_ops = false;
    else if (strcmp(a, "--no-reuse") == 0)
      o.no_reuse = true;
    else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "cbana dump: unknown option '%s'\n", a);
      dump_usage();
      free(srcs);
      return 2;
    } else
      srcs[n++] = a;
  }
  if (n == 0 || (strcmp(format, "text") != 0 && strcmp(format, "json") != 0)) {
    fprintf(stderr, n == 0 ? "cbana dump: no source files\n"
                           : "cbana dump: --format is text or json\n");
    dump_usage();
    free(srcs);
    return 2;
  }
  o.sources = srcs;
  o.n_sources = n;
  size_t esz = 1 << 16;
  char *err = malloc(esz);
  cb_program *p = NULL;
  o.object_bases = cb_engine_object_bases;
  cb_fe_status st = cb_frontend_load(&o, &p, err, esz);
  if (st != CB_FE_OK) {
    fputs(err, stderr);
    if (!*err)
      fprintf(stderr, "cbana: loading failed\n");
    free(err);
    free(srcs);
    return 2;
  }
  cb_cfg_info *cfg = cb_cfg_analyze(p);
  if (strcmp(format, "json") == 0)
    dump_json(stdout, p, cfg);
  else
    dump_text(stdout, p, cfg, with_ops);
  cb_cfg_free(cfg);
  cb_program_free(p);
  free(err);
  free(srcs);
  return 0;
}
