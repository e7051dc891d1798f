/*
 * name_index.h: names sorted once for duplicate checks and look-ups (internal), so that files with
 * many tensors or metadata keys (a hostile header may hold millions) cost O(n log n), not O(n^2).
 */
#ifndef ATTNGRAPH_NAME_INDEX_H
#define ATTNGRAPH_NAME_INDEX_H

#include "attngraph/common.h"
/* internal to the library: not exported from the shared library (only the public headers are) */
#pragma GCC visibility push(hidden)

typedef struct {
    const char *name; /* the caller's string: it must outlive the index */
    int64_t pos;      /* the name's position in the caller's list */
} ag_i_name_t;

typedef struct {
    int64_t n;
    ag_i_name_t *items; /* (n) after ag_i_name_index_sort: by name (strcmp), then position */
} ag_i_name_index_t;

/* Room for n names, which the caller then sets with ag_i_name_index_put (every one, before the
 * sort); `what` names the list in an allocation error (AG_ENOMEM / AG_ELIMIT). */
ag_error_t ag_i_name_index_init(ag_i_name_index_t *ix, int64_t n, const char *what);
static inline void ag_i_name_index_put(ag_i_name_index_t *ix, int64_t pos, const char *name) {
    ix->items[pos].name = name;
    ix->items[pos].pos = pos;
}

/* Sorts the names. Returns the first repeat: the smallest position whose name also stands at an
 * earlier one (what a scan comparing each name with those before it finds first), or -1. */
int64_t ag_i_name_index_sort(ag_i_name_index_t *ix);

/* ag_i_name_index_init, then ag_i_name_index_put of the n names stored as pointers stride bytes
 * apart from first (an array of char *: sizeof(char *); an array of structs: the struct's size,
 * first pointing at the member of element 0; NULL when n is 0), then the sort, whose result goes
 * to *repeat (when not NULL). */
ag_error_t ag_i_name_index_build(ag_i_name_index_t *ix, const void *first, size_t stride, int64_t n,
                                 const char *what, int64_t *repeat);

/* The first repeat (as ag_i_name_index_sort) among such names, into *repeat; AG_ENOMEM when the
 * index cannot be allocated. */
ag_error_t ag_i_first_repeat(const void *first, size_t stride, int64_t n, int64_t *repeat);

/* The index of a file's tensor names (safetensors.c), positions those of file->tensors. */
struct ag_safetensors_t;
ag_error_t ag_i_tensor_index(ag_i_name_index_t *ix, const struct ag_safetensors_t *file);

/* The smallest position holding name (as a front-to-back scan finds it), or -1; after the sort. */
int64_t ag_i_name_index_find(const ag_i_name_index_t *ix, const char *name);

/* Frees the index; safe on a zeroed one, and twice. */
void ag_i_name_index_destroy(ag_i_name_index_t *ix);

#pragma GCC visibility pop
#endif
