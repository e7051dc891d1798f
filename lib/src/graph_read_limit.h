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
} ag_graph_vertex_scan_t;

/* Is format one whose vertex count the scan bounds (edge list, Pajek, DIMACS, DL)? */
int ag_i_graph_format_scanned(ag_format_t format);

/* Reads f to its end and records the largest vertex count it asks for (and a Pajek file's
 * sections); the caller rewinds. */
void ag_i_graph_scan_vertices(FILE *f, ag_format_t format, ag_graph_vertex_scan_t *out);

/* AG_EREADLIMIT with the file name, line, count and what to change if the count's memory exceeds
 * the read limit; else AG_SUCCESS. */
ag_error_t ag_i_graph_check_vertices(const char *name, ag_format_t format, const ag_graph_vertex_scan_t *scan);

/* The read limit in bytes (< 0: none) and, in *from, where it came from for messages ("set by
 * --max-memory ...", or the available memory by default). Node tables obey it too (table.c). */
int64_t ag_i_read_limit(const char **from);

/* bytes as "1.5 GiB" (binary units, one decimal) into buf. */
void ag_i_format_size(char *buf, size_t n, int64_t bytes);

#pragma GCC visibility pop
#endif
