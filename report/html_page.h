/* html_page.h: what report/'s two HTML writers share (html.c from the
 * results, json_html.c from a JSON report): text escaped for HTML and
 * the page's style sheet. Internal to report/. */
#ifndef CBANA_REPORT_HTML_PAGE_H
#define CBANA_REPORT_HTML_PAGE_H

#include <stdio.h>

/* s (NULL: nothing) with <, >, & and " escaped. */
void cb_html_esc(FILE *out, const char *s);

extern const char cb_html_style[];

#endif
