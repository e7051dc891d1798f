/* Tests of the options shared by `attn-graph train` and ag_net_train_*: the defaults, each preset,
 * every option that is set, and each bad value with its code and message. */
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <igraph.h>
#include <attngraph/attngraph.h>
#include <attngraph/options.h>

static void test_train_config_defaults(void **state) {
    (void)state;
    ag_net_train_options_t o;
    ag_net_train_options_init(&o);
    ag_train_config_t tc;
    assert_int_equal(ag_net_train_options_train_config(&o, AG_TASK_GRAPH_CLASSIFICATION, &tc), AG_SUCCESS);
    assert_int_equal(tc.optim.kind, AG_OPTIM_ADAM);
    assert_float_equal(tc.optim.lr, 1e-3f, 0);
    assert_float_equal(tc.optim.weight_decay, 0.0f, 0);
    assert_int_equal(tc.lr_schedule, AG_LR_CONSTANT);
    assert_int_equal(tc.epochs, 200);
    assert_int_equal(tc.batch_size, 32);
    assert_int_equal(tc.patience, 30);
    assert_int_equal(tc.warmup_epochs, 0);
    assert_float_equal(tc.clip_norm, 0.0f, 0);
    assert_int_equal(tc.metric, AG_METRIC_AUTO);
    assert_int_equal(tc.seed, 1);
    assert_int_equal(tc.eval_train, 1);
    assert_null(tc.progress);
}

static void test_train_config_gat_and_overrides(void **state) {
    (void)state;
    ag_net_train_options_t o;
    ag_net_train_options_init(&o);
    o.preset = "gat";
    ag_train_config_t tc;
    assert_int_equal(ag_net_train_options_train_config(&o, AG_TASK_NODE_CLASSIFICATION, &tc), AG_SUCCESS);
    assert_float_equal(tc.optim.lr, 0.005f, 0);
    assert_float_equal(tc.optim.weight_decay, 5e-4f, 0);
    assert_int_equal(tc.patience, 100);
    /* the optimizer keeps the preset's lr and weight decay; explicit values win over both */
    o.optimizer = "sgd";
    assert_int_equal(ag_net_train_options_train_config(&o, AG_TASK_NODE_CLASSIFICATION, &tc), AG_SUCCESS);
    assert_int_equal(tc.optim.kind, AG_OPTIM_SGD);
    assert_float_equal(tc.optim.lr, 0.005f, 0);
    assert_float_equal(tc.optim.weight_decay, 5e-4f, 0);
    o.lr = 0.25;
    o.weight_decay = 0;
    o.clip = 2.5;
    o.epochs = 7;
    o.batch_size = 3;
    o.patience = 0;
    o.warmup = 2;
    o.schedule = "cosine";
    o.metric = "macro_f1";
    o.seed = 99;
    o.no_train_metric = 1;
    assert_int_equal(ag_net_train_options_train_config(&o, AG_TASK_NODE_CLASSIFICATION, &tc), AG_SUCCESS);
    assert_float_equal(tc.optim.lr, 0.25f, 0);
    assert_float_equal(tc.optim.weight_decay, 0.0f, 0);
    assert_float_equal(tc.clip_norm, 2.5f, 0);
    assert_int_equal(tc.epochs, 7);
    assert_int_equal(tc.batch_size, 3);
    assert_int_equal(tc.patience, 0);
    assert_int_equal(tc.warmup_epochs, 2);
    assert_int_equal(tc.lr_schedule, AG_LR_COSINE);
    assert_int_equal(tc.metric, AG_METRIC_MACRO_F1);
    assert_int_equal(tc.seed, 99);
    assert_int_equal(tc.eval_train, 0);
    assert_null(tc.stop);
    volatile sig_atomic_t flag = 0;
    o.stop = &flag;
    assert_int_equal(ag_net_train_options_train_config(&o, AG_TASK_NODE_CLASSIFICATION, &tc), AG_SUCCESS);
    assert_ptr_equal(tc.stop, &flag);
}

static void test_model_config_transformer(void **state) {
    (void)state;
    ag_net_train_options_t o;
    ag_net_train_options_init(&o);
    ag_model_config_t mc;
    assert_int_equal(ag_net_train_options_model_config(&o, AG_TASK_GRAPH_REGRESSION, 5, 2, 3, &mc), AG_SUCCESS);
    assert_int_equal(mc.task, AG_TASK_GRAPH_REGRESSION);
    assert_int_equal(mc.in_dim, 5);
    assert_int_equal(mc.edge_dim, 2);
    assert_int_equal(mc.n_out, 3);
    assert_int_equal(mc.hidden, 64);
    assert_int_equal(mc.head_hidden, 64);
    assert_int_equal(mc.n_blocks, 3);
    assert_int_equal(mc.seed, 1);
    for (int l = 0; l < 3; l++) {
        assert_int_equal(mc.blocks[l].attn.heads, 4);
        assert_int_equal(mc.blocks[l].attn.head_dim, 16); /* 64 / 4 */
        assert_int_equal(mc.blocks[l].attn.out_dim, 64);
        assert_int_equal(mc.blocks[l].ffn_hidden, 128);
        assert_int_equal(mc.blocks[l].attn.edge_mode, AG_EDGE_KEY); /* edge features given */
        assert_int_equal(mc.blocks[l].norm, AG_NORMPLACE_PRE);
    }
    /* without edge features no edge mode; every override lands in every block */
    o.layers = 2;
    o.heads = 3;
    o.hidden = 10;
    o.hops = 4;
    o.mask = "khop";
    o.score = "gatv2";
    o.attn_norm = "relu";
    o.norm = "post";
    o.readout = "attention";
    o.dropout = 0.25;
    o.attn_dropout = 0.5;
    o.no_ffn = 1;
    o.no_residual = 1;
    o.seed = 7;
    assert_int_equal(ag_net_train_options_model_config(&o, AG_TASK_GRAPH_CLASSIFICATION, 5, 0, 2, &mc), AG_SUCCESS);
    assert_int_equal(mc.n_blocks, 2);
    assert_int_equal(mc.hidden, 10);
    assert_int_equal(mc.n_readouts, 1);
    assert_int_equal(mc.readouts[0], AG_READOUT_ATTENTION);
    assert_float_equal(mc.head_dropout, 0.25f, 0);
    assert_int_equal(mc.seed, 7);
    for (int l = 0; l < 2; l++) {
        const ag_block_config_t *b = &mc.blocks[l];
        assert_int_equal(b->attn.heads, 3);
        assert_int_equal(b->attn.head_dim, 3); /* 10 / 3 */
        assert_int_equal(b->mask, AG_MASK_KHOP);
        assert_int_equal(b->hops, 4);
        assert_int_equal(b->attn.score, AG_SCORE_GATV2);
        assert_int_equal(b->attn.norm, AG_NORM_RELU);
        assert_int_equal(b->attn.edge_mode, AG_EDGE_NONE);
        assert_int_equal(b->norm, AG_NORMPLACE_POST);
        assert_float_equal(b->dropout, 0.25f, 0);
        assert_float_equal(b->ffn_dropout, 0.25f, 0);
        assert_float_equal(b->attn.attn_dropout, 0.5f, 0);
        assert_int_equal(b->ffn, 0);
        assert_int_equal(b->residual, 0);
    }
    /* the head's hidden width is its own option; 0 gives a linear head */
    assert_int_equal(mc.head_hidden, 10); /* the block width by default */
    o.head_hidden = 0;
    assert_int_equal(ag_net_train_options_model_config(&o, AG_TASK_GRAPH_CLASSIFICATION, 5, 0, 2, &mc), AG_SUCCESS);
    assert_int_equal(mc.head_hidden, 0);
    o.head_hidden = 32;
    assert_int_equal(ag_net_train_options_model_config(&o, AG_TASK_GRAPH_REGRESSION, 5, 0, 2, &mc), AG_SUCCESS);
    assert_int_equal(mc.head_hidden, 32);
    assert_int_equal(mc.hidden, 10);
    o.head_hidden = -1;
    /* more heads than width: a head size of 1 */
    o.heads = 16;
    o.hidden = 8;
    assert_int_equal(ag_net_train_options_model_config(&o, AG_TASK_GRAPH_CLASSIFICATION, 5, 0, 2, &mc), AG_SUCCESS);
    assert_int_equal(mc.blocks[0].attn.head_dim, 1);
}

static void test_model_config_gat(void **state) {
    (void)state;
    ag_net_train_options_t o;
    ag_net_train_options_init(&o);
    o.preset = "gat";
    ag_model_config_t mc;
    assert_int_equal(ag_net_train_options_model_config(&o, AG_TASK_NODE_CLASSIFICATION, 12, 3, 7, &mc), AG_SUCCESS);
    assert_int_equal(mc.n_blocks, 2);
    assert_int_equal(mc.hidden, 0);
    assert_int_equal(mc.blocks[0].attn.heads, 8);
    assert_int_equal(mc.blocks[0].attn.head_dim, 8);
    assert_int_equal(mc.blocks[1].attn.heads, 1);
    assert_int_equal(mc.blocks[1].attn.head_dim, 7);
    assert_int_equal(mc.blocks[0].attn.edge_mode, AG_EDGE_NONE); /* not "key" even with edge features */
    assert_int_equal(mc.edge_dim, 3);
    assert_float_equal(mc.blocks[0].dropout, 0.6f, 0);
    /* layers 1 is raised to 2; 4 layers repeat the first block, heads apply to all but the last */
    o.layers = 1;
    assert_int_equal(ag_net_train_options_model_config(&o, AG_TASK_NODE_CLASSIFICATION, 12, 0, 7, &mc), AG_SUCCESS);
    assert_int_equal(mc.n_blocks, 2);
    o.layers = 4;
    o.heads = 2;
    o.head_dim = 5;
    o.hidden = 9;
    assert_int_equal(ag_net_train_options_model_config(&o, AG_TASK_NODE_CLASSIFICATION, 12, 0, 7, &mc), AG_SUCCESS);
    assert_int_equal(mc.n_blocks, 4);
    assert_int_equal(mc.hidden, 9);
    for (int l = 0; l < 3; l++) {
        assert_int_equal(mc.blocks[l].attn.heads, 2);
        assert_int_equal(mc.blocks[l].attn.head_dim, 5);
    }
    assert_int_equal(mc.blocks[3].attn.heads, 1);
    assert_int_equal(mc.blocks[3].attn.head_dim, 7);
}

/* Prepared node data of 3 vertices: Fa attribute columns, then 1 structural column (degree-like,
 * values up to 5), then Ft feature-matrix columns; every data value is v. */
static void fake_prepared(ag_prepared_t *p, int64_t Fa, int64_t Ft, float v) {
    memset(p, 0, sizeof *p);
    ag_trainset_init(&p->set, AG_TASK_NODE_CLASSIFICATION);
    assert_int_equal(ag_trainset_resize(&p->set, 1, 3, 1), AG_SUCCESS);
    const int64_t F = Fa + 1 + Ft;
    ag_fmat_t *X = &p->set.examples[0].X;
    assert_int_equal(ag_fmat_init(X, 3, F), AG_SUCCESS);
    for (int64_t i = 0; i < 3; i++)
        for (int64_t j = 0; j < F; j++) X->data[i * F + j] = j == Fa ? 5.0f : v;
    p->featurizer.n_attr_features = Fa;
    p->featurizer.n_features = Fa + 1;
    p->table.width = Ft;
}

/* Node classification on p trains the transformer for its raw values. */
static void assert_raw_values(const ag_net_train_options_t *o, const ag_prepared_t *p) {
    ag_preset_reason_t why;
    assert_string_equal(ag_net_train_options_preset(o, AG_TASK_NODE_CLASSIFICATION, p, NULL, 0, &why), "transformer");
    assert_int_equal(why, AG_PRESET_RAW_VALUES);
}

/* Prepared node classification on an undirected graph of n vertices with the given edges (pairs)
 * and classes (NaN: unlabelled), one indicator column from the data (1.0 everywhere). */
static void graph_prepared(ag_prepared_t *p, int64_t n, const igraph_integer_t *pairs, int64_t n_edges,
                           const float *cls, int64_t C) {
    memset(p, 0, sizeof *p);
    ag_trainset_init(&p->set, AG_TASK_NODE_CLASSIFICATION);
    assert_int_equal(ag_trainset_resize(&p->set, 1, n, 1), AG_SUCCESS);
    p->set.n_classes = C;
    for (int64_t v = 0; v < n; v++) p->set.targets[v] = cls[v];
    igraph_t ig;
    igraph_vector_int_t ev;
    igraph_vector_int_view(&ev, pairs, 2 * n_edges);
    assert_int_equal(igraph_create(&ig, &ev, n, IGRAPH_UNDIRECTED), IGRAPH_SUCCESS);
    assert_int_equal(ag_graph_from_igraph(&p->set.examples[0].graph, &ig), AG_SUCCESS);
    igraph_destroy(&ig);
    ag_fmat_t *X = &p->set.examples[0].X;
    assert_int_equal(ag_fmat_init(X, n, 1), AG_SUCCESS);
    for (int64_t v = 0; v < n; v++) X->data[v] = 1.0f;
    p->featurizer.n_attr_features = 1;
    p->featurizer.n_features = 1;
}

/* The adjusted homophily, by hand: (h_edge - sum_k p_k^2) / (1 - sum_k p_k^2) with p_k the share
 * of class k among the edges' ends; only edges between two labelled training vertices count. */
static void test_homophily(void **state) {
    (void)state;
    const int64_t all[4] = {0, 1, 2, 3};
    const float two[4] = {0, 0, 1, 1}, three_one[4] = {0, 0, 0, 1};
    double h;
    int64_t m;
    ag_prepared_t p;
    /* a 4-cycle, two edges within a class and two across: h_edge 1/2, chance 1/2 */
    const igraph_integer_t cycle[] = {0, 1, 1, 2, 2, 3, 3, 0};
    graph_prepared(&p, 4, cycle, 4, two, 2);
    assert_int_equal(ag_prepared_homophily(&p, all, 4, &h, &m), AG_SUCCESS);
    assert_true(fabs(h) < 1e-12);
    assert_int_equal(m, 4);
    ag_prepared_destroy(&p);
    /* within classes only: 1; across only: -1 */
    const igraph_integer_t within[] = {0, 1, 2, 3}, across[] = {0, 2, 1, 3};
    graph_prepared(&p, 4, within, 2, two, 2);
    assert_int_equal(ag_prepared_homophily(&p, all, 4, &h, &m), AG_SUCCESS);
    assert_true(fabs(h - 1.0) < 1e-12);
    ag_prepared_destroy(&p);
    graph_prepared(&p, 4, across, 2, two, 2);
    assert_int_equal(ag_prepared_homophily(&p, all, 4, &h, NULL), AG_SUCCESS);
    assert_true(fabs(h + 1.0) < 1e-12);
    ag_prepared_destroy(&p);
    /* a multi-edge counts once: the 4-cycle with its within-class edge 0-1 three times is the cycle */
    const igraph_integer_t multi[] = {0, 1, 0, 1, 1, 0, 1, 2, 2, 3, 3, 0};
    graph_prepared(&p, 4, multi, 6, two, 2);
    assert_int_equal(ag_prepared_homophily(&p, all, 4, &h, &m), AG_SUCCESS);
    assert_true(fabs(h) < 1e-12);
    assert_int_equal(m, 4);
    ag_prepared_destroy(&p);
    /* a path 0-1-2-3, classes 0 0 0 1: h_edge 2/3, ends 5/6 and 1/6, chance 26/36: -0.2 */
    const igraph_integer_t path[] = {0, 1, 1, 2, 2, 3};
    graph_prepared(&p, 4, path, 3, three_one, 2);
    assert_int_equal(ag_prepared_homophily(&p, all, 4, &h, &m), AG_SUCCESS);
    assert_true(fabs(h + 0.2) < 1e-12);
    assert_int_equal(m, 3);
    /* training vertices 0-2 alone: two edges, both ends of class 0: no contrast, NaN */
    assert_int_equal(ag_prepared_homophily(&p, all, 3, &h, &m), AG_SUCCESS);
    assert_true(isnan(h));
    assert_int_equal(m, 2);
    /* an unlabelled training vertex is no end: vertex 1 unlabelled leaves only 2-3 */
    p.set.targets[1] = NAN;
    assert_int_equal(ag_prepared_homophily(&p, all, 4, &h, &m), AG_SUCCESS);
    assert_int_equal(m, 1);
    assert_true(fabs(h + 1.0) < 1e-12);
    /* no training vertex: no edge */
    assert_int_equal(ag_prepared_homophily(&p, NULL, 0, &h, &m), AG_SUCCESS);
    assert_true(isnan(h));
    assert_int_equal(m, 0);
    /* errors: an index outside the graph, a NULL output, a graph task */
    const int64_t bad[2] = {0, 4};
    assert_int_equal(ag_prepared_homophily(&p, bad, 2, &h, &m), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "training index 4 outside [0, 4)"));
    assert_true(isnan(h));
    assert_int_equal(ag_prepared_homophily(&p, all, 4, NULL, &m), AG_EINVAL);
    assert_int_equal(ag_prepared_homophily(NULL, all, 4, &h, &m), AG_EINVAL);
    p.set.task = AG_TASK_GRAPH_CLASSIFICATION;
    assert_int_equal(ag_prepared_homophily(&p, all, 4, &h, &m), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "not node classification"));
    p.set.task = AG_TASK_NODE_CLASSIFICATION;
    ag_prepared_destroy(&p);
}

/* The default preset reads the training labels' homophily: gat unless at least
 * AG_PRESET_HOMOPHILY_EDGES edges between training vertices join classes no more often than
 * chance (adjusted homophily below AG_PRESET_HOMOPHILY_MIN). */
static void test_preset_homophily(void **state) {
    (void)state;
    enum { N = 120 };
    igraph_integer_t ring[2 * N];
    float alternate[N], halves[N];
    int64_t train[N];
    for (int v = 0; v < N; v++) {
        ring[2 * v] = v;
        ring[2 * v + 1] = (v + 1) % N;
        alternate[v] = (float)(v % 2); /* every edge across */
        halves[v] = v < N / 2 ? 0.0f : 1.0f;  /* two edges across */
        train[v] = v;
    }
    ag_net_train_options_t o;
    ag_net_train_options_init(&o);
    const ag_task_t nc = AG_TASK_NODE_CLASSIFICATION;
    ag_preset_reason_t why;
    ag_prepared_t het, hom;
    graph_prepared(&het, N, ring, N, alternate, 2);
    graph_prepared(&hom, N, ring, N, halves, 2);
    assert_string_equal(ag_net_train_options_preset(&o, nc, &het, train, N, &why), "transformer");
    assert_int_equal(why, AG_PRESET_HETEROPHILY);
    assert_string_equal(ag_net_train_options_preset(&o, nc, &hom, train, N, &why), "gat");
    assert_int_equal(why, AG_PRESET_DATA_FEATURES);
    /* too few edges to judge (the first 50 vertices: 49 edges), or no split given: gat */
    assert_string_equal(ag_net_train_options_preset(&o, nc, &het, train, 50, &why), "gat");
    assert_string_equal(ag_net_train_options_preset(&o, nc, &het, train, 51, &why), "transformer");
    assert_string_equal(ag_net_train_options_preset(&o, nc, &het, NULL, 0, &why), "gat");
    /* a preset given, or an option describing the model, wins */
    o.preset = "gat";
    assert_string_equal(ag_net_train_options_preset(&o, nc, &het, train, N, &why), "gat");
    assert_int_equal(why, AG_PRESET_GIVEN);
    o.preset = NULL;
    o.layers = 2;
    assert_string_equal(ag_net_train_options_preset(&o, nc, &het, train, N, &why), "transformer");
    assert_int_equal(why, AG_PRESET_MODEL_OPTIONS);
    ag_prepared_destroy(&het);
    ag_prepared_destroy(&hom);
}

/* The default preset follows the task and the data: where features come from and their scale;
 * any option that describes the model, or the preset given, keeps what the user asked for. */
static void test_preset_choice(void **state) {
    (void)state;
    ag_net_train_options_t o;
    ag_net_train_options_init(&o);
    const ag_task_t nc = AG_TASK_NODE_CLASSIFICATION;
    ag_prepared_t attrs, table, both, none, raw, raw_table, neg;
    fake_prepared(&attrs, 4, 0, 1.0f);    /* indicators from attributes */
    fake_prepared(&table, 0, 6, 0.25f);   /* a row-normalised table */
    fake_prepared(&both, 2, 3, -1.0f);
    fake_prepared(&none, 0, 0, 0.0f);     /* structure only: the degree column alone */
    fake_prepared(&raw, 2, 0, 42.0f);     /* raw numbers (an age) */
    fake_prepared(&raw_table, 0, 2, 1.5f);
    fake_prepared(&neg, 1, 0, -1.01f);
    ag_preset_reason_t why;
    assert_string_equal(ag_net_train_options_preset(&o, nc, &attrs, NULL, 0, &why), "gat");
    assert_int_equal(why, AG_PRESET_DATA_FEATURES);
    assert_string_equal(ag_net_train_options_preset(&o, nc, &raw, NULL, 0, &why), "transformer");
    assert_int_equal(why, AG_PRESET_RAW_VALUES);
    assert_string_equal(ag_net_train_options_preset(&o, nc, &none, NULL, 0, &why), "transformer");
    assert_int_equal(why, AG_PRESET_STRUCTURE_ONLY);
    assert_string_equal(ag_net_train_options_preset(&o, AG_TASK_GRAPH_REGRESSION, &attrs, NULL, 0, &why), "graph");
    assert_int_equal(why, AG_PRESET_TASK);
    /* a graph task's preset does not read the data, which may not exist yet */
    assert_string_equal(ag_net_train_options_preset(&o, AG_TASK_GRAPH_MULTITASK, NULL, NULL, 0, &why), "graph");
    assert_int_equal(why, AG_PRESET_TASK);
    assert_string_equal(ag_net_train_options_preset(&o, AG_TASK_NODE_REGRESSION, &attrs, NULL, 0, &why), "transformer");
    assert_int_equal(why, AG_PRESET_TASK);
    assert_string_equal(ag_net_train_options_preset(&o, nc, &attrs, NULL, 0, NULL), "gat");
    assert_string_equal(ag_net_train_options_preset(&o, nc, &table, NULL, 0, NULL), "gat");
    assert_string_equal(ag_net_train_options_preset(&o, nc, &both, NULL, 0, NULL), "gat");
    assert_string_equal(ag_net_train_options_preset(&o, nc, &none, NULL, 0, NULL), "transformer");
    assert_string_equal(ag_net_train_options_preset(&o, nc, &raw, NULL, 0, NULL), "transformer");
    assert_string_equal(ag_net_train_options_preset(&o, nc, &raw_table, NULL, 0, NULL), "transformer");
    assert_string_equal(ag_net_train_options_preset(&o, nc, &neg, NULL, 0, NULL), "transformer");
    /* one value out of range is enough; the structural column's 5 never counts */
    attrs.set.examples[0].X.data[2 * 5 + 3] = 1.5f;
    assert_string_equal(ag_net_train_options_preset(&o, nc, &attrs, NULL, 0, NULL), "transformer");
    attrs.set.examples[0].X.data[2 * 5 + 3] = NAN;
    assert_string_equal(ag_net_train_options_preset(&o, nc, &attrs, NULL, 0, NULL), "transformer");
    attrs.set.examples[0].X.data[2 * 5 + 3] = 1.0f;
    assert_string_equal(ag_net_train_options_preset(&o, nc, &attrs, NULL, 0, NULL), "gat");
    /* a column standardised by --normalize auto held raw values, even where its z-scores all lie
     * within [-1, 1] (0 and 2, half each, give -1 and 1): attributes' and node table's alike;
     * columns left alone (mean 0, std 1) do not count, nor the structural column's statistics */
    float mean[6] = {0}, sd[6] = {1, 1, 1, 1, 1, 1};
    ag_featurizer_t *f = &attrs.featurizer;
    ag_table_norm_t *tn = &table.table;
    f->norm = tn->norm = AG_NORM_STANDARDIZE;
    f->mean = tn->mean = mean;
    f->std = tn->std = sd;
    for (int k = 0; k < 3; k++) {
        mean[2] = k == 1 ? 1.0f : 0.0f;
        sd[3] = k == 2 ? 1.5f : 1.0f;
        for (int which = 0; which < 2; which++) {
            const ag_prepared_t *p = which ? &table : &attrs;
            if (k == 0) assert_string_equal(ag_net_train_options_preset(&o, nc, p, NULL, 0, NULL), "gat");
            else assert_raw_values(&o, p);
        }
    }
    sd[3] = 1.0f;
    mean[4] = 7.0f; /* the attributes' structural column; the table's fifth */
    assert_string_equal(ag_net_train_options_preset(&o, nc, &attrs, NULL, 0, NULL), "gat");
    assert_raw_values(&o, &table);
    f->mean = f->std = tn->mean = tn->std = NULL;
    f->norm = tn->norm = AG_NORM_NONE;
    /* other tasks: the transformer for node regression, the graph preset for graph tasks */
    assert_string_equal(ag_net_train_options_preset(&o, AG_TASK_NODE_REGRESSION, &attrs, NULL, 0, NULL), "transformer");
    assert_string_equal(ag_net_train_options_preset(&o, AG_TASK_GRAPH_CLASSIFICATION, &attrs, NULL, 0, NULL), "graph");
    assert_string_equal(ag_net_train_options_preset(&o, AG_TASK_GRAPH_MULTITASK, &attrs, NULL, 0, NULL), "graph");
    /* each option that describes the model keeps the transformer */
    ag_net_train_options_t d[15];
    for (int i = 0; i < 15; i++) ag_net_train_options_init(&d[i]);
    d[0].layers = 2;
    d[1].heads = 2;
    d[2].head_dim = 4;
    d[3].hidden = 32;
    d[4].hops = 2;
    d[5].mask = "full";
    d[6].score = "gat";
    d[7].attn_norm = "relu";
    d[8].readout = "mean";
    d[9].edge_mode = "none";
    d[10].norm = "post";
    d[11].no_ffn = 1;
    d[12].no_residual = 1;
    d[13].virtual_node = 1;
    d[14].head_hidden = 0;
    for (int i = 0; i < 15; i++) {
        assert_string_equal(ag_net_train_options_preset(&d[i], nc, &attrs, NULL, 0, &why), "transformer");
        assert_int_equal(why, AG_PRESET_MODEL_OPTIONS);
    }
    /* training options do not: the preset's defaults apply under them */
    o.dropout = 0.5;
    o.lr = 0.01;
    o.epochs = 10;
    assert_string_equal(ag_net_train_options_preset(&o, nc, &attrs, NULL, 0, NULL), "gat");
    /* a preset given is returned as given, valid or not (model_config checks it) */
    o.preset = "transformer";
    assert_string_equal(ag_net_train_options_preset(&o, nc, &attrs, NULL, 0, &why), "transformer");
    assert_int_equal(why, AG_PRESET_GIVEN);
    o.preset = "gat";
    assert_string_equal(ag_net_train_options_preset(&o, AG_TASK_GRAPH_REGRESSION, &raw, NULL, 0, NULL), "gat");
    o.preset = "nonsense";
    assert_string_equal(ag_net_train_options_preset(&o, nc, &attrs, NULL, 0, NULL), "nonsense");
    ag_prepared_t *all[] = {&attrs, &table, &both, &none, &raw, &raw_table, &neg};
    for (int i = 0; i < 7; i++) ag_trainset_destroy(&all[i]->set);
}

/* Edge features are read by the transformer (edge mode key by default) and by any model given an
 * edge mode other than none; the gat preset has no edge term. */
static void test_uses_edges(void **state) {
    (void)state;
    ag_net_train_options_t o;
    ag_net_train_options_init(&o);
    const ag_task_t nc = AG_TASK_NODE_CLASSIFICATION;
    assert_int_equal(ag_net_train_options_uses_edges(&o, nc), 1);
    assert_int_equal(ag_net_train_options_uses_edges(&o, AG_TASK_GRAPH_REGRESSION), 1);
    o.edge_mode = "none";
    assert_int_equal(ag_net_train_options_uses_edges(&o, nc), 0);
    assert_int_equal(ag_net_train_options_uses_edges(&o, AG_TASK_GRAPH_REGRESSION), 0);
    o.edge_mode = "bias";
    assert_int_equal(ag_net_train_options_uses_edges(&o, nc), 1);
    o.preset = "gat";
    assert_int_equal(ag_net_train_options_uses_edges(&o, nc), 1);
    o.edge_mode = NULL;
    assert_int_equal(ag_net_train_options_uses_edges(&o, nc), 0);
    /* invalid options: kept (model_config reports them) */
    o.mask = "nonsense";
    assert_int_equal(ag_net_train_options_uses_edges(&o, nc), 1);
}

/* The message is "option NAME: REASON" with NAME and REASON what the library says it refused (a
 * metric's message is its reason whole). */
static void expect_refused_parts(const char *message) {
    const char *name = ag_net_train_options_refused(), *reason = ag_net_train_options_refused_reason();
    assert_non_null(name);
    char want[1200];
    if (!strcmp(name, "metric")) snprintf(want, sizeof want, "%s", reason);
    else snprintf(want, sizeof want, "option %s: %s", name, reason);
    assert_string_equal(want, message);
}

static void expect_train_error(ag_net_train_options_t *o, const char *message) {
    ag_train_config_t tc;
    assert_int_equal(ag_net_train_options_train_config(o, AG_TASK_GRAPH_CLASSIFICATION, &tc), AG_EINVAL);
    assert_string_equal(ag_error_message(), message);
    expect_refused_parts(message);
}

static void expect_model_error(ag_net_train_options_t *o, ag_task_t task, const char *message) {
    ag_model_config_t mc;
    assert_int_equal(ag_net_train_options_model_config(o, task, 4, 0, 2, &mc), AG_EINVAL);
    assert_string_equal(ag_error_message(), message);
    expect_refused_parts(message);
}

/* The option a configuration call refused, by its field's name, and why; none after a success;
 * ag_net_train_options_uses_edges, which configures a model too, leaves the answer as it was. */
static void test_refused_option(void **state) {
    (void)state;
    ag_net_train_options_t o;
    ag_net_train_options_init(&o);
    ag_train_config_t tc;
    ag_model_config_t mc;
    assert_null(ag_net_train_options_refused());
    assert_string_equal(ag_net_train_options_refused_reason(), "");
    o.attn_norm = "foo";
    assert_int_equal(ag_net_train_options_model_config(&o, AG_TASK_GRAPH_CLASSIFICATION, 4, 0, 2, &mc), AG_EINVAL);
    assert_string_equal(ag_net_train_options_refused(), "attn_norm");
    assert_string_equal(ag_net_train_options_refused_reason(), "unknown value 'foo' (expected softmax or relu)");
    o.attn_norm = NULL;
    o.mask = "nonsense";
    assert_int_equal(ag_net_train_options_uses_edges(&o, AG_TASK_NODE_CLASSIFICATION), 1);
    assert_string_equal(ag_net_train_options_refused(), "attn_norm");
    o.mask = NULL;
    o.metric = "bogus";
    assert_int_equal(ag_net_train_options_train_config(&o, AG_TASK_GRAPH_CLASSIFICATION, &tc), AG_EINVAL);
    assert_string_equal(ag_net_train_options_refused(), "metric");
    assert_string_equal(ag_net_train_options_refused_reason(), ag_error_message());
    o.metric = NULL;
    o.heads = 0;
    assert_int_equal(ag_net_train_options_train_config(&o, AG_TASK_GRAPH_CLASSIFICATION, &tc), AG_EINVAL);
    assert_string_equal(ag_net_train_options_refused(), "heads");
    assert_string_equal(ag_net_train_options_refused_reason(), "-1 (the default) or an integer in [1, 4096], not 0");
    o.heads = -1;
    assert_int_equal(ag_net_train_options_train_config(&o, AG_TASK_GRAPH_CLASSIFICATION, &tc), AG_SUCCESS);
    assert_null(ag_net_train_options_refused());
    assert_string_equal(ag_net_train_options_refused_reason(), "");
}

/* A list of masks gives one per block, repeated when shorter than the blocks: local and global
 * blocks can alternate. Entries are checked one by one, and a list longer than the blocks is
 * refused (its tail would be ignored). */
static void test_mask_list(void **state) {
    (void)state;
    ag_net_train_options_t o;
    ag_net_train_options_init(&o);
    ag_model_config_t mc;
    o.layers = 5;
    o.mask = "neighbours,full";
    assert_int_equal(ag_net_train_options_model_config(&o, AG_TASK_GRAPH_REGRESSION, 5, 0, 1, &mc), AG_SUCCESS);
    const ag_mask_kind_t alternating[5] = {AG_MASK_NEIGHBOURS, AG_MASK_FULL, AG_MASK_NEIGHBOURS, AG_MASK_FULL,
                                           AG_MASK_NEIGHBOURS};
    for (int l = 0; l < 5; l++) assert_int_equal(mc.blocks[l].mask, alternating[l]);
    o.layers = 3;
    o.hops = 3;
    o.mask = "full,khop,neighbours";
    assert_int_equal(ag_net_train_options_model_config(&o, AG_TASK_NODE_CLASSIFICATION, 5, 0, 2, &mc), AG_SUCCESS);
    assert_int_equal(mc.blocks[0].mask, AG_MASK_FULL);
    assert_int_equal(mc.blocks[1].mask, AG_MASK_KHOP);
    assert_int_equal(mc.blocks[1].hops, 3);
    assert_int_equal(mc.blocks[2].mask, AG_MASK_NEIGHBOURS);
    o.mask = "full,khop,neighbours,full";
    expect_model_error(&o, AG_TASK_NODE_CLASSIFICATION,
                       "option mask: 4 masks in 'full,khop,neighbours,full' for 3 blocks (one per block, repeated "
                       "when fewer)");
    o.mask = "full,,neighbours";
    expect_model_error(&o, AG_TASK_NODE_CLASSIFICATION,
                       "option mask: entry 2 of 'full,,neighbours' is '', not neighbours, khop or full");
    o.mask = "full,neighbours-of-neighbours";
    expect_model_error(&o, AG_TASK_NODE_CLASSIFICATION,
                       "option mask: entry 2 of 'full,neighbours-of-neighbours' is not neighbours, khop or full");
    o.mask = "neighbours-of-neighbours";
    expect_model_error(&o, AG_TASK_NODE_CLASSIFICATION,
                       "option mask: unknown value 'neighbours-of-neighbours' (expected neighbours, khop or full)");
}

static void test_bad_values(void **state) {
    (void)state;
    ag_net_train_options_t o;
    ag_net_train_options_init(&o);
    o.optimizer = "rmsprop";
    expect_train_error(&o, "option optimizer: unknown value 'rmsprop' (expected sgd, adam or adamw)");
    ag_net_train_options_init(&o);
    o.schedule = "linear";
    expect_train_error(&o, "option schedule: unknown value 'linear' (expected constant, step or cosine)");
    ag_net_train_options_init(&o);
    o.metric = "f1";
    expect_train_error(&o, "unknown metric 'f1' (expected auto, loss, accuracy, macro_f1, roc_auc, rmse or mae)");

    struct {
        const char **field;
        const char *value, *message;
    } bad[] = {
        {&o.preset, "gcn", "option preset: unknown value 'gcn' (expected transformer, gat or graph)"},
        {&o.mask, "all", "option mask: unknown value 'all' (expected neighbours, khop or full)"},
        {&o.score, "add", "option score: unknown value 'add' (expected dot, gat or gatv2)"},
        {&o.attn_norm, "none", "option attn_norm: unknown value 'none' (expected softmax or relu)"},
        {&o.edge_mode, "value", "option edge_mode: unknown value 'value' (expected none, key or bias)"},
        {&o.norm, "layer", "option norm: unknown value 'layer' (expected none, pre or post)"},
        {&o.readout, "min", "option readout: unknown value 'min' (expected mean, sum, max, attention or vnode, or several of them joined by commas, each once)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ag_net_train_options_init(&o);
        *bad[i].field = bad[i].value;
        expect_model_error(&o, AG_TASK_GRAPH_CLASSIFICATION, bad[i].message);
    }
    ag_net_train_options_init(&o);
    o.layers = AG_MODEL_MAX_BLOCKS + 1;
    expect_model_error(&o, AG_TASK_NODE_CLASSIFICATION, "option layers: -1 (the default) or an integer in [1, 16], "
                                                        "not 17");
    /* below the range too, as the CLI refuses --heads 0, rather than becoming the default */
    ag_net_train_options_init(&o);
    o.heads = 0;
    expect_model_error(&o, AG_TASK_NODE_CLASSIFICATION, "option heads: -1 (the default) or an integer in [1, 4096], "
                                                        "not 0");
    ag_net_train_options_init(&o);
    o.epochs = -5;
    expect_train_error(&o, "option epochs: -1 (the default) or an integer in [1, 100000000], not -5");
    /* a count the OpenMP runtime cannot start crashed inside it; now refused by name */
    ag_net_train_options_init(&o);
    o.threads = 99999;
    expect_train_error(&o, "option threads: 0 (the default: the thread count left as it is) or an integer in "
                           "[1, 4096], not 99999");
    ag_net_train_options_init(&o);
    o.threads = -1;
    expect_train_error(&o, "option threads: 0 (the default: the thread count left as it is) or an integer in "
                           "[1, 4096], not -1");
    ag_net_train_options_init(&o);
    o.lr = -0.5;
    expect_train_error(&o, "option lr: -1 (the default) or a number in [1e-12, 100], not -0.5");
    ag_net_train_options_init(&o);
    o.dropout = 1.5;
    expect_model_error(&o, AG_TASK_GRAPH_CLASSIFICATION, "option dropout: -1 (the default) or a number in [0, 0.99], "
                                                         "not 1.5");
    ag_net_train_options_init(&o);
    o.rw_pe = 0; /* 0 is a value: none */
    ag_model_config_t mc;
    assert_int_equal(ag_net_train_options_model_config(&o, AG_TASK_GRAPH_CLASSIFICATION, 4, 0, 2, &mc), AG_SUCCESS);
    ag_net_train_options_init(&o);
    o.head_hidden = 8;
    expect_model_error(&o, AG_TASK_NODE_CLASSIFICATION,
                       "option head_hidden: node tasks have a linear head on each node; the option is for graph "
                       "tasks");
    ag_net_train_options_init(&o);
    o.readout = "mean";
    expect_model_error(&o, AG_TASK_NODE_REGRESSION,
                       "option readout: node tasks read each node's own output; the option pools the nodes of a "
                       "graph, for graph tasks");
    ag_net_train_options_init(&o);
    o.preset = "gat";
    expect_model_error(&o, AG_TASK_GRAPH_CLASSIFICATION,
                       "option preset: 'gat' is the node-classification model of the GAT paper; use score 'gat' "
                       "for graph tasks");
}

/* A path of n vertices with a numeric vertex attribute "x" (the featuriser needs a column). */
static void path_graph(igraph_t *g, igraph_integer_t n) {
    assert_int_equal(igraph_ring(g, n, IGRAPH_UNDIRECTED, 0, 0), IGRAPH_SUCCESS);
    for (igraph_integer_t v = 0; v < n; v++)
        assert_int_equal(SETVAN(g, "x", v, (igraph_real_t)v), IGRAPH_SUCCESS);
}

/* The graph preset: the transformer with the molecule sets' choices, each option still applying. */
static void test_graph_preset(void **state) {
    (void)state;
    ag_net_train_options_t o;
    ag_net_train_options_init(&o);
    o.preset = "graph";
    ag_model_config_t mc;
    assert_int_equal(ag_net_train_options_model_config(&o, AG_TASK_GRAPH_REGRESSION, 5, 2, 1, &mc), AG_SUCCESS);
    assert_int_equal(mc.n_blocks, 4);
    assert_int_equal(mc.hidden, 64);
    for (int l = 0; l < 4; l++) {
        assert_int_equal(mc.blocks[l].attn.heads, 8);
        assert_int_equal(mc.blocks[l].attn.head_dim, 8); /* 64 / 8 */
        assert_int_equal(mc.blocks[l].attn.score, AG_SCORE_GATV2);
        assert_int_equal(mc.blocks[l].attn.edge_mode, AG_EDGE_BIAS);
        assert_int_equal(mc.blocks[l].ffn_hidden, 128);
    }
    assert_int_equal(mc.n_readouts, 1);
    assert_int_equal(mc.readouts[0], AG_READOUT_VNODE);
    assert_int_equal(mc.virtual_node, 1);
    /* no edge features: no edge term; options given win */
    o.layers = 2;
    o.heads = 4;
    o.score = "dot";
    o.readout = "mean";
    o.edge_mode = "key";
    assert_int_equal(ag_net_train_options_model_config(&o, AG_TASK_GRAPH_CLASSIFICATION, 5, 0, 2, &mc), AG_SUCCESS);
    assert_int_equal(mc.n_blocks, 2);
    assert_int_equal(mc.blocks[1].attn.heads, 4);
    assert_int_equal(mc.blocks[1].attn.score, AG_SCORE_DOT);
    assert_int_equal(mc.blocks[1].attn.edge_mode, AG_EDGE_KEY);
    assert_int_equal(mc.readouts[0], AG_READOUT_MEAN);
    assert_int_equal(mc.virtual_node, 0);
    o.edge_mode = NULL;
    assert_int_equal(ag_net_train_options_model_config(&o, AG_TASK_GRAPH_CLASSIFICATION, 5, 0, 2, &mc), AG_SUCCESS);
    assert_int_equal(mc.blocks[0].attn.edge_mode, AG_EDGE_NONE);
    assert_int_equal(ag_net_train_options_uses_edges(&o, AG_TASK_GRAPH_CLASSIFICATION), 1); /* bias */
    /* training: a cosine schedule, clipping, the usual early stop; options given win */
    ag_train_config_t tc;
    assert_int_equal(ag_net_train_options_train_config(&o, AG_TASK_GRAPH_REGRESSION, &tc), AG_SUCCESS);
    assert_int_equal(tc.lr_schedule, AG_LR_COSINE);
    assert_int_equal(tc.patience, 30);
    assert_float_equal(tc.clip_norm, 1.0, 0.0);
    assert_int_equal(tc.epochs, 200);
    o.schedule = "constant";
    o.patience = 0;
    o.clip = 0;
    assert_int_equal(ag_net_train_options_train_config(&o, AG_TASK_GRAPH_REGRESSION, &tc), AG_SUCCESS);
    assert_int_equal(tc.lr_schedule, AG_LR_CONSTANT);
    assert_int_equal(tc.patience, 0);
    assert_float_equal(tc.clip_norm, 0.0, 0.0);
    /* featurisation: standardised, 8 random-walk columns, unless given; nothing for other presets
     * or node tasks */
    ag_featurizer_config_t fc;
    ag_featurizer_config_init(&fc);
    ag_net_train_options_feature_defaults(&o, AG_TASK_GRAPH_REGRESSION, "graph", &fc);
    assert_int_equal(fc.norm, AG_NORM_STANDARDIZE);
    assert_int_equal(fc.rw_pe_k, 8);
    ag_featurizer_config_init(&fc);
    o.normalize = "none";
    o.rw_pe = 0;
    ag_net_train_options_feature_defaults(&o, AG_TASK_GRAPH_REGRESSION, "graph", &fc);
    assert_int_equal(fc.norm, AG_NORM_NONE);
    assert_int_equal(fc.rw_pe_k, 0);
    ag_net_train_options_init(&o);
    ag_net_train_options_feature_defaults(&o, AG_TASK_GRAPH_REGRESSION, "transformer", &fc);
    ag_net_train_options_feature_defaults(&o, AG_TASK_GRAPH_REGRESSION, NULL, &fc);
    assert_int_equal(fc.norm, AG_NORM_NONE);
    assert_int_equal(fc.rw_pe_k, 0);
    /* node tasks standardise their raw columns whatever the preset, and add no random walks */
    const ag_task_t node_tasks[2] = {AG_TASK_NODE_CLASSIFICATION, AG_TASK_NODE_REGRESSION};
    const char *presets[3] = {"graph", "gat", NULL};
    for (int k = 0; k < 6; k++) {
        ag_featurizer_config_init(&fc);
        ag_net_train_options_feature_defaults(&o, node_tasks[k % 2], presets[k / 2], &fc);
        assert_int_equal(fc.norm, AG_NORM_STANDARDIZE_RAW);
        assert_int_equal(fc.rw_pe_k, 0);
    }
    /* a normalisation given is kept */
    o.normalize = "l1";
    fc.norm = AG_NORM_L1_ROWS;
    ag_net_train_options_feature_defaults(&o, AG_TASK_NODE_CLASSIFICATION, NULL, &fc);
    assert_int_equal(fc.norm, AG_NORM_L1_ROWS);
    o.normalize = NULL;
    /* node tasks refuse it */
    o.preset = "graph";
    expect_model_error(&o, AG_TASK_NODE_CLASSIFICATION,
                       "option preset: 'graph' is the model of graph tasks (a graph token as readout); node "
                       "tasks take transformer or gat");
}

/* The flipped columns are the featuriser's Laplacian columns, for graph tasks only, unless
 * no_sign_flip; whatever tc held before. */
static void test_sign_flip(void **state) {
    (void)state;
    igraph_set_attribute_table(&igraph_cattribute_table);
    igraph_t g;
    path_graph(&g, 6);
    const igraph_t *gs[] = {&g};
    ag_featurizer_config_t fc;
    ag_featurizer_config_init(&fc);
    fc.degree = 1;
    fc.lap_pe_k = 2;
    fc.rw_pe_k = 3;
    ag_featurizer_t with, without;
    assert_int_equal(ag_featurizer_fit(&with, &fc, gs, 1), AG_SUCCESS);
    fc.lap_pe_k = 0;
    assert_int_equal(ag_featurizer_fit(&without, &fc, gs, 1), AG_SUCCESS);
    ag_net_train_options_t o;
    ag_net_train_options_init(&o);
    ag_train_config_t tc;
    const ag_task_t graph_tasks[] = {AG_TASK_GRAPH_CLASSIFICATION, AG_TASK_GRAPH_MULTITASK, AG_TASK_GRAPH_REGRESSION};
    for (int i = 0; i < 3; i++) {
        tc.flip_col0 = tc.flip_cols = 99;
        ag_net_train_options_sign_flip(&o, graph_tasks[i], &with, &tc);
        assert_int_equal(tc.flip_col0, 2); /* after x and the degree */
        assert_int_equal(tc.flip_cols, 2);
        tc.flip_col0 = tc.flip_cols = 99;
        ag_net_train_options_sign_flip(&o, graph_tasks[i], &without, &tc);
        assert_int_equal(tc.flip_cols, 0);
    }
    const ag_task_t node_tasks[] = {AG_TASK_NODE_CLASSIFICATION, AG_TASK_NODE_REGRESSION};
    for (int i = 0; i < 2; i++) {
        tc.flip_col0 = tc.flip_cols = 99;
        ag_net_train_options_sign_flip(&o, node_tasks[i], &with, &tc);
        assert_int_equal(tc.flip_col0, 0);
        assert_int_equal(tc.flip_cols, 0);
    }
    o.no_sign_flip = 1;
    tc.flip_col0 = tc.flip_cols = 99;
    ag_net_train_options_sign_flip(&o, AG_TASK_GRAPH_REGRESSION, &with, &tc);
    assert_int_equal(tc.flip_cols, 0);
    ag_featurizer_destroy(&with);
    ag_featurizer_destroy(&without);
    igraph_destroy(&g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_train_config_defaults),
        cmocka_unit_test(test_refused_option),
        cmocka_unit_test(test_train_config_gat_and_overrides),
        cmocka_unit_test(test_model_config_transformer),
        cmocka_unit_test(test_model_config_gat),
        cmocka_unit_test(test_preset_choice),
        cmocka_unit_test(test_homophily),
        cmocka_unit_test(test_preset_homophily),
        cmocka_unit_test(test_uses_edges),
        cmocka_unit_test(test_graph_preset),
        cmocka_unit_test(test_mask_list),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_sign_flip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
