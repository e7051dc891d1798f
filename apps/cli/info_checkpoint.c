/*
 * info_checkpoint.c: `attn-graph info RUN.ckpt`, where an interrupted training run stands: the
 * command that started it, its epoch, its best epoch so far, and how to continue it. The file is
 * checked as `train --resume` would check it (ag_train_state_open: the model rebuilt from the stored
 * configuration, every tensor and counter validated), so what info describes is what a resume
 * would continue.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <attngraph/model.h>
#include <attngraph/safetensors.h>
#include <attngraph/train.h>
#include "cli.h"
#include "predict.h"
#include "train_support.h"

/* The stored command line (one argument per line) as a shell would take it back. */
static void print_command(FILE *out, const char *args) {
    fputs("attn-graph train", out);
    for (const char *p = args; *p;) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        fputc(' ', out);
        cli_print_shell_word(out, p, n);
        p += n + (end != NULL);
    }
}

/* The same as a JSON array of strings. */
static void json_command(FILE *out, const char *args) {
    fputc('[', out);
    for (const char *p = args; *p;) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (p != args) fputs(", ", out);
        cli_json_string_n(out, p, n);
        p += n + (end != NULL);
    }
    fputc(']', out);
}

typedef struct ckpt_info_t {
    const ag_safetensors_t *file;
    const ag_model_config_t *config;
    const ag_train_state_t *state;
    const cli_history_t *history;
    int64_t params;
    long long epochs, patience;
    ag_metric_t metric; /* resolved for the task */
} ckpt_info_t;

/* Finished, stopped early, or resumable: what `train --resume` would do with the file. */
static const char *run_status(const ckpt_info_t *c) {
    if (c->state->epoch >= c->epochs) return "finished";
    if (c->patience > 0 && c->state->since_best >= c->patience) return "stopped early";
    return "resumable";
}

static void print_text(FILE *out, const ckpt_info_t *c) {
    const ag_metadata_t *m = &c->file->metadata;
    const char *version = ag_metadata_get(m, "attn_graph_version"), *args = ag_metadata_get(m, "cli_args"),
               *cwd = ag_metadata_get(m, "cli_cwd");
    fprintf(out, "file: %s\ncheckpoint: a training run after epoch %lld of %lld, written by attn-graph %s "
                 "(checkpoint version %s)\n",
            c->file->path, (long long)c->state->epoch, c->epochs, version ? version : "(unknown)",
            ag_metadata_get(m, "checkpoint_version"));
    if (args) {
        fputs("command: ", out);
        print_command(out, args);
        fputc('\n', out);
    }
    char shown[1024];
    if (cwd) fprintf(out, "directory: %s\n", cli_display(cwd, shown, sizeof shown));
    fprintf(out, "model: %s, %lld parameters\n", ag_task_name(c->config->task), (long long)c->params);
    fprintf(out, "training: %lld optimiser steps in %.1f s", (long long)c->state->step, c->state->seconds);
    if (c->state->best_epoch > 0 && isnan(c->state->best_metric))
        fputs("; no validation part: the last epoch is kept", out);
    else if (c->state->best_epoch > 0)
        fprintf(out, "; best epoch %lld (validation %s %.6g), %lld epoch%s since", (long long)c->state->best_epoch,
                ag_metric_name(c->metric), c->state->best_metric, (long long)c->state->since_best,
                c->state->since_best == 1 ? "" : "s");
    else
        fputs("; no epoch kept yet", out);
    fputc('\n', out);
    if (c->history && c->history->n > 0) {
        const cli_epoch_t *e = &c->history->items[c->history->n - 1];
        fprintf(out, "last epoch: loss %.6g", e->loss);
        if (!isnan(e->val_metric)) fprintf(out, ", validation %s %.6g", ag_metric_name(c->metric), e->val_metric);
        fputc('\n', out);
    }
    const char *status = run_status(c);
    if (strcmp(status, "resumable") == 0) {
        fputs("continue with: attn-graph train --resume ", out);
        cli_print_shell_word(out, c->file->path, strlen(c->file->path));
        fputc('\n', out);
    } else if (strcmp(status, "finished") == 0) {
        fputs("status: the run finished (its model is the file given to -o)\n", out);
    } else {
        fprintf(out, "status: early stopping ended the run (%lld epochs without improvement)\n", c->patience);
    }
}

static void print_json(FILE *out, const ckpt_info_t *c) {
    const ag_metadata_t *m = &c->file->metadata;
    fputs("{\"file\": ", out);
    cli_json_string(out, c->file->path);
    fputs(", \"kind\": \"checkpoint\", \"attn_graph_version\": ", out);
    const char *version = ag_metadata_get(m, "attn_graph_version");
    if (version) cli_json_string(out, version);
    else fputs("null", out);
    fprintf(out, ", \"checkpoint_version\": %s, \"task\": \"%s\", \"parameters\": %lld, \"epoch\": %lld, \"epochs\": %lld",
            ag_metadata_get(m, "checkpoint_version"), ag_task_name(c->config->task), (long long)c->params,
            (long long)c->state->epoch, c->epochs);
    fprintf(out, ", \"steps\": %lld, \"seconds\": ", (long long)c->state->step);
    cli_json_number(out, c->state->seconds);
    fprintf(out, ", \"metric\": \"%s\", \"best_epoch\": %lld, \"best_metric\": ", ag_metric_name(c->metric),
            (long long)c->state->best_epoch);
    cli_json_number(out, c->state->best_epoch > 0 ? c->state->best_metric : NAN); /* null without one */
    fprintf(out, ", \"since_best\": %lld, \"status\": \"%s\"", (long long)c->state->since_best, run_status(c));
    const char *args = ag_metadata_get(m, "cli_args"), *cwd = ag_metadata_get(m, "cli_cwd");
    fputs(", \"arguments\": ", out);
    if (args) json_command(out, args);
    else fputs("null", out);
    fputs(", \"directory\": ", out);
    if (cwd) cli_json_string(out, cwd);
    else fputs("null", out);
    fprintf(out, ", \"config\": %s}\n", ag_metadata_get(m, "config"));
}

int ag_cli_info_checkpoint(const ag_safetensors_t *file, int json, int first) {
    ag_model_t *model = NULL;
    ag_train_state_t state;
    ag_error_t rc = ag_train_state_open(file, &model, &state);
    if (rc != AG_SUCCESS) return ag_cli_fail(rc);
    cli_history_t history = {0};
    const char *hist = ag_metadata_get(&file->metadata, "history");
    int64_t epochs = 0, patience = 0;
    ag_metric_t metric = AG_METRIC_AUTO;
    int code = AG_EXIT_OK;
    if ((rc = ag_train_state_plan(&state, &epochs, &patience, &metric)) != AG_SUCCESS) {
        code = ag_cli_fail_in(file->path, rc);
    } else if (hist && (cli_history_from_text(&history, hist) < 0 || history.n != state.epoch)) {
        ag_cli_error("%s: the checkpoint's epoch history is malformed", file->path);
        code = AG_EXIT_MODEL;
    } else {
        const ag_model_config_t *config = ag_model_config(model);
        ckpt_info_t c = {file, config, &state, hist ? &history : NULL, ag_param_list_size(ag_model_params(model)),
                         epochs, patience, ag_metric_for_task(metric, config->task)};
        if (json) {
            print_json(stdout, &c);
        } else {
            if (!first) fputc('\n', stdout);
            print_text(stdout, &c);
        }
        fflush(stdout);
    }
    cli_history_destroy(&history);
    ag_train_state_destroy(&state);
    ag_model_destroy(model);
    return code;
}
