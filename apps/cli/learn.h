/*
 * learn.h: what `attn-graph train` and `attn-graph eval` share: data options, loading the data,
 * choosing the split, printing scores.
 */
#ifndef AG_CLI_LEARN_H
#define AG_CLI_LEARN_H

#include <stdio.h>
#include <attngraph/attngraph.h>
#include <attngraph/model.h>
#include <attngraph/modelfile.h>
#include <attngraph/prepare.h>
#include <attngraph/train.h>
#include "cli.h"

#define CLI_MAX_LIST 256

/* Every data and feature option of train and eval (eval takes the data options only). */
typedef struct cli_data_opts_t {
    /* graph tasks */
    const char *labels;        /* --labels FILE.csv */
    const char *targets;       /* --target COL[,COL...] */
    const char *file_column;   /* --file-column */
    const char *tu;            /* --tu DIR: a dataset in the TU format (ag_dataset_load_tu) */
    /* node tasks */
    const char *graph;         /* positional GRAPH */
    const char *label_attr;    /* --label-attr */
    const char *node_table;    /* --node-table */
    const char *table_id_attr; /* --table-id-attr */
    const ag_table_norm_t *model_table; /* eval: the model's node-table columns, or NULL */
    const char *model_path;    /* eval: the model file, named in messages about its table */
    const char *train_nodes;   /* --train-nodes 0,33 */
    int directed;              /* --directed */
    int64_t vertices;          /* --vertices N: the edge list's vertex count (0: the largest id + 1) */
    ag_format_t format;        /* --format F (AG_FORMAT_AUTO: by extension) */
    /* splits */
    const char *split;         /* --split FILE (.json or .csv) */
    const char *split_column;  /* --split-column (default random_split) */
    const char *folds;         /* --folds FILE */
    int64_t fold;              /* --fold K */
    int64_t kfold;             /* --kfold K: seeded stratified k-fold of the graphs (0: off) */
    const char *split_random;  /* --split-random 0.8,0.1,0.1 */
    int stratify;              /* --stratify: the random split drawn by class */
    uint64_t seed;             /* --seed */
    int seed_given;            /* --seed was on the command line */
    const char *task;          /* --task */
    /* features (train only) */
    const char *vertex_attrs, *edge_attrs, *exclude_attrs, *normalize;
    int degree;
    int64_t lap_pe, rw_pe;
} cli_data_opts_t;

void cli_data_opts_init(cli_data_opts_t *o);

/* The node task a label attribute suggests (train's default task for a GRAPH argument). */
ag_task_t cli_node_task_infer(const igraph_t *ig, const char *attr);

/* 1 when the split options draw the parts with --seed (--split-random, given or by default, and
 * --kfold), so that runs with other seeds score other parts. */
int cli_split_seeded(const cli_data_opts_t *o);
/* How a model's training chose its parts (ag_bundle_t.split_source), in words (option 0: "a split
 * file") or as train's options (option 1: "--split FILE"); NULL when not recorded. */
const char *cli_split_source_text(ag_split_source_t source, int option);

/* If argv[*i] is a data option, consumes it (and its value) and returns 1; returns 0 if it is not
 * one; returns -1 (after printing the error) on a bad value. `cmd` names the subcommand. */
int cli_data_option(cli_data_opts_t *o, const char *cmd, int argc, char **argv, int *i, int with_features);

/* The value of option `name` at argv[*i] ("--x v" or "--x=v"): sets *value and returns 1 if argv[*i]
 * is that option; prints the error and returns -1 if its value is missing; 0 if another option. */
int cli_opt(const char *cmd, const char *name, int argc, char **argv, int *i, const char **value);

/* Strict number parsing; print "attn-graph: CMD: --opt: ..." and return -1 on error. */
int cli_int(const char *cmd, const char *opt, const char *s, int64_t lo, int64_t hi, int64_t *out);
int cli_float(const char *cmd, const char *opt, const char *s, double lo, double hi, double *out);

/* Splits a comma-separated list in place into at most CLI_MAX_LIST items; returns the count. */
int cli_split_list(char *s, const char **items);

/* Loaded data: a dataset, or one graph with its node table. */
typedef struct cli_data_t {
    int graph_level;
    ag_dataset_t ds;
    igraph_t graph;
    int have_graph;
    ag_format_t read_as;   /* a node task's graph: the format it was read in */
    ag_node_table_t table;
    int have_table;
    ag_split_t split;
    int have_split;
    ag_fold_t fold;        /* the fold used (points into split, or owned lists for --train-nodes) */
    int64_t *owned[3];
    char *target_buf;      /* storage of the --target list */
    double split_fractions[2]; /* the training and validation fractions of a random split drawn here */
    int split_drawn;           /* 1: the split is such a random split (not a file, folds or a vertex list) */
    int split_stratified;      /* 1: that random split was drawn by class (--stratify) */
    int64_t n_unsplit;         /* the unlabelled items such a split left in no part */
    const char *target_names[CLI_MAX_LIST];
} cli_data_t;

/* Loads the data (dataset or graph + table) and the split. `model_targets` (eval) are the target
 * columns to read when --target is not given (a model's task names). Returns an exit code. */
int cli_data_load(cli_data_t *d, const cli_data_opts_t *o, const char *cmd, const char *const *model_targets,
                  int64_t n_model_targets, ag_task_kind_t forced_kind);

void cli_data_destroy(cli_data_t *d);

/* The index list of a part of the fold ("train", "val", "test", "all"); n_all is the item count. */
int cli_part(const cli_data_t *d, const char *part, int64_t n_all, const int64_t **idx, int64_t *n, int64_t **owned);

/* Prints the scores of a part as one line ("test: accuracy 0.8130, macro_f1 ..., loss ... (n 1000)")
 * or as one JSON object. */
/* A metric or loss as the text lines show it, into buf (at least CLI_FIGURE_MAX bytes), returned:
 * 4 decimals, except a nonzero magnitude below 0.001, which 4 decimals would show as 0.0000 or a
 * single digit (a loss that keeps falling from 4e-5), with 3 significant digits ("4.21e-05"). */
enum { CLI_FIGURE_MAX = 32 };
const char *cli_figure(char *buf, double x);

void cli_print_scores(FILE *out, const char *part, ag_task_t task, const ag_scores_t *s, int json);

/* The figures of each task of a multi-task or regression model (ag_ensemble_evaluate_tasks) with
 * the tasks' names. */
typedef struct cli_task_scores_t {
    ag_scores_t *s; /* (n) */
    char **names;   /* (n) owned copies */
    int64_t n;
} cli_task_scores_t;

/* n entries named by copies of names (nothing for n < 1); -1 when out of memory. */
int cli_task_scores_init(cli_task_scores_t *t, const char *const *names, int64_t n);
void cli_task_scores_destroy(cli_task_scores_t *t);

/* cli_print_scores(), then each task's figures when there are several: a line each
 * ("  NR-AR: roc_auc 0.7712, loss 0.1534 (n 726)") or a "tasks" array of objects with "name",
 * "n" and the task's metrics. JSON ends with a "warnings" array when warnings (may be NULL) holds
 * any: those said about the data scored, which the text line leaves to stderr. */
void cli_print_task_scores(FILE *out, const char *part, ag_task_t task, const ag_scores_t *s,
                           const cli_task_scores_t *tasks, int json, const ag_cli_warnings_t *warnings);

/* Correct and Smooth as the options of train, eval and label asked for it. */
typedef struct cli_smooth_t {
    ag_smooth_config_t cfg;
    int given;         /* --smooth ALPHA */
    int correct_given; /* --correct ALPHA */
    int off;           /* --no-smooth (eval, label): not even the model's own weights */
    int from_model;    /* set by cli_smooth_wanted: the weights are the model file's */
    int automatic;     /* train --smooth auto: cli_smooth_choose sets cfg and given */
} cli_smooth_t;

void cli_smooth_init(cli_smooth_t *s);

/* --smooth ALPHA, --correct ALPHA and, when allow_off (eval, label), --no-smooth, or else (train)
 * --smooth auto: parses one into s; returns 1 if argv[*i] was one, 0 if not, -1 on a bad value
 * (printed). */
int cli_smooth_option(const char *cmd, int argc, char **argv, int *i, cli_smooth_t *s, int allow_off);

/* The usage errors of those options: --correct without --smooth, --no-smooth with either, or
 * --smooth on a task other than node classification. Returns an exit code (AG_EXIT_OK when none). */
int cli_smooth_check(const char *cmd, const cli_smooth_t *s, ag_task_t task);

/* eval and label: whether to smooth, and with which weights in s->cfg: those given, else the
 * model file's own (train --smooth stored them; s->from_model set) unless --no-smooth. */
int cli_smooth_wanted(cli_smooth_t *s, const ag_bundle_t *b);

/* The note that says a model's own weights are applied (nothing when they were given). */
void cli_smooth_note(const cli_smooth_t *s, const char *model_path);

/* train --smooth auto: the weights of a fixed grid (correct 0, 0.5, 0.8, 0.95 x smooth 0.5, 0.7,
 * 0.8, 0.9) scored on the validation rows val by `metric` (accuracy, macro_f1 or roc_auc), the
 * rows known_idx known; the best pair in s (s->given set) if it beats the model alone, else
 * s->given cleared. Says which on stderr unless quiet. Returns an exit code. */
int cli_smooth_choose(const char *cmd, ag_model_t *const *members, int64_t K, const ag_trainset_t *set,
                      const int64_t *known_idx, int64_t n_known, const int64_t *val, int64_t n_val,
                      const char *metric, int quiet, cli_smooth_t *s);

/* Node classification's scores on idx after Correct and Smooth (attngraph/smooth.h), the classes
 * of the rows known_idx (the training part) being the known ones: the models' probabilities for
 * every vertex of the set's one graph, corrected and smoothed over it, then scored. Prints errors;
 * returns an exit code. */
int cli_smoothed_scores(ag_model_t *const *members, int64_t K, const ag_trainset_t *set, const int64_t *known_idx,
                        int64_t n_known, const int64_t *idx, int64_t n, const ag_smooth_config_t *cfg,
                        ag_scores_t *sc);

/* One fold of a cross-validation: "fold 3 test: accuracy ... (n 19)", or the JSON object with a
 * "fold" member; each task's figures below it as cli_print_task_scores() prints them, and the
 * warnings (may be NULL) as its "warnings". */
void cli_print_fold_scores(FILE *out, int64_t fold, ag_task_t task, const ag_scores_t *s,
                           const cli_task_scores_t *tasks, int json, const ag_cli_warnings_t *warnings);

/* The cross-validation's line: each metric's mean and sample standard deviation over the folds
 * ("cv: accuracy 0.8936 +- 0.0561, ... (10 folds, n 188)"), or one JSON object with NAME_mean and
 * NAME_std members, and the warnings (may be NULL) as its "warnings". A metric not finite in every
 * fold is left out. */
void cli_print_cv_summary(FILE *out, ag_task_t task, const ag_scores_t *folds, int64_t n_folds, int json,
                          const ag_cli_warnings_t *warnings);

#endif
