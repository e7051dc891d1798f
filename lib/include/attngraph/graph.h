/*
 * attngraph/graph.h: graphs as the kernels see them, and reading graph files through igraph.
 *
 * The kernels never touch an igraph_t: a graph (or a batch of many small graphs) is converted once
 * into a CSR of in-neighbours, the structure attention aggregates over (node i attends over the
 * sources j of its incoming edges j -> i). A batch is the block-diagonal union of its graphs, with
 * node and edge offsets per graph.
 *
 * Edges of the input, documented once here:
 * - directed graphs stay directed: edge u -> v gives one entry (destination v, source u);
 * - an undirected edge {u, v} with u != v gives two entries, v <- u and u <- v, sharing the edge id;
 * - a self-loop gives exactly one entry (i <- i), directed or not;
 * - multi-edges give one entry each, each with its own edge id (so with its own edge features and
 *   attention weight), as PyTorch Geometric and DGL do.
 * Self-loops added for attention (the neighbour mask's default) are not part of ag_graph_t: the
 * attention mask adds them and flags them (see attention.h).
 */
#ifndef ATTNGRAPH_GRAPH_H
#define ATTNGRAPH_GRAPH_H

#include <igraph.h>
#include "attngraph/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One graph or a block-diagonal batch of graphs, as a CSR of in-neighbours. */
typedef struct ag_graph_t {
    int64_t n_nodes;     /* N: nodes over all graphs of the batch */
    int64_t n_entries;   /* number of CSR entries (see the rules above) */
    int64_t n_edges;     /* E: input edges over all graphs (igraph edges, each counted once) */
    int64_t n_graphs;    /* G */
    int directed;        /* 1 if the graphs are directed (a batch never mixes the two) */
    int64_t *indptr;     /* (N+1) entries of destination i are indptr[i] .. indptr[i+1]-1 */
    int32_t *src;        /* (n_entries) source node of each entry, a batch-global node index */
    int64_t *edge;       /* (n_entries) batch-global edge id: edge_ptr[g] + igraph edge id */
    int64_t *graph_ptr;  /* (G+1) nodes of graph g are graph_ptr[g] .. graph_ptr[g+1]-1 */
    int64_t *edge_ptr;   /* (G+1) edges of graph g are edge_ptr[g] .. edge_ptr[g+1]-1 */
    int32_t *node_graph; /* (N) graph of each node */
} ag_graph_t;

/**
 * \function ag_graph_from_igraph
 * Builds the in-neighbour CSR of one igraph graph. Entries of each destination are sorted by
 * source, then by edge id, so the CSR (and every sum over it) has one fixed order.
 * \param graph  Output, uninitialised; free with ag_graph_destroy().
 * \param ig     The igraph graph.
 * \return AG_SUCCESS, AG_ENOMEM, AG_ELIMIT (more than 2^31-1 nodes).
 * Time complexity: O(|V| + |E| log d) for maximum in-degree d.
 */
ag_error_t ag_graph_from_igraph(ag_graph_t *graph, const igraph_t *ig);

/**
 * \function ag_graph_batch
 * Concatenates graphs into one block-diagonal batch (node and edge ids offset per graph).
 * \return AG_SUCCESS, AG_ENOMEM, AG_EINVAL (count <= 0), AG_EMISMATCH (directed mixed with undirected).
 * Time complexity: O(count + N + M + G) for the batch's N nodes, M CSR entries and G graphs.
 */
ag_error_t ag_graph_batch(ag_graph_t *batch, const ag_graph_t *const *graphs, int64_t count);

/** What tells one graph from another for a node model (modelfile.h's ag_bundle_set_graph): its
 * vertex and edge counts, whether it is directed, a hash of its shape that depends neither on the
 * order of its edges nor on how its vertices are numbered (Weisfeiler-Lehman colour refinement
 * until stable), and a hash of its edges as numbered, in any order. The same graph read from
 * GML, GraphML or an edge list, its edges in any order, has one print; numbered otherwise (NCOL
 * numbers vertices as they first appear), the same hash and another `numbered`. Graphs that 1-WL
 * refinement cannot tell apart (two regular graphs of one size and degree) share a hash. */
typedef struct ag_graph_print_t {
    int64_t vertices, edges;
    int directed;
    uint64_t hash;     /* the shape */
    uint64_t numbered; /* the edges as numbered */
} ag_graph_print_t;

/**
 * \function ag_graph_print
 * The print of a graph. \return AG_SUCCESS; AG_EINVAL (NULL argument); AG_ENOMEM.
 * Time complexity: O(R (|E| + |V| log |V|)) for R <= 64 rounds of refinement (about the diameter
 * on trees).
 */
ag_error_t ag_graph_print(const igraph_t *ig, ag_graph_print_t *out);

/** \function ag_graph_print_equal
 * 1 when two prints are those of one graph numbered alike, else 0.
 * Time complexity: O(1). */
int ag_graph_print_equal(const ag_graph_print_t *a, const ag_graph_print_t *b);

/** \function ag_graph_print_same_shape
 * 1 when two prints are those of one graph, however numbered (counts, directedness, shape).
 * Time complexity: O(1). */
int ag_graph_print_same_shape(const ag_graph_print_t *a, const ag_graph_print_t *b);

/** \function ag_graph_destroy
 * Frees a graph or batch; safe on a zero-initialised one.
 * Time complexity: O(1). */
void ag_graph_destroy(ag_graph_t *graph);

/** Graph file formats igraph reads. */
typedef enum ag_format_t {
    AG_FORMAT_AUTO = 0, /* by file extension */
    AG_FORMAT_GML,
    AG_FORMAT_GRAPHML,
    AG_FORMAT_EDGELIST, /* .edges, .edgelist, .el: "from to" per line, 0-based ids */
    AG_FORMAT_NCOL,     /* .ncol: "name name [weight]" per line */
    AG_FORMAT_LGL,
    AG_FORMAT_PAJEK,    /* .net, .paj */
    AG_FORMAT_DIMACS,   /* .dimacs, .max: flow problem format */
    AG_FORMAT_DL,       /* .dl: UCINET DL */
    AG_FORMAT_COUNT
} ag_format_t;

/** \function ag_format_name
 * The short name of a format ("gml", "graphml", ...).
 * Time complexity: O(1), a lookup in a fixed table. */
const char *ag_format_name(ag_format_t format);

/** \function ag_format_from_name
 * Parses a format name as given to --format ("auto" included), without case.
 * \return AG_SUCCESS; AG_EINVAL (a NULL argument); AG_EFORMAT (an unknown name).
 * Time complexity: O(1), a search of the fixed table of formats. */
ag_error_t ag_format_from_name(const char *name, ag_format_t *format);

/** \function ag_format_from_path
 * Chooses a format by the file extension (without case).
 * \return AG_SUCCESS; AG_EINVAL (a NULL argument); AG_EFORMAT (no extension or an unknown one, or
 *         "-", standard input); AG_EFILE (no known extension and no such file, or a directory: the system's reason,
 *         since a mistyped name is likelier than a format to name).
 * Time complexity: O(L) for L the length of path, plus a stat() when the extension is not known. */
ag_error_t ag_format_from_path(const char *path, ag_format_t *format);

/**
 * \function ag_format_sniff
 * Recognises a format from the start of a file's text, as ag_graph_read() does for standard input.
 * After leading blanks (and a UTF-8 byte-order mark): "graph", "Creator" or "Version" (possibly
 * after '#' comment lines) is GML; other text after '#' lines is LGL; '<' is GraphML; "*Vertices" or
 * "*Network" is Pajek; "DL" is UCINET DL (all without case). Edge lists, NCOL and DIMACS files
 * cannot be told apart by their text ("0 1" is both an edge list and an NCOL line).
 * \param head    The file's first bytes (need not be NUL-terminated); a few lines suffice.
 * \param len     How many.
 * \param format  Output.
 * \return AG_SUCCESS; AG_EFORMAT if the text is empty or in none of the recognised formats.
 * Time complexity: O(len).
 */
ag_error_t ag_format_sniff(const char *head, size_t len, ag_format_t *format);

/**
 * \function ag_graph_read
 * Reads a graph file through igraph, with its vertex, edge and graph attributes.
 * Installs igraph's C attribute handler if none is set. igraph's errors are returned as
 * attngraph errors naming the file (and the line, where igraph's parser reports it).
 * \param ig      Output, uninitialised igraph_t; on success the caller destroys it.
 * \param path    File name, or "-" for standard input.
 * \param format  AG_FORMAT_AUTO to choose by extension, or for standard input by its text
 *                (ag_format_sniff(); the input is then read whole into memory first);
 *                ag_graph_read_format() tells the format used.
 * \param directed For formats that do not say (edge list, NCOL, LGL, DIMACS): 1 directed, 0 not.
 * A Pajek file with both *Arcs and *Edges lines is a directed graph in which each edge is two arcs
 * (docs/formats.md), not what igraph alone makes of it (every edge of the kind of its last header).
 * In the formats whose vertices are numbers (edge list, Pajek, DIMACS, DL) a few bytes can declare
 * millions of vertices, which igraph would allocate: the file is first scanned for the vertex
 * count it asks for (O(file size), no allocation), and a count whose memory, estimated at
 * AG_GRAPH_READ_VERTEX_BYTES per vertex, exceeds the read limit (ag_graph_read_set_max_memory())
 * is refused with AG_EREADLIMIT, the message naming the file, the line, the count and what to
 * change: a fault a program may lay on the file rather than on the memory (attn-graph exits 3, bad
 * input, as for a malformed file), told apart by its code from AG_ELIMIT, a size that overflows.
 * Standard input is not scanned, except when its format is recognised (it is then in memory).
 * \return AG_SUCCESS, AG_EFILE (cannot open or read; an empty path: "graph file: no path given"),
 *         AG_EPARSE, AG_EFORMAT, AG_ENOMEM, AG_EREADLIMIT, AG_ELIMIT.
 * Time complexity: O(B + (|V| + |E|) A) for B the bytes of the file and A its attributes (the
 * scan and igraph's parsers are linear in the file; igraph stores each attribute for every vertex
 * or edge). Standard input, a Pajek file mixing *Arcs and *Edges, and an edge list with comment
 * lines are first copied into memory: O(B) more memory.
 */
ag_error_t ag_graph_read(igraph_t *ig, const char *path, ag_format_t format, int directed);

/**
 * \function ag_graph_read_allow_empty
 * ag_graph_read(), except that a file holding no vertices (a valid GML `graph [ directed 0 ]`, an
 * empty edge list) is read as a graph of 0 vertices instead of being refused: for a program that
 * describes files (attn-graph info) rather than one that needs vertices to work on.
 * \return As ag_graph_read().
 * Time complexity: as ag_graph_read().
 */
ag_error_t ag_graph_read_allow_empty(igraph_t *ig, const char *path, ag_format_t format, int directed);

/** How ag_graph_read_with() reads a file; ag_graph_read_options_init() sets the defaults, those of
 * ag_graph_read(). */
typedef struct ag_graph_read_options_t {
    ag_format_t format; /* AG_FORMAT_AUTO (default): as ag_graph_read() chooses */
    int directed;       /* as ag_graph_read()'s directed (default 0) */
    int allow_empty;    /* 1: as ag_graph_read_allow_empty() (default 0) */
    int64_t vertices;   /* an edge list's vertex count, as igraph_read_graph_edgelist()'s n: 0 (default)
                           the largest id + 1; N > 0: N vertices, those beyond the largest id without an
                           edge (an edge list cannot name them otherwise). Refused (AG_EINVAL) below the
                           largest id + 1, or with another format than an edge list. */
} ag_graph_read_options_t;

/** \function ag_graph_read_options_init
 * Sets the defaults (see ag_graph_read_options_t).
 * Time complexity: O(1). */
void ag_graph_read_options_init(ag_graph_read_options_t *opts);

/**
 * \function ag_graph_read_with
 * ag_graph_read() with options. A vertex count (opts->vertices) is held to the read limit as a
 * count the file declares is (AG_EREADLIMIT).
 * \return As ag_graph_read(); AG_EINVAL also for a NULL opts, or a vertex count that is below the
 *         largest id + 1, negative, or given for another format than an edge list (naming the file).
 * Time complexity: as ag_graph_read(), O(N) more for opts->vertices = N.
 */
ag_error_t ag_graph_read_with(igraph_t *ig, const char *path, const ag_graph_read_options_t *opts);

/** Bytes per vertex that reading a graph costs, for the read limit: igraph's graph with its
 * temporaries while it builds it (24 bytes per vertex measured with igraph 0.10.2 at 5 million
 * isolated vertices) plus the in-neighbour CSR of ag_graph_from_igraph() (12 bytes per vertex). */
#define AG_GRAPH_READ_VERTEX_BYTES 40

/**
 * \function ag_graph_read_set_max_memory
 * Sets the memory limit ag_graph_read() applies to the vertex count a text file declares (see
 * there), and ag_table_read() to the matrix a sparse node table's largest index asks for (table.h).
 * Process-wide, for every thread.
 * \param bytes  > 0: that many bytes; 0: the default, MemAvailable of /proc/meminfo at the time of
 *               each read (no limit where it cannot be read); < 0: no limit.
 * \return The previous setting.
 * Time complexity: O(1).
 */
int64_t ag_graph_read_set_max_memory(int64_t bytes);

/** \function ag_graph_read_warning
 * The first warning igraph emitted during the last ag_graph_read() on this thread, prefixed with
 * the file name ("FILE: ..."), or "" if there was none. The library never prints it; programs may.
 * Example: the GML reader ignores composite (list) attributes with a warning, one per attribute;
 * ag_graph_read_warning_reason() gives each distinct one, and a dataset's loaders keep every
 * distinct one of each file (ag_dataset_t.warnings, dataset.h).
 * Time complexity: O(1). */
const char *ag_graph_read_warning(void);

/** The most distinct warnings ag_graph_read() keeps of one read. */
#define AG_GRAPH_READ_WARNINGS_KEPT 8

/** \function ag_graph_read_warning_count
 * How many distinct warnings of the last ag_graph_read() on this thread are kept: the first
 * AG_GRAPH_READ_WARNINGS_KEPT in the order igraph gave them (igraph may repeat one per vertex or
 * edge; it counts once). 0 when there were none.
 * Time complexity: O(1). */
int ag_graph_read_warning_count(void);

/** \function ag_graph_read_warning_reason
 * The i-th kept warning (0 <= i < ag_graph_read_warning_count()) in igraph's words, without the
 * file name ("Composite vertex attribute 'xs' ignored in GML file."), or "" for another i.
 * ag_graph_read_warning() is the first, with the name.
 * Time complexity: O(1). */
const char *ag_graph_read_warning_reason(int i);

/** \function ag_graph_read_warnings_other
 * How many distinct warnings of the last ag_graph_read() on this thread came after the kept ones
 * (counted, not kept; up to 256): 0 unless ag_graph_read_warning_count() is
 * AG_GRAPH_READ_WARNINGS_KEPT. A program saying the kept ones can say that there were more.
 * Time complexity: O(1). */
int ag_graph_read_warnings_other(void);

/** \function ag_graph_read_format
 * The format the last successful ag_graph_read() on this thread parsed (what AG_FORMAT_AUTO chose),
 * or AG_FORMAT_AUTO after a failed read.
 * Time complexity: O(1). */
ag_format_t ag_graph_read_format(void);

#ifdef __cplusplus
}
#endif
#endif
