/* modelfile_testutil.c: see modelfile_testutil.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "modelfile_testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <attngraph/modelfile.h>
#include <attngraph/safetensors.h>

void ag_i_alloc_fail_at(int64_t n);

int ag_test_temp_pair(char *path, size_t cap, char *path2, size_t cap2, const char *name) {
    snprintf(path, cap, "/tmp/ag_%s_XXXXXX", name);
    int fd = mkstemp(path);
    if (fd < 0) return -1;
    close(fd);
    snprintf(path2, cap2, "%s.2", path);
    return 0;
}

int ag_test_metadata_rewrite(const char *src, const char *dst, const char *key, const char *value) {
    ag_safetensors_t f;
    ag_error_t rc = ag_safetensors_read(&f, src, AG_SAFETENSORS_STRICT);
    if (rc != AG_SUCCESS) return rc;
    ag_metadata_t m;
    ag_metadata_init(&m);
    for (int64_t i = 0; i < f.metadata.count && rc == AG_SUCCESS; i++)
        if (strcmp(f.metadata.keys[i], key) != 0) rc = ag_metadata_set(&m, f.metadata.keys[i], f.metadata.values[i]);
    if (rc == AG_SUCCESS && value) rc = ag_metadata_set(&m, key, value);
    if (rc == AG_SUCCESS) rc = ag_safetensors_write(dst, f.tensors, f.n_tensors, &m);
    ag_metadata_destroy(&m);
    ag_safetensors_destroy(&f);
    return rc;
}

int ag_test_save_under_failures(const char *path, const ag_bundle_t *b, int max_failures) {
    for (int k = 1; k <= max_failures + 1; k++) {
        ag_i_alloc_fail_at(k);
        ag_error_t rc = ag_bundle_save(path, b);
        ag_i_alloc_fail_at(0);
        if (rc == AG_SUCCESS) return k - 1;
        if (rc != AG_ENOMEM) fail_msg("save, allocation %d failing: %s", k, ag_error_message());
    }
    fail_msg("save still fails with %d allocations failed", max_failures);
    return -1;
}

int ag_test_load_under_failures(const char *path, ag_bundle_t *out, int max_failures) {
    for (int k = 1; k <= max_failures + 1; k++) {
        ag_i_alloc_fail_at(k);
        ag_error_t rc = ag_bundle_load(path, out);
        ag_i_alloc_fail_at(0);
        if (rc == AG_SUCCESS) return k - 1;
        if (rc != AG_ENOMEM) fail_msg("load, allocation %d failing: %s", k, ag_error_message());
        if (out->model || out->members || out->names) fail_msg("load, allocation %d failing: bundle not zeroed", k);
        ag_bundle_destroy(out);
    }
    fail_msg("load still fails with %d allocations failed", max_failures);
    return -1;
}
