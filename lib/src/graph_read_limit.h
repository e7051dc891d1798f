/*
 * graph_read_limit.h: the vertex-count pre-scan of ag_graph_read() (graph_read_limit.c).
 */
#ifndef AG_GRAPH_READ_LIMIT_H
#define AG_GRAPH_READ_LIMIT_H

#include <stdio.h>
#include "attngraph/graph.h"
#include "graph_read_pajek.h"
/* internal to the library: not exported from the shared library (only the public headers are) */
#pragma GCC visibility push(hidden)

typedef struct ag_graph_vertex_scan_t {
    int64_t vertices; /* the vertex count the file asks igraph to build (INT64_MAX: overflows) */
    int64_t line;     /* 1-based line of the number that asks for it */
    char token[40];   /* that number as written (truncated) */
    const char *what; /* "vertex id", "*Vertices", "n=", ... */
    ag_pajek_sections_t pajek; /* Pajek: its sections, in the same pass (graph_read_pajek.c) */
    int64_t bad_line;   /* edge list: 1-based line of the first token that is no vertex id, or 0 */
    char bad_token[40]; /* that token (truncated) */
    int bad_first;      /* no vertex id came before it: a file of names rather than a mistyped id */
    int64_t bad_field;  /* its 0-based field in its line */
    int64_t ids_after;  /* edge list: vertex ids on the lines after bad_line */
    int64_t bad_after;  /* edge list: tokens that are no vertex id on the lines after bad_line */
    int64_t comment_lines; /* edge list: lines whose first field starts with '#' or '%' (SNAP's and
                              KONECT's headers); the scan skips them, and so must the read */
    int64_t odd_line;   /* edge list: 1-based line of the first other line with an odd number of
                           fields (a weight column, say), or 0 */
    int64_t odd_fields; /* how many fields that line has */
} ag_graph_vertex_scan_t;

/* Is format one whose vertex count the scan bounds (edge list, Pajek, DIMACS, DL)? */
int ag_i_graph_format_scanned(ag_format_t format);

/* Reads f to its end and records the largest vertex count it asks for (and a Pajek file's
 * sections); the caller rewinds. */
void ag_i_graph_scan_vertices(FILE *f, ag_format_t format, ag_graph_vertex_scan_t *out);

/* AG_EREADLIMIT with the file name, line, count and what to change if the count's memory exceeds
 * the read limit; else AG_SUCCESS. */
ag_error_t ag_i_graph_check_vertices(const char *name, ag_format_t format, const ag_graph_vertex_scan_t *scan);

/* What a refusal by the read limit says: the need ("about 819.2 MiB", "more than 8 EiB"), the
 * limit ("100.0 MiB") and where the limit came from ("set by --max-memory ...", or the available
 * memory by default). */
typedef struct ag_read_limit_text_t {
    char need[32], limit[32];
    const char *from;
} ag_read_limit_text_t;

/* Whether need bytes (overflow: more than int64 holds) exceed the read limit; if so, *t says it.
 * Graph files' vertex counts and sparse node tables' widths (table.c) are held to it. */
int ag_i_read_limit_exceeded(int64_t need, int overflow, ag_read_limit_text_t *t);

#pragma GCC visibility pop
#endif
