/*
 * train_support.h: what `attn-graph train` needs beside the training itself: the per-epoch
 * history (for the log, the plot and checkpoints), the learning-curve SVG and memory limits.
 */
#ifndef AG_CLI_TRAIN_SUPPORT_H
#define AG_CLI_TRAIN_SUPPORT_H

#include <stdint.h>
#include <stdio.h>
#include <attngraph/model.h>
#include <attngraph/train.h>
#include "outfile.h"

/* One epoch as the progress callback saw it. */
typedef struct cli_epoch_t {
    int64_t epoch;
    double loss, train_metric, val_metric, seconds, lr;
    int improved;
} cli_epoch_t;

typedef struct cli_history_t {
    cli_epoch_t *items;
    int64_t n, cap;
} cli_history_t;

/* Appends one epoch; returns 0, or -1 when out of memory. */
int cli_history_push(cli_history_t *h, const cli_epoch_t *e);
void cli_history_destroy(cli_history_t *h);
/* The history as text (one line per epoch, numbers exact: %.17g), malloc'ed; NULL when out of memory. */
char *cli_history_to_text(const cli_history_t *h);
/* Parses cli_history_to_text()'s text into h (emptied first). Returns 0, or -1 if malformed. */
int cli_history_from_text(cli_history_t *h, const char *text);

/* Writes the loss and the metrics per epoch as an SVG line chart: two panels sharing the epoch
 * axis (training loss above; validation and training metric below), axes with ticks and labels,
 * legends, the best epoch marked. Written atomically (temporary file, fsync, rename).
 * Returns 0, or -1 with a reason in err. */
int cli_plot_curves(const char *path, const cli_history_t *h, const char *metric, char *err, size_t errn);


/* "4G", "512M", "100k", "1.5G", "123456" (bytes; K, M, G, T powers of 1024, an optional trailing
 * 'B' or 'iB'). Returns 0, or -1 if malformed. */
int cli_parse_size(const char *s, int64_t *bytes);

/* Checks the value of --max-memory (a size above 0: a message and -1 otherwise, for every command
 * alike) and makes it also the limit of graph reading (ag_graph_read_set_max_memory()), so that a
 * file declaring millions of vertices is refused before igraph builds them. */
int cli_set_read_limit(const char *cmd, const char *max_memory);

/* The n bytes at s as one word a shell takes back: as they are when made of letters, digits and
 * _./,:=+-@%, else single-quoted (a path with a space in a hint to copy). */
void cli_print_shell_word(FILE *out, const char *s, size_t n);


/* "1.5 GiB", "340 MiB", "12 KiB", "100 B". */
void cli_format_size(char *buf, size_t n, int64_t bytes);

/* Estimates the largest training step (training = 1) and evaluation pass of a model on a set
 * (graph tasks: the batch_size largest graphs together, and 256 for evaluation; node tasks: the
 * graph) and refuses, with a message saying what to change, a run above --max-memory (max_memory,
 * or NULL for the available memory). An ensemble of `members` models keeps every member's last
 * evaluation pass: members x the pass, and while the last member trains, the others' passes beside
 * its training step. Returns an exit code. */
int cli_check_memory(const char *cmd, const char *max_memory, const ag_model_config_t *mc, const ag_trainset_t *set,
                     int64_t batch_size, int training, int64_t members);

#endif
