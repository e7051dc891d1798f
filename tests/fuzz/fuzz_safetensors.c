/*
 * fuzz_safetensors.c: model files through ag_safetensors_read(), strict and accepting foreign
 * files. A file that reads is checked for consistency and written back; the copy must read again
 * with the same tensors.
 */
#include <string.h>
#include "attngraph/safetensors.h"
#include "fuzz_common.h"

static char out_path[300];

static void rewrite(const ag_safetensors_t *f) {
    if (!out_path[0]) snprintf(out_path, sizeof out_path, "%s.out.safetensors", fuzz_path);
    ag_error_t rc = ag_safetensors_write(out_path, f->tensors, f->n_tensors, &f->metadata);
    fuzz_check_result(rc, "ag_safetensors_write");
    if (rc != AG_SUCCESS) return; /* e.g. a name the writer refuses */
    ag_safetensors_t g;
    rc = ag_safetensors_read(&g, out_path, AG_SAFETENSORS_STRICT);
    if (rc != AG_SUCCESS) {
        fprintf(stderr, "fuzz: a file written back does not read: %s\n", ag_error_message());
        abort();
    }
    if (g.n_tensors != f->n_tensors) abort();
    for (int64_t i = 0; i < f->n_tensors; i++) {
        const ag_tensor_t *a = &f->tensors[i], *c = ag_safetensors_find(&g, a->name);
        if (!c || c->ndim != a->ndim) abort();
        int64_t n = 1;
        for (int d = 0; d < a->ndim; d++) {
            if (c->shape[d] != a->shape[d]) abort();
            n *= a->shape[d];
        }
        if (n > 0 && memcmp(c->data, a->data, (size_t)n * sizeof(float)) != 0) abort();
    }
    ag_safetensors_destroy(&g);
    unlink(out_path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_write_file(data, size, ".safetensors");
    static const int flags[] = {AG_SAFETENSORS_STRICT, AG_SAFETENSORS_ALLOW_FOREIGN};
    for (int k = 0; k < 2; k++) {
        ag_safetensors_t f;
        ag_error_clear();
        ag_error_t rc = ag_safetensors_read(&f, path, flags[k]);
        fuzz_check_result(rc, "ag_safetensors_read");
        if (rc == AG_SUCCESS) {
            for (int64_t i = 0; i < f.n_tensors; i++)
                if (ag_safetensors_find(&f, f.tensors[i].name) == NULL) abort();
            rewrite(&f);
            ag_safetensors_destroy(&f);
        } else {
            fuzz_check_zeroed(&f, sizeof f, "ag_safetensors_read");
        }
    }
    return 0;
}
