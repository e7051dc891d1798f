/*
 * attngraph/table.h: node feature tables read from text files, aligned to a graph's vertices.
 *
 * A node table gives every vertex of a graph one row of F numbers. Row v of the result is vertex v
 * of the graph, whatever the order of the lines in the file: each line carries an id that is
 * matched to a vertex attribute (GML's `id` by default) or to the vertex index.
 *
 * Three text forms (see docs/data.md):
 * - AG_TABLE_DELIMITED: CSV/TSV with a header row. One id column (by name, default the first), the
 *   feature columns are the other columns or a chosen subset; an optional label column.
 *   Quoted fields follow RFC 4180. Delimiter: ',' for .csv, tab for .tsv/.tab, else sniffed.
 * - AG_TABLE_WHITESPACE: no header, `id f1 ... fF [label]` separated by spaces or tabs
 *   (Cora's `cora.content`: paper id, 1,433 0/1 words, class name).
 * - AG_TABLE_SPARSE: no header, `id idx:value idx:value ...` (Twitch's `features.txt`); absent
 *   entries are 0; width = largest index + 1 unless given (a model's width: a file whose rows
 *   all lack the top index has fewer columns by itself, yet is the same table).
 *
 * Example: Cora's features and labels
 *   ag_table_options_t o;
 *   ag_table_options_init(&o);
 *   o.last_is_label = 1;                    // the class name ends each line
 *   ag_node_table_t t;
 *   ag_table_read(&t, "cora/cora.content", &cora_graph, &o);   // t.features is 2708 x 1433
 *   ag_labels_from_strings(&labels, (const char *const *)t.labels, t.features.rows, NULL, 0, "cora.content");
 *   ag_node_table_destroy(&t);
 */
#ifndef ATTNGRAPH_TABLE_H
#define ATTNGRAPH_TABLE_H

#include <igraph.h>
#include "attngraph/common.h"
#include "attngraph/matrix.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Text forms of a node table. */
typedef enum ag_table_format_t {
    AG_TABLE_AUTO = 0,   /* .csv/.tsv/.tab: delimited; .content: whitespace; else sniffed from line 1 */
    AG_TABLE_DELIMITED,  /* header row, ',' '\t' or ';' */
    AG_TABLE_WHITESPACE, /* no header: id f1 ... fF [label] */
    AG_TABLE_SPARSE      /* no header: id idx:value ... */
} ag_table_format_t;

/** Options of ag_table_read(); fill with ag_table_options_init() first. */
typedef struct ag_table_options_t {
    ag_table_format_t format;   /* AG_TABLE_AUTO */
    const char *id_column;      /* delimited: name of the id column; NULL = the first column */
    const char *vertex_attr;    /* vertex attribute the ids are matched to (numeric or string); NULL = "id" */
    int match_index;            /* 1: ids are 0-based vertex indices instead (vertex_attr ignored) */
    int index_fallback;         /* 1: when not one id matches vertex_attr and every id is a vertex index
                                   0..N-1, the rows are matched by index (table->by_index says so): a
                                   table indexed 0..N-1 beside a graph whose ids are names (GraphML's
                                   "n0", "n1", ...). Any id matching vertex_attr keeps the match by it */
    const char *absent_note;    /* appended after ": " to the message of an id that names no vertex yet
                                   may name one the graph lacks (matched to vertex_attr: any; by index:
                                   an integer at or beyond the vertex count): why such a vertex is not
                                   in the graph (an edge list has no vertex without an edge); NULL: none */
    const char *const *columns; /* delimited: feature columns by name, in this order; NULL = all others */
    int64_t n_columns;
    const char *label_column;   /* delimited: a column kept as label strings, not features; NULL = none */
    int last_is_label;          /* whitespace: the last field of each line is a label string */
    int64_t width;              /* sparse: number of features; 0 = largest index + 1 */
    const char *width_of;       /* sparse: what the given width belongs to ("the model"), named in the
                                   message of an index beyond it; NULL: nothing named */
} ag_table_options_t;

/** A node table aligned to a graph. */
typedef struct ag_node_table_t {
    ag_fmat_t features; /* (N x F) row v = vertex v */
    char **columns;     /* (F) feature column names; NULL for the headerless forms */
    char **labels;      /* (N) label string of each vertex; NULL unless a label column was asked */
    int by_index;       /* 1: the ids matched no vertex attribute and were taken as vertex indices
                           (ag_table_options_t.index_fallback) */
    int sparse;         /* 1: read as sparse 'id idx:value ...', feature column j being index j */
} ag_node_table_t;

/** \function ag_table_options_init
 * Sets the defaults: automatic format, first column as id, ids matched to vertex attribute `id`,
 * every other column a feature, no label column, sparse width from the data.
 * Time complexity: O(1). */
void ag_table_options_init(ag_table_options_t *opts);

/** How many times a sparse table's dense matrix (N x (largest index + 1) float32) is counted
 * against the read limit: the table, and the feature matrix a model's input is made from it
 * (measured: train peaks at about twice the matrix before its memory estimate runs). */
#define AG_TABLE_READ_COPIES 2

/**
 * \function ag_table_read
 * Reads a node table and aligns its rows to the vertices of a graph.
 *
 * Every vertex must have exactly one row and every row must match a vertex.
 * \param table  Output, uninitialised; free with ag_node_table_destroy(). Zeroed on failure.
 * \param path   The table file.
 * \param graph  The graph whose vertices the rows are matched to (with attributes unless
 *               opts->match_index).
 * \param opts   Options, or NULL for the defaults.
 * \return AG_SUCCESS;
 *   AG_EFILE (cannot read), AG_EPARSE (path:line: malformed line, quote, wrong number of fields,
 *   non-numeric value naming the column, bad idx:value; a delimited table whose first line is a
 *   row, not a header, or whose header names a column twice), AG_EATTR (the id column, a chosen column or
 *   the vertex attribute does not exist; two vertices share an id), AG_EMISMATCH (path:line: an id
 *   matching no vertex, naming the id (and opts->absent_note); a vertex with no row, naming its
 *   index and id; a duplicate id naming both lines; after index_fallback, each also says that the
 *   ids were taken as vertex indices; when some but not all ids match vertex_attr, the first that
 *   does not, as without the fallback; when no id matches (a table keyed by something else), path
 *   without a line, the count of ids, the attribute with two of its values and the table's first
 *   id, instead of that first id's error; an id N (the vertex count) while no row has had id 0 asks
 *   whether the table is numbered from 1), AG_EVALUE (path:line: NaN or infinite value; sparse index beyond the
 *   given width, naming the index, the width and opts->width_of; path:line: field: a sparse feature
 *   index of 2^31-1 or more, the largest supported index being 2^31-2), AG_EREADLIMIT (path:line: a
 *   sparse table without a given width whose N x (largest index + 1) float32 matrix, counted
 *   AG_TABLE_READ_COPIES times, exceeds the read limit, ag_graph_read_set_max_memory(): naming the
 *   index and the distinct indices used),
 *   AG_EINVAL (bad options), AG_ENOMEM.
 * Time complexity: O(file size + N F + (N + R) log N + F log F) for R lines (each id is found by
 * binary search), plus O(K H) for K columns named in opts->columns and H header fields (each name
 * is found by a scan of the header).
 */
ag_error_t ag_table_read(ag_node_table_t *table, const char *path, const igraph_t *graph,
                         const ag_table_options_t *opts);

/**
 * \function ag_table_read_refused_graph
 * Whether the last ag_table_read() on this thread failed on the graph rather than on the table:
 * the vertex attribute the ids are matched to is missing or neither numeric nor string, two
 * vertices share an id, or indexing the ids ran out of memory. Such a message names neither file
 * (the table's own errors start with its path), so that a caller who knows the graph's file can
 * name it without comparing the message with the table's path.
 * \return 1 or 0; 0 after a success and before the first call.
 * Time complexity: O(1).
 */
int ag_table_read_refused_graph(void);

/**
 * \function ag_node_table_select
 * Keeps the feature columns named columns[0..n-1], in that order, and drops the others: how a
 * model trained on a table reads a new one whose columns come in another order or with more of
 * them. The table must have a header (table->columns).
 * \param table   In/out: a table read by ag_table_read.
 * \param columns The names, each present in the table (the first column of that name is taken;
 *                ag_table_read refuses a header that repeats a name).
 * \param n       How many.
 * \param moved   Output, or NULL: 1 when the table changed (another order, or columns dropped).
 * \return AG_SUCCESS; AG_EINVAL (NULL arguments, a table without names); AG_EVALUE (a name the
 *         table lacks: "the node table has no column 'age'", naming a column that differs only in
 *         case or surrounding spaces, "(it has 'Age', ...)"), the table unchanged; AG_ENOMEM.
 * Time complexity: O(n x F + N x n).
 */
ag_error_t ag_node_table_select(ag_node_table_t *table, const char *const *columns, int64_t n, int *moved);

/** \function ag_node_table_destroy
 * Frees a node table; safe on a zeroed or already destroyed one.
 * Time complexity: O(N + F). */
void ag_node_table_destroy(ag_node_table_t *table);

#ifdef __cplusplus
}
#endif
#endif
