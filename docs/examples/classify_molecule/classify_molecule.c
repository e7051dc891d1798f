/*
 * classify_molecule.c: classify a molecule built in code with igraph calls.
 * usage: classify_molecule MODEL.safetensors   (the model of ../train_model)
 */
#include <stdio.h>
#include <attngraph/attngraph.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s MODEL.safetensors\n", argv[0]);
        return 2;
    }
    igraph_set_attribute_table(&igraph_cattribute_table);
    /* ethylamine-like chain C-C-N, with the attributes the model reads */
    igraph_t mol;
    igraph_small(&mol, 3, IGRAPH_UNDIRECTED, 0, 1, 1, 2, -1);
    const char *element[] = {"C", "C", "N"};
    for (int i = 0; i < 3; i++) {
        SETVAS(&mol, "element", i, element[i]);
        SETVAN(&mol, "charge", i, 0);
    }
    SETEAN(&mol, "bond", 0, 1.0);
    SETEAN(&mol, "bond", 1, 1.0);

    ag_net_t *net = NULL;
    igraph_vector_t probs;
    igraph_vector_init(&probs, 0);
    igraph_integer_t label;
    int status = 1;
    if (ag_net_load(&net, argv[1]) != AG_SUCCESS ||
        ag_net_classify_graph(net, &mol, NULL, &label, &probs) != AG_SUCCESS) {
        fprintf(stderr, "error: %s\n", ag_error_message());
    } else {
        printf("class %s\n", ag_net_output_name(net, label));
        for (igraph_integer_t c = 0; c < igraph_vector_size(&probs); c++)
            printf("p(%s) = %.4f\n", ag_net_output_name(net, c), VECTOR(probs)[c]);
        status = 0;
    }
    ag_net_destroy(net);
    igraph_vector_destroy(&probs);
    igraph_destroy(&mol);
    return status;
}
