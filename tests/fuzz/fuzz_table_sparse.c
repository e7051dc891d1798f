/*
 * fuzz_table_sparse.c: node tables in the AG_TABLE_SPARSE form through ag_table_read()
 * (options from the first byte, see fuzz_table.h).
 */
#include "fuzz_table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return fuzz_table_run(data, size, AG_TABLE_SPARSE, ".txt");
}
