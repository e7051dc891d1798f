/*
 * fuzz_split.c: split files, JSON (ag_split_read_json) and CSV (ag_split_read_csv,
 * ag_split_read_csv_vertices).
 * First byte: bit 0 chooses CSV. JSON: the number of items is 32 times bits 1-7 (0..4064; Cora has 2,708).
 * CSV: bit 1 matches rows to named items: with bit 4 to the vertex ids 0, 1, 2, a in column 'id',
 * else to the files graphs/g1.gml, g2, g3 (without bit 1 row i is item i and bits 4-7 are the
 * number of items); bits 2-3 choose the column (random_split, scaffold_split, fold, split).
 */
#include "attngraph/split.h"
#include "fuzz_common.h"

static void check_split(const ag_split_t *s) {
    for (int64_t f = 0; f < s->n_folds; f++) {
        const ag_fold_t *fd = &s->folds[f];
        if (fd->n_train + fd->n_val + fd->n_test > s->n_items) abort();
        const int64_t *lists[3] = {fd->train, fd->val, fd->test};
        const int64_t counts[3] = {fd->n_train, fd->n_val, fd->n_test};
        for (int l = 0; l < 3; l++)
            for (int64_t k = 0; k < counts[l]; k++)
                if (lists[l][k] < 0 || lists[l][k] >= s->n_items || (k > 0 && lists[l][k] <= lists[l][k - 1])) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    const uint8_t b = data[0];
    static const char *const files[] = {"graphs/g1.gml", "graphs/g2.gml", "graphs/g3.gml"};
    static const char *const columns[] = {"random_split", "scaffold_split", "fold", "split"};
    ag_split_t s;
    ag_error_t rc;
    ag_error_clear();
    if (!(b & 1)) {
        const char *path = fuzz_write_file(data + 1, size - 1, ".csv");
        rc = ag_split_read_json(&s, path, (int64_t)(b >> 1) * 32);
        fuzz_check_result(rc, "ag_split_read_json");
    } else {
        const char *path = fuzz_write_file(data + 1, size - 1, ".csv");
        const char *column = columns[(b >> 2) & 3];
        static const char *const ids[] = {"0", "1", "2", "a"};
        if ((b & 2) && (b & 16))
            rc = ag_split_read_csv_vertices(&s, path, column, "id", ids, 4);
        else if (b & 2)
            rc = ag_split_read_csv(&s, path, column, files, 3);
        else
            rc = ag_split_read_csv(&s, path, column, NULL, b >> 4);
        fuzz_check_result(rc, "ag_split_read_csv");
    }
    if (rc == AG_SUCCESS) {
        check_split(&s);
        ag_split_destroy(&s);
    } else {
        fuzz_check_zeroed(&s, sizeof s, "ag_split_read_json/csv");
    }
    return 0;
}
