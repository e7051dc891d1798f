/*
 * modelfile_testutil.h: what the model-file tests share: a temporary file and its damaged copy,
 * the copy written with one metadata key changed, and the check that an error message names what
 * it should.
 */
#ifndef AG_MODELFILE_TESTUTIL_H
#define AG_MODELFILE_TESTUTIL_H

#include <stddef.h>

/* Fails the test (cmocka's fail_msg: include <cmocka.h> first) unless the library's last error
 * message contains text. */
#define assert_msg_contains(text) \
    do { \
        if (!strstr(ag_error_message(), (text))) \
            fail_msg("message \"%s\" lacks \"%s\"", ag_error_message(), (text)); \
    } while (0)

/* Fails the test unless loading the model file fails with AG_EMODEL, a message naming the file and
 * containing what, and the bundle left zeroed (include <attngraph/modelfile.h>). */
#define assert_load_fails(file, what) \
    do { \
        ag_bundle_t c_; \
        assert_int_equal(ag_bundle_load((file), &c_), AG_EMODEL); \
        assert_msg_contains(file); \
        assert_msg_contains(what); \
        assert_null(c_.model); \
        assert_null(c_.members); \
    } while (0)

/* A fresh empty file /tmp/ag_<name>_XXXXXX in path (cap bytes) and the name path + ".2" for its
 * damaged copies in path2 (cap2 bytes). Returns 0, or -1 when the file cannot be made. */
int ag_test_temp_pair(char *path, size_t cap, char *path2, size_t cap2, const char *name);

/* Writes the safetensors file src again as dst with metadata key set to value (NULL: removed),
 * tensors unchanged (the checksum is recomputed, so only the changed key is wrong). Returns the
 * library's error code. */
int ag_test_metadata_rewrite(const char *src, const char *dst, const char *key, const char *value);

struct ag_bundle_t;

/* Saves b to path with the library's n-th allocation failing, n = 1, 2, ... until the save
 * succeeds (at most max_failures failures): every failure must be AG_ENOMEM. Returns how many
 * allocations were failed before the save succeeded; fails the test otherwise (cmocka). */
int ag_test_save_under_failures(const char *path, const struct ag_bundle_t *b, int max_failures);

/* The same for loading path: every failure must be AG_ENOMEM with the bundle left zeroed (model,
 * members, names); the load that succeeds is left in out (free it with ag_bundle_destroy). */
int ag_test_load_under_failures(const char *path, struct ag_bundle_t *out, int max_failures);

#endif
