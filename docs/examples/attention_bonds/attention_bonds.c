/*
 * attention_bonds.c: print the attention weights of a molecule per bond and head.
 * usage: attention_bonds MODEL.safetensors   (the model of ../train_model)
 * For an undirected bond a-b there are two weights per head: how much b attends to a, and how
 * much a attends to b; self shows each atom's weight on itself (the added self-loop).
 */
#include <stdio.h>
#include <attngraph/attngraph.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s MODEL.safetensors\n", argv[0]);
        return 2;
    }
    igraph_set_attribute_table(&igraph_cattribute_table);
    /* a four-atom ring C-C-O-C */
    igraph_t mol;
    igraph_small(&mol, 4, IGRAPH_UNDIRECTED, 0, 1, 1, 2, 2, 3, 3, 0, -1);
    const char *element[] = {"C", "C", "O", "C"};
    for (int i = 0; i < 4; i++) {
        SETVAS(&mol, "element", i, element[i]);
        SETVAN(&mol, "charge", i, 0);
    }
    for (int e = 0; e < 4; e++) SETEAN(&mol, "bond", e, 1.0);

    ag_net_t *net = NULL;
    igraph_matrix_t fwd, rev, self; /* (E x H), (E x H), (N x H) */
    igraph_matrix_init(&fwd, 0, 0);
    igraph_matrix_init(&rev, 0, 0);
    igraph_matrix_init(&self, 0, 0);
    int status = 1;
    if (ag_net_load(&net, argv[1]) != AG_SUCCESS) {
        fprintf(stderr, "error: %s\n", ag_error_message());
        goto done;
    }
    igraph_integer_t last = ag_net_n_layers(net) - 1;
    if (ag_net_attention(net, &mol, NULL, last, &fwd, &rev, &self) != AG_SUCCESS) {
        fprintf(stderr, "error: %s\n", ag_error_message());
        goto done;
    }
    printf("attention of layer %lld, %lld heads\n", (long long)last, (long long)igraph_matrix_ncol(&fwd));
    for (igraph_integer_t e = 0; e < igraph_ecount(&mol); e++) {
        /* the stored ends (for undirected graphs igraph_edge() returns them the other way round) */
        igraph_integer_t from = IGRAPH_FROM(&mol, e), to = IGRAPH_TO(&mol, e);
        for (igraph_integer_t h = 0; h < igraph_matrix_ncol(&fwd); h++)
            printf("bond %lld %s%lld-%s%lld head %lld: %lld<-%lld %.4f  %lld<-%lld %.4f\n", (long long)e,
                   element[from], (long long)from, element[to], (long long)to, (long long)h, (long long)to,
                   (long long)from, MATRIX(fwd, e, h), (long long)from, (long long)to, MATRIX(rev, e, h));
    }
    for (igraph_integer_t i = 0; i < igraph_vcount(&mol); i++)
        printf("self %lld: %.4f\n", (long long)i, MATRIX(self, i, 0));
    status = 0;
done:
    ag_net_destroy(net);
    igraph_matrix_destroy(&fwd);
    igraph_matrix_destroy(&rev);
    igraph_matrix_destroy(&self);
    igraph_destroy(&mol);
    return status;
}
