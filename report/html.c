/* The HTML report: one self-contained page (no network): a summary of
 * every input, the inputs and their path classes, the source of each
 * file with a heat map of first-level misses, the variables table, the
 * findings, a miss-ratio curve per level (SVG, from the stack-distance
 * histogram) and the program-state graph. The page's data sits in a JSON
 * block; a small script draws the variables table and the curves for the
 * input chosen, so the page works as a file opened from disk. */
#include "cbana/report.h"
#include "html_page.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

void cb_html_esc(FILE *out, const char *s) {
  for (; s && *s; s++) {
    switch (*s) {
    case '<':
      fputs("&lt;", out);
      break;
    case '>':
      fputs("&gt;", out);
      break;
    case '&':
      fputs("&amp;", out);
      break;
    case '"':
      fputs("&quot;", out);
      break;
    default:
      fputc(*s, out);
    }
  }
}

static void input_text(FILE *out, const cb_run_result *run) {
  for (unsigned a = 0; a < run->n_args; a++) {
    if (a)
      fputc(' ', out);
    cb_html_esc(out, run->args[a]);
  }
  if (run->stdin_path) {
    fputs(" &lt; ", out);
    cb_html_esc(out, run->stdin_path);
  }
}

const char cb_html_style[] =
    "body{font-family:sans-serif;margin:1.5em;color:#222}"
    "table{border-collapse:collapse;margin:.5em 0}"
    "td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px}"
    "td.n{text-align:right;font-family:monospace}"
    "pre.src{font-size:12px;line-height:1.35}"
    ".src span.l{display:block;white-space:pre}"
    ".src b{display:inline-block;width:4em;text-align:right;color:#888;"
    "font-weight:normal;margin-right:1em}"
    ".src i{display:inline-block;width:7em;text-align:right;color:#555;"
    "font-style:normal;margin-right:1em}"
    "h2{border-bottom:1px solid #ddd;margin-top:1.5em}"
    ".advice{color:#064;}";

/* Rows of the variables table: variables, then heap blocks by allocation
 * site (type "heap block"). */
static void add_data_rows(json_object *vars, const cb_program *p,
                          const cb_cache_result *c, cb_data_kind kind) {
  cb_data_row *rows;
  size_t n = cb_report_data(p, c, kind, &rows);
  for (size_t k = 0; k < n; k++) {
    json_object *v = json_object_new_object();
    char name[256];
    cb_report_data_name(p, &rows[k], name, sizeof name);
    json_object_object_add(v, "name", json_object_new_string(name));
    const char *type = "heap block";
    if (kind == CB_DATA_VARIABLE) {
      const cb_var *var = &p->vars[rows[k].id];
      type = var->type < p->n_types && p->types[var->type].name
                 ? p->types[var->type].name
                 : "";
    }
    json_object_object_add(v, "type", json_object_new_string(type));
    if (kind == CB_DATA_ALLOC)
      json_object_object_add(v, "heap", json_object_new_boolean(1));
    json_object_object_add(v, "accesses",
                           json_object_new_uint64(rows[k].level[0].accesses));
    json_object *m = json_object_new_array();
    for (unsigned l = 0; l < c->n_levels; l++)
      json_object_array_add(m, json_object_new_uint64(rows[k].level[l].misses));
    json_object_object_add(v, "misses", m);
    json_object_object_add(v, "compulsory",
                           json_object_new_uint64(rows[k].level[0].compulsory));
    json_object_object_add(v, "capacity",
                           json_object_new_uint64(rows[k].level[0].capacity));
    json_object_object_add(v, "conflict",
                           json_object_new_uint64(rows[k].level[0].conflict));
    json_object_object_add(v, "lines", json_object_new_uint64(rows[k].lines));
    json_object_array_add(vars, v);
  }
  free(rows);
}

/* The data the script draws from: per input, the first cache's
 * variables and miss-ratio curves. */
static json_object *page_data(const cb_results *r) {
  const cb_program *p = r->program;
  json_object *runs = json_object_new_array();
  for (unsigned i = 0; i < r->n_runs; i++) {
    const cb_run_result *run = &r->runs[i];
    json_object *o = json_object_new_object();
    json_object_object_add(o, "index", json_object_new_int((int)run->index));
    if (!run->n_caches) {
      json_object_array_add(runs, o);
      continue;
    }
    const cb_cache_result *c = &run->caches[0];
    json_object_object_add(o, "cache", json_object_new_string(c->name));
    json_object *levels = json_object_new_array();
    for (unsigned l = 0; l < c->n_levels; l++)
      json_object_array_add(levels, json_object_new_string(c->level_names[l]));
    json_object_object_add(o, "levels", levels);
    json_object *vars = json_object_new_array();
    add_data_rows(vars, p, c, CB_DATA_VARIABLE);
    add_data_rows(vars, p, c, CB_DATA_ALLOC);
    json_object_object_add(o, "variables", vars);
    json_object *mrc = json_object_new_array();
    for (unsigned l = 0; l < c->n_levels && c->distance_hist[l]; l++) {
      json_object *curve = json_object_new_object();
      json_object_object_add(curve, "level",
                             json_object_new_string(c->level_names[l]));
      uint64_t cap =
          c->geometry[l].line ? c->geometry[l].size / c->geometry[l].line : 0;
      json_object_object_add(curve, "capacity", json_object_new_uint64(cap));
      uint64_t refs = c->distance_cold[l];
      for (uint64_t d = 0; d < c->distance_len[l]; d++)
        refs += c->distance_hist[l][d];
      json_object_object_add(curve, "refs", json_object_new_uint64(refs));
      json_object_object_add(
          curve, "sampling",
          json_object_new_double(1.0 /
                                 (double)(1ull << c->distance_scale_log2[l])));
      json_object *pts = json_object_new_array();
      uint64_t top =
          c->distance_len[l] > cap * 2 ? c->distance_len[l] : cap * 2;
      for (uint64_t lines = 1;; lines *= 2) {
        json_object *pt = json_object_new_array();
        json_object_array_add(pt, json_object_new_uint64(lines));
        json_object_array_add(
            pt, json_object_new_uint64(cb_report_fa_misses(c, l, lines)));
        json_object_array_add(pts, pt);
        if (lines >= top || lines > (1ull << 40))
          break;
      }
      json_object_object_add(curve, "points", pts);
      json_object_array_add(mrc, curve);
    }
    json_object_object_add(o, "mrc", mrc);
    json_object_array_add(runs, o);
  }
  return runs;
}

static const char *script =
    "(function(){\n"
    "var D=JSON.parse(document.getElementById('cbana-data').textContent);\n"
    "var sel=document.getElementById('input-select');\n"
    "function el(t,a,txt){var e=document.createElement(t);"
    "for(var k in a)e.setAttribute(k,a[k]);if(txt!==undefined)"
    "e.textContent=txt;return e;}\n"
    "function vars(run){var tb=document.querySelector('#variables tbody');"
    "tb.innerHTML='';var th=document.querySelector('#variables thead tr');"
    "th.innerHTML='';['variable','type','accesses'].concat(run.levels||[])"
    ".concat(['compulsory','capacity','conflict','lines touched'])"
    ".forEach(function(h){th.appendChild(el('th',{},h));});"
    "(run.variables||[]).forEach(function(v){var tr=el('tr',{'class':"
    "v.heap?'heap-row':'var-row'});tr.appendChild(el('td',{},v.name));tr."
    "appendChild(el('td',"
    "{},v.type));[v.accesses].concat(v.misses).concat([v.compulsory,"
    "v.capacity,v.conflict,v.lines]).forEach(function(x){tr.appendChild("
    "el('td',{'class':'n'},String(x)));});tb.appendChild(tr);});}\n"
    "function curves(run){var box=document.getElementById('mrc');"
    "box.innerHTML='';(run.mrc||[]).forEach(function(c){"
    "var W=520,H=260,L=60,B=30,ns='http://www.w3.org/2000/svg';"
    "var svg=document.createElementNS(ns,'svg');svg.setAttribute('width',W);"
    "svg.setAttribute('height',H);svg.setAttribute('class','mrc');"
    "svg.setAttribute('data-level',c.level);"
    "var pts=c.points,xmax=Math.log2(pts[pts.length-1][0])||1,"
    "ymax=Math.max(1,c.refs);"
    "function X(n){return L+(W-L-10)*Math.log2(n)/xmax;}"
    "function Y(m){return H-B-(H-B-10)*m/ymax;}"
    "var ax=document.createElementNS(ns,'path');ax.setAttribute('d','M'+L+"
    "' 10 V'+(H-B)+' H'+(W-10));ax.setAttribute('stroke','#444');"
    "ax.setAttribute('fill','none');svg.appendChild(ax);"
    "var pl=document.createElementNS(ns,'polyline');pl.setAttribute("
    "'points',pts.map(function(p){return X(p[0]).toFixed(1)+','+"
    "Y(p[1]).toFixed(1);}).join(' '));pl.setAttribute('fill','none');"
    "pl.setAttribute('stroke','#c33');pl.setAttribute('stroke-width','2');"
    "svg.appendChild(pl);"
    "if(c.capacity){var cx=X(c.capacity),ln=document.createElementNS(ns,"
    "'line');ln.setAttribute('x1',cx);ln.setAttribute('x2',cx);"
    "ln.setAttribute('y1',10);ln.setAttribute('y2',H-B);ln.setAttribute("
    "'stroke','#36c');ln.setAttribute('stroke-dasharray','4 3');"
    "svg.appendChild(ln);var t=document.createElementNS(ns,'text');"
    "t.setAttribute('x',cx+4);t.setAttribute('y',22);t.textContent="
    "c.level+' capacity ('+c.capacity+' lines)';t.setAttribute('font-size',"
    "'11');svg.appendChild(t);}"
    "[[L+4,H-8,'1 line'],[W-90,H-8,pts[pts.length-1][0]+' lines'],"
    "[4,16,ymax+''],[4,H-B,'0']].forEach(function(a){var t=document."
    "createElementNS(ns,'text');t.setAttribute('x',a[0]);t.setAttribute("
    "'y',a[1]);t.setAttribute('font-size','11');t.textContent=a[2];"
    "svg.appendChild(t);});"
    "var h=el('h3',{},c.level+': misses of a fully associative LRU cache "
    "by its size in lines (log scale), input '+run.index+(c.sampling<1?"
    "', stack distances sampled at 1/'+Math.round(1/c.sampling)+"
    "' (SHARDS; --exact-mrc for exact ones)':''));"
    "box.appendChild(h);box.appendChild(svg);});}\n"
    "function show(i){vars(D[i]);curves(D[i]);}\n"
    "sel.addEventListener('change',function(){show(sel.selectedIndex);});\n"
    "show(0);document.body.setAttribute('data-ready','1');\n"
    "})();\n";

static void heat_source(FILE *out, const cb_program *p,
                        const cb_cache_result *c, const cb_source *src) {
  for (uint32_t f = 0; f < p->n_files; f++) {
    if (!src[f].n_lines)
      continue;
    uint64_t *miss = calloc(src[f].n_lines + 1, sizeof *miss);
    uint64_t *acc = calloc(src[f].n_lines + 1, sizeof *acc);
    if (!miss || !acc) {
      free(miss);
      free(acc);
      return;
    }
    uint64_t max = 0;
    for (uint32_t s = 0; s < c->n_sites && s < p->n_sites; s++) {
      const cb_site *site = &p->sites[s];
      if (site->file != f || site->is_call || !site->line ||
          site->line > src[f].n_lines)
        continue;
      miss[site->line] += c->sites[(size_t)s * c->n_levels].misses;
      acc[site->line] += c->sites[(size_t)s * c->n_levels].accesses;
      if (miss[site->line] > max)
        max = miss[site->line];
    }
    fprintf(out, "<h3>");
    cb_html_esc(out, p->files[f]);
    fprintf(out, "</h3>\n<pre class=\"src\" data-file=\"%u\">", f);
    for (uint32_t ln = 1; ln <= src[f].n_lines; ln++) {
      double heat = max ? (double)miss[ln] / (double)max : 0.0;
      fprintf(out,
              "<span class=\"l\" id=\"f%uL%u\" data-misses=\"%" PRIu64
              "\" style=\"background:rgba(220,40,40,%.2f)\"><b>%u</b><i>",
              f, ln, miss[ln], heat * 0.8, ln);
      if (acc[ln])
        fprintf(out, "%" PRIu64, miss[ln]);
      fprintf(out, "</i>");
      cb_html_esc(out, cb_source_line(&src[f], ln));
      fprintf(out, "</span>");
    }
    fprintf(out, "</pre>\n");
    free(miss);
    free(acc);
  }
}

static void state_graph(FILE *out, const cb_results *r) {
  const cb_program *p = r->program;
  fprintf(out, "<h2 id=\"paths\">Program-state graph</h2>\n"
               "<p>Branch points (rows) and what each path class (columns) "
               "does there, as far as the accesses under each side show.</p>"
               "\n<table id=\"state-graph\"><thead><tr><th>branch</th>"
               "<th>condition</th>");
  for (unsigned k = 1; k <= r->n_path_classes; k++)
    fprintf(out, "<th>P%u</th>", k);
  fprintf(out, "</tr></thead><tbody>\n");
  for (uint32_t b = 0; b < p->n_branches; b++) {
    const cb_branch *br = &p->branches[b];
    bool any = false;
    unsigned bits[64] = {0};
    for (unsigned k = 1; k <= r->n_path_classes && k < 64; k++) {
      for (unsigned i = 0; i < r->n_runs; i++)
        if (r->runs[i].path_class == k && r->runs[i].branches)
          bits[k] |= r->runs[i].branches[b];
      any |= (bits[k] & (CB_BRANCH_TRUE | CB_BRANCH_FALSE)) != 0;
    }
    if (!any)
      continue;
    const char *file = br->file < p->n_files ? p->files[br->file] : "?";
    const char *base = strrchr(file, '/');
    fprintf(out, "<tr><td>");
    cb_html_esc(out, base ? base + 1 : file);
    fprintf(out, ":%u</td><td><code>", br->line);
    cb_html_esc(out, br->text ? br->text : "?");
    fprintf(out, "</code></td>");
    for (unsigned k = 1; k <= r->n_path_classes && k < 64; k++) {
      bool t = bits[k] & CB_BRANCH_TRUE, fl = bits[k] & CB_BRANCH_FALSE;
      fprintf(out, "<td>%s</td>",
              t && fl ? "both"
              : t     ? "true"
              : fl    ? "false"
                      : "?");
    }
    fprintf(out, "</tr>\n");
  }
  fprintf(out, "</tbody></table>\n");
}

int cb_report_html(FILE *out, const cb_results *r,
                   const cb_report_options *opt) {
  const cb_program *p = r->program;
  const char *title = opt && opt->title ? opt->title
                      : p->n_files      ? p->files[0]
                                        : "cbana";
  fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
               "charset=\"utf-8\"><title>cbana: ");
  cb_html_esc(out, title);
  fprintf(out, "</title>\n<style>%s</style></head><body>\n<h1>cbana: ",
          cb_html_style);
  cb_html_esc(out, title);
  fprintf(out, "</h1>\n");

  /* Summary and inputs. */
  fprintf(out, "<h2 id=\"summary\">Summary</h2>\n<table id=\"inputs\">"
               "<thead><tr><th>input</th><th>arguments</th><th>path</th>"
               "<th>status</th><th>cache</th>");
  unsigned nl =
      r->n_runs && r->runs[0].n_caches ? r->runs[0].caches[0].n_levels : 0;
  for (unsigned l = 0; l < nl; l++)
    fprintf(out, "<th>%s accesses</th><th>%s misses</th>",
            r->runs[0].caches[0].level_names[l],
            r->runs[0].caches[0].level_names[l]);
  fprintf(out, "</tr></thead><tbody>\n");
  for (unsigned i = 0; i < r->n_runs; i++) {
    const cb_run_result *run = &r->runs[i];
    for (unsigned k = 0; k < run->n_caches || k == 0; k++) {
      fprintf(out, "<tr class=\"input-row\"><td>%u</td><td><code>", run->index);
      input_text(out, run);
      fprintf(out, "</code></td><td>P%u</td><td>", run->path_class);
      if (run->ok)
        fprintf(out, "exit %d", run->exit_code);
      else {
        fprintf(out, "stopped: ");
        cb_html_esc(out, run->error_message);
      }
      fprintf(out, "</td>");
      if (k < run->n_caches) {
        const cb_cache_result *c = &run->caches[k];
        fprintf(out, "<td>");
        cb_html_esc(out, c->name);
        fprintf(out, "</td>");
        for (unsigned l = 0; l < c->n_levels && l < nl; l++)
          fprintf(out,
                  "<td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64
                  "</td>",
                  c->levels[l].accesses, c->levels[l].misses);
      }
      fprintf(out, "</tr>\n");
      if (!run->n_caches)
        break;
    }
  }
  fprintf(out, "</tbody></table>\n<p>%u path class%s:", r->n_path_classes,
          r->n_path_classes == 1 ? "" : "es");
  for (unsigned k = 1; k <= r->n_path_classes; k++) {
    fprintf(out, " P%u = inputs", k);
    for (unsigned i = 0; i < r->n_runs; i++)
      if (r->runs[i].path_class == k)
        fprintf(out, " %u", r->runs[i].index);
    fprintf(out, k < r->n_path_classes ? ";" : ".");
  }
  fprintf(out, "</p>\n");

  fprintf(out, "<p><label>Input shown below: <select id=\"input-select\">");
  for (unsigned i = 0; i < r->n_runs; i++) {
    fprintf(out, "<option>%u: ", r->runs[i].index);
    input_text(out, &r->runs[i]);
    fprintf(out, "</option>");
  }
  fprintf(out, "</select></label> (the tables and curves follow it; the "
               "source and findings are those of input 1)</p>\n");

  fprintf(out, "<h2 id=\"vars\">Variables</h2>\n<table id=\"variables\">"
               "<thead><tr></tr></thead><tbody></tbody></table>\n");
  fprintf(out, "<h2 id=\"curves\">Miss-ratio curves</h2>\n<div id=\"mrc\">"
               "</div>\n");

  if (r->n_runs && r->runs[0].n_caches) {
    const cb_cache_result *c = &r->runs[0].caches[0];
    cb_finding *f;
    size_t n = cb_report_findings(p, c, &f);
    fprintf(out, "<h2 id=\"findings\">Findings (input 1, cache ");
    cb_html_esc(out, c->name);
    fprintf(out, ")</h2>\n<ul>\n");
    for (size_t i = 0; i < n; i++) {
      fprintf(out, "<li class=\"finding\"><b>%s</b>: ", cb_finding_rule(&f[i]));
      cb_html_esc(out, f[i].message);
      if (f[i].advice[0]) {
        fprintf(out, ".<br><span class=\"advice\">");
        cb_html_esc(out, f[i].advice);
        fprintf(out, "</span>");
      }
      fprintf(out, "</li>\n");
    }
    fprintf(out, "</ul>\n");
    free(f);
    cb_source *src = cb_sources_load(p);
    fprintf(out,
            "<h2 id=\"source\">Source: %s misses per line (input 1)"
            "</h2>\n",
            c->level_names[0]);
    heat_source(out, p, c, src);
    cb_sources_free(p, src);
  }
  state_graph(out, r);

  json_object *data = page_data(r);
  /* json-c escapes '/', so "</script>" cannot appear in the block. */
  fprintf(out,
          "<script type=\"application/json\" id=\"cbana-data\">%s"
          "</script>\n<script>%s</script>\n</body></html>\n",
          json_object_to_json_string_ext(data, JSON_C_TO_STRING_PLAIN), script);
  json_object_put(data);
  return ferror(out) ? -1 : 0;
}
