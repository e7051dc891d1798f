/*
 * attngraph/safetensors.h: model files in the safetensors format.
 *
 * A model file is a standard safetensors file (https://huggingface.co/docs/safetensors), readable
 * by any safetensors reader (Python: safetensors.numpy.load_file, or 10 lines of struct + json):
 *     8 bytes   N, the header length, little-endian unsigned
 *     N bytes   a UTF-8 JSON object, padded with spaces so that 8 + N is a multiple of 8:
 *               {"__metadata__": {"format": "attn-graph", "format_version": "1", "crc32": "1a2b3c4d", ...},
 *                "blocks.0.attn.Wq": {"dtype": "F32", "shape": [64, 64], "data_offsets": [0, 16384]}, ...}
 *     the tensor bytes, little-endian float32, row-major; offsets count from the first of these
 *     bytes; tensors are contiguous, in the order given to the writer, without gaps or overlaps.
 * The metadata holds strings only. attn-graph adds three keys of its own: "format" (always
 * "attn-graph"), "format_version" (this library writes and reads "1"; a larger number is refused
 * with a message saying so) and "crc32" (the CRC-32 of all tensor bytes, as zlib.crc32 computes
 * it, in 8 lowercase hex digits; checked on load). docs/model-format.md has the details.
 *
 * Writing is atomic: the file is written under a temporary name in the same directory, flushed
 * and fsync'ed, then renamed over the destination; on any failure the temporary file is removed,
 * so a reader sees the old file or the complete new one, never a partial file.
 * Reading validates everything before anything is used; every defect is AG_EMODEL with a message
 * naming the file and, where one is involved, the tensor.
 *
 * Example:
 *     ag_metadata_t meta;
 *     ag_metadata_init(&meta);
 *     ag_metadata_set(&meta, "architecture", json_text);   // any string, escaped as needed
 *     ag_safetensors_write_params("model.safetensors", &params, &meta);
 *     ...
 *     ag_safetensors_read_params("model.safetensors", &params, &meta);   // by name, shapes checked
 */
#ifndef ATTNGRAPH_SAFETENSORS_H
#define ATTNGRAPH_SAFETENSORS_H

#include "attngraph/common.h"
#include "attngraph/param.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AG_MODEL_FORMAT_NAME "attn-graph"
#define AG_MODEL_FORMAT_VERSION 1
/** Most dimensions a tensor may have in a file attn-graph reads. */
#define AG_TENSOR_MAX_DIMS 8
/** Largest JSON header accepted (the reference implementation's limit). */
#define AG_SAFETENSORS_MAX_HEADER (100 * 1024 * 1024)

/** String key-value pairs, in insertion order. */
typedef struct ag_metadata_t {
    int64_t count;
    int64_t capacity;
    char **keys;   /* (count) */
    char **values; /* (count) */
} ag_metadata_t;

/** \function ag_metadata_init
 * Makes an empty list (no allocation). Time complexity: O(1). */
void ag_metadata_init(ag_metadata_t *meta);

/** \function ag_metadata_destroy
 * Frees every key and value; safe on an initialised empty list, and twice.
 * Time complexity: O(count). */
void ag_metadata_destroy(ag_metadata_t *meta);

/**
 * \function ag_metadata_set
 * Sets key to a copy of value, replacing an existing value of the same key.
 * \return AG_SUCCESS, AG_ENOMEM, AG_EINVAL (NULL key or value).
 * Time complexity: O(count).
 */
ag_error_t ag_metadata_set(ag_metadata_t *meta, const char *key, const char *value);

/** \function ag_metadata_get
 * The value of key, or NULL if absent. Time complexity: O(count). */
const char *ag_metadata_get(const ag_metadata_t *meta, const char *key);

/** A named float32 tensor, row-major. */
typedef struct ag_tensor_t {
    const char *name;
    int ndim;                          /* 0 (a scalar) .. AG_TENSOR_MAX_DIMS */
    int64_t shape[AG_TENSOR_MAX_DIMS];
    const float *data;                 /* (product of shape) */
} ag_tensor_t;

/**
 * \function ag_safetensors_write
 * Writes tensors and metadata to path, atomically (see above).
 * \param path     Destination; its directory must exist and be writable.
 * \param tensors  (count) tensors, written in this order. Names must be non-empty, unique, valid
 *                 UTF-8 and not "__metadata__".
 * \param count    Number of tensors (0 is allowed).
 * \param meta     String metadata, or NULL. Keys and values must be valid UTF-8 (anything else,
 *                 including quotes, backslashes, newlines and JSON documents, is escaped as
 *                 needed). The keys "format", "format_version" and "crc32" are always written
 *                 by the library; values given for them (e.g. in metadata read from an older
 *                 file) are ignored.
 * \return AG_SUCCESS, AG_EINVAL (bad name, shape or metadata), AG_ELIMIT (sizes overflow),
 *         AG_ENOMEM, AG_EFILE (cannot create, write, sync or rename; the message has the reason).
 * Time complexity: O(total size + metadata size + T log T) for T tensors (the names are sorted to
 * find a repeat).
 */
ag_error_t ag_safetensors_write(const char *path, const ag_tensor_t *tensors, int64_t count,
                                const ag_metadata_t *meta);

/**
 * \function ag_safetensors_write_params
 * Writes the values of a parameter list (shape [rows] for vectors, [rows, cols] for matrices)
 * with ag_safetensors_write(). Gradients are not written.
 * \return As ag_safetensors_write() (two parameters of one name: AG_EINVAL).
 * Time complexity: as ag_safetensors_write() with T = params->count.
 */
ag_error_t ag_safetensors_write_params(const char *path, const ag_param_list_t *params,
                                       const ag_metadata_t *meta);

/** Flags of ag_safetensors_read(). */
#define AG_SAFETENSORS_STRICT 0
/** Also accept safetensors files not written by attn-graph (no "format": "attn-graph" in the
 * metadata, e.g. weights saved from PyTorch); their checksum is checked only if they carry one. */
#define AG_SAFETENSORS_ALLOW_FOREIGN 1

/** A safetensors file read into memory. */
typedef struct ag_safetensors_t {
    char *path;
    int64_t n_tensors;
    ag_tensor_t *tensors;   /* (n_tensors) in file order (by offset); names and data owned here */
    ag_metadata_t metadata; /* as stored, including format, format_version and crc32 */
    int foreign;            /* 1 if the file is not an attn-graph model file */
    float *data_;           /* private: all tensor data */
} ag_safetensors_t;

/**
 * \function ag_safetensors_read
 * Reads and validates a whole file: its length fields, the JSON header (an object of tensor
 * objects with exactly "dtype", "shape", "data_offsets", plus an optional "__metadata__" object of
 * strings), dtypes (only F32), shapes against offsets, duplicate names, overlaps, gaps, truncation
 * and trailing bytes; then the format name, the format version and the CRC-32.
 * \param file  Output, uninitialised; free with ag_safetensors_destroy() (also zeroed on error).
 * \param path  The file.
 * \param flags AG_SAFETENSORS_STRICT or AG_SAFETENSORS_ALLOW_FOREIGN.
 * \return AG_SUCCESS, AG_EINVAL (a NULL argument, an empty path: "model file: no path given"),
 *         AG_EFILE (cannot open or read), AG_EMODEL (any defect, e.g.
 *         "m.safetensors: tensor 'W' has dtype F16; attn-graph reads only F32",
 *         "m.safetensors: checksum mismatch: ...",
 *         "m.safetensors: written by a newer attn-graph (format version 2), this one reads version 1"),
 *         AG_ENOMEM.
 * Time complexity: O(file size + T log T + K log K) for T tensors and K metadata keys (the names
 * are sorted to find a repeat). Memory: the whole file and its decoded tensors at once.
 */
ag_error_t ag_safetensors_read(ag_safetensors_t *file, const char *path, int flags);

/**
 * \function ag_safetensors_sniff
 * Whether a file's first bytes are those of a safetensors file (a model or a checkpoint, whatever
 * its name): an 8-byte little-endian header length of 2 to AG_SAFETENSORS_MAX_HEADER bytes, then
 * the header's '{', as ag_safetensors_read() requires. No graph format igraph reads starts with a
 * zero byte, which such a length has, so a graph file is never taken for one. Nothing beyond
 * those 9 bytes is checked: ag_safetensors_read() does that.
 * \param head The file's first n bytes.
 * \return 1 or 0 (0 when n < 9).
 * Time complexity: O(1).
 */
int ag_safetensors_sniff(const unsigned char *head, size_t n);

/** \function ag_safetensors_destroy
 * Frees a file read by ag_safetensors_read(); safe on a zeroed one, and twice.
 * Time complexity: O(T + K) for T tensors and K metadata keys. */
void ag_safetensors_destroy(ag_safetensors_t *file);

/** \function ag_safetensors_find
 * The tensor of that name, or NULL. Time complexity: O(T). */
const ag_tensor_t *ag_safetensors_find(const ag_safetensors_t *file, const char *name);

/**
 * \function ag_safetensors_to_params
 * Copies the file's tensors into a parameter list by name. Every parameter must have a tensor of
 * exactly its shape ([rows] for vectors, [rows, cols] for matrices) and every tensor a parameter;
 * everything is checked before anything is copied, so on error the parameters are unchanged.
 * \return AG_SUCCESS, AG_EMODEL ("m.safetensors: tensor 'blocks.0.attn.Wq' has shape [64, 32] in
 *         the file, the model expects [64, 64]"; "...: 2 tensors the model expects are missing
 *         from the file: 'a', 'b'"; "...: 1 tensor in the file is not in the model: 'c'").
 * Time complexity: O(P log P + T log T + total size) for P tensors in the list and T in the file
 * (both lists' names are sorted, then looked up by binary search).
 */
ag_error_t ag_safetensors_to_params(const ag_safetensors_t *file, const ag_param_list_t *params);

/**
 * \function ag_safetensors_read_params
 * ag_safetensors_read() (strict) then ag_safetensors_to_params().
 * \param metadata  If not NULL, an initialised list that receives the file's metadata (set key by
 *                  key, so existing other keys stay).
 * \return As the two functions.
 * Time complexity: that of the two functions, plus O((K + count) log (K + count)) to copy the
 * file's K metadata keys into a metadata list of count.
 */
ag_error_t ag_safetensors_read_params(const char *path, const ag_param_list_t *params, ag_metadata_t *metadata);

/** \function ag_crc32_update
 * Updates a CRC-32 (IEEE 802.3, as zlib's crc32) with n bytes; start with crc = 0.
 * Time complexity: O(n), plus a 256-entry table built on every call. */
uint32_t ag_crc32_update(uint32_t crc, const void *data, size_t n);

#ifdef __cplusplus
}
#endif
#endif
