/*
 * graph_read_pajek.h: Pajek files that mix *Arcs and *Edges sections (graph_read_pajek.c).
 */
#ifndef AG_GRAPH_READ_PAJEK_H
#define AG_GRAPH_READ_PAJEK_H

#include <stddef.h>
#include <stdint.h>
#include "attngraph/common.h"
/* internal to the library: not exported from the shared library (only the public headers are) */
#pragma GCC visibility push(hidden)

typedef enum ag_pajek_section_t {
    AG_PAJEK_OTHER = 0, /* before any section, *Vertices, *Network, ... */
    AG_PAJEK_ARCS,
    AG_PAJEK_EDGES,
    AG_PAJEK_ARCSLIST,
    AG_PAJEK_EDGESLIST,
    AG_PAJEK_MATRIX
} ag_pajek_section_t;

/* The section a header word opens ("*Arcs", "*edgeslist", ...: the word with its '*', without
 * case, len bytes), AG_PAJEK_OTHER for any other word. */
ag_pajek_section_t ag_i_pajek_section(const char *word, size_t len);

/* What sections a Pajek file has, gathered line by line by the pre-scan (graph_read_limit.c). */
typedef struct ag_pajek_sections_t {
    int64_t arc_lines;  /* lines under *Arcs and *Arcslist */
    int64_t edge_lines; /* lines under *Edges and *Edgeslist */
    int arc_headers, edge_headers, matrix;
    ag_pajek_section_t current; /* the scan's section */
} ag_pajek_sections_t;

/* Records a line whose first token is first (len bytes): a header switches the section, another
 * line (not a '%' comment) counts for the section it is in. */
void ag_i_pajek_sections_line(ag_pajek_sections_t *s, const char *first, size_t len);

/* Which way the file must be rewritten before igraph reads it: 1 every section directed, -1 every
 * section undirected, 0 not at all (one kind of section, or a *Matrix). */
int ag_i_pajek_unmix_direction(const ag_pajek_sections_t *s);

/* The text of a Pajek file (len bytes) rewritten for igraph, whose reader makes the whole graph
 * directed or not by the last section header alone: with direction 1, every *Edges (*Edgeslist)
 * header becomes *Arcs (*Arcslist) and each of its edges u v between two vertices is also given
 * as the arc v u, with the line's weight and options, in sections appended after the file's last
 * line (so that igraph's line numbers stay the file's); with -1, every *Arcs (*Arcslist) header
 * becomes *Edges (*Edgeslist). *out is allocated (ag_i_free). AG_SUCCESS or AG_ENOMEM (no
 * message: the caller names the file). */
ag_error_t ag_i_pajek_unmix(const char *text, size_t len, int direction, char **out, size_t *out_len);

#pragma GCC visibility pop
#endif
