/* What the analysis hands back besides the counters' collection
 * (analysis.h): the results freed, and `--stats` printed (where the time
 * went, what the fast paths and memos did, the time split). */
#include "cbana/analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

void cb_results_free(cb_results *r) {
  for (unsigned i = 0; i < r->n_runs; i++) {
    cb_run_result *run = &r->runs[i];
    for (unsigned k = 0; k < run->n_args; k++)
      free(run->args ? run->args[k] : NULL);
    free(run->args);
    free(run->stdin_path);
    free(run->error_message);
    free(run->process_note);
    free(run->error_file);
    free(run->output);
    free(run->errors);
    for (unsigned i = 0; i < run->n_files; i++)
      free(run->files[i].path);
    free(run->files);
    for (unsigned c = 0; c < run->n_caches; c++) {
      cb_cache_result *cr = &run->caches[c];
      free(cr->name);
      for (unsigned l = 0; l < cr->n_levels; l++)
        free(cr->level_names[l]);
      free(cr->sites);
      for (unsigned l = 0; l < CB_RESULT_LEVELS; l++) {
        free(cr->distance_hist[l]);
        free(cr->set_misses[l]);
        free(cr->set_conflicts[l]);
      }
      free(cr->var_lines);
      free(cr->type_lines);
      free(cr->field_lines);
      free(cr->var_sets);
      free(cr->site_stride);
      free(cr->site_stride_runs);
      free(cr->alloc_sites);
    }
    free(run->caches);
    free(run->branches);
    free(run->branch_counts);
  }
  free(r->runs);
  free(r->library_note);
  memset(r, 0, sizeof *r);
}

void cb_analysis_stats_print(FILE *f, const cb_analysis_stats *s) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double an = s->path_s + s->stream_s + s->sim_s;
  fprintf(f, "cbana stats:\n");
  fprintf(f,
          "  compile          %8.3f s cpu (clang; %u of %u translation units "
          "reused)\n",
          s->compile_s, s->units_reused, s->units);
  fprintf(f,
          "  lowering         %8.3f s cpu (frontend wall, with compile: "
          "%.3f s)\n",
          s->lowering_s, s->frontend_wall_s);
  fprintf(f, "  path selection   %8.3f s cpu (stream-hash passes)\n",
          s->path_s);
  fprintf(f, "  stream gen.      %8.3f s cpu (engine)\n", s->stream_s);
  fprintf(f, "  cache simulation %8.3f s cpu\n", s->sim_s);
  fprintf(f, "  analysis         %8.3f s wall (%.3f s cpu on %u jobs)\n",
          s->analysis_wall_s, an, s->jobs);
  fprintf(f, "  inputs %u: %u simulated, %u shared a twin's identical stream\n",
          s->inputs, s->simulated, s->shared);
  fprintf(f, "  operations %llu, accesses %llu", (unsigned long long)s->ops,
          (unsigned long long)s->accesses);
  if (s->stream_s + s->path_s > 0)
    fprintf(f, " (%.1f M ops/s)",
            1e-6 * (double)s->ops / (s->stream_s + s->path_s));
  fprintf(f,
          "\n  loop templates: %llu loops, %llu iterations (%llu by native "
          "code), %llu accesses\n",
          (unsigned long long)s->tpl_loops, (unsigned long long)s->tpl_iters,
          (unsigned long long)s->tpl_native_iters,
          (unsigned long long)s->tpl_accesses);
  if (s->kernels)
    fprintf(f,
            "  native kernels: %u functions compiled in %.3f s (beside the "
            "engine), "
            "%llu operations run by them (%.1f%%)\n",
            s->kernels, s->kernel_compile_s, (unsigned long long)s->kernel_ops,
            s->ops ? 100.0 * (double)s->kernel_ops / (double)s->ops : 0.0);
  if (s->kernels)
    fprintf(f,
            "  calls of the program's functions kernels left to the engine: "
            "%llu\n",
            (unsigned long long)s->kernel_engine_calls);
  if (s->kernels)
    fprintf(f,
            "  kernels' ops compiled: %llu of their functions' %llu, "
            "%u compiles again with more blocks, %u to faster code\n",
            (unsigned long long)s->kernel_ops_compiled,
            (unsigned long long)s->kernel_ops_whole, s->kernel_recompiles,
            s->kernel_tier_ups);
  if (s->sim_blocks)
    fprintf(f,
            "  affine blocks simulated: %llu, of which %llu repeated their "
            "segment and were counted without running, %llu split by set "
            "over %u threads\n",
            (unsigned long long)s->sim_blocks,
            (unsigned long long)s->sim_blocks_skipped,
            (unsigned long long)s->sim_blocks_split,
            s->sim_threads ? s->sim_threads : 1);
  if (s->sim_blocks_parts)
    fprintf(f,
            "  blocks run part by part: %llu (%llu parts counted without "
            "running them, %llu run)\n",
            (unsigned long long)s->sim_blocks_parts,
            (unsigned long long)s->sim_parts_counted,
            (unsigned long long)s->sim_parts_run);
  if (s->sim_segments_closed || s->sim_parts_closed)
    fprintf(f,
            "  found steady after one run (second run in closed form): %llu "
            "segments, %llu parts\n",
            (unsigned long long)s->sim_segments_closed,
            (unsigned long long)s->sim_parts_closed);
  if (s->sim_records_skipped)
    fprintf(f, "  records counted as repeats without running them: %llu\n",
            (unsigned long long)s->sim_records_skipped);
  if (s->split_epochs)
    fprintf(f,
            "  time split: %llu epochs over two simulation threads, %llu "
            "hand-overs, %llu guesses thrown away, %llu accesses run "
            "twice, %.3f s idle\n",
            (unsigned long long)s->split_epochs,
            (unsigned long long)s->split_handovers,
            (unsigned long long)s->split_abandoned,
            (unsigned long long)s->split_rerun, s->split_idle_s);
  fprintf(f, "  peak RSS %ld KiB\n", ru.ru_maxrss);
}
