/*
 * fuzz_graph_graphml.c: a GRAPHML file through the graph driver (fuzz_graph.h).
 */
#include "fuzz_graph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return fuzz_graph_input(data, size, ".graphml", AG_FORMAT_GRAPHML);
}
