/* Tests of the model file: bit-exact round trips, every validation with its message, atomic writes,
 * and a file written by an independent (Python) writer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include <attngraph/param.h>
#include <attngraph/safetensors.h>

void ag_i_alloc_fail_at(int64_t n);

#define assert_msg_contains(text) \
    do { \
        if (!strstr(ag_error_message(), (text))) \
            fail_msg("message \"%s\" lacks \"%s\"", ag_error_message(), (text)); \
    } while (0)

static char dir[256];   /* a fresh temporary directory per test */
static char fpath[300]; /* dir/m.safetensors */

static int setup(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/ag_st_XXXXXX");
    if (!mkdtemp(dir)) return -1;
    snprintf(fpath, sizeof fpath, "%s/m.safetensors", dir);
    return 0;
}

static int count_entries(const char *d) {
    DIR *dd = opendir(d);
    if (!dd) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dd)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(dd);
    return n;
}

static int teardown(void **state) {
    (void)state;
    DIR *dd = opendir(dir);
    if (dd) {
        struct dirent *e;
        char p[600];
        while ((e = readdir(dd))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            if (rmdir(p) != 0) unlink(p);
        }
        closedir(dd);
    }
    rmdir(dir);
    return 0;
}

static unsigned char *slurp(const char *path, long *size) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)*size + 1);
    assert_int_equal(fread(b, 1, (size_t)*size, f), (size_t)*size);
    fclose(f);
    return b;
}

static void spill(const char *path, const void *b, long size) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, (size_t)size, f), (size_t)size);
    fclose(f);
}

/* A file from a hand-written header (padded like the writer) and raw data bytes. */
static void make_file(const char *path, const char *header, const void *data, long data_len) {
    size_t n = strlen(header);
    size_t padded = (n + 7) / 8 * 8;
    unsigned char *b = calloc(1, 8 + padded + (size_t)data_len);
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)((uint64_t)padded >> (8 * i));
    memcpy(b + 8, header, n);
    memset(b + 8 + n, ' ', padded - n);
    if (data_len) memcpy(b + 8 + padded, data, (size_t)data_len);
    spill(path, b, (long)(8 + padded + (size_t)data_len));
    free(b);
}

/* Six floats (24 bytes) for hand-made files: a (2 x 2) then b (2). */
static const float SIX[6] = {1.0f, -2.0f, 3.5f, 0.25f, 7.0f, -0.0f};

/* Header of a valid two-tensor file with the given metadata body (crc filled in). */
static void good_header(char *h, size_t size, const char *extra_meta) {
    snprintf(h, size,
             "{\"__metadata__\":{\"format\":\"attn-graph\",\"format_version\":\"1\",\"crc32\":\"%08x\"%s},"
             "\"a\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]},"
             "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[16,24]}}",
             (unsigned)ag_crc32_update(0, SIX, sizeof SIX), extra_meta);
}

static void expect_model_error(const char *path, const char *msg) {
    ag_safetensors_t f;
    ag_error_t rc = ag_safetensors_read(&f, path, AG_SAFETENSORS_STRICT);
    if (rc != AG_EMODEL) fail_msg("expected AG_EMODEL for \"%s\", got %s: %s", msg, ag_error_name(rc), ag_error_message());
    assert_msg_contains(msg);
    assert_msg_contains(path); /* every message names the file */
    assert_null(f.tensors);
    ag_safetensors_destroy(&f);
}

static void test_crc32_known_value(void **state) {
    (void)state;
    /* the standard check value of CRC-32 (zlib.crc32(b"123456789") == 0xcbf43926) */
    assert_int_equal(ag_crc32_update(0, "123456789", 9), 0xcbf43926u);
    assert_int_equal(ag_crc32_update(ag_crc32_update(0, "1234", 4), "56789", 5), 0xcbf43926u);
    assert_int_equal(ag_crc32_update(0, "", 0), 0u);
}

static void test_roundtrip_bit_identical(void **state) {
    (void)state;
    float w[3 * 4], v[5], s[1] = {42.5f};
    for (int i = 0; i < 12; i++) w[i] = (float)i * 0.37f - 2.0f;
    uint32_t specials[5] = {0x7fc00001u /* NaN with payload */, 0x80000000u /* -0 */, 0x7f800000u /* inf */,
                            0x00000001u /* smallest denormal */, 0xff7fffffu /* -FLT_MAX */};
    memcpy(v, specials, sizeof v);
    ag_tensor_t ts[4] = {
        {"blocks.0.attn.Wq", 2, {3, 4}, w},
        {"name with \"quotes\", \\ and \xc3\xa9", 1, {5}, v},
        {"scalar", 0, {0}, s},
        {"empty", 2, {0, 3}, NULL},
    };
    ag_metadata_t meta;
    ag_metadata_init(&meta);
    const char *arch = "{\"layers\": [{\"heads\": 4, \"note\": \"a \\\"quoted\\\" word\"}],\n\t\"x\": \"\\u00e9\"}";
    const char *weird = "line1\nline2\r\t\"q\" \\ / \x01\x1f end \xe2\x82\xac \xf0\x9f\x98\x80";
    assert_int_equal(ag_metadata_set(&meta, "architecture", arch), AG_SUCCESS);
    assert_int_equal(ag_metadata_set(&meta, "weird", weird), AG_SUCCESS);
    assert_int_equal(ag_metadata_set(&meta, "empty", ""), AG_SUCCESS);
    assert_int_equal(ag_metadata_set(&meta, "crc32", "ignored"), AG_SUCCESS); /* reserved: the library's wins */
    assert_int_equal(ag_safetensors_write(fpath, ts, 4, &meta), AG_SUCCESS);
    assert_int_equal(count_entries(dir), 1); /* no temporary left */

    /* layout: 8-byte little-endian length, header padded to 8, data of 12 + 5 + 1 floats */
    long size;
    unsigned char *raw = slurp(fpath, &size);
    uint64_t hlen = 0;
    for (int i = 0; i < 8; i++) hlen |= (uint64_t)raw[i] << (8 * i);
    assert_int_equal(hlen % 8, 0);
    assert_int_equal(raw[8], '{');
    assert_int_equal((long)(8 + hlen + 4 * 18), size);
    assert_memory_equal(raw + 8 + hlen, w, sizeof w); /* little-endian host: bytes are the floats */
    free(raw);

    ag_safetensors_t f;
    assert_int_equal(ag_safetensors_read(&f, fpath, AG_SAFETENSORS_STRICT), AG_SUCCESS);
    assert_int_equal(f.n_tensors, 4);
    assert_int_equal(f.foreign, 0);
    for (int i = 0; i < 4; i++) {
        const ag_tensor_t *t = ag_safetensors_find(&f, ts[i].name);
        assert_non_null(t);
        assert_int_equal(t->ndim, ts[i].ndim);
        int64_t n = 1;
        for (int d = 0; d < t->ndim; d++) {
            assert_int_equal(t->shape[d], ts[i].shape[d]);
            n *= t->shape[d];
        }
        if (n) assert_memory_equal(t->data, ts[i].data, (size_t)n * sizeof(float));
    }
    assert_string_equal(f.tensors[0].name, "blocks.0.attn.Wq"); /* file order = writing order */
    assert_string_equal(ag_metadata_get(&f.metadata, "architecture"), arch);
    assert_string_equal(ag_metadata_get(&f.metadata, "weird"), weird);
    assert_string_equal(ag_metadata_get(&f.metadata, "empty"), "");
    assert_string_equal(ag_metadata_get(&f.metadata, "format"), "attn-graph");
    assert_string_equal(ag_metadata_get(&f.metadata, "format_version"), "1");
    char crc[9];
    uint32_t c = ag_crc32_update(0, w, sizeof w);
    c = ag_crc32_update(c, v, sizeof v);
    c = ag_crc32_update(c, s, sizeof s);
    snprintf(crc, sizeof crc, "%08x", (unsigned)c);
    assert_string_equal(ag_metadata_get(&f.metadata, "crc32"), crc);
    ag_safetensors_destroy(&f);
    ag_safetensors_destroy(&f);

    /* keep a copy for checking by hand with tests/golden/check_safetensors.py */
    const char *dump = getenv("AG_SAFETENSORS_DUMP");
    if (dump) assert_int_equal(ag_safetensors_write(dump, ts, 4, &meta), AG_SUCCESS);
    ag_metadata_destroy(&meta);

    /* invalid metadata and names are refused before anything is written */
    ag_metadata_init(&meta);
    assert_int_equal(ag_metadata_set(&meta, "bad", "\xff\xfe"), AG_SUCCESS);
    assert_int_equal(ag_safetensors_write(fpath, ts, 1, &meta), AG_EINVAL);
    assert_msg_contains("the value of metadata key 'bad' is not valid UTF-8");
    ag_metadata_destroy(&meta);
    ag_tensor_t dup[2] = {{"x", 1, {1}, s}, {"x", 1, {1}, s}};
    assert_int_equal(ag_safetensors_write(fpath, dup, 2, NULL), AG_EINVAL);
    assert_msg_contains("two tensors are named 'x'");
    ag_tensor_t meta_name[1] = {{"__metadata__", 1, {1}, s}};
    assert_int_equal(ag_safetensors_write(fpath, meta_name, 1, NULL), AG_EINVAL);
    assert_int_equal(count_entries(dir), 1);
}

/* A parameter list of two layers, values from a seed. */
typedef struct model_t {
    float W[4 * 3], b[3], g[2];
    ag_param_list_t list;
} model_t;

static void model_init(model_t *m, float seed, int64_t w_cols) {
    for (int i = 0; i < 12; i++) m->W[i] = seed + (float)i;
    for (int i = 0; i < 3; i++) m->b[i] = seed * 10 + (float)i;
    m->g[0] = m->g[1] = seed;
    ag_param_list_init(&m->list);
    assert_int_equal(ag_param_list_add(&m->list, "blocks.0.attn", "Wq", 2, 12 / w_cols, w_cols, m->W, NULL, 1), AG_SUCCESS);
    assert_int_equal(ag_param_list_add(&m->list, "blocks.0.attn", "bo", 1, 3, 1, m->b, NULL, 0), AG_SUCCESS);
    assert_int_equal(ag_param_list_add(&m->list, "readout", "gate.w", 1, 2, 1, m->g, NULL, 1), AG_SUCCESS);
}

static void test_params_roundtrip_and_mismatches(void **state) {
    (void)state;
    model_t a, b;
    model_init(&a, 1.0f, 3);
    model_init(&b, 100.0f, 3);
    ag_metadata_t meta;
    ag_metadata_init(&meta);
    assert_int_equal(ag_metadata_set(&meta, "task", "graph-classification"), AG_SUCCESS);
    assert_int_equal(ag_safetensors_write_params(fpath, &a.list, &meta), AG_SUCCESS);
    ag_metadata_destroy(&meta);
    ag_metadata_init(&meta);
    assert_int_equal(ag_safetensors_read_params(fpath, &b.list, &meta), AG_SUCCESS);
    assert_memory_equal(a.W, b.W, sizeof a.W);
    assert_memory_equal(a.b, b.b, sizeof a.b);
    assert_memory_equal(a.g, b.g, sizeof a.g);
    assert_string_equal(ag_metadata_get(&meta, "task"), "graph-classification");
    assert_string_equal(ag_metadata_get(&meta, "format_version"), "1");
    ag_metadata_destroy(&meta);

    /* a model whose Wq is 3 x 4 instead of 4 x 3: refused, and nothing is copied */
    model_t c;
    model_init(&c, 7.0f, 4);
    assert_int_equal(ag_safetensors_read_params(fpath, &c.list, NULL), AG_EMODEL);
    assert_msg_contains("tensor 'blocks.0.attn.Wq' has shape [4, 3] in the file, the model expects [3, 4]");
    assert_float_equal(c.b[0], 70.0f, 0.0f);
    /* a vector [3] is not a matrix [3, 1] */
    ag_param_list_t l2;
    ag_param_list_init(&l2);
    float W[12], bb[3], g[2];
    assert_int_equal(ag_param_list_add(&l2, "blocks.0.attn", "Wq", 2, 4, 3, W, NULL, 1), AG_SUCCESS);
    assert_int_equal(ag_param_list_add(&l2, "blocks.0.attn", "bo", 2, 3, 1, bb, NULL, 0), AG_SUCCESS);
    assert_int_equal(ag_param_list_add(&l2, "readout", "gate.w", 1, 2, 1, g, NULL, 1), AG_SUCCESS);
    assert_int_equal(ag_safetensors_read_params(fpath, &l2, NULL), AG_EMODEL);
    assert_msg_contains("tensor 'blocks.0.attn.bo' has shape [3] in the file, the model expects [3, 1]");
    ag_param_list_destroy(&l2);

    /* a model with one more tensor: missing from the file */
    ag_param_list_init(&l2);
    float extra[2];
    assert_int_equal(ag_param_list_add(&l2, "blocks.0.attn", "Wq", 2, 4, 3, W, NULL, 1), AG_SUCCESS);
    assert_int_equal(ag_param_list_add(&l2, "blocks.0.attn", "bo", 1, 3, 1, bb, NULL, 0), AG_SUCCESS);
    assert_int_equal(ag_param_list_add(&l2, "readout", "gate.w", 1, 2, 1, g, NULL, 1), AG_SUCCESS);
    assert_int_equal(ag_param_list_add(&l2, "readout", "gate.b", 1, 1, 1, extra, NULL, 0), AG_SUCCESS);
    assert_int_equal(ag_safetensors_read_params(fpath, &l2, NULL), AG_EMODEL);
    assert_msg_contains("m.safetensors: 1 tensor the model expects is missing from the file: 'readout.gate.b'");
    ag_param_list_destroy(&l2);

    /* a model with fewer tensors: the file's extra ones are reported */
    ag_param_list_init(&l2);
    assert_int_equal(ag_param_list_add(&l2, "blocks.0.attn", "Wq", 2, 4, 3, W, NULL, 1), AG_SUCCESS);
    assert_int_equal(ag_safetensors_read_params(fpath, &l2, NULL), AG_EMODEL);
    assert_msg_contains("2 tensors in the file are not in the model: 'blocks.0.attn.bo', 'readout.gate.w'");
    ag_param_list_destroy(&l2);

    ag_param_list_destroy(&a.list);
    ag_param_list_destroy(&b.list);
    ag_param_list_destroy(&c.list);
}

static void test_truncations_and_flips(void **state) {
    (void)state;
    model_t a;
    model_init(&a, 1.0f, 3);
    assert_int_equal(ag_safetensors_write_params(fpath, &a.list, NULL), AG_SUCCESS);
    ag_param_list_destroy(&a.list);
    long size;
    unsigned char *raw = slurp(fpath, &size);
    long hlen = 0;
    for (int i = 0; i < 8; i++) hlen |= (long)raw[i] << (8 * i);
    char bad[320];
    snprintf(bad, sizeof bad, "%s/bad.safetensors", dir);

    const long cuts_short[] = {0, 1, 7};
    for (int i = 0; i < 3; i++) {
        spill(bad, raw, cuts_short[i]);
        expect_model_error(bad, "file too short");
    }
    const long cuts_header[] = {8, 9, 8 + hlen / 2, 8 + hlen - 1};
    for (int i = 0; i < 4; i++) {
        spill(bad, raw, cuts_header[i]);
        expect_model_error(bad, "runs past the end of the file");
    }
    const long cuts_data[] = {8 + hlen, 8 + hlen + 1, 8 + hlen + 48, size - 1};
    for (int i = 0; i < 4; i++) {
        spill(bad, raw, cuts_data[i]);
        expect_model_error(bad, "truncated: the tensors need 68 bytes of data, the file holds");
    }
    /* trailing bytes */
    unsigned char *longer = malloc((size_t)size + 4);
    memcpy(longer, raw, (size_t)size);
    memset(longer + size, 0, 4);
    spill(bad, longer, size + 4);
    expect_model_error(bad, "4 trailing bytes after the last tensor");
    free(longer);
    /* a bit flipped in the data: the checksum catches it */
    for (long at = 8 + hlen; at < size; at += 17) {
        raw[at] ^= 0x10;
        spill(bad, raw, size);
        expect_model_error(bad, "checksum mismatch: the tensor data has CRC-32");
        raw[at] ^= 0x10;
    }
    /* bytes changed in the header */
    raw[8] = '[';
    spill(bad, raw, size);
    expect_model_error(bad, "the header does not start with a JSON object");
    raw[8] = '{';
    char *colon = memchr(raw + 8, ':', (size_t)hlen);
    *colon = ';';
    spill(bad, raw, size);
    expect_model_error(bad, "malformed JSON in the header: header:1:");
    *colon = ':';
    char *f32 = strstr((char *)raw + 8, "F32");
    f32[1] = '1';
    f32[2] = '6';
    spill(bad, raw, size);
    expect_model_error(bad, "tensor 'blocks.0.attn.Wq' has dtype F16; attn-graph reads only F32");
    f32[1] = '3';
    f32[2] = '2';
    char *nine = strstr((char *)raw + 8, "\"crc32\":\"") + 9;
    *nine = *nine == '0' ? '1' : '0';
    spill(bad, raw, size);
    expect_model_error(bad, "checksum mismatch");
    /* an absurd header length */
    raw[7] = 0x40;
    spill(bad, raw, size);
    expect_model_error(bad, "is absurd");
    free(raw);

    /* the same file unchanged still reads */
    ag_safetensors_t f;
    assert_int_equal(ag_safetensors_read(&f, fpath, AG_SAFETENSORS_STRICT), AG_SUCCESS);
    ag_safetensors_destroy(&f);
    /* a missing file is a file error, not a model error */
    assert_int_equal(ag_safetensors_read(&f, "/nonexistent/x.safetensors", 0), AG_EFILE);
    assert_msg_contains("/nonexistent/x.safetensors: cannot open");
}

/* Every truncation is refused, and no single-byte change of the header crashes or is accepted
 * unnoticed: the result is AG_EMODEL, or success only when the change kept a valid file whose
 * tensors still hold the original bytes (a letter of a name changed, say). Run under ASan. */
static void test_every_truncation_and_header_byte(void **state) {
    (void)state;
    model_t a;
    model_init(&a, 1.0f, 3);
    assert_int_equal(ag_safetensors_write_params(fpath, &a.list, NULL), AG_SUCCESS);
    ag_param_list_destroy(&a.list);
    long size;
    unsigned char *raw = slurp(fpath, &size);
    long hlen = 0;
    for (int i = 0; i < 8; i++) hlen |= (long)raw[i] << (8 * i);
    char bad[320];
    snprintf(bad, sizeof bad, "%s/bad.safetensors", dir);
    ag_safetensors_t f;
    for (long cut = 0; cut < size; cut++) {
        spill(bad, raw, cut);
        assert_int_equal(ag_safetensors_read(&f, bad, AG_SAFETENSORS_STRICT), AG_EMODEL);
    }
    int accepted = 0;
    const unsigned char masks[3] = {0x01, 0x20, 0x80};
    for (long at = 0; at < 8 + hlen; at++)
        for (int m = 0; m < 3; m++) {
            raw[at] ^= masks[m];
            spill(bad, raw, size);
            ag_error_t rc = ag_safetensors_read(&f, bad, AG_SAFETENSORS_ALLOW_FOREIGN);
            raw[at] ^= masks[m];
            if (rc == AG_SUCCESS) {
                accepted++;
                assert_int_equal(f.n_tensors, 3);
                int64_t total = 0;
                for (int64_t t = 0; t < f.n_tensors; t++) total += f.tensors[t].shape[0] * (f.tensors[t].ndim > 1 ? f.tensors[t].shape[1] : 1);
                assert_int_equal(total, 17);
                assert_memory_equal(f.tensors[0].data, raw + 8 + hlen, 68);
            } else if (rc != AG_EMODEL) {
                fail_msg("byte %ld ^ 0x%02x: %s: %s", at, masks[m], ag_error_name(rc), ag_error_message());
            }
            ag_safetensors_destroy(&f);
        }
    assert_true(accepted < 3 * (8 + hlen) / 2);
    free(raw);
}

static void test_header_validation(void **state) {
    (void)state;
    char h[1024], bad[320];
    snprintf(bad, sizeof bad, "%s/h.safetensors", dir);
    unsigned crc = (unsigned)ag_crc32_update(0, SIX, sizeof SIX);

    good_header(h, sizeof h, "");
    make_file(bad, h, SIX, sizeof SIX);
    ag_safetensors_t f;
    assert_int_equal(ag_safetensors_read(&f, bad, AG_SAFETENSORS_STRICT), AG_SUCCESS);
    assert_int_equal(f.n_tensors, 2);
    assert_memory_equal(ag_safetensors_find(&f, "b")->data, SIX + 4, 8);
    ag_safetensors_destroy(&f);

    /* each case: a header and the message it must give */
    struct {
        const char *fmt; /* %08x receives the crc */
        const char *msg;
    } cases[] = {
        {"{\"__metadata__\":{\"format\":\"attn-graph\",\"format_version\":\"2\",\"crc32\":\"%08x\"},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[6],\"data_offsets\":[0,24]}}",
         "written by a newer attn-graph (format version 2), this one reads version 1"},
        {"{\"__metadata__\":{\"format\":\"attn-graph\",\"format_version\":\"one\",\"crc32\":\"%08x\"},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[6],\"data_offsets\":[0,24]}}",
         "invalid format_version 'one'"},
        {"{\"__metadata__\":{\"format\":\"attn-graph\",\"crc32\":\"%08x\"},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[6],\"data_offsets\":[0,24]}}",
         "the metadata has no format_version"},
        {"{\"__metadata__\":{\"format\":\"attn-graph\",\"format_version\":\"1\"},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[6],\"data_offsets\":[0,24]}}",
         "the metadata has no crc32"},
        {"{\"__metadata__\":{\"format\":\"attn-graph\",\"format_version\":\"1\",\"crc32\":\"xyz%08x\"},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[6],\"data_offsets\":[0,24]}}",
         "invalid crc32 'xyz"},
        {"{\"__metadata__\":{\"crc32\":\"%08x\"},\"a\":{\"dtype\":\"F32\",\"shape\":[6],\"data_offsets\":[0,24]}}",
         "not an attn-graph model file (no \"format\": \"attn-graph\" in its metadata)"},
        {"{\"__metadata__\":{\"format\":\"pt\",\"crc32\":\"%08x\"},\"a\":{\"dtype\":\"F32\",\"shape\":[6],\"data_offsets\":[0,24]}}",
         "not an attn-graph model file (its metadata says format 'pt')"},
        {"{\"__metadata__\":{\"format\":\"attn-graph\",\"format_version\":\"1\",\"crc32\":\"%08x\"},"
         "\"a\":{\"dtype\":\"F64\",\"shape\":[3],\"data_offsets\":[0,24]}}",
         "tensor 'a' has dtype F64; attn-graph reads only F32"},
        {"{\"__metadata__\":{\"format\":\"attn-graph\",\"format_version\":\"1\",\"crc32\":\"%08x\"},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,24]}}",
         "tensor 'a' of shape [2, 2] needs 16 bytes, but its data_offsets [0, 24] span 24"},
        {"{\"__metadata__\":{\"format\":\"attn-graph\",\"format_version\":\"1\",\"crc32\":\"%08x\"},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
         "\"b\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[12,24]}}",
         "a gap of 4 bytes precedes tensor 'b' (data_offsets [12, 24])"},
        {"{\"__metadata__\":{\"format\":\"attn-graph\",\"format_version\":\"1\",\"crc32\":\"%08x\"},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]},"
         "\"b\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[12,24]}}",
         "tensor 'b' (data_offsets [12, 24]) overlaps tensor 'a'"},
        {"{\"__metadata__\":{\"format\":\"attn-graph\",\"format_version\":\"1\",\"crc32\":\"%08x\"},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,12]},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[12,24]}}",
         "tensor 'a' appears twice in the header"},
        {"{\"__metadata__\":{\"format\":\"attn-graph\",\"format_version\":\"1\",\"crc32\":\"%08x\"},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[6],\"data_offsets\":[0,24]},\"comment\":\"hello\"}",
         "header field 'comment' is a string, not a tensor object"},
        {"{\"__metadata__\":{\"format\":\"attn-graph\",\"format_version\":\"1\",\"crc32\":\"%08x\"},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[6],\"data_offsets\":[0,24],\"stride\":[1]}}",
         "tensor 'a' has an unknown field 'stride'"},
        {"{\"__metadata__\":{\"format\":\"attn-graph\",\"format_version\":\"1\",\"crc32\":\"%08x\"},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[6]}}",
         "tensor 'a' lacks its 'data_offsets'"},
        {"{\"__metadata__\":{\"format\":\"attn-graph\",\"format_version\":\"1\",\"crc32\":\"%08x\"},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[-6],\"data_offsets\":[0,24]}}",
         "tensor 'a' has an invalid shape (dimension 0 is not a non-negative integer)"},
        {"{\"__metadata__\":{\"format\":\"attn-graph\",\"format_version\":\"1\",\"crc32\":\"%08x\"},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[6],\"data_offsets\":[24,0]}}",
         "tensor 'a' has data_offsets [24, 0] that end before they begin"},
        {"{\"__metadata__\":{\"format\":\"attn-graph\",\"format_version\":\"1\",\"crc32\":\"%08x\"},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[6],\"data_offsets\":[0,24.5]}}",
         "tensor 'a' has invalid data_offsets"},
        {"{\"__metadata__\":{\"format\":\"attn-graph\",\"format_version\":1,\"crc32\":\"%08x\"},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[6],\"data_offsets\":[0,24]}}",
         "metadata 'format_version' is a number, not a string"},
        {"{\"__metadata__\":[\"%08x\"],\"a\":{\"dtype\":\"F32\",\"shape\":[6],\"data_offsets\":[0,24]}}",
         "'__metadata__' is an array, not an object"},
        {"{\"__metadata__\":{\"format\":\"attn-graph\",\"format_version\":\"1\",\"crc32\":\"%08x\"},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[6],\"data_offsets\":[0,24]},}",
         "malformed JSON in the header"},
        {"{\"__metadata__\":{\"format\":\"attn-graph\",\"format_version\":\"1\",\"crc32\":\"%08x\"},"
         "\"a\xff\":{\"dtype\":\"F32\",\"shape\":[6],\"data_offsets\":[0,24]}}",
         "the header is not valid UTF-8"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(h, sizeof h, cases[i].fmt, crc);
        make_file(bad, h, SIX, sizeof SIX);
        expect_model_error(bad, cases[i].msg);
    }

    /* a foreign file (as saved from PyTorch, "format": "pt") is accepted when asked for */
    snprintf(h, sizeof h, "{\"__metadata__\":{\"format\":\"pt\"},\"a\":{\"dtype\":\"F32\",\"shape\":[3,2],\"data_offsets\":[0,24]}}");
    make_file(bad, h, SIX, sizeof SIX);
    assert_int_equal(ag_safetensors_read(&f, bad, AG_SAFETENSORS_ALLOW_FOREIGN), AG_SUCCESS);
    assert_int_equal(f.foreign, 1);
    assert_int_equal(f.tensors[0].shape[1], 2);
    assert_memory_equal(f.tensors[0].data, SIX, sizeof SIX);
    ag_safetensors_destroy(&f);
    /* no metadata at all, and tensors listed out of offset order */
    snprintf(h, sizeof h, "{\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[16,24]},"
                          "\"a\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]}}");
    make_file(bad, h, SIX, sizeof SIX);
    assert_int_equal(ag_safetensors_read(&f, bad, AG_SAFETENSORS_ALLOW_FOREIGN), AG_SUCCESS);
    assert_string_equal(f.tensors[0].name, "a");
    assert_memory_equal(ag_safetensors_find(&f, "b")->data, SIX + 4, 8);
    ag_safetensors_destroy(&f);
}

static void test_failed_writes_leave_nothing(void **state) {
    (void)state;
    model_t a;
    model_init(&a, 1.0f, 3);
    char p[400];
    /* a directory that does not exist */
    snprintf(p, sizeof p, "%s/no/such/dir/m.safetensors", dir);
    assert_int_equal(ag_safetensors_write_params(p, &a.list, NULL), AG_EFILE);
    assert_msg_contains("cannot create a temporary file beside it");
    assert_int_equal(count_entries(dir), 0);
    /* the destination is a directory, or a FIFO (a device alike), which the rename would
     * replace: refused before anything is written */
    snprintf(p, sizeof p, "%s/adir", dir);
    assert_int_equal(mkdir(p, 0755), 0);
    assert_int_equal(ag_safetensors_write_params(p, &a.list, NULL), AG_EFILE);
    assert_msg_contains("adir: it is a directory, which the model file, written beside it and renamed, would replace");
    assert_int_equal(count_entries(dir), 1);
    assert_int_equal(count_entries(p), 0);
    rmdir(p);
    snprintf(p, sizeof p, "%s/fifo", dir);
    assert_int_equal(mkfifo(p, 0600), 0);
    assert_int_equal(ag_safetensors_write_params(p, &a.list, NULL), AG_EFILE);
    assert_msg_contains("fifo: it is not a regular file (a device or a FIFO)");
    struct stat fst;
    assert_int_equal(stat(p, &fst), 0);
    assert_true(S_ISFIFO(fst.st_mode));
    assert_int_equal(count_entries(dir), 1);
    unlink(p);
    /* a symbolic link is written through: it stays a link, its file gets the model and keeps its
     * permissions; a link to nothing is refused */
    char target[420];
    snprintf(target, sizeof target, "%s/real.safetensors", dir);
    FILE *tf = fopen(target, "w");
    assert_non_null(tf);
    fclose(tf);
    assert_int_equal(chmod(target, 0640), 0);
    snprintf(p, sizeof p, "%s/link.safetensors", dir);
    assert_int_equal(symlink("real.safetensors", p), 0);
    assert_int_equal(ag_safetensors_write_params(p, &a.list, NULL), AG_SUCCESS);
    assert_int_equal(lstat(p, &fst), 0);
    assert_true(S_ISLNK(fst.st_mode));
    assert_int_equal(stat(target, &fst), 0);
    assert_true(fst.st_size > 0);
    assert_int_equal(fst.st_mode & 0777, 0640);
    model_t back;
    model_init(&back, 0.0f, 3);
    assert_int_equal(ag_safetensors_read_params(target, &back.list, NULL), AG_SUCCESS);
    assert_memory_equal(back.W, a.W, sizeof a.W);
    ag_param_list_destroy(&back.list);
    assert_int_equal(count_entries(dir), 2);
    unlink(p);
    unlink(target);
    assert_int_equal(symlink("none.safetensors", p), 0);
    assert_int_equal(ag_safetensors_write_params(p, &a.list, NULL), AG_EFILE);
    assert_msg_contains("link.safetensors: a symbolic link that cannot be followed");
    assert_int_equal(count_entries(dir), 1);
    unlink(p);
    /* a full disk, simulated with a file-size limit: the old file survives intact */
    assert_int_equal(ag_safetensors_write_params(fpath, &a.list, NULL), AG_SUCCESS);
    long before_size;
    unsigned char *before = slurp(fpath, &before_size);
    float big[4096];
    for (int i = 0; i < 4096; i++) big[i] = (float)i;
    ag_tensor_t t = {"big", 1, {4096}, big};
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 1000;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    ag_error_t rc = ag_safetensors_write(fpath, &t, 1, NULL);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, prev);
    assert_int_equal(rc, AG_EFILE);
    assert_msg_contains("cannot write: File too large");
    assert_int_equal(count_entries(dir), 1);
    long after_size;
    unsigned char *after = slurp(fpath, &after_size);
    assert_int_equal(after_size, before_size);
    assert_memory_equal(after, before, (size_t)before_size);
    free(before);
    free(after);
    /* a read-only directory (root ignores permissions, so only checked for other users) */
    if (geteuid() != 0) {
        snprintf(p, sizeof p, "%s/ro", dir);
        assert_int_equal(mkdir(p, 0555), 0);
        snprintf(p, sizeof p, "%s/ro/m.safetensors", dir);
        assert_int_equal(ag_safetensors_write_params(p, &a.list, NULL), AG_EFILE);
        snprintf(p, sizeof p, "%s/ro", dir);
        assert_int_equal(count_entries(p), 0);
        rmdir(p);
    }
    ag_param_list_destroy(&a.list);
}

static void test_allocation_failures(void **state) {
    (void)state;
    model_t a;
    model_init(&a, 1.0f, 3);
    ag_metadata_t meta;
    ag_metadata_init(&meta);
    assert_int_equal(ag_metadata_set(&meta, "k", "v"), AG_SUCCESS);
    int saw_failure = 0;
    /* a write makes fewer than 12 allocations; each successful one costs an fsync, so stop there */
    for (int k = 1; k < 12; k++) {
        ag_i_alloc_fail_at(k);
        ag_error_t rc = ag_safetensors_write_params(fpath, &a.list, &meta);
        ag_i_alloc_fail_at(0);
        assert_true(rc == AG_SUCCESS || rc == AG_ENOMEM);
        saw_failure |= rc == AG_ENOMEM;
        assert_true(count_entries(dir) <= 1); /* never a temporary left behind */
    }
    assert_true(saw_failure);
    assert_int_equal(ag_safetensors_write_params(fpath, &a.list, &meta), AG_SUCCESS);
    saw_failure = 0;
    for (int k = 1; k < 80; k++) {
        ag_safetensors_t f;
        ag_i_alloc_fail_at(k);
        ag_error_t rc = ag_safetensors_read(&f, fpath, AG_SAFETENSORS_STRICT);
        ag_i_alloc_fail_at(0);
        assert_true(rc == AG_SUCCESS || rc == AG_ENOMEM);
        saw_failure |= rc == AG_ENOMEM;
        if (rc == AG_SUCCESS) assert_int_equal(f.n_tensors, 3);
        ag_safetensors_destroy(&f);
    }
    assert_true(saw_failure);
    ag_metadata_destroy(&meta);
    ag_param_list_destroy(&a.list);
}

/* tests/golden/tiny.safetensors was written by tests/golden/check_safetensors.py (struct + json +
 * zlib, no attn-graph code): an independent writer of the format. */
static void test_reads_file_from_independent_writer(void **state) {
    (void)state;
    ag_safetensors_t f;
    assert_int_equal(ag_safetensors_read(&f, AG_SOURCE_DIR "/tests/golden/tiny.safetensors", AG_SAFETENSORS_STRICT),
                     AG_SUCCESS);
    assert_int_equal(f.n_tensors, 2);
    const ag_tensor_t *w = ag_safetensors_find(&f, "layer.W");
    const ag_tensor_t *b = ag_safetensors_find(&f, "layer.b");
    assert_non_null(w);
    assert_non_null(b);
    assert_int_equal(w->ndim, 2);
    assert_int_equal(w->shape[0], 2);
    assert_int_equal(w->shape[1], 3);
    /* W = [[0.5, -1, 2], [3.25, 0, -0.125]], b = [1e-3, 1e3] */
    const float wv[6] = {0.5f, -1.0f, 2.0f, 3.25f, 0.0f, -0.125f}, bv[2] = {1e-3f, 1e3f};
    assert_memory_equal(w->data, wv, sizeof wv);
    assert_memory_equal(b->data, bv, sizeof bv);
    assert_string_equal(ag_metadata_get(&f.metadata, "note"), "written by Python: \"quoted\", caf\xc3\xa9\nnext line");
    ag_safetensors_destroy(&f);
}

/* The sniff takes what the reader takes, by its first 9 bytes: the independent writer's file and
 * the hand-made headers at the length limits; never a graph file's first bytes. */
static void test_sniff(void **state) {
    (void)state;
    unsigned char head[16];
    FILE *f = fopen(AG_SOURCE_DIR "/tests/golden/tiny.safetensors", "rb");
    assert_non_null(f);
    assert_int_equal(fread(head, 1, sizeof head, f), sizeof head);
    fclose(f);
    assert_int_equal(ag_safetensors_sniff(head, sizeof head), 1);
    assert_int_equal(ag_safetensors_sniff(head, 9), 1);
    assert_int_equal(ag_safetensors_sniff(head, 8), 0); /* too few bytes to tell */
    assert_int_equal(ag_safetensors_sniff(NULL, 9), 0);
    const uint64_t lengths[] = {2, AG_SAFETENSORS_MAX_HEADER, 1, 0, (uint64_t)AG_SAFETENSORS_MAX_HEADER + 1,
                                (uint64_t)1 << 40};
    const int want[] = {1, 1, 0, 0, 0, 0};
    for (int i = 0; i < 6; i++) {
        for (int k = 0; k < 8; k++) head[k] = (unsigned char)(lengths[i] >> (8 * k));
        head[8] = '{';
        if (ag_safetensors_sniff(head, 9) != want[i]) fail_msg("header length %llu", (unsigned long long)lengths[i]);
        head[8] = '[';
        assert_int_equal(ag_safetensors_sniff(head, 9), 0);
    }
    const char *graphs[] = {"graph [\n  directed 0", "Creator \"igraph\"\ngraph", "<?xml version=\"1.0\"",
                            "0 1\n1 2\n2 3\n", "*Vertices 3\n", "DL n=3\nformat"};
    for (int i = 0; i < 6; i++)
        if (ag_safetensors_sniff((const unsigned char *)graphs[i], strlen(graphs[i]))) fail_msg("%s", graphs[i]);
}

/* ---- many names: a header may hold hundreds of thousands; repeats are found by sorting, and each
 * must still be the one a front-to-back scan finds first */

enum { MANY_KEYS = 50000, MANY_TENSORS = 30000 };

/* Writes fpath: the two tensors of good_header and, after the library's three keys, n more:
 * "k%07d" = "v%d" for key i, except that key at[j] takes the name of key as[j] (m of them) and
 * key number_at (-1: none) has the number 1 as its value. */
static void many_keys_file(int64_t n, const int64_t *at, const int64_t *as, int m, int64_t number_at) {
    size_t cap = (size_t)n * 32 + 1, used = 0;
    char *extra = malloc(cap);
    extra[0] = '\0';
    for (int64_t i = 0; i < n; i++) {
        int64_t name = i;
        for (int j = 0; j < m; j++)
            if (at[j] == i) name = as[j];
        if (i == number_at) used += (size_t)snprintf(extra + used, cap - used, ",\"k%07lld\":1", (long long)name);
        else used += (size_t)snprintf(extra + used, cap - used, ",\"k%07lld\":\"v%lld\"", (long long)name, (long long)i);
    }
    char *h = malloc(cap + 512);
    good_header(h, cap + 512, extra);
    make_file(fpath, h, SIX, sizeof SIX);
    free(h);
    free(extra);
}

static void test_many_metadata_keys(void **state) {
    (void)state;
    many_keys_file(MANY_KEYS, NULL, NULL, 0, -1);
    ag_safetensors_t f;
    assert_int_equal(ag_safetensors_read(&f, fpath, AG_SAFETENSORS_STRICT), AG_SUCCESS);
    assert_int_equal(f.n_tensors, 2);
    assert_int_equal(f.metadata.count, MANY_KEYS + 3);
    /* in the order stored */
    assert_string_equal(f.metadata.keys[0], "format");
    assert_string_equal(f.metadata.keys[3], "k0000000");
    assert_string_equal(f.metadata.keys[3 + MANY_KEYS / 2], "k0025000");
    assert_string_equal(f.metadata.values[3 + MANY_KEYS / 2], "v25000");
    assert_string_equal(f.metadata.keys[MANY_KEYS + 2], "k0049999");
    assert_string_equal(ag_metadata_get(&f.metadata, "k0000000"), "v0");
    assert_string_equal(ag_metadata_get(&f.metadata, "k0049999"), "v49999");
    assert_null(ag_metadata_get(&f.metadata, "k0050000"));
    ag_safetensors_destroy(&f);

    /* copied into a list that has keys: one of them replaced in its place, the rest appended in order */
    ag_param_list_t l;
    ag_param_list_init(&l);
    float a[4], b[2];
    assert_int_equal(ag_param_list_add(&l, NULL, "a", 2, 2, 2, a, NULL, 1), AG_SUCCESS);
    assert_int_equal(ag_param_list_add(&l, NULL, "b", 1, 2, 1, b, NULL, 1), AG_SUCCESS);
    ag_metadata_t meta;
    ag_metadata_init(&meta);
    assert_int_equal(ag_metadata_set(&meta, "k0000007", "old"), AG_SUCCESS);
    assert_int_equal(ag_metadata_set(&meta, "mine", "kept"), AG_SUCCESS);
    assert_int_equal(ag_safetensors_read_params(fpath, &l, &meta), AG_SUCCESS);
    assert_memory_equal(a, SIX, sizeof a);
    assert_memory_equal(b, SIX + 4, sizeof b);
    assert_int_equal(meta.count, 2 + 3 + MANY_KEYS - 1);
    assert_string_equal(meta.keys[0], "k0000007");
    assert_string_equal(meta.values[0], "v7");
    assert_string_equal(meta.keys[1], "mine");
    assert_string_equal(meta.values[1], "kept");
    assert_string_equal(meta.keys[2], "format");
    assert_string_equal(meta.keys[5], "k0000000");
    assert_string_equal(meta.keys[5 + 7], "k0000008");
    assert_string_equal(meta.keys[meta.count - 1], "k0049999");
    assert_string_equal(meta.values[meta.count - 1], "v49999");
    ag_metadata_destroy(&meta);
    ag_param_list_destroy(&l);

    /* the first repeat in the file's order is named, not the first in sorted order */
    const int64_t at[2] = {40000, 45000}, as[2] = {30000, 10};
    many_keys_file(MANY_KEYS, at, as, 2, -1);
    expect_model_error(fpath, "metadata 'k0030000' appears twice");
    const int64_t last[1] = {MANY_KEYS - 1}, first[1] = {0};
    many_keys_file(MANY_KEYS, last, first, 1, -1);
    expect_model_error(fpath, "metadata 'k0000000' appears twice");
    /* a repeat and a value that is not a string: the earlier is the error */
    many_keys_file(MANY_KEYS, at, as, 1, 45000);
    expect_model_error(fpath, "metadata 'k0030000' appears twice");
    many_keys_file(MANY_KEYS, at, as, 1, 20000);
    expect_model_error(fpath, "metadata 'k0020000' is a number, not a string");
    /* both at one key: its value is checked first */
    many_keys_file(MANY_KEYS, at, as, 1, 40000);
    expect_model_error(fpath, "metadata 'k0030000' is a number, not a string");
}

static void test_many_tensors(void **state) {
    (void)state;
    ag_tensor_t *ts = calloc(MANY_TENSORS, sizeof *ts);
    char(*names)[16] = calloc(MANY_TENSORS, sizeof *names);
    float *vals = malloc(MANY_TENSORS * sizeof *vals);
    for (int i = 0; i < MANY_TENSORS; i++) {
        snprintf(names[i], sizeof names[i], "t%05d", i);
        vals[i] = (float)i;
        ts[i].name = names[i];
        ts[i].ndim = 1;
        ts[i].shape[0] = 1;
        ts[i].data = &vals[i];
    }
    assert_int_equal(ag_safetensors_write(fpath, ts, MANY_TENSORS, NULL), AG_SUCCESS);
    ag_safetensors_t f;
    assert_int_equal(ag_safetensors_read(&f, fpath, AG_SAFETENSORS_STRICT), AG_SUCCESS);
    assert_int_equal(f.n_tensors, MANY_TENSORS);
    const char *found[3] = {"t00000", "t12345", "t29999"};
    const float want[3] = {0.0f, 12345.0f, 29999.0f};
    for (int i = 0; i < 3; i++) {
        const ag_tensor_t *t = ag_safetensors_find(&f, found[i]);
        assert_non_null(t);
        assert_float_equal(t->data[0], want[i], 0.0f);
    }
    assert_null(ag_safetensors_find(&f, "t30000"));
    assert_null(ag_safetensors_find(&f, "t"));
    ag_safetensors_destroy(&f);
    assert_int_equal(count_entries(dir), 1);

    /* the first repeat in the list's order is named, not the first in sorted order */
    ts[20000].name = names[300];
    ts[25000].name = names[7];
    assert_int_equal(ag_safetensors_write(fpath, ts, MANY_TENSORS, NULL), AG_EINVAL);
    assert_msg_contains("two tensors are named 't00300'");
    ts[20000].name = names[20000];
    assert_int_equal(ag_safetensors_write(fpath, ts, MANY_TENSORS, NULL), AG_EINVAL);
    assert_msg_contains("two tensors are named 't00007'");
    ts[MANY_TENSORS - 1].name = names[0];
    assert_int_equal(ag_safetensors_write(fpath, ts, MANY_TENSORS - 1, NULL), AG_EINVAL);
    assert_msg_contains("two tensors are named 't00007'");
    ts[25000].name = names[25000];
    assert_int_equal(ag_safetensors_write(fpath, ts, MANY_TENSORS, NULL), AG_EINVAL);
    assert_msg_contains("two tensors are named 't00000'");
    /* a repeat and another defect: the earlier is the error */
    ts[29000].ndim = -1;
    assert_int_equal(ag_safetensors_write(fpath, ts, MANY_TENSORS, NULL), AG_EINVAL);
    assert_msg_contains("tensor 't29000' has -1 dimensions (at most 8)");
    ts[15000].name = names[1];
    assert_int_equal(ag_safetensors_write(fpath, ts, MANY_TENSORS, NULL), AG_EINVAL);
    assert_msg_contains("two tensors are named 't00001'");
    ts[10000].name = NULL;
    assert_int_equal(ag_safetensors_write(fpath, ts, MANY_TENSORS, NULL), AG_EINVAL);
    assert_msg_contains("tensor 10000 has no name");
    assert_int_equal(count_entries(dir), 1); /* the good file, untouched */
    free(ts);
    free(names);
    free(vals);
}

/* Parameters matched by name among many: found in whatever order, missing and extra ones named. */
static void test_many_params(void **state) {
    (void)state;
    float *va = malloc(2 * MANY_TENSORS * sizeof *va), *vb = calloc(2 * MANY_TENSORS, sizeof *vb);
    ag_param_list_t a, b;
    ag_param_list_init(&a);
    ag_param_list_init(&b);
    char name[32];
    for (int i = 0; i < MANY_TENSORS; i++) {
        va[2 * i] = (float)i;
        va[2 * i + 1] = -(float)i;
        snprintf(name, sizeof name, "w%05d", i);
        assert_int_equal(ag_param_list_add(&a, "layer", name, 1, 2, 1, &va[2 * i], NULL, 1), AG_SUCCESS);
        /* b holds the same names backwards */
        snprintf(name, sizeof name, "w%05d", MANY_TENSORS - 1 - i);
        assert_int_equal(ag_param_list_add(&b, "layer", name, 1, 2, 1, &vb[2 * i], NULL, 1), AG_SUCCESS);
    }
    assert_int_equal(ag_safetensors_write_params(fpath, &a, NULL), AG_SUCCESS);
    assert_int_equal(ag_safetensors_read_params(fpath, &b, NULL), AG_SUCCESS);
    for (int i = 0; i < MANY_TENSORS; i += 997) {
        assert_float_equal(vb[2 * i], (float)(MANY_TENSORS - 1 - i), 0.0f);
        assert_float_equal(vb[2 * i + 1], -(float)(MANY_TENSORS - 1 - i), 0.0f);
    }
    assert_float_equal(vb[2 * MANY_TENSORS - 2], 0.0f, 0.0f);
    /* two names the file lacks, first and last of the list; then the file's two that b lacks */
    snprintf(b.items[0].name, sizeof b.items[0].name, "layer.first");
    snprintf(b.items[MANY_TENSORS - 1].name, sizeof b.items[0].name, "layer.last");
    assert_int_equal(ag_safetensors_read_params(fpath, &b, NULL), AG_EMODEL);
    assert_msg_contains("2 tensors the model expects are missing from the file: 'layer.first', 'layer.last'");
    b.items[0] = b.items[1];
    b.items[MANY_TENSORS - 1] = b.items[1];
    assert_int_equal(ag_safetensors_read_params(fpath, &b, NULL), AG_EMODEL);
    assert_msg_contains("2 tensors in the file are not in the model: 'layer.w00000', 'layer.w29999'");
    ag_param_list_destroy(&a);
    ag_param_list_destroy(&b);
    free(va);
    free(vb);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc32_known_value),
        cmocka_unit_test_setup_teardown(test_roundtrip_bit_identical, setup, teardown),
        cmocka_unit_test_setup_teardown(test_params_roundtrip_and_mismatches, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncations_and_flips, setup, teardown),
        cmocka_unit_test_setup_teardown(test_every_truncation_and_header_byte, setup, teardown),
        cmocka_unit_test_setup_teardown(test_header_validation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_writes_leave_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_allocation_failures, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_metadata_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_tensors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_params, setup, teardown),
        cmocka_unit_test(test_reads_file_from_independent_writer),
        cmocka_unit_test(test_sniff),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
