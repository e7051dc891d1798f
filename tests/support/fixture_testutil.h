/*
 * fixture_testutil.h: reader of tests/golden/attention_fixture.txt, the golden values written by
 * tests/golden/make_attention_fixture.py (format documented there).
 */
#ifndef AG_FIXTURE_TESTUTIL_H
#define AG_FIXTURE_TESTUTIL_H

#include <stdint.h>
#include <attngraph/attention.h>
#include <attngraph/graph.h>

#define AG_FIXTURE_MAX_TENSORS 48

typedef struct ag_fixture_tensor_t {
    char name[32];
    int64_t rows, cols; /* integer arrays: rows = count, cols = 1 */
    double *v;          /* (rows x cols) */
} ag_fixture_tensor_t;

typedef struct ag_fixture_case_t {
    char name[64];
    ag_attention_config_t cfg;
    ag_mask_kind_t mask;
    int hops, self_loops, directed;
    int64_t n_nodes, n_edges;
    int64_t *edges; /* (n_edges x 2) from, to */
    int n_tensors;
    ag_fixture_tensor_t t[AG_FIXTURE_MAX_TENSORS];
} ag_fixture_case_t;

/* Reads every case of the file. Returns 0, or -1 with a message in err (size 256). */
int ag_fixture_load(const char *path, ag_fixture_case_t **cases, int *n_cases, char *err);
void ag_fixture_free(ag_fixture_case_t *cases, int n_cases);
/* The tensor of this name, or NULL. */
const ag_fixture_tensor_t *ag_fixture_get(const ag_fixture_case_t *c, const char *name);
/* Builds the case's graph with ag_test_graph_build(). Returns 0 on success. */
int ag_fixture_graph(const ag_fixture_case_t *c, ag_graph_t *g);

#endif
