/*
 * fuzz_graph_gml.c: a GML file through the graph driver (fuzz_graph.h).
 */
#include "fuzz_graph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return fuzz_graph_input(data, size, ".gml", AG_FORMAT_GML);
}
