/*
 * fuzz_graph_text.c: the graph formats other than GML and GraphML (edge list, NCOL, LGL, Pajek,
 * DIMACS, DL) through the graph driver (fuzz_graph.h). The first input byte chooses the format
 * (low nibble modulo 6) and whether formats that do not say are read as directed (bit 4); the
 * rest is the file. The read limit is FUZZ_READ_LIMIT (fuzz_common.h): a vertex id or count of
 * millions is refused by the loader's pre-scan with AG_EREADLIMIT.
 *
 * One target rather than six: igraph's parsers are a system library without coverage
 * instrumentation, so the feedback comes only from our code around them (CSR building, attribute
 * and label handling), which is the same for every format; separate targets would mostly
 * duplicate that feedback while costing six CI minutes and six long runs instead of one. A
 * mutation of the first byte also feeds one format's input to another parser, which a
 * per-format target never does. The corpus holds each format's seeds with their format byte.
 */
#include "fuzz_graph.h"

static const struct {
    const char *suffix;
    ag_format_t format;
} formats[] = {
    {".edges", AG_FORMAT_EDGELIST}, {".ncol", AG_FORMAT_NCOL},     {".lgl", AG_FORMAT_LGL},
    {".net", AG_FORMAT_PAJEK},      {".dimacs", AG_FORMAT_DIMACS}, {".dl", AG_FORMAT_DL},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    static int init;
    if (!init) {
        igraph_set_attribute_table(&igraph_cattribute_table);
        ag_graph_read_set_max_memory(FUZZ_READ_LIMIT);
        init = 1;
    }
    const int k = (data[0] & 15) % 6, directed = (data[0] >> 4) & 1;
    return fuzz_graph_input_directed(data + 1, size - 1, formats[k].suffix, formats[k].format, directed);
}
