/*
 * alloc.c: the library's allocation functions, with a hook for allocation-failure injection.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* Allocation-failure injection for tests: when fail_at > 0, the fail_at-th allocation from now
 * fails. Exposed through ag_i_alloc_fail_at() in tests only; zero means never. */
static int64_t fail_at = 0;
static int64_t alloc_count = 0;

/* Blocks allocated and not yet freed through these functions, for tests that check a path frees
 * everything it allocated (ag_i_alloc_live()); realloc of a live block does not change it. */
static int64_t live = 0;

int64_t ag_i_alloc_live(void) {
    int64_t n;
#pragma omp atomic read
    n = live;
    return n;
}

static void *counted(void *p) {
    if (p) {
#pragma omp atomic
        live++;
    }
    return p;
}

void ag_i_alloc_fail_at(int64_t n) {
    fail_at = n;
    alloc_count = 0;
}

static int should_fail(void) {
    if (fail_at <= 0) return 0;
    int64_t k;
#pragma omp atomic capture
    k = ++alloc_count;
    return k == fail_at;
}

void *ag_i_malloc(size_t size) {
    if (should_fail()) return NULL;
    return counted(malloc(size ? size : 1));
}

void *ag_i_calloc(size_t count, size_t size) {
    if (should_fail()) return NULL;
    if (count == 0 || size == 0) return counted(calloc(1, 1));
    return counted(calloc(count, size));
}

void *ag_i_realloc(void *ptr, size_t size) {
    if (should_fail()) return NULL;
    void *p = realloc(ptr, size ? size : 1);
    return ptr ? p : counted(p);
}

void ag_i_free(void *ptr) {
    if (ptr) {
#pragma omp atomic
        live--;
    }
    free(ptr);
}

char *ag_i_strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = ag_i_malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

void ag_i_strings_free(char **s, int64_t n) {
    if (!s) return;
    for (int64_t i = 0; i < n; i++) ag_i_free(s[i]);
    ag_i_free(s);
}

ag_error_t ag_i_strings_dup(char ***out, const char *const *in, int64_t n) {
    void *p;
    AG_CHECK(ag_i_alloc_array(&p, n > 0 ? n : 1, sizeof(char *), "names"));
    char **s = p;
    for (int64_t i = 0; i < n; i++)
        if (!(s[i] = ag_i_strdup(in[i]))) {
            ag_i_strings_free(s, i);
            return AG_ERROR(AG_ENOMEM, "out of memory copying names");
        }
    *out = s;
    return AG_SUCCESS;
}

size_t ag_i_bom_length(const void *p, size_t n) { return n >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3) ? 3 : 0; }

ag_error_t ag_i_read_stream(FILE *f, char **buf, size_t *len) {
    size_t cap = 0;
    *buf = NULL;
    *len = 0;
    for (;;) {
        if (*len == cap) {
            size_t ncap = cap ? 2 * cap : 65536;
            char *nb = ag_i_realloc(*buf, ncap);
            if (!nb) return AG_ENOMEM;
            *buf = nb;
            cap = ncap;
        }
        size_t got = fread(*buf + *len, 1, cap - *len, f);
        *len += got;
        if (got == 0) break;
    }
    return ferror(f) ? AG_EFILE : AG_SUCCESS;
}

int ag_i_cmp_i64(const void *a, const void *b) {
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int ag_i_mul_overflow(int64_t a, int64_t b, int64_t *out) {
    if (a < 0 || b < 0) return 1;
    return __builtin_mul_overflow(a, b, out);
}

/* count elements of size bytes in bytes, or AG_ELIMIT when that overflows what one block may hold. */
static ag_error_t array_bytes(int64_t count, size_t size, const char *what, int64_t *bytes) {
    if (count < 0 || ag_i_mul_overflow(count, (int64_t)size, bytes) || (uint64_t)*bytes > SIZE_MAX / 2)
        return AG_ERROR(AG_ELIMIT, "size of %s overflows (%lld elements of %zu bytes)", what, (long long)count, size);
    return AG_SUCCESS;
}

ag_error_t ag_i_realloc_array(void **out, void *old, int64_t count, size_t size, const char *what) {
    int64_t bytes = 0;
    *out = NULL;
    AG_CHECK(array_bytes(count, size, what, &bytes));
    *out = ag_i_realloc(old, bytes > 0 ? (size_t)bytes : 1);
    if (!*out) return AG_ERROR(AG_ENOMEM, "out of memory allocating %s (%lld bytes)", what, (long long)bytes);
    return AG_SUCCESS;
}

ag_error_t ag_i_alloc_array(void **out, int64_t count, size_t size, const char *what) {
    int64_t bytes = 0;
    *out = NULL;
    AG_CHECK(array_bytes(count, size, what, &bytes));
    *out = ag_i_calloc((size_t)count, size);
    if (!*out) return AG_ERROR(AG_ENOMEM, "out of memory allocating %s (%lld bytes)", what, (long long)bytes);
    return AG_SUCCESS;
}
