/*
 * predict.h: what `attn-graph classify`, `label` and `explain` share: finding the shipped default
 * models, catching igraph's errors in the program, JSON output, and writing files atomically.
 */
#ifndef AG_CLI_PREDICT_H
#define AG_CLI_PREDICT_H

#include <stdio.h>
#include <attngraph/attngraph.h>
#include <attngraph/model.h>
#include <attngraph/modelfile.h>
#include "cli.h"
#include "learn.h"
#include "outfile.h"

int ag_cmd_classify(int argc, char **argv);
int ag_cmd_label(int argc, char **argv);
int ag_cmd_explain(int argc, char **argv);

/* The path of a shipped model `name` ("tox21.safetensors"), searched in order in
 * $ATTN_GRAPH_MODELS, the installed data dir (AG_MODELS_INSTALL_DIR) and the source tree's
 * graphs/models (AG_MODELS_SOURCE_DIR). Writes the first existing one into buf and returns buf;
 * returns NULL (after printing where it looked) if none exists. */
const char *cli_default_model(const char *cmd, const char *name, char *buf, size_t cap);

/* 1 when the model reads vertex attributes and the graph has none of them: a graph of another kind
 * (a social network given to a molecule model). */
int cli_shares_no_attribute(const ag_bundle_t *b, const igraph_t *ig);

/* The note after such a graph met the default model (no --model given): which model that was, and
 * that --model chooses another. */
void cli_default_model_hint(const char *cmd, const char *path);

/* Loads a model; prints the error and returns its exit code (4 for a bad model) on failure. */
int cli_load_model(const char *path, ag_bundle_t *b);

/* ag_model_keep_attention(member, keep) for every member of b: label and classify, which never
 * read attention weights, run with 0 so that the blocks share one attention workspace. */
void cli_bundle_keep_attention(ag_bundle_t *b, int keep);

/* Makes igraph calls made by the program (writers, layouts, attribute setters) return errors
 * instead of aborting; cli_igraph_message() is the last error's reason. */
void cli_igraph_catch(void);
const char *cli_igraph_message(void);

/* A JSON string: JSON's short escapes where it has one (\" \\ \n \r \t \b \f), \u00XX for the other
 * control characters (C0, DEL and C1); other well-formed UTF-8 passes through, and each byte that is not becomes U+FFFD
 * (a Latin-1 name still gives valid JSON). Every JSON output of the program goes through it. And a number (null when not finite). */
void cli_json_string(FILE *out, const char *s);
/* The same for the n bytes at s (a NUL among them is written as \u0000). */
void cli_json_string_n(FILE *out, const char *s, size_t n);
void cli_json_number(FILE *out, double x);
/* --json's line for a file that failed, {"file": PATH, "kind": KIND, "error": MESSAGE} (no "kind"
 * when kind is NULL) with MESSAGE its stderr line, so that a program reading the objects sees
 * every file it gave, in order; and the warnings said about the file before it failed
 * (cli_json_warnings; warnings may be NULL), which may tell why (an attribute igraph ignored). */
void cli_json_error(FILE *out, const char *path, const char *kind, const char *message,
                    const ag_cli_warnings_t *warnings);
/* The member `, "warnings": [TEXT, ...]` of an object being written, or nothing when w is NULL or
 * holds none: objects without warnings stay as they were, as members such as info's in_degree
 * appear only where they apply. */
void cli_json_warnings(FILE *out, const ag_cli_warnings_t *w);

/* Whether text s is wholly a finite number, as a numeric attribute would hold it. */
int cli_number_text(const char *s);

/* The code point of the UTF-8 sequence of len bytes at s (ag_utf8_sequence's length; a byte of
 * another encoding, len 0 or 1, is its own value). */
unsigned cli_utf8_code(const char *s, size_t len);

/* 1 when a value (vocabulary entry, class name, attribute value) can be shown as it is among other
 * text: not empty, well-formed UTF-8, no space, '"' or control character. */
int cli_value_plain(const char *v);
/* A value in a space-separated list (quote 0) or a message (quote '\''): as it is, between the
 * quotes when given, if plain; else as a JSON string ("New York", "c\u0001"), so that an empty
 * value shows and no control character of a graph reaches the terminal raw. */
void cli_print_value(FILE *out, const char *v, char quote);
/* A name (an attribute's, a directory) to show in a table or a line: s itself when it holds no
 * control character (C0, DEL or a C1 in UTF-8); else s as a JSON string in buf (cap bytes,
 * truncated to fit), so that a graph's or a checkpoint's bytes never reach the terminal raw. */
const char *cli_display(const char *s, char *buf, size_t cap);
/* The length of a sequence at s (n bytes left) that must not reach a terminal raw, 0 for a safe
 * character: a C0 or C1 control, DEL, a byte that is not UTF-8 (*raw_byte set, *code the byte),
 * a line or paragraph separator or a bidirectional mark, override or isolate (*code the code
 * point). cli_text_safe: s holds none. */
size_t cli_unsafe_seq(const char *s, size_t n, unsigned *code, int *raw_byte);
int cli_text_safe(const char *s);
int cli_text_safe_n(const char *s, size_t n);

/* 1 if s ends with suffix (lowercase), in any case: "M.SafeTensors" ends with ".safetensors". */
int cli_ends_with_ci(const char *s, const char *suffix);

/* Output kinds chosen by the extension of an output path. */
typedef enum { CLI_OUT_GML, CLI_OUT_GRAPHML, CLI_OUT_CSV, CLI_OUT_SVG, CLI_OUT_JSON, CLI_OUT_UNKNOWN } cli_out_kind_t;
cli_out_kind_t cli_out_kind(const char *path);


/* Writes the graph as GML or GraphML to f; returns 0 or prints the error and returns -1. */
int cli_write_graph(const char *cmd, const igraph_t *ig, cli_out_kind_t kind, FILE *f, const char *path);

/* Writes the graph as GML or GraphML to path atomically; returns an exit code (errors printed). */
int cli_write_graph_file(const char *cmd, const igraph_t *ig, cli_out_kind_t kind, const char *path);

/* The value of --model, refused (-1, a message on stderr) when one was given already: classify,
 * label and explain predict with one model file. Returns 1. */
int cli_model_once(const char *cmd, const char **model_path, const char *v);

/* --max-memory SIZE of the predicting commands and info: the limit of graph reading
 * (ag_graph_read_set_max_memory()), so that a file declaring a billion vertices can be read on
 * purpose. Returns 1 (taken), 0 (another option) or -1 (no value, or not a size: said on stderr). */
int cli_max_memory_option(const char *cmd, int argc, char **argv, int *i);

/* --vertices N of every command that reads graphs: an edge list's vertex count
 * (ag_graph_read_options_t.vertices), for the vertices without an edge after its largest id.
 * Returns 1 (taken, *n set), 0 (another option) or -1 (no value, or not a count: said on stderr). */
int cli_vertices_option(const char *cmd, int argc, char **argv, int *i, int64_t *n);

/* A graph's path as messages name it: "<stdin>" for "-", as the graph reader does. */
const char *cli_shown_path(const char *path);

/* Says, through ag_cli_warning, each distinct warning igraph gave in the last ag_graph_read() of
 * path ("PATH: REASON"), and how many more distinct ones there were past those kept. */
void cli_say_read_warnings(const char *path);

/* Reads a graph (saying igraph's warnings, if any: cli_say_read_warnings); returns an exit code
 * (3 for a file over the reading limit of --max-memory as for any bad file). */
int cli_read_graph(igraph_t *ig, const char *path, const ag_graph_read_options_t *opts);

/* One forward pass of a model on one graph, kept so attention weights can be read afterwards. */
typedef struct cli_run_t {
    ag_graph_t g;
    ag_fmat_t X;      /* (N x F) */
    ag_fmat_t E;      /* (E x Fe) */
    ag_batch_t batch; /* wraps g, X, E; holds the masks */
    int have_batch;
    float *Y;         /* (rows x C): node rows (node tasks) or 1 row (graph tasks); probabilities or values */
    int64_t rows;
} cli_run_t;

/* Featurises ig (with the node table when the model takes one) and predicts it. Prints
 * "attn-graph: PATH: reason" and returns an exit code on failure; r is then already freed. */
/* Warns ("attn-graph: warning: PATH: ...", through ag_cli_warning as every warning below) when
 * string attribute values of ig are not in the model's vocabularies (ag_featurizer_unseen: the
 * attribute where most are), since their vertices or edges then get the attribute's 'other'
 * column. */
void cli_warn_unseen(const ag_bundle_t *b, const igraph_t *ig, const char *path);
/* Warns when a node model that reads Laplacian columns (whose signs and order belong to
 * the graph it was trained on) is given another graph than that one (ag_bundle_other_graph). */
void cli_warn_other_graph(const ag_bundle_t *b, const igraph_t *ig, const char *path);
/* Where a data column lies: the graph's columns of X (attributes, then degree), the node table's
 * (its own index), or the edges' columns of E. */
typedef enum { CLI_COL_VERTEX, CLI_COL_TABLE, CLI_COL_EDGE } cli_col_part_t;
/* 1, with the column's training mean and std, when column c of `part` is standardised; 0 when its
 * values are used as they are (no statistics, or mean 0 and std 1: a column --normalize auto left
 * alone). t may be NULL for a model without a node table. */
int cli_column_standardised(const ag_featurizer_t *f, const ag_table_norm_t *t, cli_col_part_t part, int64_t c,
                            float *mean, float *std);
/* Warns (a node model's inputs X and edge features E, featurised) of each numeric column whose mean
 * on this graph lies over 5 training standard deviations from its training mean, or whose spread
 * is over 5 times the training one (a column left as it is: mean 0, deviation 1): a column in
 * another unit (incomes x 10 took a model from 0.94 to 0.35 accuracy, silently). A graph column is
 * named with path, a node-table column with table_path. */
void cli_warn_shifted(const ag_bundle_t *b, const ag_fmat_t *X, const ag_fmat_t *E, const char *path,
                      const char *table_path);
/* Warns once for the graphs idx[0..n) of a graph-level model's featurised examples whose inputs
 * hold a value beyond anything plausible (over 100 training deviations, the rule cli_warn_shifted
 * applies to one graph): how many, and the first such graph's column, named with files[] (the
 * data set's paths; NULL when unknown). cmd leads the line ("eval"). */
void cli_warn_shifted_graphs(const ag_bundle_t *b, const ag_example_t *examples, const int64_t *idx, int64_t n,
                             const char *const *files, const char *cmd);
/* Warns, for a graph-level model that knows the sizes of its training graphs (has_sizes), when ig
 * lies far outside them (ag_bundle_graph_size_outside: over twice the largest vertex count or
 * under half the smallest): what was seen, the training range, and that the prediction is an
 * extrapolation. Nothing for a model without them. */
void cli_warn_graph_size(const ag_bundle_t *b, const igraph_t *ig, const char *path);
/* Warns once for the graphs graphs[idx[0..n)] that cli_warn_graph_size would warn of, as
 * cli_warn_shifted_graphs does: how many, and the first one, named with files[] (NULL: unknown). */
void cli_warn_graph_sizes(const ag_bundle_t *b, const igraph_t *graphs, const int64_t *idx, int64_t n,
                          const char *const *files, const char *cmd);
/* "graphs of 10 to 30 vertices and 12 to 45 edges": b's training sizes (b->has_sizes). */
void cli_print_size_range(FILE *out, const ag_bundle_t *b);
/* The vertex attribute a node table's ids are matched to: id_attr when given, else 'id', else
 * 'name' (NCOL, LGL); NULL for the 0-based vertex indices (an edge list). */
const char *cli_table_key(const igraph_t *ig, const char *id_attr);
/* Every vertex's id as text, as a node table's rows are matched to them: cli_table_key's attribute
 * (a number as an integer when it is one, else with 17 digits), or the 0-based index when that is
 * NULL or a GraphML file's ids are n0, n1, ... in order (what PyG and OGB tables use). NULL when out
 * of memory or an explicit id_attr is not a vertex attribute (*missing then 1); free with
 * cli_vertex_ids_free. */
char **cli_vertex_ids(const igraph_t *ig, const char *id_attr, int *missing);
void cli_vertex_ids_free(char **ids, igraph_integer_t n);
/* Reads the node table of ig, its ids matched to cli_table_key's attribute; a LINQS .content
 * file's last field is its label, and so is a column named label_attr (may be NULL) when the graph
 * has no such vertex attribute (t->labels then holds them). With a model (its table's column
 * names; NULL when training), a column it does not read may hold text, and a sparse table is read
 * at the model's width. With the default key, ids that match none of its values but are all vertex
 * indices match the indices (a note says so). format is the one ig was read from
 * (ag_graph_read_format()): an id naming no vertex of an edge list or NCOL file is said to be
 * perhaps a vertex without an edge, which such a file cannot hold. */
ag_error_t cli_table_read(ag_node_table_t *t, const igraph_t *ig, ag_format_t format, const char *table_path,
                          const char *id_attr, const char *label_attr, const ag_table_norm_t *model);
/* Featurises ig (and table, read from table_path, or NULL) and runs the model on it. */
int cli_run_model(ag_bundle_t *b, const igraph_t *ig, const ag_fmat_t *table, const char *path, const char *table_path,
                  cli_run_t *r);
void cli_run_destroy(cli_run_t *r);

/* The table's labels (one string per vertex, "" for none) as vertex attribute name: numeric when
 * every label is a number (so that classes sort as numbers and node regression reads values; an
 * empty one is NaN), else strings. -1 when igraph runs out of memory; -2 (said on stderr, naming
 * table_path) when numbers sit beside a missing-value word (ag_missing_word). */
int cli_labels_to_attr(igraph_t *g, const char *name, char *const *labels, const char *table_path);
/* Reads the node table a model needs (when b->table.width > 0): --node-table is required then; for
 * a model without one, a table holding only the labels (b->label_attr) is read for them.
 * Returns an exit code; *have is 1 when a table was read into t. */
int cli_read_node_table(const char *cmd, const ag_bundle_t *b, const char *model_path, const char *table_path,
                        const char *id_attr, const igraph_t *ig, ag_format_t format, ag_node_table_t *t, int *have);

/* Matches a node table's columns to the model's by name when both have names (the model's
 * b->table.columns; a header): t's features and names are reordered to the model's, a column the
 * model was not trained with is dropped (a note says so), one the model needs and the table lacks
 * is refused (exit 3). Without names, the width is checked (cli_check_table_width). Returns an
 * exit code. */
int cli_align_table(const char *cmd, const char *table_path, const char *model_path, const ag_table_norm_t *tn,
                    ag_node_table_t *t);

/* Refuses (exit 3, one line naming the table, its width and the model's) a node table whose width
 * is not the one the model was trained with. */
int cli_check_table_width(const char *cmd, const char *table_path, int64_t width, const char *model_path,
                          int64_t expected);

/* The output attribute (and CSV column) name of class or target c of names[0..n-1]: prefix then the
 * letters and digits of names[c] ("prob" + "Case_Based" -> "probCaseBased"), since igraph's GML
 * writer drops every other byte of a key and GML and GraphML outputs should carry the same names.
 * When that leaves two names equal or one empty, every name is prefix + its index ("prob0"). */
void cli_attr_name(char *buf, size_t cap, const char *prefix, const char *const *names, int64_t n, int64_t c);

/* Removes an attribute of the kind (vertex, edge, graph) if the graph has it (igraph warns otherwise). */
void cli_attr_remove(igraph_t *ig, igraph_attribute_elemtype_t kind, const char *name);

/* Warns on stderr, once, that the attributes cli_attr_remove removed since the last call (the
 * graph's own pred, a previous run's prob* or attnL*) are replaced in cmd's output; then forgets them. */
void cli_attr_replaced_warn(const char *cmd, const char *graph_path);

/* The most probable class of one row of C probabilities (the first of equals). */
int64_t cli_argmax(const float *y, int64_t C);

/* What `label` and `explain` share: a model run on one GRAPH (with the node table the model may
 * need), given by the same options. */
typedef struct cli_graph_opts_t {
    const char *model_path;  /* --model, or the shipped default once cli_prediction_load ran */
    const char *graph_path;  /* GRAPH ('-': standard input) */
    const char *out_path;    /* -o, --output */
    const char *format_name; /* --format */
    const char *table_path;  /* --node-table */
    const char *table_id;    /* --table-id-attr */
    int directed;            /* --directed */
    int64_t vertices;        /* --vertices (0: the edges' largest id + 1) */
    int64_t threads;         /* --threads (0: default) */
    ag_format_t format;      /* from format_name (cli_graph_opts_check) */
    char default_path[4096]; /* holds the default model's path */
} cli_graph_opts_t;

void cli_graph_opts_init(cli_graph_opts_t *o);

/* Takes argv[*i] when it is GRAPH or one of the shared options. Returns 1 when taken (advancing *i
 * past a value), 0 when it is none of them, -1 after printing why it is bad (exit 2). */
int cli_graph_option(cli_graph_opts_t *o, const char *cmd, int argc, char **argv, int *i);

/* Resolves --format and refuses '-' without it; returns an exit code (errors printed). */
int cli_graph_opts_check(cli_graph_opts_t *o, const char *cmd);

typedef struct cli_prediction_t {
    ag_bundle_t b;
    int have_bundle;
    igraph_t ig;
    int have_graph;
    ag_node_table_t table;
    int have_table;
    cli_run_t run;
} cli_prediction_t;

/* Sets --threads and loads the model (`default_model` among the shipped ones without --model).
 * Returns an exit code (errors printed); p is ready for cli_prediction_destroy in any case. */
int cli_prediction_load(cli_prediction_t *p, cli_graph_opts_t *o, const char *cmd, const char *default_model);

/* Reads GRAPH and the node table and runs the loaded model on them; returns an exit code. */
int cli_prediction_run(cli_prediction_t *p, const cli_graph_opts_t *o, const char *cmd);

void cli_prediction_destroy(cli_prediction_t *p);

/* Node classification: the run's probabilities corrected and smoothed over the graph (s->cfg), the
 * classes the graph's vertices already have in the model's label attribute being the known ones.
 * Weights the user gave need that attribute (exit 3 without it); the model's own weights, missing
 * it, leave the probabilities as they are, with a note. Returns an exit code. */
int cli_prediction_smooth(cli_prediction_t *p, const cli_graph_opts_t *o, const cli_smooth_t *s, const char *cmd);

#endif
