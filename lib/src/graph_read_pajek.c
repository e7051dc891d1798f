/*
 * graph_read_pajek.c: Pajek files that mix directed and undirected sections.
 *
 * Why: Pajek means *Edges lines as undirected edges and *Arcs lines as arcs, in one network. igraph
 * 0.10's reader keeps one directedness flag that each section header overwrites, so the last
 * header decides for the whole file: arcs before a last *Edges section lose their direction, and
 * edges before a last *Arcs section become one arc each, silently (a file of edges alone with an
 * empty *Arcs header after them, which Pajek itself writes in the other order, is read directed).
 * igraph cannot hold a mixed graph, so a file with arcs is read as a directed graph in which each
 * undirected edge is the two arcs u -> v and v -> u; a file with edges alone is read undirected
 * whatever empty arc headers it has. Both are done by rewriting the text before igraph parses it.
 * A *Matrix section is left to igraph (its directedness depends on the two-mode count).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "graph_read_pajek.h"
#include "internal.h"
#include "json.h"

ag_pajek_section_t ag_i_pajek_section(const char *word, size_t len) {
    static const struct {
        const char *word;
        ag_pajek_section_t section;
    } words[] = {{"*arcs", AG_PAJEK_ARCS},
                 {"*edges", AG_PAJEK_EDGES},
                 {"*arcslist", AG_PAJEK_ARCSLIST},
                 {"*edgeslist", AG_PAJEK_EDGESLIST},
                 {"*matrix", AG_PAJEK_MATRIX}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i].word) == len && !strncasecmp(word, words[i].word, len)) return words[i].section;
    return AG_PAJEK_OTHER;
}

void ag_i_pajek_sections_line(ag_pajek_sections_t *s, const char *first, size_t len) {
    if (len == 0 || first[0] == '%') return;
    if (first[0] == '*') {
        s->current = ag_i_pajek_section(first, len);
        s->arc_headers += s->current == AG_PAJEK_ARCS || s->current == AG_PAJEK_ARCSLIST;
        s->edge_headers += s->current == AG_PAJEK_EDGES || s->current == AG_PAJEK_EDGESLIST;
        s->matrix |= s->current == AG_PAJEK_MATRIX;
        return;
    }
    if (s->current == AG_PAJEK_ARCS || s->current == AG_PAJEK_ARCSLIST) s->arc_lines++;
    if (s->current == AG_PAJEK_EDGES || s->current == AG_PAJEK_EDGESLIST) s->edge_lines++;
}

int ag_i_pajek_unmix_direction(const ag_pajek_sections_t *s) {
    if (s->matrix) return 0;
    /* an arc makes the graph directed, whatever the order of the sections */
    if (s->arc_lines > 0 && s->edge_headers > 0) return 1;
    if (s->arc_lines == 0 && s->edge_lines > 0 && s->arc_headers > 0) return -1;
    return 0;
}

static int blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* The token at *p (before end): its start and length; *p moves past it and the blanks before it. */
static size_t next_token(const char **p, const char *end, const char **start) {
    while (*p < end && blank(**p)) (*p)++;
    *start = *p;
    while (*p < end && !blank(**p)) (*p)++;
    return (size_t)(*p - *start);
}

/* Do two vertex tokens name one vertex ("3" and "03"; list sections read "-3" as 3)? */
static int same_vertex(const char *a, size_t na, const char *b, size_t nb) {
    char x[32], y[32];
    if (na >= sizeof x || nb >= sizeof y) return na == nb && !memcmp(a, b, na);
    memcpy(x, a, na);
    x[na] = '\0';
    memcpy(y, b, nb);
    y[nb] = '\0';
    char *ex, *ey;
    long long u = strtoll(x, &ex, 10), v = strtoll(y, &ey, 10);
    if (*ex || *ey) return na == nb && !memcmp(a, b, na);
    return llabs(u) == llabs(v);
}

ag_error_t ag_i_pajek_unmix(const char *text, size_t len, int direction, char **out, size_t *out_len) {
    ag_strbuf_t main, arcs, arcslist;
    ag_strbuf_init(&main);
    ag_strbuf_init(&arcs);
    ag_strbuf_init(&arcslist);
    ag_pajek_section_t section = AG_PAJEK_OTHER;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end, *q = p, *first;
        const size_t n_first = next_token(&q, eol, &first);
        if (n_first > 0 && first[0] == '*') {
            section = ag_i_pajek_section(first, n_first);
            const char *word = NULL;
            if (direction > 0 && section == AG_PAJEK_EDGES) word = "*Arcs";
            if (direction > 0 && section == AG_PAJEK_EDGESLIST) word = "*Arcslist";
            if (direction < 0 && section == AG_PAJEK_ARCS) word = "*Edges";
            if (direction < 0 && section == AG_PAJEK_ARCSLIST) word = "*Edgeslist";
            if (word) {
                ag_strbuf_append(&main, p, (size_t)(first - p));
                ag_strbuf_append(&main, word, strlen(word));
                ag_strbuf_append(&main, q, (size_t)(eol - q));
            } else {
                ag_strbuf_append(&main, p, (size_t)(eol - p));
            }
        } else {
            ag_strbuf_append(&main, p, (size_t)(eol - p));
            const char *second;
            if (direction > 0 && n_first > 0 && first[0] != '%' && section == AG_PAJEK_EDGES) {
                /* "u v [weight] [options]" also as "v u [weight] [options]"; a loop stays one */
                const size_t n_second = next_token(&q, eol, &second);
                if (n_second > 0 && !same_vertex(first, n_first, second, n_second)) {
                    ag_strbuf_append(&arcs, second, n_second);
                    ag_strbuf_append(&arcs, " ", 1);
                    ag_strbuf_append(&arcs, first, n_first);
                    ag_strbuf_append(&arcs, q, (size_t)(eol - q));
                    ag_strbuf_append(&arcs, "\n", 1);
                }
            } else if (direction > 0 && n_first > 0 && first[0] != '%' && section == AG_PAJEK_EDGESLIST) {
                /* "u v1 v2 ..." also as the lines "v1 u", "v2 u", ... */
                size_t n_second;
                while ((n_second = next_token(&q, eol, &second)) > 0) {
                    if (same_vertex(first, n_first, second, n_second)) continue;
                    ag_strbuf_append(&arcslist, second, n_second);
                    ag_strbuf_append(&arcslist, " ", 1);
                    ag_strbuf_append(&arcslist, first, n_first);
                    ag_strbuf_append(&arcslist, "\n", 1);
                }
            }
        }
        if (nl) ag_strbuf_append(&main, "\n", 1);
        p = nl ? nl + 1 : end;
    }
    if (arcs.len || arcslist.len) {
        if (main.len && main.data[main.len - 1] != '\n') ag_strbuf_append(&main, "\n", 1);
        /* the edges of the *Arcs lines first: igraph numbers the edge attributes of line sections
         * by their own count, which list sections do not advance */
        if (arcs.len) {
            ag_strbuf_append(&main, "*Arcs\n", 6);
            ag_strbuf_append(&main, arcs.data, arcs.len);
        }
        if (arcslist.len) {
            ag_strbuf_append(&main, "*Arcslist\n", 10);
            ag_strbuf_append(&main, arcslist.data, arcslist.len);
        }
    }
    if (main.len == 0) ag_strbuf_append(&main, "", 0);
    const int failed = main.failed || arcs.failed || arcslist.failed;
    ag_strbuf_destroy(&arcs);
    ag_strbuf_destroy(&arcslist);
    if (failed) {
        ag_strbuf_destroy(&main);
        *out = NULL;
        *out_len = 0;
        return AG_ENOMEM;
    }
    *out = main.data;
    *out_len = main.len;
    return AG_SUCCESS;
}
