/* modelfile_testutil.c: see modelfile_testutil.h. */
#include "modelfile_testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <attngraph/safetensors.h>

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
