/*
 * safetensors.c: writing model files atomically and reading them with full validation.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include "attngraph/safetensors.h"
#include "internal.h"
#include "json.h"
#include "name_index.h"

/* ---------------------------------------------------------------- metadata */

void ag_metadata_init(ag_metadata_t *meta) {
    meta->count = meta->capacity = 0;
    meta->keys = meta->values = NULL;
}

void ag_metadata_destroy(ag_metadata_t *meta) {
    for (int64_t i = 0; i < meta->count; i++) {
        ag_i_free(meta->keys[i]);
        ag_i_free(meta->values[i]);
    }
    ag_i_free(meta->keys);
    ag_i_free(meta->values);
    ag_metadata_init(meta);
}

const char *ag_metadata_get(const ag_metadata_t *meta, const char *key) {
    for (int64_t i = 0; i < meta->count; i++)
        if (!strcmp(meta->keys[i], key)) return meta->values[i];
    return NULL;
}

/* Appends key = value without looking for key: the caller knows that it is new, and a header of
 * many keys must not cost a scan per key. */
static ag_error_t metadata_append(ag_metadata_t *meta, const char *key, const char *value) {
    if (meta->count == meta->capacity) {
        int64_t cap = meta->capacity ? 2 * meta->capacity : 8;
        char **k = ag_i_realloc(meta->keys, (size_t)cap * sizeof *k);
        if (k) meta->keys = k;
        char **vs = k ? ag_i_realloc(meta->values, (size_t)cap * sizeof *vs) : NULL;
        if (vs) meta->values = vs;
        if (!k || !vs) return AG_ERROR(AG_ENOMEM, "out of memory storing metadata '%s'", key);
        meta->capacity = cap;
    }
    char *k = ag_i_strdup(key), *v = k ? ag_i_strdup(value) : NULL;
    if (!v) {
        ag_i_free(k);
        return AG_ERROR(AG_ENOMEM, "out of memory storing metadata '%s'", key);
    }
    meta->keys[meta->count] = k;
    meta->values[meta->count] = v;
    meta->count++;
    return AG_SUCCESS;
}

static ag_error_t metadata_replace(ag_metadata_t *meta, int64_t i, const char *value) {
    char *v = ag_i_strdup(value);
    if (!v) return AG_ERROR(AG_ENOMEM, "out of memory storing metadata '%s'", meta->keys[i]);
    ag_i_free(meta->values[i]);
    meta->values[i] = v;
    return AG_SUCCESS;
}

ag_error_t ag_metadata_set(ag_metadata_t *meta, const char *key, const char *value) {
    if (!key || !value) return AG_ERROR(AG_EINVAL, "metadata: NULL key or value");
    for (int64_t i = 0; i < meta->count; i++)
        if (!strcmp(meta->keys[i], key)) return metadata_replace(meta, i, value);
    return metadata_append(meta, key, value);
}

ag_error_t ag_i_metadata_merge(ag_metadata_t *dst, const ag_metadata_t *src) {
    if (!src || src->count == 0) return AG_SUCCESS;
    ag_i_name_index_t have, add;
    AG_CHECK(ag_i_name_index_build(&have, dst->count ? &dst->keys[0] : NULL, sizeof *dst->keys, dst->count,
                                   "metadata index", NULL));
    ag_error_t rc = ag_i_name_index_build(&add, &src->keys[0], sizeof *src->keys, src->count, "metadata index", NULL);
    if (rc != AG_SUCCESS) {
        ag_i_name_index_destroy(&have);
        return rc;
    }
    /* ag_metadata_set key by key, in one pass: a key takes its first place in src and its last value */
    int64_t *last; /* (src->count) at a key's first position in src: the position of its last value; else -1 */
    rc = ag_i_alloc_array((void **)&last, src->count, sizeof *last, "metadata index");
    for (int64_t i = 0, j; rc == AG_SUCCESS && i < src->count; i = j) {
        for (j = i + 1; j < src->count && !strcmp(add.items[i].name, add.items[j].name); j++) last[add.items[j].pos] = -1;
        last[add.items[i].pos] = add.items[j - 1].pos;
    }
    for (int64_t i = 0; rc == AG_SUCCESS && i < src->count; i++) {
        if (last[i] < 0) continue;
        const int64_t at = ag_i_name_index_find(&have, src->keys[i]);
        rc = at >= 0 ? metadata_replace(dst, at, src->values[last[i]])
                     : metadata_append(dst, src->keys[i], src->values[last[i]]);
    }
    ag_i_free(last);
    ag_i_name_index_destroy(&add);
    ag_i_name_index_destroy(&have);
    return rc;
}

/* ---------------------------------------------------------------- helpers */

uint32_t ag_crc32_update(uint32_t crc, const void *data, size_t n) {
    /* the table is rebuilt per call (256 x 8 steps): cheap next to any file, and no global state */
    uint32_t table[256];
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        table[i] = c;
    }
    const unsigned char *p = data;
    crc = ~crc;
    for (size_t i = 0; i < n; i++) crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

/* 1 if s[0..n) is well-formed UTF-8: JSON text must be, and Python's reader decodes the header
 * strictly. */
static int utf8_valid(const unsigned char *s, size_t n) {
    for (size_t i = 0, len; i < n; i += len)
        if ((len = ag_utf8_sequence((const char *)s + i, n - i)) == 0) return 0;
    return 1;
}

static int utf8_valid_str(const char *s) { return ag_utf8_valid(s, NULL); }

static void put_le64(unsigned char *b, uint64_t v) {
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le64(const unsigned char *b) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)b[i] << (8 * i);
    return v;
}

/* Little-endian float32 bytes, independent of the host's byte order. */
static void floats_to_le(const float *src, int64_t n, unsigned char *dst) {
    for (int64_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &src[i], 4);
        dst[4 * i] = (unsigned char)u;
        dst[4 * i + 1] = (unsigned char)(u >> 8);
        dst[4 * i + 2] = (unsigned char)(u >> 16);
        dst[4 * i + 3] = (unsigned char)(u >> 24);
    }
}

static void le_to_floats(const unsigned char *src, int64_t n, float *dst) {
    for (int64_t i = 0; i < n; i++) {
        uint32_t u = (uint32_t)src[4 * i] | (uint32_t)src[4 * i + 1] << 8 | (uint32_t)src[4 * i + 2] << 16 |
                     (uint32_t)src[4 * i + 3] << 24;
        memcpy(&dst[i], &u, 4);
    }
}

/* "[64, 32]" into buf. */
static const char *shape_str(char *buf, size_t size, int ndim, const int64_t *shape) {
    size_t used = (size_t)snprintf(buf, size, "[");
    for (int d = 0; d < ndim && used < size; d++)
        used += (size_t)snprintf(buf + used, size - used, "%s%lld", d ? ", " : "", (long long)shape[d]);
    if (used < size) snprintf(buf + used, size - used, "]");
    return buf;
}

static int is_reserved_key(const char *key) {
    return !strcmp(key, "format") || !strcmp(key, "format_version") || !strcmp(key, "crc32");
}

/* ---------------------------------------------------------------- writing */

/* Tensor i's own checks; *total gathers the byte sizes. */
static ag_error_t check_tensor(const char *path, const ag_tensor_t *t, int64_t i, int64_t *total) {
    if (!t->name || !t->name[0]) return AG_ERROR(AG_EINVAL, "%s: tensor %lld has no name", path, (long long)i);
    if (!utf8_valid_str(t->name))
        return AG_ERROR(AG_EINVAL, "%s: the name of tensor %lld is not valid UTF-8", path, (long long)i);
    if (!strcmp(t->name, "__metadata__"))
        return AG_ERROR(AG_EINVAL, "%s: a tensor cannot be named '__metadata__'", path);
    if (t->ndim < 0 || t->ndim > AG_TENSOR_MAX_DIMS)
        return AG_ERROR(AG_EINVAL, "%s: tensor '%s' has %d dimensions (at most %d)", path, t->name, t->ndim,
                        AG_TENSOR_MAX_DIMS);
    int64_t numel = 1;
    for (int d = 0; d < t->ndim; d++) {
        if (t->shape[d] < 0) return AG_ERROR(AG_EINVAL, "%s: tensor '%s' has a negative dimension", path, t->name);
        if (ag_i_mul_overflow(numel, t->shape[d], &numel))
            return AG_ERROR(AG_ELIMIT, "%s: the size of tensor '%s' overflows", path, t->name);
    }
    if (numel > 0 && !t->data) return AG_ERROR(AG_EINVAL, "%s: tensor '%s' has no data", path, t->name);
    if (numel > (INT64_MAX - *total) / 4) return AG_ERROR(AG_ELIMIT, "%s: the total size of the tensors overflows", path);
    *total += 4 * numel;
    return AG_SUCCESS;
}

static ag_error_t check_tensors(const char *path, const ag_tensor_t *tensors, int64_t count, int64_t *nbytes) {
    int64_t total = 0, good = 0;
    ag_error_t rc = AG_SUCCESS;
    while (good < count && (rc = check_tensor(path, &tensors[good], good, &total)) == AG_SUCCESS) good++;
    /* the tensors are checked in order, so a name repeated before the first defect is the error */
    int64_t repeat;
    AG_CHECK(ag_i_first_repeat(good ? &tensors[0].name : NULL, sizeof *tensors, good, &repeat));
    if (repeat >= 0) return AG_ERROR(AG_EINVAL, "%s: two tensors are named '%s'", path, tensors[repeat].name);
    *nbytes = total;
    return rc;
}

static int64_t numel_of(const ag_tensor_t *t) {
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++) n *= t->shape[d];
    return n;
}

/* Builds the padded JSON header. */
static ag_error_t build_header(const char *path, const ag_tensor_t *tensors, int64_t count, const ag_metadata_t *meta,
                               uint32_t crc, ag_strbuf_t *sb) {
    char crc_hex[9];
    snprintf(crc_hex, sizeof crc_hex, "%08x", (unsigned)crc);
    ag_strbuf_append(sb, "{\"__metadata__\":{\"format\":", 26);
    ag_strbuf_json_string(sb, AG_MODEL_FORMAT_NAME);
    ag_strbuf_printf(sb, ",\"format_version\":\"%d\",\"crc32\":\"%s\"", AG_MODEL_FORMAT_VERSION, crc_hex);
    for (int64_t i = 0; meta && i < meta->count; i++) {
        if (is_reserved_key(meta->keys[i])) continue; /* e.g. metadata of a file read earlier */
        ag_strbuf_append(sb, ",", 1);
        ag_strbuf_json_string(sb, meta->keys[i]);
        ag_strbuf_append(sb, ":", 1);
        ag_strbuf_json_string(sb, meta->values[i]);
    }
    ag_strbuf_append(sb, "}", 1);
    int64_t offset = 0;
    for (int64_t i = 0; i < count; i++) {
        const ag_tensor_t *t = &tensors[i];
        ag_strbuf_append(sb, ",", 1);
        ag_strbuf_json_string(sb, t->name);
        ag_strbuf_append(sb, ":{\"dtype\":\"F32\",\"shape\":[", 25);
        for (int d = 0; d < t->ndim; d++) ag_strbuf_printf(sb, "%s%lld", d ? "," : "", (long long)t->shape[d]);
        int64_t end = offset + 4 * numel_of(t);
        ag_strbuf_printf(sb, "],\"data_offsets\":[%lld,%lld]}", (long long)offset, (long long)end);
        offset = end;
    }
    ag_strbuf_append(sb, "}", 1);
    /* spaces up to a multiple of 8, so that the tensor bytes start 8-aligned */
    while (!sb->failed && sb->len % 8 != 0) ag_strbuf_append(sb, " ", 1);
    if (sb->failed) return AG_ERROR(AG_ENOMEM, "%s: out of memory building the header", path);
    return AG_SUCCESS;
}

static ag_error_t write_all(FILE *f, const void *buf, size_t n, const char *tmp) {
    if (n && fwrite(buf, 1, n, f) != n)
        return AG_ERROR(AG_EFILE, "%s: cannot write: %s", tmp, strerror(errno ? errno : EIO));
    return AG_SUCCESS;
}

/* Writes the whole file body to f. */
static ag_error_t write_body(FILE *f, const char *tmp, const ag_strbuf_t *header, const ag_tensor_t *tensors,
                             int64_t count, unsigned char *chunk, int64_t chunk_floats) {
    unsigned char len8[8];
    put_le64(len8, (uint64_t)header->len);
    AG_CHECK(write_all(f, len8, 8, tmp));
    AG_CHECK(write_all(f, header->data, header->len, tmp));
    for (int64_t i = 0; i < count; i++) {
        int64_t n = numel_of(&tensors[i]);
        for (int64_t k = 0; k < n; k += chunk_floats) {
            int64_t m = n - k < chunk_floats ? n - k : chunk_floats;
            floats_to_le(tensors[i].data + k, m, chunk);
            AG_CHECK(write_all(f, chunk, (size_t)(4 * m), tmp));
        }
    }
    if (fflush(f) != 0) return AG_ERROR(AG_EFILE, "%s: cannot write: %s", tmp, strerror(errno));
    if (fsync(fileno(f)) != 0) return AG_ERROR(AG_EFILE, "%s: cannot sync to disk: %s", tmp, strerror(errno));
    return AG_SUCCESS;
}

/* The CRC-32 of the tensors' little-endian bytes, in order, converted chunk by chunk through
 * chunk (4 x chunk_floats bytes). */
static uint32_t crc_of_tensors(const ag_tensor_t *tensors, int64_t count, unsigned char *chunk, int64_t chunk_floats) {
    uint32_t crc = 0;
    for (int64_t i = 0; i < count; i++) {
        int64_t n = numel_of(&tensors[i]);
        for (int64_t k = 0; k < n; k += chunk_floats) {
            int64_t m = n - k < chunk_floats ? n - k : chunk_floats;
            floats_to_le(tensors[i].data + k, m, chunk);
            crc = ag_crc32_update(crc, chunk, (size_t)(4 * m));
        }
    }
    return crc;
}

/* Makes the rename durable; best effort, as some file systems cannot sync a directory. */
static void sync_dir_of(const char *path) {
    char *dir = ag_i_strdup(path);
    if (!dir) return;
    char *slash = strrchr(dir, '/');
    const char *d = ".";
    if (slash) {
        if (slash == dir) slash[1] = '\0';
        else *slash = '\0';
        d = dir;
    }
    int fd = open(d, O_RDONLY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    ag_i_free(dir);
}

ag_error_t ag_safetensors_write(const char *path, const ag_tensor_t *tensors, int64_t count,
                                const ag_metadata_t *meta) {
    if (!path || !path[0]) return AG_ERROR(AG_EINVAL, "model file: no path given");
    if (count < 0 || (count > 0 && !tensors))
        return AG_ERROR(AG_EINVAL, "%s: invalid tensor list (%lld tensors)", path, (long long)count);
    int64_t nbytes;
    AG_CHECK(check_tensors(path, tensors, count, &nbytes));
    for (int64_t i = 0; meta && i < meta->count; i++) {
        if (!utf8_valid_str(meta->keys[i]))
            return AG_ERROR(AG_EINVAL, "%s: metadata key %lld is not valid UTF-8", path, (long long)i);
        if (!utf8_valid_str(meta->values[i]))
            return AG_ERROR(AG_EINVAL, "%s: the value of metadata key '%s' is not valid UTF-8", path, meta->keys[i]);
    }

    enum { CHUNK = 16384 };
    unsigned char *chunk; /* (4 x CHUNK) little-endian staging */
    AG_CHECK(ag_i_alloc_array((void **)&chunk, 4 * CHUNK, 1, "model file write buffer"));
    const uint32_t crc = crc_of_tensors(tensors, count, chunk, CHUNK);
    ag_strbuf_t header;
    ag_strbuf_init(&header);
    ag_error_t rc = build_header(path, tensors, count, meta, crc, &header);
    if (rc != AG_SUCCESS) {
        ag_strbuf_destroy(&header);
        ag_i_free(chunk);
        return rc;
    }

    /* a symbolic link is written through (it stays a link, as with a shell's `>`); a directory, a
     * device or a FIFO is refused, since the file renamed over it would replace it */
    struct stat st;
    char *real = NULL;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && !(real = realpath(path, NULL))) {
        rc = AG_ERROR(AG_EFILE, "%s: a symbolic link that cannot be followed: %s", path, strerror(errno));
    }
    const char *target = real ? real : path;
    const int exists = rc == AG_SUCCESS && stat(target, &st) == 0;
    if (exists && !S_ISREG(st.st_mode))
        rc = AG_ERROR(AG_EFILE, "%s: it is %s, which the model file, written beside it and renamed, would replace",
                      path, S_ISDIR(st.st_mode) ? "a directory" : "not a regular file (a device or a FIFO)");
    if (rc != AG_SUCCESS) {
        free(real);
        ag_strbuf_destroy(&header);
        ag_i_free(chunk);
        return rc;
    }

    /* a unique temporary name beside the destination, so that rename() stays in one file system */
    static int64_t serial = 0;
    int64_t my_serial;
#pragma omp atomic capture
    my_serial = ++serial;
    size_t tlen = strlen(target) + 64;
    char *tmp = ag_i_malloc(tlen);
    if (!tmp) {
        free(real);
        ag_strbuf_destroy(&header);
        ag_i_free(chunk);
        return AG_ERROR(AG_ENOMEM, "%s: out of memory", path);
    }
    snprintf(tmp, tlen, "%s.tmp.%ld.%lld", target, (long)getpid(), (long long)my_serial);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    /* a file replaced keeps its permissions */
    if (fd >= 0 && exists) (void)fchmod(fd, st.st_mode & 07777);
    if (fd < 0) {
        rc = AG_ERROR(AG_EFILE, "%s: cannot create a temporary file beside it (%s): %s", path, tmp, strerror(errno));
    } else {
        FILE *f = fdopen(fd, "wb");
        if (!f) {
            rc = AG_ERROR(AG_EFILE, "%s: cannot write: %s", tmp, strerror(errno));
            close(fd);
        } else {
            rc = write_body(f, tmp, &header, tensors, count, chunk, CHUNK);
            if (fclose(f) != 0 && rc == AG_SUCCESS)
                rc = AG_ERROR(AG_EFILE, "%s: cannot close: %s", tmp, strerror(errno));
        }
        if (rc == AG_SUCCESS && rename(tmp, target) != 0)
            rc = AG_ERROR(AG_EFILE, "%s: cannot rename %s over it: %s", path, tmp, strerror(errno));
        if (rc != AG_SUCCESS) unlink(tmp);
        else sync_dir_of(target);
    }
    (void)nbytes;
    free(real);
    ag_i_free(tmp);
    ag_strbuf_destroy(&header);
    ag_i_free(chunk);
    return rc;
}

ag_error_t ag_safetensors_write_params(const char *path, const ag_param_list_t *params,
                                       const ag_metadata_t *meta) {
    if (!params) return AG_ERROR(AG_EINVAL, "ag_safetensors_write_params: NULL parameter list");
    ag_tensor_t *ts;
    AG_CHECK(ag_i_alloc_array((void **)&ts, params->count, sizeof *ts, "tensor list"));
    for (int64_t i = 0; i < params->count; i++) {
        const ag_param_t *p = &params->items[i];
        ts[i].name = p->name;
        ts[i].ndim = p->ndim;
        ts[i].shape[0] = p->shape[0];
        ts[i].shape[1] = p->shape[1];
        ts[i].data = p->value;
    }
    ag_error_t rc = ag_safetensors_write(path, ts, params->count, meta);
    ag_i_free(ts);
    return rc;
}

/* ---------------------------------------------------------------- reading */

void ag_safetensors_destroy(ag_safetensors_t *file) {
    for (int64_t i = 0; file->tensors && i < file->n_tensors; i++) ag_i_free((void *)file->tensors[i].name);
    ag_i_free(file->tensors);
    ag_i_free(file->data_);
    ag_i_free(file->path);
    ag_metadata_destroy(&file->metadata);
    memset(file, 0, sizeof *file);
    ag_metadata_init(&file->metadata);
}

ag_error_t ag_i_tensor_index(ag_i_name_index_t *ix, const ag_safetensors_t *file) {
    return ag_i_name_index_build(ix, file->n_tensors ? &file->tensors[0].name : NULL, sizeof *file->tensors,
                                 file->n_tensors, "tensor index", NULL);
}

const ag_tensor_t *ag_safetensors_find(const ag_safetensors_t *file, const char *name) {
    for (int64_t i = 0; i < file->n_tensors; i++)
        if (!strcmp(file->tensors[i].name, name)) return &file->tensors[i];
    return NULL;
}

static const char *json_type_name(ag_json_type_t t) {
    static const char *const names[] = {"null", "a boolean", "a number", "a string", "an array", "an object"};
    return (int)t >= 0 && t <= AG_JSON_OBJECT ? names[t] : "value";
}

/* A JSON number that is an exact non-negative integer usable as a size. */
static int json_size(const ag_json_t *v, int64_t *out) {
    if (!v || v->type != AG_JSON_NUMBER || !isfinite(v->number) || v->number < 0 || v->number > 9007199254740992.0 ||
        floor(v->number) != v->number)
        return 0;
    *out = (int64_t)v->number;
    return 1;
}

typedef struct entry_t {
    const char *name; /* in the parsed JSON */
    int ndim;
    int64_t shape[AG_TENSOR_MAX_DIMS];
    int64_t begin, end;
} entry_t;

static ag_error_t parse_entry(const char *path, const char *name, const ag_json_t *v, entry_t *e) {
    if (v->type != AG_JSON_OBJECT)
        return AG_ERROR(AG_EMODEL, "%s: header field '%s' is %s, not a tensor object", path, name,
                        json_type_name(v->type));
    const ag_json_t *dtype = NULL, *shape = NULL, *offsets = NULL;
    for (int64_t k = 0; k < v->count; k++) {
        const ag_json_t **slot = !strcmp(v->keys[k], "dtype") ? &dtype
                                 : !strcmp(v->keys[k], "shape") ? &shape
                                 : !strcmp(v->keys[k], "data_offsets") ? &offsets : NULL;
        if (!slot) return AG_ERROR(AG_EMODEL, "%s: tensor '%s' has an unknown field '%s'", path, name, v->keys[k]);
        if (*slot) return AG_ERROR(AG_EMODEL, "%s: tensor '%s' has field '%s' twice", path, name, v->keys[k]);
        *slot = &v->items[k];
    }
    if (!dtype || !shape || !offsets)
        return AG_ERROR(AG_EMODEL, "%s: tensor '%s' lacks its '%s'", path, name,
                        !dtype ? "dtype" : !shape ? "shape" : "data_offsets");
    if (dtype->type != AG_JSON_STRING)
        return AG_ERROR(AG_EMODEL, "%s: tensor '%s' has a dtype that is not a string", path, name);
    if (strcmp(dtype->string, "F32") != 0)
        return AG_ERROR(AG_EMODEL, "%s: tensor '%s' has dtype %s; attn-graph reads only F32", path, name, dtype->string);
    if (shape->type != AG_JSON_ARRAY)
        return AG_ERROR(AG_EMODEL, "%s: tensor '%s' has a shape that is not an array", path, name);
    if (shape->count > AG_TENSOR_MAX_DIMS)
        return AG_ERROR(AG_EMODEL, "%s: tensor '%s' has %lld dimensions (at most %d)", path, name,
                        (long long)shape->count, AG_TENSOR_MAX_DIMS);
    e->name = name;
    e->ndim = (int)shape->count;
    int64_t numel = 1;
    for (int d = 0; d < e->ndim; d++) {
        if (!json_size(&shape->items[d], &e->shape[d]))
            return AG_ERROR(AG_EMODEL, "%s: tensor '%s' has an invalid shape (dimension %d is not a non-negative integer)",
                            path, name, d);
        if (ag_i_mul_overflow(numel, e->shape[d], &numel) || numel > INT64_MAX / 4)
            return AG_ERROR(AG_EMODEL, "%s: tensor '%s' has a shape whose size overflows", path, name);
    }
    if (offsets->type != AG_JSON_ARRAY || offsets->count != 2 || !json_size(&offsets->items[0], &e->begin) ||
        !json_size(&offsets->items[1], &e->end))
        return AG_ERROR(AG_EMODEL, "%s: tensor '%s' has invalid data_offsets (expected [begin, end], non-negative integers)",
                        path, name);
    if (e->end < e->begin)
        return AG_ERROR(AG_EMODEL, "%s: tensor '%s' has data_offsets [%lld, %lld] that end before they begin", path,
                        name, (long long)e->begin, (long long)e->end);
    if (e->end - e->begin != 4 * numel) {
        char sbuf[160];
        return AG_ERROR(AG_EMODEL, "%s: tensor '%s' of shape %s needs %lld bytes, but its data_offsets [%lld, %lld] span %lld",
                        path, name, shape_str(sbuf, sizeof sbuf, e->ndim, e->shape), (long long)(4 * numel),
                        (long long)e->begin, (long long)e->end, (long long)(e->end - e->begin));
    }
    return AG_SUCCESS;
}

static int cmp_entry_offset(const void *a, const void *b) {
    const entry_t *x = a, *y = b;
    if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int cmp_str_ptr(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* Reads the whole file into memory. */
static ag_error_t slurp(const char *path, unsigned char **out, int64_t *size) {
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return AG_ERROR(AG_EFILE, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return AG_ERROR(AG_EFILE, "%s: not a regular file", path);
    }
    int64_t n = (int64_t)st.st_size;
    unsigned char *buf;
    ag_error_t rc = ag_i_alloc_array((void **)&buf, n, 1, "model file");
    if (rc != AG_SUCCESS) {
        fclose(f);
        return rc;
    }
    size_t got = n ? fread(buf, 1, (size_t)n, f) : 0;
    int failed = ferror(f);
    fclose(f);
    if (failed || got != (size_t)n) {
        ag_i_free(buf);
        return AG_ERROR(AG_EFILE, "%s: read error", path);
    }
    *out = buf;
    *size = n;
    return AG_SUCCESS;
}

/* Everything after the file is in memory and the JSON parsed. */
static ag_error_t read_parsed(ag_safetensors_t *file, const char *path, int flags, const ag_json_t *root,
                              const unsigned char *data, int64_t data_len) {
    if (root->type != AG_JSON_OBJECT)
        return AG_ERROR(AG_EMODEL, "%s: the header is %s, not a JSON object", path, json_type_name(root->type));
    const ag_json_t *meta = NULL;
    int64_t n_tensors = 0;
    for (int64_t i = 0; i < root->count; i++) {
        if (strcmp(root->keys[i], "__metadata__") != 0) {
            n_tensors++;
            continue;
        }
        if (meta) return AG_ERROR(AG_EMODEL, "%s: the header has '__metadata__' twice", path);
        meta = &root->items[i];
        if (meta->type != AG_JSON_OBJECT)
            return AG_ERROR(AG_EMODEL, "%s: '__metadata__' is %s, not an object", path, json_type_name(meta->type));
        int64_t strings = 0, repeat;
        while (strings < meta->count && meta->items[strings].type == AG_JSON_STRING) strings++;
        /* the keys are checked in order: a key repeated before the first value that is no string is the error */
        AG_CHECK(ag_i_first_repeat(strings ? &meta->keys[0] : NULL, sizeof *meta->keys, strings, &repeat));
        if (repeat >= 0) return AG_ERROR(AG_EMODEL, "%s: metadata '%s' appears twice", path, meta->keys[repeat]);
        if (strings < meta->count)
            return AG_ERROR(AG_EMODEL, "%s: metadata '%s' is %s, not a string", path, meta->keys[strings],
                            json_type_name(meta->items[strings].type));
        for (int64_t k = 0; k < meta->count; k++)
            AG_CHECK(metadata_append(&file->metadata, meta->keys[k], meta->items[k].string));
    }

    entry_t *entries; /* (n_tensors) */
    AG_CHECK(ag_i_alloc_array((void **)&entries, n_tensors, sizeof *entries, "tensor table"));
    const char **names; /* (n_tensors) for the duplicate check */
    ag_error_t rc = ag_i_alloc_array((void **)&names, n_tensors, sizeof *names, "tensor table");
    if (rc != AG_SUCCESS) {
        ag_i_free(entries);
        return rc;
    }
    int64_t t = 0;
    for (int64_t i = 0; i < root->count && rc == AG_SUCCESS; i++) {
        if (!strcmp(root->keys[i], "__metadata__")) continue;
        rc = parse_entry(path, root->keys[i], &root->items[i], &entries[t]);
        names[t] = root->keys[i];
        t++;
    }
    if (rc == AG_SUCCESS && n_tensors > 1) {
        qsort(names, (size_t)n_tensors, sizeof *names, cmp_str_ptr);
        for (int64_t i = 1; i < n_tensors && rc == AG_SUCCESS; i++)
            if (!strcmp(names[i - 1], names[i]))
                rc = AG_ERROR(AG_EMODEL, "%s: tensor '%s' appears twice in the header", path, names[i]);
    }
    ag_i_free(names);
    if (rc == AG_SUCCESS && n_tensors > 1) qsort(entries, (size_t)n_tensors, sizeof *entries, cmp_entry_offset);
    /* tensors must tile the data exactly: first at 0, each where the previous ends, last at the end */
    int64_t expect = 0;
    for (int64_t i = 0; i < n_tensors && rc == AG_SUCCESS; i++) {
        const entry_t *e = &entries[i];
        if (e->begin > expect)
            rc = AG_ERROR(AG_EMODEL, "%s: a gap of %lld bytes precedes tensor '%s' (data_offsets [%lld, %lld])", path,
                          (long long)(e->begin - expect), e->name, (long long)e->begin, (long long)e->end);
        else if (e->begin < expect)
            rc = AG_ERROR(AG_EMODEL, "%s: tensor '%s' (data_offsets [%lld, %lld]) overlaps tensor '%s'", path, e->name,
                          (long long)e->begin, (long long)e->end, entries[i - 1].name);
        expect = e->end;
    }
    if (rc == AG_SUCCESS && expect > data_len)
        rc = AG_ERROR(AG_EMODEL, "%s: truncated: the tensors need %lld bytes of data, the file holds %lld", path,
                      (long long)expect, (long long)data_len);
    if (rc == AG_SUCCESS && expect < data_len)
        rc = AG_ERROR(AG_EMODEL, "%s: %lld trailing bytes after the last tensor", path, (long long)(data_len - expect));
    if (rc != AG_SUCCESS) {
        ag_i_free(entries);
        return rc;
    }

    /* format, version and checksum */
    const char *format = ag_metadata_get(&file->metadata, "format");
    const char *version = ag_metadata_get(&file->metadata, "format_version");
    const char *crc_text = ag_metadata_get(&file->metadata, "crc32");
    file->foreign = !format || strcmp(format, AG_MODEL_FORMAT_NAME) != 0;
    if (file->foreign && !(flags & AG_SAFETENSORS_ALLOW_FOREIGN)) {
        if (format)
            rc = AG_ERROR(AG_EMODEL, "%s: not an attn-graph model file (its metadata says format '%s')", path, format);
        else
            rc = AG_ERROR(AG_EMODEL, "%s: not an attn-graph model file (no \"format\": \"attn-graph\" in its metadata)", path);
    }
    if (rc == AG_SUCCESS && !file->foreign) {
        const char *c = version;
        long v = 0;
        int ok = c && *c && strlen(c) <= 9;
        for (; ok && *c; c++) {
            if (*c < '0' || *c > '9') ok = 0;
            else v = v * 10 + (*c - '0');
        }
        if (!version)
            rc = AG_ERROR(AG_EMODEL, "%s: the metadata has no format_version", path);
        else if (!ok || v < 1)
            rc = AG_ERROR(AG_EMODEL, "%s: invalid format_version '%s'", path, version);
        else if (v > AG_MODEL_FORMAT_VERSION)
            rc = AG_ERROR(AG_EMODEL, "%s: written by a newer attn-graph (format version %ld), this one reads version %d",
                          path, v, AG_MODEL_FORMAT_VERSION);
        else if (!crc_text)
            rc = AG_ERROR(AG_EMODEL, "%s: the metadata has no crc32", path);
    }
    if (rc == AG_SUCCESS && crc_text) {
        int ok = strlen(crc_text) == 8;
        for (const char *c = crc_text; ok && *c; c++)
            ok = (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f') || (*c >= 'A' && *c <= 'F');
        uint32_t actual = ag_crc32_update(0, data, (size_t)data_len);
        if (!ok)
            rc = AG_ERROR(AG_EMODEL, "%s: invalid crc32 '%s' (expected 8 hex digits)", path, crc_text);
        else if ((uint32_t)strtoul(crc_text, NULL, 16) != actual)
            rc = AG_ERROR(AG_EMODEL, "%s: checksum mismatch: the tensor data has CRC-32 %08x, the header says %s "
                          "(the file is corrupted)", path, (unsigned)actual, crc_text);
    }

    /* all checks passed: build the tensors */
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&file->tensors, n_tensors, sizeof *file->tensors, "tensor table");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&file->data_, data_len / 4, sizeof(float), "tensor data");
    for (int64_t i = 0; i < n_tensors && rc == AG_SUCCESS; i++) {
        const entry_t *e = &entries[i];
        ag_tensor_t *ts = &file->tensors[i];
        char *nm = ag_i_strdup(e->name);
        if (!nm) {
            rc = AG_ERROR(AG_ENOMEM, "%s: out of memory", path);
            break;
        }
        ts->name = nm;
        file->n_tensors = i + 1;
        ts->ndim = e->ndim;
        memcpy(ts->shape, e->shape, sizeof ts->shape);
        float *dst = file->data_ + e->begin / 4;
        le_to_floats(data + e->begin, (e->end - e->begin) / 4, dst);
        ts->data = dst;
    }
    ag_i_free(entries);
    return rc;
}

int ag_safetensors_sniff(const unsigned char *head, size_t n) {
    if (!head || n < 9) return 0;
    uint64_t hlen = get_le64(head);
    return hlen >= 2 && hlen <= AG_SAFETENSORS_MAX_HEADER && head[8] == '{';
}

ag_error_t ag_safetensors_read(ag_safetensors_t *file, const char *path, int flags) {
    if (!file || !path) return AG_ERROR(AG_EINVAL, "safetensors: NULL file or path");
    memset(file, 0, sizeof *file);
    ag_metadata_init(&file->metadata);
    /* as ag_safetensors_write() says it: open("")'s error alone made ": cannot open: No such file
     * or directory", a message that names nothing */
    if (!path[0]) return AG_ERROR(AG_EINVAL, "model file: no path given");
    unsigned char *buf = NULL;
    int64_t size = 0;
    AG_CHECK(slurp(path, &buf, &size));
    ag_error_t rc = AG_SUCCESS;
    uint64_t hlen = 0;
    if (size < 8)
        rc = AG_ERROR(AG_EMODEL, "%s: file too short (%lld bytes; a safetensors file starts with an 8-byte header length)",
                      path, (long long)size);
    if (rc == AG_SUCCESS) {
        hlen = get_le64(buf);
        if (hlen > AG_SAFETENSORS_MAX_HEADER)
            rc = AG_ERROR(AG_EMODEL, "%s: header length %llu is absurd (more than %d bytes); not a safetensors file?",
                          path, (unsigned long long)hlen, AG_SAFETENSORS_MAX_HEADER);
        else if (hlen > (uint64_t)(size - 8))
            rc = AG_ERROR(AG_EMODEL, "%s: header length %llu runs past the end of the file (%lld bytes): truncated?", path,
                          (unsigned long long)hlen, (long long)size);
        else if (hlen < 2 || buf[8] != '{')
            rc = AG_ERROR(AG_EMODEL, "%s: the header does not start with a JSON object", path);
        else if (!utf8_valid(buf + 8, (size_t)hlen))
            rc = AG_ERROR(AG_EMODEL, "%s: the header is not valid UTF-8", path);
    }
    ag_json_t *root = NULL;
    if (rc == AG_SUCCESS) {
        rc = ag_json_parse((const char *)buf + 8, (size_t)hlen, "header", &root);
        if (rc == AG_EPARSE) {
            char why[512];
            snprintf(why, sizeof why, "%s", ag_error_message());
            rc = AG_ERROR(AG_EMODEL, "%s: malformed JSON in the header: %s", path, why);
        }
    }
    if (rc == AG_SUCCESS) {
        file->path = ag_i_strdup(path);
        if (!file->path) rc = AG_ERROR(AG_ENOMEM, "%s: out of memory", path);
    }
    if (rc == AG_SUCCESS)
        rc = read_parsed(file, path, flags, root, buf + 8 + hlen, size - 8 - (int64_t)hlen);
    ag_json_free(root);
    ag_i_free(buf);
    if (rc != AG_SUCCESS) ag_safetensors_destroy(file);
    return rc;
}

/* ag_safetensors_to_params's checks, with the file's and the list's names indexed. */
static ag_error_t match_params(const ag_safetensors_t *file, const ag_i_name_index_t *in_file,
                               const ag_param_list_t *params, const ag_i_name_index_t *in_list) {
    const char *path = file->path ? file->path : "model file";
    /* names missing from the file, then names the model lacks, then shapes: all before copying */
    char list[640];
    int64_t missing = 0, extra = 0;
    size_t used = 0;
    list[0] = '\0';
    for (int64_t i = 0; i < params->count; i++) {
        if (ag_i_name_index_find(in_file, params->items[i].name) >= 0) continue;
        if (missing++ < 5 && used < sizeof list)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s'%s'", missing > 1 ? ", " : "",
                                     params->items[i].name);
    }
    if (missing)
        return AG_ERROR(AG_EMODEL, "%s: %lld tensor%s the model expects %s missing from the file: %s%s", path,
                        (long long)missing, missing > 1 ? "s" : "", missing > 1 ? "are" : "is", list,
                        missing > 5 ? ", ..." : "");
    used = 0;
    for (int64_t i = 0; i < file->n_tensors; i++) {
        if (ag_i_name_index_find(in_list, file->tensors[i].name) >= 0) continue;
        if (extra++ < 5 && used < sizeof list)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s'%s'", extra > 1 ? ", " : "",
                                     file->tensors[i].name);
    }
    if (extra)
        return AG_ERROR(AG_EMODEL, "%s: %lld tensor%s in the file %s not in the model: %s%s", path, (long long)extra,
                        extra > 1 ? "s" : "", extra > 1 ? "are" : "is", list, extra > 5 ? ", ..." : "");
    for (int64_t i = 0; i < params->count; i++) {
        const ag_param_t *p = &params->items[i];
        const ag_tensor_t *t = &file->tensors[ag_i_name_index_find(in_file, p->name)];
        int same = t->ndim == p->ndim && t->shape[0] == p->shape[0] && (p->ndim == 1 || t->shape[1] == p->shape[1]);
        if (!same) {
            char a[160], b[64];
            return AG_ERROR(AG_EMODEL, "%s: tensor '%s' has shape %s in the file, the model expects %s", path, p->name,
                            shape_str(a, sizeof a, t->ndim, t->shape), shape_str(b, sizeof b, p->ndim, p->shape));
        }
    }
    return AG_SUCCESS;
}

ag_error_t ag_safetensors_to_params(const ag_safetensors_t *file, const ag_param_list_t *params) {
    if (!file || !params) return AG_ERROR(AG_EINVAL, "ag_safetensors_to_params: NULL file or parameter list");
    /* an ensemble of 256 members holds tens of thousands of tensors: looked up by a scan each, they
     * took O(T^2) */
    ag_i_name_index_t in_file, in_list;
    AG_CHECK(ag_i_tensor_index(&in_file, file));
    ag_error_t rc = ag_i_name_index_init(&in_list, params->count, "parameter index");
    if (rc != AG_SUCCESS) {
        ag_i_name_index_destroy(&in_file);
        return rc;
    }
    for (int64_t i = 0; i < params->count; i++) ag_i_name_index_put(&in_list, i, params->items[i].name);
    ag_i_name_index_sort(&in_list);
    rc = match_params(file, &in_file, params, &in_list);
    for (int64_t i = 0; rc == AG_SUCCESS && i < params->count; i++) {
        const ag_param_t *p = &params->items[i];
        const ag_tensor_t *t = &file->tensors[ag_i_name_index_find(&in_file, p->name)];
        if (p->shape[0] * p->shape[1] > 0)
            memcpy(p->value, t->data, (size_t)(p->shape[0] * p->shape[1]) * sizeof(float));
    }
    ag_i_name_index_destroy(&in_list);
    ag_i_name_index_destroy(&in_file);
    return rc;
}

ag_error_t ag_safetensors_read_params(const char *path, const ag_param_list_t *params, ag_metadata_t *metadata) {
    if (!params) return AG_ERROR(AG_EINVAL, "ag_safetensors_read_params: NULL parameter list");
    ag_safetensors_t file;
    AG_CHECK(ag_safetensors_read(&file, path, AG_SAFETENSORS_STRICT));
    ag_error_t rc = ag_safetensors_to_params(&file, params);
    if (rc == AG_SUCCESS && metadata) rc = ag_i_metadata_merge(metadata, &file.metadata);
    ag_safetensors_destroy(&file);
    return rc;
}
