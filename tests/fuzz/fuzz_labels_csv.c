/*
 * fuzz_labels_csv.c: graph labels tables (tox21/labels.csv form) through ag_targets_read_csv().
 * First byte: bit 0 names the targets "t1", "t2" (else they are chosen from the values);
 * bit 1 forces their kinds (binary, multi-class); bit 2 names the file column "name".
 */
#include "attngraph/labels.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    const uint8_t b = data[0];
    static const char *const targets[] = {"t1", "t2"};
    static const ag_task_kind_t kinds[] = {AG_TASK_BINARY, AG_TASK_MULTICLASS};
    const char *path = fuzz_write_file(data + 1, size - 1, ".csv");
    ag_targets_options_t o;
    ag_targets_options_init(&o);
    if (b & 1) {
        o.targets = targets;
        o.n_targets = 2;
        if (b & 2) o.kinds = kinds;
    }
    if (b & 4) o.file_column = "name";
    ag_targets_t t;
    ag_error_clear();
    ag_error_t rc = ag_targets_read_csv(&t, path, &o);
    fuzz_check_result(rc, "ag_targets_read_csv");
    if (rc == AG_SUCCESS) {
        if (t.y.rows != t.n_graphs || t.y.cols != t.n_tasks) abort();
        ag_targets_destroy(&t);
    } else {
        fuzz_check_zeroed(&t, sizeof t, "ag_targets_read_csv");
    }
    return 0;
}
