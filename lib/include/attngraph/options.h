/*
 * attngraph/options.h: from the options of `attn-graph train` (ag_net_train_options_t, api.h) to the
 * model and training configurations (model.h, train.h).
 *
 * The program and the igraph-style facade both train from these options; this is the one place
 * that says what each option and each preset mean, so that `attn-graph train` and
 * ag_net_train_nodes/ag_net_train_graphs build the same model and train it the same way.
 *
 * Example: the model and training configuration of `attn-graph train --preset gat`
 *   ag_net_train_options_t o;
 *   ag_net_train_options_init(&o);
 *   o.preset = "gat";
 *   ag_train_config_t tc;
 *   ag_model_config_t mc;
 *   ag_net_train_options_train_config(&o, AG_TASK_NODE_CLASSIFICATION, &tc);
 *   ag_net_train_options_model_config(&o, AG_TASK_NODE_CLASSIFICATION, F, 0, C, &mc);
 */
#ifndef ATTNGRAPH_OPTIONS_H
#define ATTNGRAPH_OPTIONS_H

#include "attngraph/api.h"
#include "attngraph/common.h"
#include "attngraph/features.h"
#include "attngraph/model.h"
#include "attngraph/prepare.h"
#include "attngraph/train.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Why ag_net_train_options_preset chose its preset. */
typedef enum {
    AG_PRESET_GIVEN = 0,       /* opts->preset was set */
    AG_PRESET_DATA_FEATURES,   /* gat: node classification on data features within [-1, 1] */
    AG_PRESET_RAW_VALUES,      /* transformer: some data feature beyond [-1, 1], or standardised
                                  by AG_NORM_STANDARDIZE_RAW (it was beyond) */
    AG_PRESET_MODEL_OPTIONS,   /* transformer: an option describes the model */
    AG_PRESET_STRUCTURE_ONLY,  /* transformer: no feature column comes from the data */
    AG_PRESET_TASK,            /* graph for graph tasks, transformer for node regression */
    AG_PRESET_HETEROPHILY      /* transformer: data features within [-1, 1], but the training labels'
                                  edges join classes no more often than chance (ag_prepared_homophily
                                  below AG_PRESET_HOMOPHILY_MIN over AG_PRESET_HOMOPHILY_EDGES edges
                                  or more) */
} ag_preset_reason_t;

/* The default preset's homophily rule (ag_net_train_options_preset): gat needs an adjusted
 * homophily of at least this much, when at least this many edges join two training labels. */
#define AG_PRESET_HOMOPHILY_MIN 0.05
#define AG_PRESET_HOMOPHILY_EDGES 50

/* Node tasks' Laplacian columns when the graph has no usable vertex attribute and opts->lap_pe
 * is not given (ag_featurizer_config_t's lap_pe_if_featureless). */
#define AG_FEATURELESS_LAP_PE 16

/**
 * \function ag_net_train_options_preset
 * The preset a run trains: opts->preset when set; otherwise chosen from the task and the data.
 * "gat" for node classification whose node features come, at least in part, from the data
 * (vertex attributes or a feature matrix, not only degree or positional-encoding columns) and
 * lie within [-1, 1] there (indicators, one-hot categories, bags of words, row-normalised
 * values), when none of the options that describe a model is set (layers, heads, head_dim,
 * hidden, hops, mask, score, attn_norm, readout, edge_mode, norm, no_ffn, no_residual,
 * virtual_node, head_hidden: they describe the transformer, and keep it); "transformer" in every
 * other case; and "transformer" also when train is given and the edges between its labelled
 * vertices join classes no more often than chance: ag_prepared_homophily() below
 * AG_PRESET_HOMOPHILY_MIN over AG_PRESET_HOMOPHILY_EDGES edges or more (GAT averages a vertex's
 * neighbours with no residual, and fell below a model of the features alone on such graphs, where
 * the transformer did not: docs/cli.md). Why (docs/cli.md, seed 1, best validation accuracy): with features from the data
 * the gat preset was ahead (Cora 0.802 against 0.748, Twitch-EN 0.612 against 0.597, both 0/1
 * features); with structure only the transformer was (LastFM Asia with positional encodings
 * 0.855 against 0.748, with the degree alone 0.695 against 0.245; Cora's graph with the degree
 * alone 0.306 against 0.188). The gat preset has no normalisation layer: on raw numbers (an age
 * of 18-80 beside informative indicators) its training stayed at the majority class, where the
 * transformer's did not; standardising every column instead lost on Cora (0.750) and Twitch-EN
 * (0.527). Node tasks standardise their raw columns by default (AG_NORM_STANDARDIZE_RAW,
 * ag_net_train_options_feature_defaults): a data column that featurisation standardised counts
 * as raw here, so that the default keeps the transformer there (test accuracy 1.0 for seeds 1-5
 * on a planted three-community graph with an age, against the gat preset's 0.94-1.0). Its model
 * has no edge term: training then leaves the edge attributes out
 * (ag_net_train_options_uses_edges).
 * Graph tasks get "graph": the transformer with the choices that won on the validation data of
 * all three molecule sets (docs/results.md: Tox21, ESOL, MUTAG): 4 blocks of 8 GATv2 heads, a
 * graph token as readout, edge features as score biases, gradient clipping at norm 1 and a cosine
 * schedule over the epochs (early stopping as usual), on standardised columns with 8 random-walk
 * columns (ag_net_train_options_feature_defaults). Compared with the transformer's defaults
 * (best validation figures): see docs/cli.md.
 * ag_net_train_options_train_config and ag_net_train_options_model_config read a NULL preset as
 * "transformer"; the program and ag_net_train_nodes/ag_net_train_graphs call this function first.
 * \param opts Options.
 * \param task The task being trained.
 * \param p    The prepared training data (for node classification: the one graph's features,
 *             the featuriser's attribute columns first and the feature matrix's last); not read
 *             for a graph task, where it may be NULL (the preset decides how to featurise).
 * \param train (n_train) the training vertices, whose labels the homophily rule reads; NULL (with
 *             n_train 0) leaves that rule out. Validation and test labels are never read.
 * \param why  If not NULL, set to AG_PRESET_GIVEN, AG_PRESET_DATA_FEATURES (gat),
 *             AG_PRESET_RAW_VALUES (transformer: data features beyond [-1, 1]),
 *             AG_PRESET_MODEL_OPTIONS, AG_PRESET_STRUCTURE_ONLY, AG_PRESET_HETEROPHILY
 *             (transformer) or AG_PRESET_TASK (graph, or transformer for node regression).
 * \return "gat", "graph" or "transformer" (static strings), or opts->preset itself.
 * Time complexity: O(N x F + E) for node classification without a preset given, else O(1).
 */
const char *ag_net_train_options_preset(const ag_net_train_options_t *opts, ag_task_t task, const ag_prepared_t *p,
                                        const int64_t *train, int64_t n_train, ag_preset_reason_t *why);

/**
 * \function ag_net_train_options_uses_edges
 * Whether the model these options build reads edge features when the data has some: a block whose
 * edge mode is not "none" (the transformer's default "key", or edge_mode given). The gat preset
 * has no edge term unless edge_mode is given. Training featurises edge attributes only for a
 * model that reads them, so that its file does not ask prediction for attributes it never uses.
 * \param opts Options, the preset resolved (NULL reads as "transformer").
 * \param task The task being trained.
 * \return 1 or 0; 1 when the options are invalid (ag_net_train_options_model_config reports them).
 * Time complexity: O(layers).
 */
int ag_net_train_options_uses_edges(const ag_net_train_options_t *opts, ag_task_t task);

/**
 * \function ag_net_train_options_train_config
 * The training configuration of the options: the task's defaults (ag_train_config_default), the
 * preset's (gat: lr 0.005, weight decay 5e-4, patience 100; graph: cosine schedule, clipping at
 * norm 1), then every option that is set
 * (optimizer, schedule, metric, lr, weight_decay, clip, huber, epochs, batch_size, patience, warmup, seed,
 * no_train_metric, progress). `threads` is left to the caller (a process-wide setting).
 * \param opts Options (ag_net_train_options_init for the defaults).
 * \param task The task being trained.
 * \param tc   Output: the configuration.
 * \return AG_SUCCESS; AG_EINVAL for an option out of its range ("option heads: -1 (the default) or
 *         an integer in [1, 4096], not 0"), an unknown optimizer or schedule ("option optimizer:
 *         unknown value 'x' (expected sgd, adam or adamw)") or metric (ag_metric_from_name's
 *         message); ag_net_train_options_refused() names the option.
 * Time complexity: O(1).
 */
ag_error_t ag_net_train_options_train_config(const ag_net_train_options_t *opts, ag_task_t task,
                                             ag_train_config_t *tc);

/**
 * \function ag_net_train_options_feature_defaults
 * The featurisation the task and preset ask for when the options leave it unset: node tasks
 * standardise their raw columns (AG_NORM_STANDARDIZE_RAW when opts->normalize is NULL, whatever
 * the preset) and, on a graph with no usable vertex attribute, add AG_FEATURELESS_LAP_PE
 * Laplacian columns beside the degree (opts->lap_pe and opts->rw_pe < 0: fc->lap_pe_if_featureless, which acts
 * where fc->degree_if_featureless does); the graph preset (graph tasks) standardises every column (opts->normalize NULL)
 * and adds 8 random-walk columns (opts->rw_pe < 0); other graph presets change nothing. Call it
 * on the configuration made from the options, before featurising, with the preset
 * ag_net_train_options_preset returns (for a graph task; a node task's may be NULL).
 * \param opts   Options.
 * \param task   The task being trained.
 * \param preset The resolved preset (NULL reads as "transformer").
 * \param fc     In/out: norm, rw_pe_k and lap_pe_if_featureless may be set.
 * Time complexity: O(1).
 */
void ag_net_train_options_feature_defaults(const ag_net_train_options_t *opts, ag_task_t task, const char *preset,
                                          ag_featurizer_config_t *fc);
/**
 * \function ag_net_train_options_sign_flip
 * Which columns training flips the signs of (tc->flip_col0, tc->flip_cols): the featuriser's
 * Laplacian columns for a graph task, unless opts->no_sign_flip; none for a node task, whose one
 * graph keeps one sign from training to prediction, so that a vertex's side of an eigenvector is
 * the signal (flipped, LastFM Asia fell from 0.86 to 0.35 validation accuracy).
 * \param opts Options.
 * \param task The task being trained.
 * \param f    The featuriser the training features were made with.
 * \param tc   In/out: only flip_col0 and flip_cols are set.
 * Time complexity: O(1).
 */
void ag_net_train_options_sign_flip(const ag_net_train_options_t *opts, ag_task_t task, const ag_featurizer_t *f,
                                    ag_train_config_t *tc);

/**
 * \function ag_net_train_options_model_config
 * The model configuration of the options for inputs of F node features and Fe edge features and
 * n_out outputs: the preset (transformer: ag_model_config_default with width `hidden` (64), head
 * size hidden/heads, FFN 2 x hidden; gat: ag_model_config_gat with `layers` >= 2 blocks, the
 * heads and head size applying to all but the output block; graph: the transformer's with 4 blocks
 * of 8 GATv2 heads and the graph token as readout), then every option that is set. The edge mode
 * defaults, when Fe > 0, to "key" for the transformer and "bias" for graph, else "none". The seed
 * is opts->seed.
 * \param opts  Options (ag_net_train_options_init for the defaults).
 * \param task  The task; the gat preset is for node classification only, graph for graph tasks.
 * \param F     Node features per node.
 * \param Fe    Edge features per edge (0: none).
 * \param n_out Outputs (classes, tasks or targets).
 * \param mc    Output: the configuration.
 * \return AG_SUCCESS; AG_EINVAL for an unknown value of preset, mask, score, attn_norm, edge_mode,
 *         norm or readout ("option mask: unknown value 'x' (expected neighbours, khop or full)"),
 *         a mask list with more entries than blocks or an unknown entry,
 *         more than AG_MODEL_MAX_BLOCKS layers, the gat preset on a graph task, or head_hidden
 *         (>= 0) on a node task, whose head is linear on each node; an option out of its range, as
 *         ag_net_train_options_train_config(); ag_net_train_options_refused() names the option.
 * Time complexity: O(layers).
 */
ag_error_t ag_net_train_options_model_config(const ag_net_train_options_t *opts, ag_task_t task, int64_t F,
                                             int64_t Fe, int64_t n_out, ag_model_config_t *mc);

/**
 * \function ag_net_train_options_refused
 * The option that the last ag_net_train_options_train_config() or
 * ag_net_train_options_model_config() call on this thread refused: the name of its field of
 * ag_net_train_options_t ("attn_norm", "metric"), which its message gives as "option attn_norm:
 * ..." (a metric's as ag_metric_from_name() words it), so that a caller can name the option its
 * own way (the program's "--attn-norm") without reading the message. NULL when that call succeeded,
 * and before the first call; ag_net_train_options_uses_edges() does not change it.
 * \return Static text, or NULL.
 * Time complexity: O(1).
 */
const char *ag_net_train_options_refused(void);

/**
 * \function ag_net_train_options_refused_reason
 * Why that call refused ag_net_train_options_refused(): its message after "option NAME: "
 * ("unknown value 'x' (expected softmax or relu)"), or for the metric ag_metric_from_name()'s whole
 * message; "" when it refused none. Valid until the next such call on this thread.
 * Time complexity: O(1).
 */
const char *ag_net_train_options_refused_reason(void);

#ifdef __cplusplus
}
#endif

#endif
