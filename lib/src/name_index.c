/*
 * name_index.c: names sorted once for duplicate checks and look-ups.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "name_index.h"

ag_error_t ag_i_name_index_init(ag_i_name_index_t *ix, int64_t n, const char *what) {
    ix->n = 0;
    ix->items = NULL;
    AG_CHECK(ag_i_alloc_array((void **)&ix->items, n, sizeof *ix->items, what));
    ix->n = n;
    return AG_SUCCESS;
}

/* Position breaks ties, so that equal names keep their list order: the first of a run is then the
 * name's first occurrence, the second its first repeat. */
static int cmp_name(const void *a, const void *b) {
    const ag_i_name_t *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

int64_t ag_i_name_index_sort(ag_i_name_index_t *ix) {
    if (ix->n > 1) qsort(ix->items, (size_t)ix->n, sizeof *ix->items, cmp_name);
    int64_t first = -1;
    for (int64_t i = 1; i < ix->n; i++)
        if (!strcmp(ix->items[i - 1].name, ix->items[i].name) && (first < 0 || ix->items[i].pos < first))
            first = ix->items[i].pos;
    return first;
}

ag_error_t ag_i_name_index_build(ag_i_name_index_t *ix, const void *first, size_t stride, int64_t n,
                                 const char *what, int64_t *repeat) {
    AG_CHECK(ag_i_name_index_init(ix, n, what));
    for (int64_t i = 0; i < n; i++)
        ag_i_name_index_put(ix, i, *(const char *const *)((const char *)first + (size_t)i * stride));
    int64_t r = ag_i_name_index_sort(ix);
    if (repeat) *repeat = r;
    return AG_SUCCESS;
}

ag_error_t ag_i_first_repeat(const void *first, size_t stride, int64_t n, int64_t *repeat) {
    *repeat = -1;
    if (n < 2) return AG_SUCCESS; /* no repeat possible: spares the allocation */
    ag_i_name_index_t ix;
    AG_CHECK(ag_i_name_index_build(&ix, first, stride, n, "name index", repeat));
    ag_i_name_index_destroy(&ix);
    return AG_SUCCESS;
}

int64_t ag_i_name_index_find(const ag_i_name_index_t *ix, const char *name) {
    /* the lower bound: the leftmost of equal names, the smallest position */
    int64_t lo = 0, hi = ix->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (strcmp(ix->items[mid].name, name) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < ix->n && !strcmp(ix->items[lo].name, name) ? ix->items[lo].pos : -1;
}

void ag_i_name_index_destroy(ag_i_name_index_t *ix) {
    ag_i_free(ix->items);
    ix->items = NULL;
    ix->n = 0;
}
