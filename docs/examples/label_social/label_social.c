/*
 * label_social.c: label the nodes of a social graph read from GML and write the labels back as a
 * vertex attribute. Trains a tiny node classifier on two labelled members (vertex 0 and vertex 33
 * of the karate club, the two leaders), predicts everyone, and writes OUT.gml with "predicted".
 * usage: label_social karate.gml OUT.gml [MODEL.safetensors]   (the model is saved if named)
 */
#include <stdio.h>
#include <attngraph/attngraph.h>

int main(int argc, char **argv) {
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: %s IN.gml OUT.gml [MODEL.safetensors]\n", argv[0]);
        return 2;
    }
    igraph_set_attribute_table(&igraph_cattribute_table);
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        perror(argv[1]);
        return 1;
    }
    igraph_t g;
    igraph_error_t irc = igraph_read_graph_gml(&g, in);
    fclose(in);
    if (irc != IGRAPH_SUCCESS) return 1;
    igraph_integer_t N = igraph_vcount(&g);

    igraph_vector_int_t labels; /* (N) -1 = unknown */
    igraph_vector_int_init(&labels, N);
    igraph_vector_int_fill(&labels, -1);
    VECTOR(labels)[0] = 0;
    VECTOR(labels)[N - 1] = 1;

    ag_net_train_options_t opts;
    ag_net_train_options_init(&opts);
    opts.vertex_attrs = "none"; /* structure only: the club attributes would give the answer */
    opts.lap_pe = 2; /* the Fiedler-like eigenvectors: where a member sits between the two leaders */
    opts.hidden = 16;
    opts.heads = 2;
    opts.layers = 2;
    opts.epochs = 50;
    opts.lr = 0.01;
    ag_net_t *net = NULL;
    igraph_vector_int_t pred;
    igraph_vector_int_init(&pred, 0);
    int status = 1;
    if (ag_net_train_nodes(&net, &g, NULL, &labels, NULL, NULL, &opts, NULL) != AG_SUCCESS ||
        ag_net_predict_nodes(net, &g, NULL, &pred, NULL) != AG_SUCCESS ||
        (argc == 4 && ag_net_save(net, argv[3]) != AG_SUCCESS)) {
        fprintf(stderr, "error: %s\n", ag_error_message());
        goto done;
    }
    igraph_integer_t count[2] = {0, 0};
    for (igraph_integer_t v = 0; v < N; v++) {
        SETVAN(&g, "predicted", v, (double)VECTOR(pred)[v]);
        count[VECTOR(pred)[v]]++;
    }
    FILE *out = fopen(argv[2], "w");
    if (!out || igraph_write_graph_gml(&g, out, IGRAPH_WRITE_GML_DEFAULT_SW, NULL, "label_social") != IGRAPH_SUCCESS) {
        fprintf(stderr, "cannot write %s\n", argv[2]);
        if (out) fclose(out);
        goto done;
    }
    fclose(out);
    printf("vertex 0: %lld, vertex %lld: %lld\n", (long long)VECTOR(pred)[0], (long long)N - 1,
           (long long)VECTOR(pred)[N - 1]);
    printf("class sizes: %lld %lld\n", (long long)count[0], (long long)count[1]);
    if (igraph_cattribute_has_attr(&g, IGRAPH_ATTRIBUTE_VERTEX, "club")) { /* the known split, if given */
        igraph_integer_t agree = 0;
        for (igraph_integer_t v = 0; v < N; v++) agree += VAN(&g, "club", v) == (double)VECTOR(pred)[v];
        printf("agreement with the 'club' attribute: %.3f\n", (double)agree / (double)N);
    }
    printf("wrote %s\n", argv[2]);
    status = 0;
done:
    ag_net_destroy(net);
    igraph_vector_int_destroy(&pred);
    igraph_vector_int_destroy(&labels);
    igraph_destroy(&g);
    return status;
}
