/*
 * fixture_testutil.c: the golden fixture reader (see fixture_testutil.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fixture_testutil.h"
#include "graphs_testutil.h"

void ag_fixture_free(ag_fixture_case_t *cases, int n_cases) {
    for (int c = 0; c < n_cases; c++) {
        free(cases[c].edges);
        for (int k = 0; k < cases[c].n_tensors; k++) free(cases[c].t[k].v);
    }
    free(cases);
}

const ag_fixture_tensor_t *ag_fixture_get(const ag_fixture_case_t *c, const char *name) {
    for (int k = 0; k < c->n_tensors; k++)
        if (!strcmp(c->t[k].name, name)) return &c->t[k];
    return NULL;
}

static int set_cfg(ag_fixture_case_t *c, const char *key, double v) {
    ag_attention_config_t *g = &c->cfg;
    if (!strcmp(key, "in_dim")) g->in_dim = (int64_t)v;
    else if (!strcmp(key, "heads")) g->heads = (int64_t)v;
    else if (!strcmp(key, "head_dim")) g->head_dim = (int64_t)v;
    else if (!strcmp(key, "out_dim")) g->out_dim = (int64_t)v;
    else if (!strcmp(key, "out_proj")) g->out_proj = (int)v;
    else if (!strcmp(key, "bias")) g->bias = (int)v;
    else if (!strcmp(key, "edge_dim")) g->edge_dim = (int64_t)v;
    else if (!strcmp(key, "score")) g->score = (ag_score_t)v;
    else if (!strcmp(key, "norm")) g->norm = (ag_norm_t)v;
    else if (!strcmp(key, "combine")) g->combine = (ag_heads_t)v;
    else if (!strcmp(key, "edge_mode")) g->edge_mode = (ag_edge_mode_t)v;
    else if (!strcmp(key, "slope")) g->negative_slope = (float)v;
    else if (!strcmp(key, "mask")) c->mask = (ag_mask_kind_t)v;
    else if (!strcmp(key, "hops")) c->hops = (int)v;
    else if (!strcmp(key, "self_loops")) c->self_loops = (int)v;
    else return -1;
    return 0;
}

int ag_fixture_load(const char *path, ag_fixture_case_t **cases, int *n_cases, char *err) {
    FILE *f = fopen(path, "r");
    *cases = NULL;
    *n_cases = 0;
    if (!f) {
        snprintf(err, 256, "%s: cannot open", path);
        return -1;
    }
    char word[64], key[64];
    ag_fixture_case_t *cur = NULL;
    int rc = -1;
    while (fscanf(f, "%63s", word) == 1) {
        if (word[0] == '#') {
            int ch;
            while ((ch = fgetc(f)) != EOF && ch != '\n') {}
        } else if (!strcmp(word, "case")) {
            ag_fixture_case_t *more = realloc(*cases, sizeof *more * (size_t)(*n_cases + 1));
            if (!more) goto done;
            *cases = more;
            cur = &more[(*n_cases)++];
            memset(cur, 0, sizeof *cur);
            if (fscanf(f, "%63s", cur->name) != 1) goto bad;
        } else if (!cur) {
            goto bad;
        } else if (!strcmp(word, "cfg")) {
            double v;
            if (fscanf(f, "%63s %lf", key, &v) != 2 || set_cfg(cur, key, v)) goto bad;
        } else if (!strcmp(word, "graph")) {
            long long n, e;
            if (fscanf(f, "%d %lld %lld", &cur->directed, &n, &e) != 3) goto bad;
            cur->n_nodes = n;
            cur->n_edges = e;
            cur->edges = calloc((size_t)(2 * e + 1), sizeof *cur->edges);
            if (!cur->edges) goto done;
            for (long long k = 0; k < 2 * e; k++) {
                long long x;
                if (fscanf(f, "%lld", &x) != 1) goto bad;
                cur->edges[k] = x;
            }
        } else if (!strcmp(word, "f") || !strcmp(word, "i")) {
            if (cur->n_tensors == AG_FIXTURE_MAX_TENSORS) goto bad;
            ag_fixture_tensor_t *t = &cur->t[cur->n_tensors++];
            long long r, c = 1;
            if (fscanf(f, "%31s %lld", t->name, &r) != 2) goto bad;
            if (word[0] == 'f' && fscanf(f, "%lld", &c) != 1) goto bad;
            t->rows = r;
            t->cols = c;
            t->v = calloc((size_t)(r * c + 1), sizeof *t->v);
            if (!t->v) goto done;
            for (long long k = 0; k < r * c; k++)
                if (fscanf(f, "%lf", &t->v[k]) != 1) goto bad;
        } else if (!strcmp(word, "end")) {
            cur = NULL;
        } else {
            goto bad;
        }
    }
    rc = 0;
    goto done;
bad:
    snprintf(err, 256, "%s: malformed near '%s' (case %d)", path, word, *n_cases);
done:
    fclose(f);
    if (rc) {
        ag_fixture_free(*cases, *n_cases);
        *cases = NULL;
        *n_cases = 0;
    }
    return rc;
}

int ag_fixture_graph(const ag_fixture_case_t *c, ag_graph_t *g) {
    const int64_t *lists[1] = {c->edges};
    return ag_test_graph_build(g, c->directed, 1, &c->n_nodes, &c->n_edges, lists);
}
