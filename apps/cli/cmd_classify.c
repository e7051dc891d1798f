/*
 * cmd_classify.c: `attn-graph classify`, graph-level predictions for many graph files.
 *
 * The model is loaded once. Files are read and featurised one after another (igraph is not
 * thread-safe), then predicted in block-diagonal batches of up to BATCH graphs, where the model's
 * kernels run in parallel; lines come out in argument order.
 */
#include <stdlib.h>
#include <string.h>
#include "learn.h"
#include "predict.h"

static const char *const CMD = "classify";

enum { BATCH = 256 };

static void classify_usage(FILE *out) {
    fprintf(out,
        "usage: attn-graph classify [--model MODEL.safetensors] [--json] [--format F] [--directed]\n"
        "                           [--vertices N]\n"
        "                           [--threads N] [--max-memory SIZE] FILE...\n"
        "\n"
        "Predicts each graph file with a graph-level model (classification, multi-task or regression)\n"
        "and prints one line per file, in argument order, on stdout:\n"
        "  classification:  FILE<TAB>CLASS<TAB>CLASS_1=P_1<TAB>...     (probabilities of every class)\n"
        "  multi-task:      FILE<TAB>TASK,TASK|-<TAB>TASK_1=P_1<TAB>...  (tasks with P >= 0.5; '-': none)\n"
        "  regression:      FILE<TAB>VALUE[,VALUE]<TAB>TARGET_1=V_1<TAB>...\n"
        "Without --model the shipped molecule model tox21.safetensors is used, looked up in\n"
        "$ATTN_GRAPH_MODELS, then the installed models folder, then the source tree's graphs/models.\n"
        "\n"
        "  --model FILE      a model saved by 'attn-graph train' (graph task)\n"
        "  --json            one JSON object per file instead of the text line (a file that failed:\n"
        "                    {\"file\": ..., \"error\": ...}, its stderr line); the warnings said about\n"
        "                    a file end its object as \"warnings\": [...] (no such member without any)\n"
        "  --format F        gml, graphml, edgelist, ncol, lgl, pajek, dimacs, dl or auto (by extension;\n"
        "                    for '-', standard input, by its text: GML, GraphML, Pajek, DL or LGL)\n"
        "  --directed        read edge list, NCOL, LGL, DIMACS and DL files as directed\n"
        "  --vertices N      every edge list's vertex count (default: its largest id + 1)\n"
        "  --threads N       OpenMP / BLAS threads\n"
        "  --max-memory SIZE the most reading a graph may take (e.g. 4G; default: the available memory)\n"
        "  --help            this message\n"
        "\n"
        "A file that cannot be read or does not fit the model (a missing attribute, another type) gets\n"
        "one line on stderr and the others are still classified.\n"
        "Exit codes: 0 success, 1 unexpected failure, 2 bad command line, 3 a file failed,\n"
        "4 bad or mismatched model file.\n");
}

/* One featurised graph waiting for its batch. */
typedef struct pending_t {
    const char *path;
    ag_graph_t g;
    ag_fmat_t X; /* (N x F) */
    ag_fmat_t E; /* (E x Fe) */
    ag_cli_warnings_t warnings; /* said while it was read and featurised: --json prints them with it */
} pending_t;

static void pending_clear(pending_t *p) {
    ag_graph_destroy(&p->g);
    ag_fmat_destroy(&p->X);
    ag_fmat_destroy(&p->E);
    ag_cli_warnings_clear(&p->warnings);
    memset(p, 0, sizeof *p);
}

/* A file name as the line's first field. A name holding a tab or a line break would split the
 * line for every reader of tab-separated text, so such a name is written as a JSON string (quoted,
 * with C-style escapes, as git writes unusual paths); any other name is written as it is. */
static void print_path_field(const char *path) {
    if (strpbrk(path, "\t\n\r")) cli_json_string(stdout, path);
    else fputs(path, stdout);
}

static void print_text(const ag_bundle_t *b, ag_task_t task, const char *path, const float *y) {
    int64_t C = b->n_names;
    print_path_field(path);
    fputc('\t', stdout);
    if (task == AG_TASK_GRAPH_CLASSIFICATION) {
        int64_t best = 0;
        for (int64_t c = 1; c < C; c++)
            if (y[c] > y[best]) best = c;
        fputs(b->names[best], stdout);
    } else if (task == AG_TASK_GRAPH_MULTITASK) {
        int any = 0;
        for (int64_t c = 0; c < C; c++)
            if (y[c] >= 0.5f) {
                printf("%s%s", any ? "," : "", b->names[c]);
                any = 1;
            }
        if (!any) fputc('-', stdout);
    } else {
        for (int64_t c = 0; c < C; c++) printf("%s%.6g", c ? "," : "", y[c]);
    }
    for (int64_t c = 0; c < C; c++)
        printf(task == AG_TASK_GRAPH_REGRESSION ? "\t%s=%.6g" : "\t%s=%.4f", b->names[c], y[c]);
    fputc('\n', stdout);
}

static void print_json(const ag_bundle_t *b, ag_task_t task, const char *path, const float *y,
                       const ag_cli_warnings_t *warnings) {
    int64_t C = b->n_names;
    fputs("{\"file\": ", stdout);
    cli_json_string(stdout, path);
    fputs(", \"task\": ", stdout);
    cli_json_string(stdout, ag_task_name(task));
    fputs(", \"prediction\": ", stdout);
    if (task == AG_TASK_GRAPH_CLASSIFICATION) {
        int64_t best = 0;
        for (int64_t c = 1; c < C; c++)
            if (y[c] > y[best]) best = c;
        cli_json_string(stdout, b->names[best]);
    } else if (task == AG_TASK_GRAPH_MULTITASK) {
        fputc('[', stdout);
        int any = 0;
        for (int64_t c = 0; c < C; c++)
            if (y[c] >= 0.5f) {
                if (any) fputs(", ", stdout);
                cli_json_string(stdout, b->names[c]);
                any = 1;
            }
        fputc(']', stdout);
    } else if (C == 1) {
        cli_json_number(stdout, y[0]);
    } else {
        fputc('[', stdout);
        for (int64_t c = 0; c < C; c++) {
            if (c) fputs(", ", stdout);
            cli_json_number(stdout, y[c]);
        }
        fputc(']', stdout);
    }
    fputs(task == AG_TASK_GRAPH_REGRESSION ? ", \"values\": {" : ", \"probabilities\": {", stdout);
    for (int64_t c = 0; c < C; c++) {
        if (c) fputs(", ", stdout);
        cli_json_string(stdout, b->names[c]);
        fputs(": ", stdout);
        cli_json_number(stdout, y[c]);
    }
    fputc('}', stdout);
    cli_json_warnings(stdout, warnings);
    fputs("}\n", stdout);
}

/* Predicts the pending graphs as one block-diagonal batch, prints them in order, clears them.
 * Returns 0, or an exit code for a failure that stops the command. */
static int flush(ag_bundle_t *b, pending_t *pend, int64_t n, int json) {
    if (n == 0) return 0;
    const ag_model_config_t *mc = ag_model_config(b->model);
    int64_t C = mc->n_out;
    ag_batch_member_t members[BATCH];
    for (int64_t i = 0; i < n; i++) members[i] = (ag_batch_member_t){&pend[i].g, &pend[i].X, &pend[i].E};
    ag_batch_buffer_t buf; /* (N x F), (E x Fe) */
    ag_batch_buffer_init(&buf);
    float *Y = malloc((size_t)n * (size_t)C * sizeof(float)); /* (G x C) */
    int code = 0;
    if (!Y) {
        fprintf(stderr, "attn-graph: classify: out of memory\n");
        code = AG_EXIT_FAILURE;
        goto done;
    }
    ag_batch_t batch;
    ag_error_t rc = ag_batch_buffer_fill(&buf, members, n, mc->in_dim, mc->edge_dim, &batch);
    if (rc == AG_SUCCESS) rc = ag_bundle_predict_batch(b, &batch, Y);
    ag_batch_destroy(&batch);
    if (rc != AG_SUCCESS) {
        code = ag_cli_fail(rc);
        goto done;
    }
    for (int64_t i = 0; i < n; i++) {
        if (json) print_json(b, mc->task, pend[i].path, Y + i * C, &pend[i].warnings);
        else print_text(b, mc->task, pend[i].path, Y + i * C);
    }
    fflush(stdout);
done:
    for (int64_t i = 0; i < n; i++) pending_clear(&pend[i]);
    ag_batch_buffer_destroy(&buf);
    free(Y);
    return code;
}

/* --json and a file that failed: the pending files before it are predicted and printed first, so
 * that the objects stay in argument order, then its error object with the warnings said about it.
 * Returns flush's code. */
static int json_failure(ag_bundle_t *b, pending_t *pend, int64_t *n_pend, const char *path, const char *message,
                        const ag_cli_warnings_t *warnings) {
    int c = flush(b, pend, *n_pend, 1);
    *n_pend = 0;
    if (c == 0) cli_json_error(stdout, path, NULL, message, warnings);
    return c;
}

int ag_cmd_classify(int argc, char **argv) {
    const char *model_path = NULL, *format_name = NULL;
    int json = 0, directed = 0;
    int64_t threads = 0, vertices = 0;
    const char **files = calloc((size_t)argc, sizeof *files);
    int n_files = 0;
    if (!files) return AG_EXIT_FAILURE;
    int only_files = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (only_files || a[0] != '-' || !strcmp(a, "-")) {
            int stdin_again = 0;
            for (int k = 0; k < n_files && !strcmp(a, "-"); k++) stdin_again |= !strcmp(files[k], "-");
            if (stdin_again) {
                /* the first '-' reads standard input to its end: a second would find it empty */
                fprintf(stderr, "attn-graph: classify: '-' (standard input) given twice\n");
                free(files);
                return AG_EXIT_USAGE;
            }
            files[n_files++] = a;
            continue;
        }
        if (!strcmp(a, "--")) {
            only_files = 1;
            continue;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            classify_usage(stdout);
            free(files);
            return AG_EXIT_OK;
        }
        int r = cli_opt(CMD, "--model", argc, argv, &i, &v);
        if (r > 0) r = cli_model_once(CMD, &model_path, v);
        else if (r == 0 && ((r = cli_max_memory_option(CMD, argc, argv, &i)) != 0 ||
                            (r = cli_vertices_option(CMD, argc, argv, &i, &vertices)) != 0)) {
            /* taken, or refused */
        } else if (r == 0 && (r = cli_opt(CMD, "--format", argc, argv, &i, &v)) > 0) format_name = v;
        else if (r == 0 && (r = cli_opt(CMD, "--threads", argc, argv, &i, &v)) > 0) {
            if (cli_int(CMD, "--threads", v, 1, AG_THREADS_MAX, &threads) < 0) r = -1;
        } else if (r == 0 && !strcmp(a, "--json")) json = r = 1;
        else if (r == 0 && !strcmp(a, "--directed")) directed = r = 1;
        if (r == 0) fprintf(stderr, "attn-graph: classify: unknown option '%s' (see 'attn-graph classify --help')\n", a);
        if (r <= 0) {
            free(files);
            return AG_EXIT_USAGE;
        }
    }
    ag_format_t format = AG_FORMAT_AUTO;
    if (format_name && ag_format_from_name(format_name, &format)) {
        fprintf(stderr, "attn-graph: classify: --format: %s\n", ag_error_message());
        free(files);
        return AG_EXIT_USAGE;
    }
    if (n_files == 0) {
        fprintf(stderr, "attn-graph: classify: no FILE given (see 'attn-graph classify --help')\n");
        free(files);
        return AG_EXIT_USAGE;
    }
    char defpath[4096];
    if (!model_path && !(model_path = cli_default_model(CMD, "tox21.safetensors", defpath, sizeof defpath))) {
        free(files);
        return AG_EXIT_MODEL;
    }
    if (threads > 0) ag_threads_set((int)threads);
    ag_bundle_t b;
    int code = cli_load_model(model_path, &b);
    if (code) {
        free(files);
        return code;
    }
    cli_bundle_keep_attention(&b, 0); /* classify reads no attention weights */
    const ag_model_config_t *mc = ag_model_config(b.model);
    if (!ag_task_is_graph_level(mc->task) || b.table.width > 0) {
        fprintf(stderr, "attn-graph: classify: %s is a %s model: classify needs a graph-level one%s\n", model_path,
                ag_task_name(mc->task), ag_task_is_graph_level(mc->task) ? "" : " (use 'attn-graph label')");
        ag_bundle_destroy(&b);
        free(files);
        return AG_EXIT_MODEL;
    }
    pending_t *pend = calloc(BATCH, sizeof *pend);
    if (!pend) {
        ag_bundle_destroy(&b);
        free(files);
        return AG_EXIT_FAILURE;
    }
    int64_t n_pend = 0;
    /* misused: a FILE the options do not fit (--vertices below an edge list's largest id + 1, or
     * given for another format), a command-line error (exit 2, as every other command gives it),
     * which goes before a bad file's 3 */
    int failed = 0, misused = 0, fatal = 0, other_kind = 0;
    for (int i = 0; i < n_files && !fatal; i++) {
        const char *path = files[i];
        igraph_t ig;
        ag_cli_warnings_t warned;
        /* the warnings said about this file go to its own list until it is featurised, so that a
         * warning never travels with another file's prediction: files are read and featurised one
         * after another on this thread (only the batches' kernels run in parallel, and they say
         * nothing), and each file's list moves with it into its batch */
        ag_cli_warnings_t *was = ag_cli_warnings_start(&warned);
        const ag_graph_read_options_t ro = {.format = format, .directed = directed, .vertices = vertices};
        ag_error_t rc = ag_graph_read_with(&ig, path, &ro);
        cli_say_read_warnings(path);
        if (rc) {
            ag_cli_warnings_collect(was);
            ag_cli_error("%s", ag_error_message());
            failed = 1;
            misused |= rc == AG_EINVAL;
            if (json) code = json_failure(&b, pend, &n_pend, path, ag_cli_last_error(), &warned);
            ag_cli_warnings_clear(&warned);
            if (code) {
                fatal = 1;
                break;
            }
            continue;
        }
        pending_t *p = &pend[n_pend];
        p->path = path;
        rc = ag_bundle_featurize(&b, &ig, NULL, &p->X, &p->E);
        if (rc == AG_SUCCESS) {
            cli_warn_unseen(&b, &ig, cli_shown_path(path));
            cli_warn_shifted(&b, &p->X, &p->E, cli_shown_path(path), NULL);
            cli_warn_graph_size(&b, &ig, cli_shown_path(path));
        } else other_kind |= cli_shares_no_attribute(&b, &ig);
        if (rc == AG_SUCCESS) rc = ag_graph_from_igraph(&p->g, &ig);
        igraph_destroy(&ig);
        ag_cli_warnings_collect(was);
        p->warnings = warned;
        if (rc == AG_SUCCESS && n_pend > 0 && p->g.directed != pend[0].g.directed) {
            /* a batch never mixes directed and undirected graphs: predict the others first */
            pending_t tmp = *p;
            memset(p, 0, sizeof *p);
            int c = flush(&b, pend, n_pend, json);
            n_pend = 0;
            pend[0] = tmp;
            p = &pend[0];
            if (c) {
                code = c;
                fatal = 1;
                pending_clear(p);
                break;
            }
        }
        if (rc != AG_SUCCESS) {
            if (rc == AG_ENOMEM) fatal = 1;
            /* standard input is "<stdin>" in messages, as the reader names it */
            ag_cli_error("%s: %s", cli_shown_path(path), ag_error_message());
            failed = 1;
            /* p is past the pending ones: json_failure's flush leaves it (and its warnings) alone */
            if (json && !fatal) code = json_failure(&b, pend, &n_pend, path, ag_cli_last_error(), &p->warnings);
            pending_clear(p);
            if (code) {
                fatal = 1;
                break;
            }
            continue;
        }
        if (++n_pend == BATCH) {
            int c = flush(&b, pend, n_pend, json);
            n_pend = 0;
            if (c) {
                code = c;
                fatal = 1;
            }
        }
    }
    if (!fatal) {
        int c = flush(&b, pend, n_pend, json);
        if (c) code = c;
    } else {
        for (int64_t i = 0; i < n_pend; i++) pending_clear(&pend[i]);
    }
    free(pend);
    ag_bundle_destroy(&b);
    free(files);
    if (code) return code;
    if (other_kind && model_path == defpath) cli_default_model_hint(CMD, model_path);
    return misused ? AG_EXIT_USAGE : failed ? AG_EXIT_INPUT : AG_EXIT_OK;
}
