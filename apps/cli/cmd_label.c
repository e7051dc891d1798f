/*
 * cmd_label.c: `attn-graph label`, node-level predictions on one graph, written back as vertex
 * attributes (GML, GraphML) or as a CSV table.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "learn.h"
#include "predict.h"

static const char *const CMD = "label";

static void label_usage(FILE *out) {
    fprintf(out,
        "usage: attn-graph label [--model MODEL.safetensors] GRAPH\n"
        "                        [-o OUT.gml|OUT.graphml|OUT.csv|OUT.json|OUT.jsonl]\n"
        "                        [--json] [--format F] [--directed] [--vertices N] [--node-table FILE]\n"
        "                        [--table-id-attr ATTR] [--threads N] [--max-memory SIZE]\n"
        "                        [--smooth ALPHA [--correct ALPHA] | --no-smooth]\n"
        "\n"
        "Predicts every vertex of GRAPH with a node-level model. Node classification adds the vertex\n"
        "attributes 'pred' (the predicted class name) and 'prob<Class>' (each class's probability);\n"
        "node regression adds 'pred' (one target) or 'pred<Target>'. <Class> and <Target> keep only\n"
        "the letters and digits of the name (so GML and GraphML carry the same names; the class index\n"
        "when that would make two names equal). The graph is written as GML or GraphML by the\n"
        "extension of OUT, as a CSV table with -o OUT.csv, as a JSON array of one object per vertex\n"
        "with -o OUT.json, or as JSON lines (one object per line) with -o OUT.jsonl; without -o the\n"
        "CSV (or with --json the JSON lines) goes to stdout.\n"
        "CSV columns: vertex (0-based index), id and name (each when the graph has that vertex attribute),\n"
        "pred, then prob<Class>... (classification) or pred<Target>... (several targets).\n"
        "JSON: one object per vertex (per line, or an array's elements with -o OUT.json), e.g.\n"
        "  {\"vertex\": 0, \"id\": 0, \"prediction\": \"0\", \"probabilities\": {\"0\": 0.91, \"1\": 0.09}}\n"
        "  {\"vertex\": 0, \"id\": 0, \"prediction\": 0.6, \"values\": {\"y\": 0.6}}   (regression)\n"
        "Files are written atomically (a temporary file renamed over OUT).\n"
        "Without --model the shipped karate.safetensors is used, looked up in $ATTN_GRAPH_MODELS, then\n"
        "the installed models folder, then the source tree's graphs/models.\n"
        "\n"
        "  --model FILE         a node-level model saved by 'attn-graph train'\n"
        "  -o, --output OUT     output file (.gml, .graphml, .csv, .json, .jsonl)\n"
        "  --json               JSON lines instead of CSV on stdout (with -o: as OUT's extension says)\n"
        "  --format F           input format (gml, graphml, edgelist, ...; auto: by extension, for '-' by its text)\n"
        "  --directed           read edge list, NCOL, LGL, DIMACS and DL files as directed\n"
        "  --vertices N         an edge list's vertex count (default: its largest id + 1), as in training\n"
        "  --node-table FILE    the node feature table, when the model was trained with one\n"
        "  --table-id-attr ATTR vertex attribute matched to the table's ids (default 'id')\n"
        "  --smooth ALPHA       node classification: Correct and Smooth over the graph, the classes its\n"
        "  [--correct ALPHA]    vertices already have in the model's label attribute known (weights in\n"
        "                       [0, 1); see 'attn-graph train --help'). A model trained with --smooth and\n"
        "                       -o applies its own weights (a graph without the attribute: a note, and\n"
        "                       the model's own predictions)\n"
        "  --no-smooth          the model's own predictions, even if it stores smoothing weights\n"
        "  --threads N          OpenMP / BLAS threads\n"
        "  --max-memory SIZE    the most reading the graph may take (e.g. 4G; default: the available memory)\n"
        "  --help               this message\n"
        "\n"
        "Exit codes: 0 success, 1 unexpected failure (cannot write OUT), 2 bad command line, 3 bad input\n"
        "file, a graph that does not fit the model, or one with text GraphML cannot hold (a control\n"
        "character, a byte that is not UTF-8: -o OUT.graphml; GML can), 4 bad or mismatched model file\n"
        "(not a node-level model).\n");
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

/* The columns identifying vertices beside their index: 'id' and 'name', each when the graph has it
 * as a number or a string. Both, since a GML file always numbers its vertices with 'id', and a
 * social graph's names are what its reader knows them by. */
typedef struct id_columns_t {
    const char *attr[2];
    igraph_attribute_type_t type[2];
    int n;
} id_columns_t;

static void id_columns(const igraph_t *ig, id_columns_t *ids) {
    static const char *const cands[2] = {"id", "name"};
    ids->n = 0;
    for (int i = 0; i < 2; i++) {
        igraph_attribute_type_t t;
        if (!igraph_cattribute_has_attr(ig, IGRAPH_ATTRIBUTE_VERTEX, cands[i]) ||
            igraph_cattribute_table.gettype(ig, &t, IGRAPH_ATTRIBUTE_VERTEX, cands[i]) != IGRAPH_SUCCESS ||
            (t != IGRAPH_ATTRIBUTE_NUMERIC && t != IGRAPH_ATTRIBUTE_STRING))
            continue;
        ids->attr[ids->n] = cands[i];
        ids->type[ids->n++] = t;
    }
}

static int write_csv(FILE *f, const ag_bundle_t *b, ag_task_t task, const igraph_t *ig, const float *Y) {
    int64_t N = igraph_vcount(ig), C = b->n_names;
    id_columns_t ids;
    id_columns(ig, &ids);
    const char *const *names = (const char *const *)b->names;
    char name[512];
    fputs("vertex", f);
    for (int k = 0; k < ids.n; k++) fprintf(f, ",%s", ids.attr[k]);
    if (task == AG_TASK_NODE_CLASSIFICATION || C == 1) fputs(",pred", f);
    for (int64_t c = 0; c < C; c++) {
        cli_attr_name(name, sizeof name, task == AG_TASK_NODE_CLASSIFICATION ? "prob" : "pred", names, C, c);
        if (task == AG_TASK_NODE_CLASSIFICATION || C > 1) fprintf(f, ",%s", name);
    }
    fputc('\n', f);
    for (int64_t v = 0; v < N; v++) {
        const float *y = Y + v * C;
        fprintf(f, "%lld", (long long)v);
        for (int k = 0; k < ids.n; k++) {
            fputc(',', f);
            if (ids.type[k] == IGRAPH_ATTRIBUTE_NUMERIC) fprintf(f, "%.15g", VAN(ig, ids.attr[k], v));
            else csv_field(f, VAS(ig, ids.attr[k], v));
        }
        if (task == AG_TASK_NODE_CLASSIFICATION) {
            fputc(',', f);
            csv_field(f, b->names[cli_argmax(y, C)]);
            for (int64_t c = 0; c < C; c++) fprintf(f, ",%.6f", y[c]);
        } else {
            for (int64_t c = 0; c < C; c++) fprintf(f, ",%.6g", y[c]);
        }
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

/* One JSON object per vertex, keyed like classify --json: the raw class or target names; one per
 * line (JSON lines), or as the elements of one array, which json.load() and pandas.read_json()
 * read as a file named .json. */
static int json_objects(FILE *f, const ag_bundle_t *b, ag_task_t task, const igraph_t *ig, const float *Y,
                        int array) {
    int64_t N = igraph_vcount(ig), C = b->n_names;
    id_columns_t ids;
    id_columns(ig, &ids);
    int classify = task == AG_TASK_NODE_CLASSIFICATION;
    if (array) fputs(N ? "[\n" : "[", f);
    for (int64_t v = 0; v < N; v++) {
        const float *y = Y + v * C;
        fprintf(f, "{\"vertex\": %lld", (long long)v);
        for (int k = 0; k < ids.n; k++) {
            fprintf(f, ", \"%s\": ", ids.attr[k]);
            double id = ids.type[k] == IGRAPH_ATTRIBUTE_NUMERIC ? VAN(ig, ids.attr[k], v) : 0.0;
            if (ids.type[k] != IGRAPH_ATTRIBUTE_NUMERIC) cli_json_string(f, VAS(ig, ids.attr[k], v));
            else if (isfinite(id)) fprintf(f, "%.15g", id); /* all digits, as the CSV: ids above 1e6 too */
            else fputs("null", f);
        }
        fputs(", \"prediction\": ", f);
        if (classify) {
            cli_json_string(f, b->names[cli_argmax(y, C)]);
        } else if (C == 1) {
            cli_json_number(f, y[0]);
        } else {
            fputc('[', f);
            for (int64_t c = 0; c < C; c++) {
                if (c) fputs(", ", f);
                cli_json_number(f, y[c]);
            }
            fputc(']', f);
        }
        fputs(classify ? ", \"probabilities\": {" : ", \"values\": {", f);
        for (int64_t c = 0; c < C; c++) {
            if (c) fputs(", ", f);
            cli_json_string(f, b->names[c]);
            fputs(": ", f);
            cli_json_number(f, y[c]);
        }
        fputs(array && v + 1 < N ? "}},\n" : "}}\n", f);
    }
    if (array) fputs("]\n", f);
    return ferror(f) ? -1 : 0;
}

static int write_json_lines(FILE *f, const ag_bundle_t *b, ag_task_t task, const igraph_t *ig, const float *Y) {
    return json_objects(f, b, task, ig, Y, 0);
}

static int write_json_array(FILE *f, const ag_bundle_t *b, ag_task_t task, const igraph_t *ig, const float *Y) {
    return json_objects(f, b, task, ig, Y, 1);
}

/* Adds the prediction attributes to ig (replacing any of the same names). */
static int set_attributes(igraph_t *ig, const ag_bundle_t *b, ag_task_t task, const float *Y) {
    int64_t N = igraph_vcount(ig), C = b->n_names;
    const char *const *names = (const char *const *)b->names;
    char name[512];
    igraph_vector_t col;
    if (igraph_vector_init(&col, N) != IGRAPH_SUCCESS) return -1;
    int bad = 0;
    if (task == AG_TASK_NODE_CLASSIFICATION) {
        cli_attr_remove(ig, IGRAPH_ATTRIBUTE_VERTEX, "pred");
        for (int64_t v = 0; v < N && !bad; v++)
            bad = SETVAS(ig, "pred", v, b->names[cli_argmax(Y + v * C, C)]) != IGRAPH_SUCCESS;
    }
    for (int64_t c = 0; c < C && !bad; c++) {
        if (task == AG_TASK_NODE_CLASSIFICATION) cli_attr_name(name, sizeof name, "prob", names, C, c);
        else if (C == 1) snprintf(name, sizeof name, "pred");
        else cli_attr_name(name, sizeof name, "pred", names, C, c);
        for (int64_t v = 0; v < N; v++) VECTOR(col)[v] = Y[v * C + c];
        cli_attr_remove(ig, IGRAPH_ATTRIBUTE_VERTEX, name);
        bad = SETVANV(ig, name, &col) != IGRAPH_SUCCESS;
    }
    igraph_vector_destroy(&col);
    return bad ? -1 : 0;
}

int ag_cmd_label(int argc, char **argv) {
    cli_graph_opts_t o;
    cli_graph_opts_init(&o);
    int json = 0;
    cli_smooth_t smooth; /* Correct and Smooth with the graph's known classes */
    cli_smooth_init(&smooth);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            label_usage(stdout);
            return AG_EXIT_OK;
        }
        int r = cli_graph_option(&o, CMD, argc, argv, &i);
        if (r == 0) r = cli_smooth_option(CMD, argc, argv, &i, &smooth, 1);
        if (r == 0 && !strcmp(a, "--json")) json = r = 1;
        if (r == 0) fprintf(stderr, "attn-graph: label: unknown option '%s' (see 'attn-graph label --help')\n", a);
        if (r <= 0) return AG_EXIT_USAGE;
    }
    if (!o.graph_path) {
        fprintf(stderr, "attn-graph: label: no GRAPH given (see 'attn-graph label --help')\n");
        return AG_EXIT_USAGE;
    }
    int code = cli_graph_opts_check(&o, CMD);
    if (code) return code;
    const char *out_path = o.out_path;
    cli_out_kind_t kind = out_path ? cli_out_kind(out_path) : json ? CLI_OUT_JSON : CLI_OUT_CSV;
    if (kind != CLI_OUT_GML && kind != CLI_OUT_GRAPHML && kind != CLI_OUT_CSV && kind != CLI_OUT_JSON) {
        fprintf(stderr, "attn-graph: label: -o %s: give a .gml, .graphml (or .xml), .csv, .json or .jsonl file\n", out_path);
        return AG_EXIT_USAGE;
    }
    if (json && kind != CLI_OUT_JSON) {
        fprintf(stderr, "attn-graph: label: --json writes JSON: give -o OUT.json, -o OUT.jsonl or no -o, not -o %s\n",
                out_path);
        return AG_EXIT_USAGE;
    }
    const char *const ins[3] = {o.graph_path, o.model_path, o.table_path};
    static const char *const in_names[3] = {"the graph read", "--model", "--node-table"};
    static const char *const out_names[1] = {"-o"};
    code = cli_check_outputs(CMD, &out_path, out_names, 1, ins, in_names, 3);
    if (code) return code;
    cli_prediction_t p;
    code = cli_prediction_load(&p, &o, CMD, "karate.safetensors");
    ag_task_t task = code ? AG_TASK_NODE_CLASSIFICATION : ag_model_config(p.b.model)->task;
    if (code == AG_EXIT_OK && ag_task_is_graph_level(task)) {
        fprintf(stderr,
                "attn-graph: label: %s is a %s model: label needs a node-level one (use 'attn-graph classify')\n",
                o.model_path, ag_task_name(task));
        code = AG_EXIT_MODEL;
    }
    if (code == AG_EXIT_OK) code = cli_smooth_check(CMD, &smooth, task);
    if (code == AG_EXIT_OK) cli_bundle_keep_attention(&p.b, 0); /* label reads no attention weights */
    if (code == AG_EXIT_OK) code = cli_prediction_run(&p, &o, CMD);
    if (code == AG_EXIT_OK && cli_smooth_wanted(&smooth, &p.b)) code = cli_prediction_smooth(&p, &o, &smooth, CMD);
    if (code == AG_EXIT_OK) {
        cli_igraph_catch();
        int (*table)(FILE *, const ag_bundle_t *, ag_task_t, const igraph_t *, const float *) =
                kind != CLI_OUT_JSON                              ? write_csv
                : out_path && cli_ends_with_ci(out_path, ".json") ? write_json_array
                                                                  : write_json_lines;
        if (!out_path) {
            if (table(stdout, &p.b, task, &p.ig, p.run.Y) < 0 || fflush(stdout) != 0) {
                fprintf(stderr, "attn-graph: label: cannot write the table: %s\n", cli_igraph_message());
                code = AG_EXIT_FAILURE;
            }
        } else if (kind == CLI_OUT_CSV || kind == CLI_OUT_JSON) {
            cli_atomic_t out;
            if (cli_atomic_open(&out, CMD, out_path) < 0) {
                code = AG_EXIT_FAILURE;
            } else if (table(out.f, &p.b, task, &p.ig, p.run.Y) < 0) {
                fprintf(stderr, "attn-graph: label: cannot write %s\n", out_path);
                cli_atomic_abort(&out);
                code = AG_EXIT_FAILURE;
            } else if (cli_atomic_commit(&out, CMD) < 0) {
                code = AG_EXIT_FAILURE;
            }
        } else if (set_attributes(&p.ig, &p.b, task, p.run.Y) < 0) {
            fprintf(stderr, "attn-graph: label: cannot set vertex attributes: %s\n", cli_igraph_message());
            code = AG_EXIT_FAILURE;
        } else {
            cli_attr_replaced_warn(CMD, o.graph_path);
            code = cli_write_graph_file(CMD, &p.ig, kind, out_path);
        }
    }
    cli_prediction_destroy(&p);
    return code;
}
