/*
 * train_model.c: train a small molecule classifier from C and save it.
 * usage: train_model OUT.safetensors
 * Molecules are built in code: label 1 if the molecule contains nitrogen.
 */
#include <stdio.h>
#include <string.h>
#include <attngraph/attngraph.h>

/* A chain of atoms ("CCNC"), closed into a ring if ring is set. */
static void make_molecule(igraph_t *g, const char *atoms, int ring) {
    int n = (int)strlen(atoms);
    igraph_vector_int_t edges;
    igraph_vector_int_init(&edges, 0);
    for (int i = 0; i + 1 < n; i++) {
        igraph_vector_int_push_back(&edges, i);
        igraph_vector_int_push_back(&edges, i + 1);
    }
    if (ring && n > 2) {
        igraph_vector_int_push_back(&edges, n - 1);
        igraph_vector_int_push_back(&edges, 0);
    }
    igraph_create(g, &edges, n, IGRAPH_UNDIRECTED);
    igraph_vector_int_destroy(&edges);
    for (int i = 0; i < n; i++) {
        char element[2] = {atoms[i], 0};
        SETVAS(g, "element", i, element);
        SETVAN(g, "charge", i, 0);
    }
    for (igraph_integer_t e = 0; e < igraph_ecount(g); e++) SETEAN(g, "bond", e, 1.0);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUT.safetensors\n", argv[0]);
        return 2;
    }
    igraph_set_attribute_table(&igraph_cattribute_table);
    static const char *const atoms[] = {"CCO", "CCN", "CCCO", "CNCC", "OCCO", "NCCN", "CCCCO", "CCNCC",
                                        "COCCC", "CCCNC", "CCOCO", "NCCCC", "OCO", "NCN", "CCCCCO", "CCCCN"};
    enum { G = 16 };
    igraph_t mols[G];
    igraph_matrix_t y; /* (G x 1) class of each molecule */
    igraph_matrix_init(&y, G, 1);
    for (int g = 0; g < G; g++) {
        make_molecule(&mols[g], atoms[g], g % 3 == 0);
        MATRIX(y, g, 0) = strchr(atoms[g], 'N') ? 1 : 0;
    }
    igraph_vector_int_t train, val;
    igraph_vector_int_init_range(&train, 0, 12);
    igraph_vector_int_init_range(&val, 12, G);

    ag_net_train_options_t opts; /* the options of `attn-graph train` */
    ag_net_train_options_init(&opts);
    opts.hidden = 16;
    opts.heads = 2;
    opts.layers = 2;
    opts.epochs = 60;
    opts.batch_size = 4;
    opts.lr = 0.01;
    opts.seed = 3;
    ag_net_t *net = NULL;
    ag_train_result_t res;
    ag_scores_t scores;
    int status = 1;
    if (ag_net_train_graphs(&net, mols, G, &y, &train, &val, &opts, &res) != AG_SUCCESS ||
        ag_net_evaluate_graphs(net, mols, G, &y, NULL, &scores) != AG_SUCCESS ||
        ag_net_save(net, argv[1]) != AG_SUCCESS) {
        fprintf(stderr, "error: %s\n", ag_error_message());
    } else {
        printf("trained %s: %lld epochs, best epoch %lld\n", ag_task_name(ag_net_task(net)),
               (long long)res.epochs_run, (long long)res.best_epoch);
        printf("accuracy on all %lld molecules: %.3f\n", (long long)scores.n, scores.accuracy);
        printf("saved %s\n", argv[1]);
        status = 0;
    }
    ag_net_destroy(net);
    igraph_vector_int_destroy(&train);
    igraph_vector_int_destroy(&val);
    igraph_matrix_destroy(&y);
    for (int g = 0; g < G; g++) igraph_destroy(&mols[g]);
    return status;
}
