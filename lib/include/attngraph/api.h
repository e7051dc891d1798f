/*
 * attngraph/api.h: the igraph-style facade. A C program that already has an igraph_t loads a model
 * file, predicts, reads attention weights, or trains and saves a model, in a few calls.
 *
 * An ag_net_t is a trained model with everything needed to use it: the network, the featuriser
 * that turns a graph's attributes into inputs (stored in the model file, so a graph is featurised
 * exactly as in training), the optional node-table normalisation, and the class or task names.
 * It is a thin handle over the lower-level ag_bundle_t (modelfile.h); ag_net_bundle() exposes it.
 *
 * Conventions (igraph's):
 * - graphs come in as `const igraph_t *`, with igraph's C attribute handler installed
 *   (igraph_set_attribute_table(&igraph_cattribute_table)) when features come from attributes;
 * - results go into caller-initialised igraph_vector_t / igraph_vector_int_t / igraph_matrix_t /
 *   igraph_strvector_t, which the callee resizes; on failure their contents are unspecified but
 *   they stay valid (the caller still destroys them); a container never initialised (zeroed) or
 *   already destroyed, given as a result or as an input (features, targets, labels, ...), is
 *   refused with AG_EINVAL naming it;
 * - every fallible call returns an ag_error_t (AG_SUCCESS is 0) and records a one-line message,
 *   read with ag_error_message() (common.h); nothing aborts, exits or prints;
 * - igraph's error and warning handlers are the caller's again on return, and an igraph error
 *   inside a call frees only the library's entries of igraph's finally stack: temporaries the
 *   caller pushed with IGRAPH_FINALLY before the call stay its own to destroy and clean.
 *
 * Features of a graph (the `features` argument of the predicting functions):
 * - NULL: taken from the graph's attributes with the model's stored featurisation;
 * - an (N x Ft) matrix when the model was trained with a feature matrix (ag_net_train_nodes or
 *   ag_net_train_node_values with `features`): the matrix is normalised as in training and
 *   appended after the attribute columns;
 * - an (N x F) matrix when the model was trained from attributes only: it replaces the whole input
 *   X, bypassing the featuriser (F = ag_net_n_inputs()); edge features, if the model has any, are
 *   still read from the edge attributes.
 * ag_net_feature_width() says which width a model expects.
 *
 * Thread safety: igraph 0.10 as built here is not thread-safe (its error handler, warnings and
 * cleanup stack are process globals), and every function below except the pure queries
 * (ag_net_task, ag_net_n_outputs, ag_net_n_inputs, ag_net_feature_width, ag_net_output_name,
 * ag_net_n_layers, ag_net_bundle) calls igraph. So at most one thread at a time may call them, even on different
 * handles; serialise with a mutex. A handle also keeps the activations of its last forward pass,
 * so it is never safe to use one handle from two threads. Parallelism comes from inside: the
 * kernels use OpenMP and the BLAS (ag_threads_set(), common.h, a process-wide setting), with
 * results bit-identical for any number of threads. The last-error message is thread-local.
 */
#ifndef ATTNGRAPH_API_H
#define ATTNGRAPH_API_H

#include <igraph.h>
#include "attngraph/common.h"
#include "attngraph/model.h"
#include "attngraph/modelfile.h"
#include "attngraph/train.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A trained model with its featurisation and labels. Opaque; free with ag_net_destroy(). */
typedef struct ag_net_t ag_net_t;

/**
 * \function ag_net_load
 * Reads a model file (written by ag_net_save() or `attn-graph train -o`). An ensemble file
 * (`attn-graph train --ensemble K`) predicts and scores as the ensemble (the mean of its members'
 * logits, so a classifier's probabilities are the softmax or sigmoid of that mean, a normalised
 * geometric mean of theirs, not their mean; a regressor's values are the mean of theirs); its
 * attention (ag_net_attention) is its first member's.
 * \param net   Output: a new handle on success, NULL on failure. Free with ag_net_destroy().
 * \param path  The .safetensors file.
 * \return AG_SUCCESS; AG_EFILE (cannot open); AG_EMODEL (not an attn-graph model, corrupted,
 *         truncated, or written by a newer version: the message names the file and the defect);
 *         AG_EINVAL (NULL argument, an empty path); AG_ENOMEM.
 * Time complexity: O(file size).
 */
ag_error_t ag_net_load(ag_net_t **net, const char *path);

/**
 * \function ag_net_save
 * Writes the model to one safetensors file, atomically (a temporary file renamed over path).
 * Loading it back gives bit-identical predictions.
 * \return AG_SUCCESS; AG_EFILE (cannot write, with the reason); AG_EINVAL; AG_ENOMEM.
 * Time complexity: O(P + J) for the P parameters of every member and J the size of the JSON
 * header (featuriser with its vocabularies, names).
 */
ag_error_t ag_net_save(const ag_net_t *net, const char *path);

/** \function ag_net_destroy
 * Frees the handle and everything it owns. NULL is allowed.
 * Time complexity: O(K L) for K members of L blocks, plus the featuriser's vocabularies. */
void ag_net_destroy(ag_net_t *net);

/** \function ag_net_task
 * What the model predicts (model.h: AG_TASK_NODE_CLASSIFICATION, AG_TASK_GRAPH_CLASSIFICATION,
 * AG_TASK_GRAPH_MULTITASK, AG_TASK_GRAPH_REGRESSION, ...); ag_task_name() gives its name;
 * (ag_task_t)-1 for a NULL handle.
 * Time complexity: O(1). */
ag_task_t ag_net_task(const ag_net_t *net);

/** \function ag_net_n_outputs
 * C classes (classification) or T tasks / regression targets; 0 for a NULL handle.
 * Time complexity: O(1). */
igraph_integer_t ag_net_n_outputs(const ag_net_t *net);

/** \function ag_net_output_name
 * The name of class or task i (0 <= i < ag_net_n_outputs()), owned by the handle, or NULL if i is
 * out of range or net is NULL. Graph classification trained from C: the class values ("0", "1", ...); node
 * classification trained from C: "0" .. "C-1".
 * Time complexity: O(1). */
const char *ag_net_output_name(const ag_net_t *net, igraph_integer_t i);

/**
 * \function ag_net_output_names
 * All class or task names, in output order.
 * \param names  Caller-initialised string vector; resized to ag_net_n_outputs().
 * \return AG_SUCCESS, AG_EINVAL (NULL net or names), AG_ENOMEM. Time complexity: O(C).
 */
ag_error_t ag_net_output_names(const ag_net_t *net, igraph_strvector_t *names);

/**
 * \function ag_net_input_attrs
 * The graph attributes the model reads, in column order.
 * \param vertex_attrs  Caller-initialised; resized to the vertex attribute names (may be NULL).
 * \param edge_attrs    Caller-initialised; resized to the edge attribute names (may be NULL).
 * \return AG_SUCCESS, AG_EINVAL (NULL net), AG_ENOMEM. Time complexity: O(number of attributes).
 */
ag_error_t ag_net_input_attrs(const ag_net_t *net, igraph_strvector_t *vertex_attrs, igraph_strvector_t *edge_attrs);

/** \function ag_net_n_inputs
 * F: the width of the model's node input X (attribute, structural and node-table columns); 0 for a
 * NULL handle.
 * Time complexity: O(1). */
igraph_integer_t ag_net_n_inputs(const ag_net_t *net);

/** \function ag_net_feature_width
 * The number of columns a caller's feature matrix must have: the node-table width when the model
 * was trained with one (then features are required), else ag_net_n_inputs() (then features are
 * optional and replace X); 0 for a NULL handle.
 * Time complexity: O(1). */
igraph_integer_t ag_net_feature_width(const ag_net_t *net);

/** \function ag_net_bundle
 * The lower-level bundle (modelfile.h) for advanced use (featuriser columns, the ag_model_t),
 * owned by the handle; NULL for a NULL handle.
 * Time complexity: O(1). */
ag_bundle_t *ag_net_bundle(ag_net_t *net);

/**
 * \function ag_net_merge
 * Makes dst an ensemble, or a larger one, of its models and src's (as `attn-graph train --ensemble
 * K`): train K handles with the same options but the seed, then merge them into the first. It
 * predicts and scores the mean of the members' logits (as ag_net_load() says), and ag_net_save()
 * writes it as one file.
 * \param dst  The handle that grows.
 * \param src  In: a handle trained on the same data with the same options but the seed; out:
 *             NULL, its models now dst's (the handle is freed).
 * \return AG_SUCCESS; AG_EINVAL (a NULL handle, src the same as dst); AG_EMISMATCH (another
 *         configuration, featuriser, names, node-table normalisation or target scaling: the
 *         message names the part that differs); AG_ENOMEM. On failure both handles are unchanged.
 * Time complexity: O(K L + J) for the K members of L blocks of src, J the size of the JSON header
 * (featuriser with its vocabularies, names), which both handles write out to compare.
 */
ag_error_t ag_net_merge(ag_net_t *dst, ag_net_t **src);

/**
 * \function ag_net_featurize
 * The model's inputs for a graph, exactly as the predicting functions compute them: X, the node
 * input (N x F, F = ag_net_n_inputs()) from the graph's attributes and structure with the model's
 * stored featurisation (or from `features`, as for ag_net_predict_nodes()), and the edge features
 * (|E| x Fe, one row per igraph edge id) from its edge attributes. X given back as `features` to a
 * model trained from attributes gives the same predictions; ag_net_feature_names() names the
 * columns.
 * \param features  NULL, or a feature matrix (see the top of this header).
 * \param X         Caller-initialised; resized to N x F.
 * \param E         Caller-initialised; resized to |E| x Fe (Fe is 0 for a model without edge
 *                  features), or NULL if not wanted.
 * \return AG_SUCCESS; AG_EINVAL (NULL net, graph or X); the featurisation errors of
 *         ag_net_predict_nodes() (AG_EATTR, AG_EVALUE, AG_EMISMATCH); AG_ENOMEM.
 * Time complexity: O((N + E) x columns) plus the PE costs (posenc.h).
 */
ag_error_t ag_net_featurize(const ag_net_t *net, const igraph_t *graph, const igraph_matrix_t *features,
                            igraph_matrix_t *X, igraph_matrix_t *E);

/**
 * \function ag_net_feature_names
 * The names of the columns of ag_net_featurize()'s X and E: "charge", "element=C",
 * "element=<other>", "degree", "lap_pe.1", "rw_pe.1", ... (features.h's
 * ag_featurizer_column_name()), then the columns of the feature matrix the model was trained with
 * (its column names when it had some, else "features.1", "features.2", ...); edge columns as
 * "bond", "bond_type=DOUBLE", ...
 * \param x_names  Caller-initialised; resized to ag_net_n_inputs() (may be NULL).
 * \param e_names  Caller-initialised; resized to the edge feature width (may be NULL).
 * \return AG_SUCCESS, AG_EINVAL (NULL net), AG_ENOMEM. Time complexity: O(F + Fe).
 */
ag_error_t ag_net_feature_names(const ag_net_t *net, igraph_strvector_t *x_names, igraph_strvector_t *e_names);

/**
 * \function ag_net_predict_nodes
 * Node classification: the class of every vertex and the class probabilities (softmax).
 * \param net       A node-classification model (node regression: labels must be NULL and probs
 *                  receives the values).
 * \param graph     The graph, with the attributes the model reads (see ag_net_input_attrs()).
 * \param features  NULL, or a feature matrix (see the top of this header).
 * \param labels    Caller-initialised; resized to N: the index of the most probable class
 *                  (the first one on ties), or NULL if not wanted.
 * \param probs     Caller-initialised; resized to N x C, or NULL if not wanted.
 * These are the model's own predictions: Correct and Smooth weights stored in the model
 * (`attn-graph train --smooth ... -o`), which `attn-graph label` applies by default, are not
 * applied here; ag_net_smooth_nodes() applies them to probs.
 * \return AG_SUCCESS; AG_EINVAL (a graph-level model; NULL net or graph; labels for regression);
 *         AG_EATTR (an attribute the model reads is missing or has another type: the message names
 *         it and what the model expects); AG_EVALUE (a NaN or infinite attribute or feature value,
 *         naming the vertex; a graph without vertices); AG_EMISMATCH (features of the wrong width
 *         or row count, or missing when the model needs a feature matrix; a directed graph for a
 *         model trained on undirected ones, or the reverse); AG_ENOMEM.
 * Time complexity: featurisation O((N + E) x columns) plus the PE costs (posenc.h), then one
 * forward pass per ensemble member (ag_model_forward(), model.h): its masks, O(N x F x W) for the
 * input projection through the BLAS, and per block O(M x H x D) over the M mask entries (the sum
 * over graphs of N_g^2 x H x D for the full mask) plus O(N x W x W_ff) for the feed-forward
 * sub-block; W the block width, W_ff the feed-forward width.
 */
ag_error_t ag_net_predict_nodes(ag_net_t *net, const igraph_t *graph, const igraph_matrix_t *features,
                                igraph_vector_int_t *labels, igraph_matrix_t *probs);

/**
 * \function ag_net_smooth_nodes
 * Applies the Correct and Smooth weights a node-classification model stores (`attn-graph train
 * --smooth ALPHA [--correct ALPHA] -o`, or ag_bundle_set_smooth()) to its probabilities, as
 * `attn-graph label` does by default: ag_label_smooth() (smooth.h) with those weights.
 * \param graph   The graph probs were predicted on.
 * \param probs   (N x C) from ag_net_predict_nodes().
 * \param known   (N) the class (0 .. C-1) of each vertex whose class is known, -1 elsewhere; or
 *                NULL to read them, as the program does, from the vertex attribute the model's
 *                labels came from (`--label-attr`; ag_net_bundle(net)->label_attr), its values
 *                matched to the class names (NaN or "" = unknown).
 * \param result  Caller-initialised; resized to N x C, each row a distribution. May be probs.
 * \return AG_SUCCESS; AG_EINVAL (NULL argument; not a node-classification model; a model without
 *         stored weights; known NULL and the model names no label attribute; the errors of
 *         ag_label_smooth()); AG_EMISMATCH (probs without C columns or N rows, known not N long);
 *         AG_EATTR (the graph lacks the label attribute); AG_EVALUE (a value of it that is no
 *         class of the model: names the vertex); AG_ENOMEM.
 * Time complexity: O(iterations x (N + E) x C) (ag_label_smooth()), plus O(N log C) to read the
 * known classes from the label attribute when known is NULL.
 */
ag_error_t ag_net_smooth_nodes(const ag_net_t *net, const igraph_t *graph, const igraph_matrix_t *probs,
                               const igraph_vector_int_t *known, igraph_matrix_t *result);

/**
 * \function ag_net_predict_graph
 * Graph tasks: the prediction for one whole graph. out is resized to ag_net_n_outputs(): class
 * probabilities (classification), one probability per task (multi-task), or the values in target
 * units (regression).
 * \return AG_SUCCESS; AG_EINVAL (a node-level model, NULL argument); the featurisation errors of
 *         ag_net_predict_nodes(); AG_ENOMEM. Time complexity: as ag_net_predict_nodes().
 */
ag_error_t ag_net_predict_graph(ag_net_t *net, const igraph_t *graph, const igraph_matrix_t *features,
                                igraph_vector_t *out);

/**
 * \function ag_net_predict_graphs
 * Graph tasks: the predictions for many graphs at once, row g of out for graphs[g] (resized to
 * n_graphs x ag_net_n_outputs(), the values of ag_net_predict_graph()). The graphs are featurised
 * one after another and run as block-diagonal batches of up to 256 graphs, so that the kernels get
 * rows enough to keep the threads busy: on ESOL's 1,128 molecules, one thread, 1.5 times faster
 * than a call per graph with the shipped Tox21 model and 2.9 times with the ESOL ensemble of 5
 * (measured 2026-12-06). A graph's rows depend only on that graph: the same as
 * ag_net_predict_graph() gives it and the same whatever the batch holds beside it, up to float
 * rounding (the BLAS may take another path for rows at a tile's edge), and bit for bit the same
 * for any thread count. The graphs' vertex and edge
 * attributes are the input; a caller's feature matrices go through ag_net_predict_graph().
 * \param graphs    An array of n_graphs graphs (as ag_net_train_graphs() takes them); n_graphs 0
 *                  gives 0 rows.
 * \return AG_SUCCESS; AG_EINVAL (a node-level model, a NULL argument, n_graphs < 0, a model trained
 *         with a feature matrix); the featurisation errors of ag_net_predict_nodes(), the message
 *         naming the graph ("graph 3: ..."); AG_EMISMATCH (a directed graph for a model of
 *         undirected ones, or the reverse); AG_ENOMEM. On failure out is left as it was.
 *         Time complexity: as ag_net_predict_graph() for each graph.
 */
ag_error_t ag_net_predict_graphs(ag_net_t *net, const igraph_t *graphs, igraph_integer_t n_graphs,
                                 igraph_matrix_t *out);

/**
 * \function ag_net_classify_graph
 * Graph classification: the most probable class of one graph (index into the output names; the
 * first on ties) into label (required) and, if probs is not NULL, all class probabilities
 * (resized to C).
 * \return as ag_net_predict_graph(); AG_EINVAL also for a model that is not graph classification
 *         and for a NULL label.
 * Time complexity: as ag_net_predict_graph().
 */
ag_error_t ag_net_classify_graph(ag_net_t *net, const igraph_t *graph, const igraph_matrix_t *features,
                                 igraph_integer_t *label, igraph_vector_t *probs);

/**
 * \function ag_net_attention
 * Runs the model on a graph and returns the attention weights of block `layer` (0-based) per igraph
 * edge and head: how much a destination attends to a source, after normalisation (softmax over each
 * destination's sources, so a destination's weights of one head sum to 1, less, in a model with a
 * graph token (the graph preset), its weight on the token, which is not returned), without dropout.
 * For edge e with from = IGRAPH_FROM(graph, e) and to = IGRAPH_TO(graph, e) (igraph's stored ends:
 * what igraph_write_graph_gml writes as source and target; note that for undirected graphs
 * igraph_edge() and igraph_get_edgelist() return them the other way round, smaller id first):
 * - edge_alpha (|E| x H): the weight of `from` in the attention of `to` over e (for a directed
 *   graph the only direction; for an undirected one what `attn-graph explain` writes as
 *   attnL<L>H<H>Fwd);
 * - edge_alpha_rev (|E| x H, may be NULL): undirected graphs: the weight of `to` in the attention
 *   of `from` over e (explain's attnL<L>H<H>Rev: the other direction of the same edge; a self-loop
 *   has one direction, so both matrices hold the same value); directed graphs: NaN. The mean of the two
 *   matrices is a symmetric per-edge score.
 * - self_alpha (N x H, may be NULL): the weight of each node on itself through the self-loop the
 *   attention adds (the default); NaN for a node without an added self-loop (self-loops switched
 *   off, or the graph has its own self-loop on that node: that one is an edge above).
 * Entries the mask does not contain are NaN: for a k-hop mask a multi-edge shares one entry (the
 * smallest edge id carries it); for the full mask only edges and self-pairs are reported, and
 * every copy of a multi-edge carries the pair's one weight (count it once when summing a node's
 * weights).
 * \param features  As for ag_net_predict_nodes().
 * \return AG_SUCCESS; AG_EINVAL (layer out of range: the message gives the number of blocks);
 *         the featurisation errors of ag_net_predict_nodes(); AG_ENOMEM.
 * Time complexity: that of ag_net_predict_nodes() for one model (of an ensemble only the first
 * member runs: the weights are its), plus O(M x H x D) to rescore the block's M mask entries
 * (ag_attention_weights()) and O((N + E) x H) to fill the matrices.
 */
ag_error_t ag_net_attention(ag_net_t *net, const igraph_t *graph, const igraph_matrix_t *features,
                            igraph_integer_t layer,
                            igraph_matrix_t *edge_alpha, igraph_matrix_t *edge_alpha_rev,
                            igraph_matrix_t *self_alpha);

/** \function ag_net_n_layers
 * The number of attention blocks (valid layers of ag_net_attention are 0 .. n-1); 0 for a NULL
 * handle.
 * Time complexity: O(1). */
igraph_integer_t ag_net_n_layers(const ag_net_t *net);

/**
 * Training options: the options of `attn-graph train` (docs/cli.md), one field per option with the
 * option's name (--head-dim is head_dim). Start from ag_net_train_options_init(), which sets the
 * CLI's defaults: strings NULL and most numbers -1, meaning the default the preset gives; the 0/1
 * flags, threads, min_epochs and huber 0; seed 1 (each field's comment says). Named values take the
 * CLI's spellings ("khop", "gatv2", "cosine", ...). The split options of the CLI are replaced by
 * the index vectors of the training functions; output options by ag_net_save(); --ensemble by
 * ag_bundle_add_member() (modelfile.h); --smooth and --correct by ag_label_smooth() (smooth.h).
 */
typedef struct ag_net_train_options_t {
    /* data and features */
    const char *task;          /* graph tasks: "graph-classification", "graph-multitask" or
                                  "graph-regression"; NULL infers it from the targets as the CLI
                                  does (several 0/1 columns -> multitask; one column of at most 10
                                  integer values -> classification; else regression) */
    const char *vertex_attrs;  /* comma-separated names or fnmatch patterns, "all" (NULL) or "none" */
    const char *edge_attrs;    /* the same for edge attributes */
    const char *exclude_attrs; /* comma-separated; added to "id" and ag_featurizer_output_patterns() */
    const char *normalize;     /* "none", "standard", "l1" or "auto" (standard for the columns
                                  with values beyond [-1, 1], AG_NORM_STANDARDIZE_RAW); also for a
                                  node feature matrix; NULL: node tasks auto, graph preset standard,
                                  else none */
    int degree;                /* 1: degree column(s) */
    igraph_integer_t lap_pe;   /* Laplacian PE columns (0: none; -1: node tasks on a graph with
                                  no usable vertex attribute, degree 0 and rw_pe -1, get
                                  AG_FEATURELESS_LAP_PE, at most N-1; else none) */
    igraph_integer_t rw_pe;    /* random-walk PE columns (0: none; -1: the preset's, graph: 8, else none) */
    /* model */
    const char *preset;        /* "transformer", "gat" (node classification) or "graph" (graph
                                  tasks); NULL: chosen
                                  from the task and the data (options.h's
                                  ag_net_train_options_preset), as the CLI does */
    igraph_integer_t layers, heads, head_dim, hidden, hops;
    const char *mask;          /* "neighbours", "khop", "full", or one per block joined by
                                  commas, repeated when fewer than the blocks ("neighbours,full"
                                  alternates local and global blocks) */
    const char *score;         /* "dot", "gat", "gatv2" */
    const char *attn_norm;     /* "softmax", "relu" */
    const char *readout;       /* "mean", "sum", "max", "attention", "vnode" (the graph token's
                                  final state; turns virtual_node on), or several joined by commas
                                  ("vnode,sum"): their outputs side by side */
    const char *edge_mode;     /* "none", "key", "bias" */
    const char *norm;          /* "pre", "post", "none" */
    double dropout, attn_dropout;
    int no_ffn, no_residual;
    /* training */
    igraph_integer_t epochs, batch_size, patience, warmup;
    double lr, weight_decay, clip;
    const char *optimizer;     /* "adam", "adamw", "sgd" */
    const char *schedule;      /* "constant", "step", "cosine" */
    const char *metric;        /* "auto", "loss", "accuracy", "macro_f1", "roc_auc", "rmse", "mae" */
    uint64_t seed;             /* model initialisation, shuffling and dropout (default 1) */
    int threads;               /* > 0: ag_threads_set(threads) first (a process-wide setting); at most AG_THREADS_MAX */
    int no_train_metric;       /* 1: skip scoring the training part every epoch */
    ag_progress_fn *progress;  /* called after every epoch (train.h), or NULL */
    void *progress_user;
    const volatile sig_atomic_t *stop; /* not NULL: training ends after the epoch under way once
                                  *stop is set, with the best weights so far (train.h's stop) */
    int virtual_node;          /* 1: one learned graph token per graph (model.h); default 0 */
    igraph_integer_t min_epochs; /* no early stop and no best-epoch choice before this epoch (<= 0: none) */
    igraph_integer_t head_hidden; /* graph tasks: width of the head's hidden layer after the readout
                                     (-1: the block width; 0: a linear head, no hidden layer) */
    int no_sign_flip;          /* graph tasks: 1 trains on the Laplacian columns' signs as computed
                                  (default 0: random signs per graph and step, train.h's
                                  flip_cols); node tasks never flip (one graph, one sign) */
    double huber;              /* regression: > 0 trains on the Huber loss with this threshold, in
                                  standard deviations of the target (train.h's huber_delta); 0: MSE */
} ag_net_train_options_t;

/** \function ag_net_train_options_init
 * Every option at the CLI's default.
 * Time complexity: O(1). */
void ag_net_train_options_init(ag_net_train_options_t *opts);

/**
 * \function ag_net_train_graphs
 * Builds and trains a graph-level model on G graphs, as `attn-graph train --labels` does: the
 * featuriser is fitted on the training graphs' attributes (graphs without a usable vertex
 * attribute get their degree, unless opts->vertex_attrs is set), the model is trained with early
 * stopping on the validation graphs, and the best weights are kept.
 * \param net      Output: a new handle on success, NULL on failure.
 * \param graphs   (G) graphs with igraph's C attribute handler; not modified, not kept.
 * \param n_graphs G >= 1.
 * \param targets  (G x T) targets, NaN = missing. Classification: one column of class values
 *                 (0/1, or a few integers; output names are the values); multi-task: T 0/1
 *                 columns; regression: T numeric columns.
 * \param train    Graph indices to train on (and fit the featuriser on), or NULL for all.
 * \param val      Graph indices for early stopping, or NULL for none (then the last epoch is kept).
 *                 An index twice in train or in val, or in both (train given), is AG_EINVAL, as in
 *                 a split file of the program; the node trainers take their lists alike.
 * \param opts     Options, or NULL for the defaults.
 * \param result   Epochs run, best epoch and metric, seconds; for regression, the targets of one
 *                 value on every training graph that has one (constant_targets, trained all the
 *                 same: there is nothing to learn; `attn-graph train` warns of them); may be NULL.
 * \return AG_SUCCESS; AG_EINVAL (G < 1, an index out of range or listed twice, a bad option value: the message
 *         names the option and the accepted values; a node task); AG_EMISMATCH (targets do not
 *         have G rows; directed and undirected graphs mixed); AG_EVALUE (fewer than 2 classes; a
 *         graph without vertices); the featuriser's errors naming the graph
 *         ("vertex attribute 'charge' is missing from graph 3" for an attribute named in vertex_attrs);
 *         AG_ENOMEM. With every attribute (vertex_attrs NULL), one that some training graph lacks
 *         is left out of the model, as features.h's fit does: name it in vertex_attrs to require it
 *         (ag_net_input_attrs lists what the model reads; `attn-graph train` names such attributes
 *         in a note).
 * Time complexity: ag_featurizer_fit() on the training graphs and ag_featurizer_transform() on all
 * of them, then per epoch (at most opts->epochs) a forward and a backward pass over the training
 * graphs and a forward pass over the validation ones (ag_model_train(), train.h), each
 * O(N x F x W + L x (M x H x D + N x W x W_ff)) for the N nodes and M mask entries they hold (the
 * sum of N_g^2 under the full mask), L blocks of width W, W_ff the feed-forward width.
 */
ag_error_t ag_net_train_graphs(ag_net_t **net, const igraph_t *graphs, igraph_integer_t n_graphs,
                               const igraph_matrix_t *targets, const igraph_vector_int_t *train,
                               const igraph_vector_int_t *val, const ag_net_train_options_t *opts,
                               ag_train_result_t *result);

/**
 * \function ag_net_train_nodes
 * Builds and trains a node-classification model on one graph (semi-supervised: the loss runs over
 * the training vertices, the whole graph is the input), as `attn-graph train GRAPH` does: a graph
 * without a usable vertex attribute, given no features, gets its degree and, unless opts->lap_pe
 * is set, AG_FEATURELESS_LAP_PE Laplacian columns (opts->vertex_attrs set: as it says).
 * \param net       Output: a new handle on success, NULL on failure. Free with ag_net_destroy().
 * \param graph     The graph; its attributes are features (opts->vertex_attrs), or none.
 * \param features  (N x Ft) node features appended after the attribute columns (normalised by
 *                  opts->normalize with statistics over all N rows, stored in the model), or NULL.
 * \param labels    (N) class of each vertex, 0 .. C-1, or -1 for unlabelled; C = max + 1 >= 2. A
 *                  vertex attribute that mirrors them (one-to-one with the classes over the
 *                  labelled vertices, some value repeating: the labels set as an attribute too)
 *                  is left out of the features, as `--label-attr`'s mirrors in the program;
 *                  named in opts->vertex_attrs, or a column of features that mirrors them, it is
 *                  refused (AG_EATTR): the model would read its answer from it.
 * \param train     Vertex ids to train on, or NULL for every labelled vertex.
 * \param val       Vertex ids for early stopping, or NULL. A vertex twice in train or in val, or in
 *                  both (train given), is AG_EINVAL, as for ag_net_train_graphs().
 * \return AG_SUCCESS; AG_EMISMATCH (labels or features with another number of rows than N);
 *         AG_EVALUE (a label below -1, no labelled training vertex, fewer than 2 classes among
 *         the labelled vertices: labels all 2 are one class, though C = 3; a NaN, infinite or
 *         beyond-float32 value of features: "feature matrix: matrix value at row R, column J ...");
 *         AG_EINVAL (no input column at all, with opts->vertex_attrs set: give attributes, degree,
 *         a PE or features; an index out of range; a bad option); the featuriser's errors; AG_ENOMEM.
 * Time complexity: O(A x N log N) to look for label mirrors among the A vertex attributes (and
 * O(Ft x (N + C^2)) among the Ft columns of features), the featurisation (ag_featurizer_fit() and
 * ag_featurizer_transform() on the graph), the graph's print
 * (ag_graph_print(): O(R (E + N log N)) for R <= 64 rounds), then per epoch (at most opts->epochs) a
 * forward and a backward pass over the whole graph and a forward pass for validation:
 * O(N x F x W + L x (M x H x D + N x W x W_ff)) each, as ag_net_train_graphs().
 */
ag_error_t ag_net_train_nodes(ag_net_t **net, const igraph_t *graph, const igraph_matrix_t *features,
                              const igraph_vector_int_t *labels, const igraph_vector_int_t *train,
                              const igraph_vector_int_t *val, const ag_net_train_options_t *opts,
                              ag_train_result_t *result);

/**
 * \function ag_net_train_node_values
 * Builds and trains a node-regression model on one graph, as `attn-graph train GRAPH --label-attr Y`
 * does for a numeric attribute Y: the loss (mean squared error on values standardised over the
 * training vertices, or opts->huber's) runs over the training vertices, the whole graph is the
 * input. The model predicts in the values' units (ag_net_predict_nodes() with labels NULL); its
 * one output is named "target". A numeric vertex attribute that copies the values over the
 * vertices that have one (equal as float32, or correlated to 1 - 1e-6 over ten or more: the values
 * in another unit) is left out of the features: the natural pattern of setting the target as an
 * attribute too does not hand the model its answer; named in opts->vertex_attrs, or a column of
 * features that copies them, it is refused (AG_EATTR). float32, which the
 * model computes in, keeps about 7 significant digits: values whose spread is below a millionth of
 * their size (1e9 + a few) are refused; subtract an offset first.
 * \param graph     The graph; its attributes are features (opts->vertex_attrs), or none.
 * \param features  (N x Ft) node features, as for ag_net_train_nodes(), or NULL.
 * \param values    (N) the value of each vertex, NaN for unlabelled.
 * \param train     Vertex ids to train on, or NULL for every vertex with a value.
 * \param val       Vertex ids for early stopping (on the RMSE unless opts->metric says), or NULL;
 *                  the two lists as ag_net_train_nodes() takes them (no vertex twice, nor in both).
 * \param result    As ag_net_train_graphs()'s: constant_targets is 1 when every training vertex
 *                  with a value has the same one (trained all the same, with nothing to learn,
 *                  where a classifier of one class is refused; `attn-graph train` warns); may be NULL.
 * \return AG_SUCCESS; AG_EMISMATCH (values or features with another number of rows than N);
 *         AG_EVALUE (an infinite value or one beyond float32, naming the vertex; no vertex with a
 *         value, or none among the training vertices; values float32 cannot tell apart; a graph
 *         without vertices); AG_EINVAL (NULL values; opts->task other
 *         than "node-regression"; an index out of range; a bad option; no input column); the
 *         featuriser's errors; AG_ENOMEM.
 * Time complexity: as ag_net_train_nodes().
 */
ag_error_t ag_net_train_node_values(ag_net_t **net, const igraph_t *graph, const igraph_matrix_t *features,
                                    const igraph_vector_t *values, const igraph_vector_int_t *train,
                                    const igraph_vector_int_t *val, const ag_net_train_options_t *opts,
                                    ag_train_result_t *result);

/**
 * \function ag_net_evaluate_graphs
 * Scores a graph-level model on the listed graphs (NULL: all): every metric the task allows
 * (train.h's ag_scores_t, NaN where undefined). Targets as for ag_net_train_graphs(); for
 * classification their values must be among the model's class names. Only the listed graphs and
 * their target rows are read: a graph not listed may lack what the model needs.
 * \return AG_SUCCESS; AG_EINVAL (several target columns for a classification model); AG_EMISMATCH
 *         (another number of target rows than graphs; another number of target columns than the
 *         model's tasks or targets); AG_EVALUE (a class value the model does not know); the
 *         featurisation errors; AG_ENOMEM.
 * Time complexity: ag_featurizer_transform() on each of the n listed graphs, then one forward pass
 * per ensemble member over the n listed ones (as ag_net_predict_graphs()) and O(T x n log n) for
 * the ROC-AUC of T tasks.
 */
ag_error_t ag_net_evaluate_graphs(ag_net_t *net, const igraph_t *graphs, igraph_integer_t n_graphs,
                                  const igraph_matrix_t *targets, const igraph_vector_int_t *idx,
                                  ag_scores_t *scores);

/**
 * \function ag_net_evaluate_graph_tasks
 * ag_net_evaluate_graphs(), and each task's own figure over the graphs where it has a target: a
 * multi-task model's ROC-AUC per task (NaN for a task whose targets there are one class, which
 * the mean in scores->roc_auc leaves out), a regression model's RMSE per target in its units; a
 * classification model has one task, its accuracy. Task j is column j of targets (the model's
 * names, ag_net_output_names()).
 * \param per_task Caller-initialised vector, resized to the model's task count.
 * \return As ag_net_evaluate_graphs(); AG_EINVAL (NULL per_task).
 * Time complexity: as ag_net_evaluate_graphs().
 */
ag_error_t ag_net_evaluate_graph_tasks(ag_net_t *net, const igraph_t *graphs, igraph_integer_t n_graphs,
                                       const igraph_matrix_t *targets, const igraph_vector_int_t *idx,
                                       ag_scores_t *scores, igraph_vector_t *per_task);

/**
 * \function ag_net_evaluate_nodes
 * Scores a node-classification model on the listed vertices (NULL: every labelled one).
 * \param labels  (N) class ids 0 .. C-1 or -1 (unlabelled, not counted).
 * \return AG_SUCCESS; AG_EINVAL; AG_EMISMATCH; AG_EVALUE (a label >= C); featurisation errors.
 * Time complexity: as ag_net_predict_nodes(), plus O(n x C) for the scores of the n listed vertices.
 */
ag_error_t ag_net_evaluate_nodes(ag_net_t *net, const igraph_t *graph, const igraph_matrix_t *features,
                                 const igraph_vector_int_t *labels, const igraph_vector_int_t *idx,
                                 ag_scores_t *scores);

/**
 * \function ag_net_evaluate_node_values
 * Scores a node-regression model of one target on the listed vertices (NULL: every one with a
 * value): RMSE and MAE in the values' units, and the loss (train.h's ag_scores_t; the class
 * metrics NaN).
 * \param values  (N) the value of each vertex, NaN for unlabelled (not counted).
 * \return AG_SUCCESS; AG_EINVAL (not a node-regression model of one target; NULL argument; an index
 *         out of range); AG_EMISMATCH; AG_EVALUE (an infinite value); featurisation errors.
 * Time complexity: as ag_net_evaluate_nodes(), with O(n) for the scores.
 */
ag_error_t ag_net_evaluate_node_values(ag_net_t *net, const igraph_t *graph, const igraph_matrix_t *features,
                                       const igraph_vector_t *values, const igraph_vector_int_t *idx,
                                       ag_scores_t *scores);

#ifdef __cplusplus
}
#endif
#endif
