/*
 * predict.c: helpers of the prediction commands (classify, label, explain): default models,
 * igraph errors in the program, JSON output, atomic output files.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "predict.h"

#ifndef AG_MODELS_INSTALL_DIR
#define AG_MODELS_INSTALL_DIR ""
#endif
#ifndef AG_MODELS_SOURCE_DIR
#define AG_MODELS_SOURCE_DIR ""
#endif

static int file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

const char *cli_default_model(const char *cmd, const char *name, char *buf, size_t cap) {
    const char *env = getenv("ATTN_GRAPH_MODELS");
    const char *dirs[3] = {env && env[0] ? env : NULL, AG_MODELS_INSTALL_DIR, AG_MODELS_SOURCE_DIR};
    for (int i = 0; i < 3; i++) {
        if (!dirs[i] || !dirs[i][0]) continue;
        snprintf(buf, cap, "%s/%s", dirs[i], name);
        if (file_exists(buf)) return buf;
    }
    fprintf(stderr,
            "attn-graph: %s: no --model given and the default model %s is not in $ATTN_GRAPH_MODELS (%s), %s or %s\n",
            cmd, name, env && env[0] ? env : "unset", AG_MODELS_INSTALL_DIR[0] ? AG_MODELS_INSTALL_DIR : "-",
            AG_MODELS_SOURCE_DIR[0] ? AG_MODELS_SOURCE_DIR : "-");
    return NULL;
}

int cli_load_model(const char *path, ag_bundle_t *b) {
    ag_error_t rc = ag_bundle_load(path, b);
    if (rc == AG_SUCCESS) return AG_EXIT_OK;
    fprintf(stderr, "attn-graph: %s\n", ag_error_message());
    /* a model file that cannot be opened or read is still the model's fault, not the graph's */
    return rc == AG_ENOMEM ? AG_EXIT_FAILURE : AG_EXIT_MODEL;
}

static char igraph_reason[512];

static void catch_igraph_error(const char *reason, const char *file, int line, igraph_error_t err) {
    (void)file;
    (void)line;
    if (igraph_reason[0] == '\0')
        snprintf(igraph_reason, sizeof igraph_reason, "%s (%s)", reason && reason[0] ? reason : "igraph error",
                 igraph_strerror(err));
    IGRAPH_FINALLY_FREE();
}

void cli_igraph_catch(void) {
    igraph_reason[0] = '\0';
    igraph_set_error_handler(catch_igraph_error);
}

const char *cli_igraph_message(void) {
    return igraph_reason[0] ? igraph_reason : "igraph error";
}

void cli_json_string(FILE *out, const char *s) {
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*p < 0x20) fprintf(out, "\\u%04x", *p);
            else fputc(*p, out);
        }
    }
    fputc('"', out);
}

void cli_json_number(FILE *out, double x) {
    if (!isfinite(x)) fputs("null", out);
    else fprintf(out, "%.6g", x);
}

static int ends_with_ci(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    if (m > n) return 0;
    for (size_t i = 0; i < m; i++) {
        char a = s[n - m + i], b = suffix[i];
        if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
        if (a != b) return 0;
    }
    return 1;
}

cli_out_kind_t cli_out_kind(const char *path) {
    if (ends_with_ci(path, ".gml")) return CLI_OUT_GML;
    if (ends_with_ci(path, ".graphml") || ends_with_ci(path, ".xml")) return CLI_OUT_GRAPHML;
    if (ends_with_ci(path, ".csv")) return CLI_OUT_CSV;
    if (ends_with_ci(path, ".svg")) return CLI_OUT_SVG;
    return CLI_OUT_UNKNOWN;
}

int cli_atomic_open(cli_atomic_t *a, const char *cmd, const char *path) {
    a->f = NULL;
    a->path = path;
    if ((size_t)snprintf(a->tmp, sizeof a->tmp, "%s.tmpXXXXXX", path) >= sizeof a->tmp) {
        fprintf(stderr, "attn-graph: %s: cannot write %s: path too long\n", cmd, path);
        return -1;
    }
    int fd = mkstemp(a->tmp);
    if (fd < 0) {
        fprintf(stderr, "attn-graph: %s: cannot write %s: %s\n", cmd, path, strerror(errno));
        return -1;
    }
    /* mkstemp makes the file 0600; an output file gets the usual permissions */
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    a->f = fdopen(fd, "w");
    if (!a->f) {
        fprintf(stderr, "attn-graph: %s: cannot write %s: %s\n", cmd, path, strerror(errno));
        close(fd);
        unlink(a->tmp);
        return -1;
    }
    return 0;
}

int cli_atomic_commit(cli_atomic_t *a, const char *cmd) {
    int bad = ferror(a->f) || fflush(a->f) != 0 || fsync(fileno(a->f)) != 0;
    int saved = errno;
    if (fclose(a->f) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    a->f = NULL;
    if (!bad && rename(a->tmp, a->path) != 0) {
        bad = 1;
        saved = errno;
    }
    if (bad) {
        fprintf(stderr, "attn-graph: %s: cannot write %s: %s\n", cmd, a->path, strerror(saved));
        unlink(a->tmp);
        return -1;
    }
    return 0;
}

void cli_atomic_abort(cli_atomic_t *a) {
    if (a->f) fclose(a->f);
    a->f = NULL;
    unlink(a->tmp);
}

int cli_write_graph(const char *cmd, const igraph_t *ig, cli_out_kind_t kind, FILE *f, const char *path) {
    cli_igraph_catch();
    igraph_error_t e = kind == CLI_OUT_GML
                               ? igraph_write_graph_gml(ig, f, IGRAPH_WRITE_GML_DEFAULT_SW, NULL, "attn-graph")
                               : igraph_write_graph_graphml(ig, f, 1);
    if (e != IGRAPH_SUCCESS) {
        fprintf(stderr, "attn-graph: %s: cannot write %s: %s\n", cmd, path, cli_igraph_message());
        return -1;
    }
    return 0;
}

int cli_read_graph(igraph_t *ig, const char *path, ag_format_t format, int directed) {
    ag_error_t rc = ag_graph_read(ig, path, format, directed);
    if (ag_graph_read_warning()[0]) fprintf(stderr, "attn-graph: warning: %s\n", ag_graph_read_warning());
    if (rc) return ag_cli_fail(rc);
    return AG_EXIT_OK;
}

int cli_run_model(ag_bundle_t *b, const igraph_t *ig, const ag_fmat_t *table, const char *path, cli_run_t *r) {
    memset(r, 0, sizeof *r);
    const ag_model_config_t *mc = ag_model_config(b->model);
    ag_error_t rc = ag_bundle_featurize(b, ig, table, &r->X, &r->E);
    if (rc == AG_SUCCESS) rc = ag_graph_from_igraph(&r->g, ig);
    if (rc != AG_SUCCESS) {
        fprintf(stderr, "attn-graph: %s: %s\n", path, ag_error_message());
        cli_run_destroy(r);
        return rc == AG_ENOMEM ? AG_EXIT_FAILURE : AG_EXIT_INPUT;
    }
    r->rows = ag_task_is_graph_level(mc->task) ? 1 : r->g.n_nodes;
    r->Y = malloc((size_t)(r->rows > 0 ? r->rows : 1) * (size_t)mc->n_out * sizeof(float));
    if (!r->Y) {
        fprintf(stderr, "attn-graph: out of memory\n");
        cli_run_destroy(r);
        return AG_EXIT_FAILURE;
    }
    ag_batch_init(&r->batch, &r->g, r->X.data, mc->edge_dim > 0 ? r->E.data : NULL);
    r->have_batch = 1;
    rc = ag_predict_batch(b->model, &r->batch, r->Y);
    if (rc != AG_SUCCESS) {
        fprintf(stderr, "attn-graph: %s: %s\n", path, ag_error_message());
        cli_run_destroy(r);
        return rc == AG_ENOMEM ? AG_EXIT_FAILURE : AG_EXIT_INPUT;
    }
    return AG_EXIT_OK;
}

void cli_run_destroy(cli_run_t *r) {
    if (r->have_batch) ag_batch_destroy(&r->batch);
    ag_graph_destroy(&r->g);
    ag_fmat_destroy(&r->X);
    ag_fmat_destroy(&r->E);
    free(r->Y);
    memset(r, 0, sizeof *r);
}

int cli_read_node_table(const char *cmd, const ag_bundle_t *b, const char *model_path, const char *table_path,
                        const char *id_attr, const igraph_t *ig, ag_node_table_t *t, int *have) {
    *have = 0;
    if (b->table.width == 0) {
        if (table_path)
            fprintf(stderr, "attn-graph: warning: %s: %s takes no node table; --node-table ignored\n", cmd, model_path);
        return AG_EXIT_OK;
    }
    if (!table_path) {
        fprintf(stderr, "attn-graph: %s: %s takes a node table of %lld columns: give --node-table FILE\n", cmd,
                model_path, (long long)b->table.width);
        return AG_EXIT_USAGE;
    }
    ag_table_options_t topt;
    ag_table_options_init(&topt);
    if (id_attr) topt.vertex_attr = id_attr;
    size_t n = strlen(table_path);
    if (n > 8 && !strcmp(table_path + n - 8, ".content")) topt.last_is_label = 1; /* LINQS: the class ends each line */
    ag_error_t rc = ag_table_read(t, table_path, ig, &topt);
    if (rc) return ag_cli_fail(rc);
    *have = 1;
    return AG_EXIT_OK;
}

void cli_attr_name(char *buf, size_t cap, const char *prefix, const char *name) {
    size_t k = 0;
    for (const char *p = prefix; *p && k + 1 < cap; p++) buf[k++] = *p;
    for (const unsigned char *p = (const unsigned char *)name; *p && k + 1 < cap; p++) {
        int ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_';
        buf[k++] = ok ? (char)*p : '_';
    }
    buf[k] = '\0';
}

void cli_attr_remove(igraph_t *ig, igraph_attribute_elemtype_t kind, const char *name) {
    if (!igraph_cattribute_has_attr(ig, kind, name)) return;
    if (kind == IGRAPH_ATTRIBUTE_VERTEX) igraph_cattribute_remove_v(ig, name);
    else if (kind == IGRAPH_ATTRIBUTE_EDGE) igraph_cattribute_remove_e(ig, name);
    else igraph_cattribute_remove_g(ig, name);
}
