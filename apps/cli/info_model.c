/*
 * info_model.c: `attn-graph info MODEL.safetensors`, what a saved model predicts and what a graph
 * must carry for it. The featurisation error of classify or label names one missing attribute at a
 * time; this lists them all, with the values a string attribute may take, before a file is tried.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <attngraph/modelfile.h>
#include <attngraph/readout.h>
#include <attngraph/safetensors.h>
#include <attngraph/summary.h>
#include "cli.h"
#include "learn.h"
#include "predict.h"

/* Longer vocabularies (a node-name one-hot, say) are shown by their first values and a count. */
#define VOCAB_SHOWN 12

static const char *norm_name(ag_feature_norm_t norm) {
    switch (norm) {
    case AG_NORM_STANDARDIZE: return "standardised";
    case AG_NORM_L1_ROWS: return "rows divided by their L1 norm";
    default: return "as is";
    }
}

/* The width a block hands on: W^O's, or the heads' concatenation or mean. */
static int64_t block_width(const ag_block_config_t *b) {
    if (b->attn.out_proj) return b->attn.out_dim;
    return b->attn.combine == AG_HEADS_MEAN ? b->attn.head_dim : b->attn.heads * b->attn.head_dim;
}

static void print_block(FILE *out, int l, const ag_block_config_t *b, int64_t width) {
    fprintf(out, "  block %d: attention over ", l + 1);
    if (b->mask == AG_MASK_KHOP) fprintf(out, "nodes within %d hops", b->hops);
    else if (b->mask == AG_MASK_FULL) fputs("every node of the graph", out);
    else fputs("neighbours", out);
    if (b->mask != AG_MASK_FULL) fputs(b->self_loops ? " and itself" : "", out);
    fprintf(out, ", %s scores, %s, %lld head%s of %lld %s", ag_score_name(b->attn.score),
            ag_attn_norm_name(b->attn.norm), (long long)b->attn.heads, b->attn.heads == 1 ? "" : "s",
            (long long)b->attn.head_dim, b->attn.combine == AG_HEADS_MEAN ? "averaged" : "concatenated");
    if (b->attn.out_proj) fprintf(out, ", W^O to %lld", (long long)b->attn.out_dim);
    if (b->attn.edge_mode != AG_EDGE_NONE)
        fprintf(out, ", edge features %s", b->attn.edge_mode == AG_EDGE_BIAS ? "as score biases" : "in keys and values");
    if (b->act != AG_ACT_IDENTITY) fprintf(out, ", %s", ag_act_name(b->act));
    if (b->ffn)
        fprintf(out, "; feed-forward %lld (%s)", (long long)(b->ffn_hidden ? b->ffn_hidden : 2 * width),
                ag_act_name(b->ffn_act));
    if (b->norm == AG_NORMPLACE_NONE) fputs("; no norm", out);
    else fprintf(out, "; %s-norm", ag_norm_place_name(b->norm));
    fprintf(out, ", %s, dropout %g\n", b->residual ? "residual" : "no residual", (double)b->dropout);
}

static void print_inputs(FILE *out, const ag_featurizer_t *f, int64_t n_edge_features, int64_t table_width) {
    int name_w = 4;
    for (int k = 0; k < 2; k++) {
        const ag_feature_attr_t *attrs = k ? f->eattrs : f->vattrs;
        const int64_t n = k ? f->n_eattrs : f->n_vattrs;
        for (int64_t i = 0; i < n; i++) {
            char shown[256];
            const int len = (int)strlen(cli_display(attrs[i].name, shown, sizeof shown));
            if (len > name_w) name_w = len;
        }
    }
    if (f->n_vattrs + f->n_eattrs == 0) {
        fputs("attributes: none\n", out);
    } else {
        fprintf(out, "attributes (each graph must carry them):\n  %-6s  %-*s  %-7s  %7s  %s\n", "kind", name_w,
                "name", "type", "columns", "encoding");
        for (int k = 0; k < 2; k++) {
            const ag_feature_attr_t *attrs = k ? f->eattrs : f->vattrs;
            const int64_t n = k ? f->n_eattrs : f->n_vattrs;
            for (int64_t i = 0; i < n; i++) {
                const ag_feature_attr_t *a = &attrs[i];
                float mean, sd; /* the column's statistics, when standardised */
                char shown[256];
                fprintf(out, "  %-6s  %-*s  %-7s  %7lld  ", k ? "edge" : "vertex", name_w,
                        cli_display(a->name, shown, sizeof shown),
                        ag_attr_type_name(a->type), (long long)a->width);
                if (a->type == AG_ATTR_STRING) {
                    fputs("one-hot:", out);
                    for (int64_t v = 0; v < a->vocab_size && v < VOCAB_SHOWN; v++) {
                        fputc(' ', out);
                        cli_print_value(out, a->vocab[v], 0);
                    }
                    if (a->vocab_size > VOCAB_SHOWN) fprintf(out, " ... (%lld values)", (long long)a->vocab_size);
                    fputs(", and one column for any other value\n", out);
                } else if (cli_column_standardised(f, NULL, k ? CLI_COL_EDGE : CLI_COL_VERTEX, a->offset, &mean, &sd)) {
                    fprintf(out, "standardised (mean %.4g, std %.4g)\n", (double)mean, (double)sd);
                } else {
                    fprintf(out, "%s\n", k || f->norm == AG_NORM_STANDARDIZE ? "as is" : norm_name(f->norm));
                }
            }
        }
    }
    fputs("structure:", out);
    if (!f->degree && !f->lap_pe_k && !f->rw_pe_k) fputs(" none", out);
    if (f->degree) fputs(f->directed ? " in- and out-degree" : " degree", out);
    const int64_t c = f->n_attr_features; /* the degree column(s) follow the attributes' */
    float m[2] = {0.0f, 0.0f}, sd[2] = {1.0f, 1.0f}; /* in and out (or the one); as is: 0 and 1 */
    const int in = f->degree && cli_column_standardised(f, NULL, CLI_COL_VERTEX, c, &m[0], &sd[0]);
    const int out_std = f->degree && f->directed && cli_column_standardised(f, NULL, CLI_COL_VERTEX, c + 1, &m[1], &sd[1]);
    if (in || out_std) {
        if (f->directed)
            fprintf(out, " (standardised: in mean %.4g, std %.4g; out mean %.4g, std %.4g)", (double)m[0],
                    (double)sd[0], (double)m[1], (double)sd[1]);
        else
            fprintf(out, " (standardised: mean %.4g, std %.4g)", (double)m[0], (double)sd[0]);
    }
    if (f->lap_pe_k)
        fprintf(out, "%s %lld Laplacian eigenvector column%s (%s)", f->degree ? "," : "", (long long)f->lap_pe_k,
                f->lap_pe_k == 1 ? "" : "s", f->lap_pe_scaled ? "times sqrt(N)" : "unit norm: a featuriser of version 1");
    if (f->rw_pe_k)
        fprintf(out, "%s %lld random-walk column%s", f->degree || f->lap_pe_k ? "," : "", (long long)f->rw_pe_k,
                f->rw_pe_k == 1 ? "" : "s");
    fprintf(out, "\nnode features: %lld column%s", (long long)f->n_features, f->n_features == 1 ? "" : "s");
    if (table_width) fprintf(out, " from the graph and %lld from the node table", (long long)table_width);
    fprintf(out, "; edge features: %lld\n", (long long)n_edge_features);
}

static void print_text(FILE *out, const char *path, const ag_bundle_t *b, const ag_metadata_t *meta) {
    const ag_model_config_t *c = ag_model_config(b->model);
    const char *version = ag_metadata_get(meta, "attn_graph_version");
    fprintf(out, "file: %s\nmodel: %s, written by attn-graph %s (bundle version %s)\n", path, ag_task_name(c->task),
            version ? version : "(unknown)", ag_metadata_get(meta, "bundle_version"));
    const int classes = c->task == AG_TASK_NODE_CLASSIFICATION || c->task == AG_TASK_GRAPH_CLASSIFICATION;
    const char *what = classes ? "class" : c->task == AG_TASK_GRAPH_MULTITASK ? "task" : "target";
    fprintf(out, "outputs: %lld %s%s:", (long long)b->n_names, what, b->n_names == 1 ? "" : classes ? "es" : "s");
    for (int64_t i = 0; i < b->n_names; i++) {
        fputc(' ', out);
        cli_print_value(out, b->names[i], 0);
    }
    if (b->label_attr) fprintf(out, " (vertex attribute '%s')", b->label_attr);
    if (b->target_column) fprintf(out, " (target '%s')", b->target_column);
    fputc('\n', out);
    if (c->task == AG_TASK_NODE_REGRESSION || c->task == AG_TASK_GRAPH_REGRESSION) {
        const float *mean, *std;
        ag_model_target_scaling(b->model, &mean, &std);
        fputs("target scaling:", out);
        for (int64_t i = 0; i < b->n_names; i++)
            fprintf(out, "%s %s mean %.6g, std %.6g", i ? ";" : "", b->names[i], (double)mean[i], (double)std[i]);
        fputs(" (predictions are in the targets' units)\n", out);
    }
    if (b->has_graph)
        fprintf(out, "trained on: %s graph of %lld vert%s and %lld edge%s\n",
                b->graph.directed ? "a directed" : "an undirected", (long long)b->graph.vertices,
                b->graph.vertices == 1 ? "ex" : "ices", (long long)b->graph.edges, b->graph.edges == 1 ? "" : "s");
    if (b->has_sizes) {
        /* the range classify, explain and eval hold a graph to (they warn far outside it) */
        fputs("trained on: ", out);
        cli_print_size_range(out, b);
        fputc('\n', out);
    }
    fprintf(out, "members: %lld%s\n", (long long)b->n_members,
            b->n_members > 1 ? " (an ensemble: it predicts the mean of their outputs)" : "");
    fprintf(out, "parameters: %lld%s\n", (long long)ag_param_list_size(ag_model_params(b->model)),
            b->n_members > 1 ? " per member" : "");
    print_inputs(out, &b->featurizer, c->edge_dim, b->table.width);
    if (b->table.width) {
        int64_t k = 0; /* columns standardised (--normalize auto leaves some with mean 0, std 1) */
        for (int64_t j = 0; j < b->table.width; j++) {
            float mean, sd;
            k += cli_column_standardised(&b->featurizer, &b->table, CLI_COL_TABLE, j, &mean, &sd);
        }
        fprintf(out, "node table: %lld column%s", (long long)b->table.width, b->table.width == 1 ? "" : "s");
        for (int64_t j = 0; b->table.columns && j < b->table.width && j < VOCAB_SHOWN; j++) {
            fputs(j ? " " : " (", out);
            cli_print_value(out, b->table.columns[j], 0);
        }
        if (b->table.columns)
            fprintf(out, "%s)", b->table.width > VOCAB_SHOWN ? " ..." : "");
        fputs(", ", out);
        if (b->table.norm != AG_NORM_STANDARDIZE || k == b->table.width)
            fprintf(out, "%s\n", norm_name(b->table.norm));
        else if (k == 0)
            fputs("as is\n", out);
        else
            fprintf(out, "%lld standardised, the others as is\n", (long long)k);
        /* the statistics, as the graph's columns show theirs: what a new table is held to */
        int64_t shown = 0;
        for (int64_t j = 0; j < b->table.width && shown < VOCAB_SHOWN; j++) {
            float mean, sd;
            if (!cli_column_standardised(&b->featurizer, &b->table, CLI_COL_TABLE, j, &mean, &sd)) continue;
            fputs("  table   ", out);
            if (b->table.columns) cli_print_value(out, b->table.columns[j], 0);
            else fprintf(out, "column %lld", (long long)j + 1);
            fprintf(out, "  standardised (mean %.4g, std %.4g)\n", (double)mean, (double)sd);
            shown++;
        }
        if (shown < k) fprintf(out, "  table   ... (%lld more standardised)\n", (long long)(k - shown));
    } else {
        fputs("node table: none\n", out);
    }

    fputs("architecture:\n", out);
    int64_t width = c->in_dim;
    if (c->hidden) {
        fprintf(out, "  input: linear %lld -> %lld", (long long)c->in_dim, (long long)c->hidden);
        width = c->hidden;
    } else {
        fprintf(out, "  input: the %lld feature columns", (long long)c->in_dim);
    }
    fprintf(out, ", dropout %g%s\n", (double)c->input_dropout,
            c->virtual_node ? "; a graph token (virtual node) joins each graph and attends to every node" : "");
    for (int l = 0; l < c->n_blocks; l++) {
        print_block(out, l, &c->blocks[l], width);
        width = block_width(&c->blocks[l]);
    }
    if (ag_task_is_graph_level(c->task)) {
        fputs("  readout:", out);
        for (int r = 0; r < c->n_readouts; r++)
            fprintf(out, "%s %s%s", r ? "," : "", ag_readout_kind_name(c->readouts[r]),
                    c->readouts[r] == AG_READOUT_VNODE ? " (the graph token's last state)" : "");
        if (c->n_readouts > 1) fputs(" (concatenated)", out);
        width *= c->n_readouts;
        fputc('\n', out);
    }
    if (ag_task_is_graph_level(c->task) || c->node_head) {
        fprintf(out, "  head: %lld", (long long)width);
        if (ag_task_is_graph_level(c->task) && c->head_hidden)
            fprintf(out, " -> %lld (%s, dropout %g)", (long long)c->head_hidden, ag_act_name(c->head_act),
                    (double)c->head_dropout);
        fprintf(out, " -> %lld\n", (long long)c->n_out);
    } else {
        fprintf(out, "  head: none (the last block's %lld %s the output%s)\n", (long long)width,
                width == 1 ? "column is" : "columns are", width == 1 ? "" : "s");
    }
    if (cli_split_source_text(b->split_source, 0))
        fprintf(out, "split: %s%s (%s%s), whose parts eval %s\n", cli_split_source_text(b->split_source, 0),
                b->split_stratified ? ", class by class" : "", cli_split_source_text(b->split_source, 1),
                b->split_stratified ? " --stratify" : "",
                b->split_source == AG_SPLIT_SOURCE_RANDOM ? "draws again by default" : "takes again with the same option");
    if (b->has_smooth)
        fprintf(out, "post-processing: Correct and Smooth, correct %g, smooth %g, %lld iterations (eval and label "
                "apply it; --no-smooth for the model alone)\n", b->smooth.correct_alpha, b->smooth.smooth_alpha,
                (long long)b->smooth.iterations);
}

/* The metadata's JSON texts are passed on as they are: ag_bundle_from_safetensors validated them. */
static void print_json(FILE *out, const char *path, const ag_bundle_t *b, const ag_metadata_t *meta) {
    fputs("{\"file\": ", out);
    cli_json_string(out, path);
    fprintf(out, ", \"kind\": \"model\", \"task\": \"%s\", \"attn_graph_version\": ",
            ag_task_name(ag_model_config(b->model)->task));
    const char *version = ag_metadata_get(meta, "attn_graph_version");
    if (version) cli_json_string(out, version);
    else fputs("null", out);
    fprintf(out, ", \"bundle_version\": %s, \"members\": %lld, \"parameters\": %lld", ag_metadata_get(meta, "bundle_version"),
            (long long)b->n_members, (long long)ag_param_list_size(ag_model_params(b->model)));
    static const char *const keys[] = {"labels", "featurizer", "config", "node_table", "target_mean", "target_std",
                                       "smooth", "graph", "graph_sizes"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        const char *v = ag_metadata_get(meta, keys[k]);
        if (v) fprintf(out, ", \"%s\": %s", keys[k], v);
    }
    const char *split = ag_metadata_get(meta, "split"); /* plain text, not JSON */
    if (split) {
        fputs(", \"split\": ", out);
        cli_json_string(out, split);
    }
    if (b->split_stratified) fputs(", \"split_stratified\": true", out);
    fputs("}\n", out);
}

int ag_cli_info_model(const char *path, int json, int first) {
    ag_safetensors_t file;
    ag_error_t rc = ag_safetensors_read(&file, path, AG_SAFETENSORS_STRICT);
    if (rc) return ag_cli_fail(rc);
    const char *kind = ag_metadata_get(&file.metadata, "kind");
    if (kind && strcmp(kind, "checkpoint") == 0) {
        int code = ag_cli_info_checkpoint(&file, json, first);
        ag_safetensors_destroy(&file);
        return code;
    }
    ag_bundle_t b;
    if ((rc = ag_bundle_from_safetensors(&file, &b)) != AG_SUCCESS) {
        ag_safetensors_destroy(&file);
        return ag_cli_fail(rc);
    }
    if (json) {
        print_json(stdout, path, &b, &file.metadata);
    } else {
        if (!first) fputc('\n', stdout);
        print_text(stdout, path, &b, &file.metadata);
    }
    fflush(stdout);
    ag_safetensors_destroy(&file);
    ag_bundle_destroy(&b);
    return AG_EXIT_OK;
}
