/*
 * cmd_label.c: `attn-graph label`, node-level predictions on one graph, written back as vertex
 * attributes (GML, GraphML) or as a CSV table.
 */
#include <stdlib.h>
#include <string.h>
#include "learn.h"
#include "predict.h"

static const char *const CMD = "label";

static void label_usage(FILE *out) {
    fprintf(out,
        "usage: attn-graph label [--model MODEL.safetensors] GRAPH [-o OUT.gml|OUT.graphml|OUT.csv]\n"
        "                        [--format F] [--directed] [--node-table FILE] [--table-id-attr ATTR]\n"
        "                        [--threads N]\n"
        "\n"
        "Predicts every vertex of GRAPH with a node-level model. Node classification adds the vertex\n"
        "attributes 'pred' (the predicted class name) and 'prob_<class>' (each class's probability);\n"
        "node regression adds 'pred' (one target) or 'pred_<target>'. Attribute names keep only\n"
        "letters, digits and '_' (others become '_'). The graph is written as GML or GraphML by the\n"
        "extension of OUT, or as a CSV table with -o OUT.csv; without -o the CSV goes to stdout.\n"
        "CSV columns: vertex (0-based index), id or name (when the graph has that vertex attribute),\n"
        "pred, then prob_<class>... (classification) or pred_<target>... (several targets).\n"
        "Files are written atomically (a temporary file renamed over OUT).\n"
        "Without --model the shipped karate.safetensors is used, looked up in $ATTN_GRAPH_MODELS, then\n"
        "the installed models folder, then the source tree's graphs/models.\n"
        "\n"
        "  --model FILE         a node-level model saved by 'attn-graph train'\n"
        "  -o, --output OUT     output file (.gml, .graphml, .csv)\n"
        "  --format F           input format (gml, graphml, edgelist, ...; auto by extension; required for '-')\n"
        "  --directed           read edge list, NCOL, LGL, DIMACS and DL files as directed\n"
        "  --node-table FILE    the node feature table, when the model was trained with one\n"
        "  --table-id-attr ATTR vertex attribute matched to the table's ids (default 'id')\n"
        "  --threads N          OpenMP / BLAS threads\n"
        "  --help               this message\n"
        "\n"
        "Exit codes: 0 success, 1 unexpected failure (cannot write OUT), 2 bad command line, 3 bad input\n"
        "file, 4 bad or mismatched model file (not a node-level model).\n");
}

/* A CSV field, quoted when it holds a comma, quote or line break. */
static void csv_field(FILE *f, const char *s) {
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* Predicted class of node row y (C probabilities). */
static int64_t argmax(const float *y, int64_t C) {
    int64_t best = 0;
    for (int64_t c = 1; c < C; c++)
        if (y[c] > y[best]) best = c;
    return best;
}

static int write_csv(FILE *f, const ag_bundle_t *b, ag_task_t task, const igraph_t *ig, const float *Y) {
    int64_t N = igraph_vcount(ig), C = b->n_names;
    const char *idcol = igraph_cattribute_has_attr(ig, IGRAPH_ATTRIBUTE_VERTEX, "id") ? "id"
                        : igraph_cattribute_has_attr(ig, IGRAPH_ATTRIBUTE_VERTEX, "name") ? "name" : NULL;
    igraph_attribute_type_t idtype = IGRAPH_ATTRIBUTE_NUMERIC;
    if (idcol && igraph_cattribute_table.gettype(ig, &idtype, IGRAPH_ATTRIBUTE_VERTEX, idcol) != IGRAPH_SUCCESS)
        return -1;
    if (idcol && idtype != IGRAPH_ATTRIBUTE_NUMERIC && idtype != IGRAPH_ATTRIBUTE_STRING) idcol = NULL;
    char name[512];
    fputs("vertex", f);
    if (idcol) fprintf(f, ",%s", idcol);
    if (task == AG_TASK_NODE_CLASSIFICATION || C == 1) fputs(",pred", f);
    for (int64_t c = 0; c < C; c++) {
        cli_attr_name(name, sizeof name, task == AG_TASK_NODE_CLASSIFICATION ? "prob_" : "pred_", b->names[c]);
        if (task == AG_TASK_NODE_CLASSIFICATION || C > 1) fprintf(f, ",%s", name);
    }
    fputc('\n', f);
    for (int64_t v = 0; v < N; v++) {
        const float *y = Y + v * C;
        fprintf(f, "%lld", (long long)v);
        if (idcol) {
            fputc(',', f);
            if (idtype == IGRAPH_ATTRIBUTE_NUMERIC) fprintf(f, "%.15g", VAN(ig, idcol, v));
            else csv_field(f, VAS(ig, idcol, v));
        }
        if (task == AG_TASK_NODE_CLASSIFICATION) {
            fputc(',', f);
            csv_field(f, b->names[argmax(y, C)]);
            for (int64_t c = 0; c < C; c++) fprintf(f, ",%.6f", y[c]);
        } else {
            for (int64_t c = 0; c < C; c++) fprintf(f, ",%.6g", y[c]);
        }
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

/* Adds the prediction attributes to ig (replacing any of the same names). */
static int set_attributes(igraph_t *ig, const ag_bundle_t *b, ag_task_t task, const float *Y) {
    int64_t N = igraph_vcount(ig), C = b->n_names;
    char name[512];
    igraph_vector_t col;
    if (igraph_vector_init(&col, N) != IGRAPH_SUCCESS) return -1;
    int bad = 0;
    if (task == AG_TASK_NODE_CLASSIFICATION) {
        cli_attr_remove(ig, IGRAPH_ATTRIBUTE_VERTEX, "pred");
        for (int64_t v = 0; v < N && !bad; v++)
            bad = SETVAS(ig, "pred", v, b->names[argmax(Y + v * C, C)]) != IGRAPH_SUCCESS;
    }
    for (int64_t c = 0; c < C && !bad; c++) {
        if (task == AG_TASK_NODE_CLASSIFICATION) cli_attr_name(name, sizeof name, "prob_", b->names[c]);
        else if (C == 1) snprintf(name, sizeof name, "pred");
        else cli_attr_name(name, sizeof name, "pred_", b->names[c]);
        for (int64_t v = 0; v < N; v++) VECTOR(col)[v] = Y[v * C + c];
        cli_attr_remove(ig, IGRAPH_ATTRIBUTE_VERTEX, name);
        bad = SETVANV(ig, name, &col) != IGRAPH_SUCCESS;
    }
    igraph_vector_destroy(&col);
    return bad ? -1 : 0;
}

int ag_cmd_label(int argc, char **argv) {
    const char *model_path = NULL, *format_name = NULL, *graph_path = NULL, *out_path = NULL;
    const char *table_path = NULL, *table_id = NULL;
    int directed = 0;
    int64_t threads = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            label_usage(stdout);
            return AG_EXIT_OK;
        }
        if (a[0] != '-' || !strcmp(a, "-")) {
            if (graph_path) {
                fprintf(stderr, "attn-graph: label: more than one GRAPH argument ('%s', '%s')\n", graph_path, a);
                return AG_EXIT_USAGE;
            }
            graph_path = a;
            continue;
        }
        int r = cli_opt(CMD, "--model", argc, argv, &i, &v);
        if (r > 0) model_path = v;
        else if (r == 0 && (r = cli_opt(CMD, "-o", argc, argv, &i, &v)) > 0) out_path = v;
        else if (r == 0 && (r = cli_opt(CMD, "--output", argc, argv, &i, &v)) > 0) out_path = v;
        else if (r == 0 && (r = cli_opt(CMD, "--format", argc, argv, &i, &v)) > 0) format_name = v;
        else if (r == 0 && (r = cli_opt(CMD, "--node-table", argc, argv, &i, &v)) > 0) table_path = v;
        else if (r == 0 && (r = cli_opt(CMD, "--table-id-attr", argc, argv, &i, &v)) > 0) table_id = v;
        else if (r == 0 && (r = cli_opt(CMD, "--threads", argc, argv, &i, &v)) > 0) {
            if (cli_int(CMD, "--threads", v, 1, 4096, &threads) < 0) r = -1;
        } else if (r == 0 && !strcmp(a, "--directed")) directed = r = 1;
        if (r == 0) fprintf(stderr, "attn-graph: label: unknown option '%s' (see 'attn-graph label --help')\n", a);
        if (r <= 0) return AG_EXIT_USAGE;
    }
    if (!graph_path) {
        fprintf(stderr, "attn-graph: label: no GRAPH given (see 'attn-graph label --help')\n");
        return AG_EXIT_USAGE;
    }
    ag_format_t format = AG_FORMAT_AUTO;
    if (format_name && ag_format_from_name(format_name, &format)) {
        fprintf(stderr, "attn-graph: label: --format: %s\n", ag_error_message());
        return AG_EXIT_USAGE;
    }
    if (!strcmp(graph_path, "-") && format == AG_FORMAT_AUTO) {
        fprintf(stderr, "attn-graph: label: reading '-' (standard input) needs --format\n");
        return AG_EXIT_USAGE;
    }
    cli_out_kind_t kind = out_path ? cli_out_kind(out_path) : CLI_OUT_CSV;
    if (kind != CLI_OUT_GML && kind != CLI_OUT_GRAPHML && kind != CLI_OUT_CSV) {
        fprintf(stderr, "attn-graph: label: -o %s: give a .gml, .graphml or .csv file\n", out_path);
        return AG_EXIT_USAGE;
    }
    char defpath[4096];
    if (!model_path && !(model_path = cli_default_model(CMD, "karate.safetensors", defpath, sizeof defpath)))
        return AG_EXIT_MODEL;
    if (threads > 0) ag_set_num_threads((int)threads);
    ag_bundle_t b;
    int code = cli_load_model(model_path, &b);
    if (code) return code;
    ag_task_t task = ag_model_config(b.model)->task;
    if (ag_task_is_graph_level(task)) {
        fprintf(stderr, "attn-graph: label: %s is a %s model: label needs a node-level one (use 'attn-graph classify')\n",
                model_path, ag_task_name(task));
        ag_bundle_destroy(&b);
        return AG_EXIT_MODEL;
    }
    igraph_t ig;
    code = cli_read_graph(&ig, graph_path, format, directed);
    if (code) {
        ag_bundle_destroy(&b);
        return code;
    }
    ag_node_table_t table;
    memset(&table, 0, sizeof table);
    int have_table = 0;
    cli_run_t run;
    memset(&run, 0, sizeof run);
    code = cli_read_node_table(CMD, &b, model_path, table_path, table_id, &ig, &table, &have_table);
    if (code == AG_EXIT_OK) code = cli_run_model(&b, &ig, have_table ? &table.features : NULL, graph_path, &run);
    if (code == AG_EXIT_OK) {
        cli_igraph_catch();
        if (!out_path) {
            if (write_csv(stdout, &b, task, &ig, run.Y) < 0 || fflush(stdout) != 0) {
                fprintf(stderr, "attn-graph: label: cannot write the table: %s\n", cli_igraph_message());
                code = AG_EXIT_FAILURE;
            }
        } else {
            cli_atomic_t out;
            if (kind != CLI_OUT_CSV && set_attributes(&ig, &b, task, run.Y) < 0) {
                fprintf(stderr, "attn-graph: label: cannot set vertex attributes: %s\n", cli_igraph_message());
                code = AG_EXIT_FAILURE;
            } else if (cli_atomic_open(&out, CMD, out_path) < 0) {
                code = AG_EXIT_FAILURE;
            } else {
                int bad = kind == CLI_OUT_CSV ? write_csv(out.f, &b, task, &ig, run.Y)
                                              : cli_write_graph(CMD, &ig, kind, out.f, out_path);
                if (bad < 0) {
                    if (kind == CLI_OUT_CSV) fprintf(stderr, "attn-graph: label: cannot write %s\n", out_path);
                    cli_atomic_abort(&out);
                    code = AG_EXIT_FAILURE;
                } else if (cli_atomic_commit(&out, CMD) < 0) {
                    code = AG_EXIT_FAILURE;
                }
            }
        }
    }
    cli_run_destroy(&run);
    if (have_table) ag_node_table_destroy(&table);
    igraph_destroy(&ig);
    ag_bundle_destroy(&b);
    return code;
}
