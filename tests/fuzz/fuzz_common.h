/*
 * fuzz_common.h: shared by the libFuzzer targets in this folder (see docs/robustness.md).
 *
 * The loaders take file names, so each input is written to one temporary file per process (its
 * name keeps the suffix a loader may look at), rewritten for every input. A loader must either
 * succeed or return a known error code with a non-empty message recorded as the last error;
 * anything else stops the fuzzer with a report.
 */
#ifndef AG_FUZZ_COMMON_H
#define AG_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "attngraph/common.h"
#include "attngraph/safetensors.h"

static char fuzz_path[256];
static int fuzz_fd = -1;

static inline void fuzz_remove_file(void) {
    if (fuzz_fd >= 0) {
        close(fuzz_fd);
        unlink(fuzz_path);
        fuzz_fd = -1;
    }
}

/* Writes data to this process's temporary file (ending with suffix) and returns its name. */
static inline const char *fuzz_write_file(const uint8_t *data, size_t size, const char *suffix) {
    if (fuzz_fd < 0) {
        const char *dir = getenv("TMPDIR");
        snprintf(fuzz_path, sizeof fuzz_path, "%s/ag-fuzz-XXXXXX%s", dir && dir[0] ? dir : "/tmp", suffix);
        fuzz_fd = mkstemps(fuzz_path, (int)strlen(suffix));
        if (fuzz_fd < 0) {
            perror("fuzz: mkstemps");
            abort();
        }
        atexit(fuzz_remove_file);
    }
    if (ftruncate(fuzz_fd, 0) != 0) abort();
    size_t done = 0;
    while (done < size) {
        ssize_t w = pwrite(fuzz_fd, data + done, size - done, (off_t)done);
        if (w <= 0) abort();
        done += (size_t)w;
    }
    return fuzz_path;
}

/* A loader's result must be success, or a valid code that is also the recorded last error and
 * comes with a message. */
static inline void fuzz_check_result(ag_error_t rc, const char *loader) {
    if (rc == AG_SUCCESS) return;
    const char *msg = ag_error_message();
    if ((int)rc < 0 || rc >= AG_ERROR_COUNT || ag_error_code() != rc || !msg || !msg[0]) {
        fprintf(stderr, "fuzz: %s returned %d (%s) with last error %d and message '%s'\n", loader, (int)rc,
                ag_error_name(rc), (int)ag_error_code(), msg ? msg : "(null)");
        abort();
    }
}

/* A loader that fails must leave its output zeroed (its header says so) and own nothing: the
 * targets then do not call the destroy function, so anything left allocated shows as a leak. */
static inline void fuzz_check_zeroed(const void *out, size_t size, const char *loader) {
    const unsigned char *b = out;
    for (size_t i = 0; i < size; i++) {
        if (b[i] != 0) {
            fprintf(stderr, "fuzz: %s failed (%s) but left its output non-zero at byte %zu\n", loader,
                    ag_error_message(), i);
            abort();
        }
    }
}

/* The read limit of ag_graph_read() for the graph targets: 16 MiB is 419,430 vertices at
 * AG_GRAPH_READ_VERTEX_BYTES each. A 10-byte edge list "21474831 0" asks for 21 million vertices,
 * which igraph would build before our code sees the graph (seconds and hundreds of MB, over the
 * fuzzer's timeout); with the limit the loader refuses it with AG_EREADLIMIT. */
#define FUZZ_READ_LIMIT (16 << 20)

/* Model files and checkpoints: writes the CRC-32 of the tensor bytes into the header's crc32
 * field, if it has one in the form the writer uses, so that mutations get past the checksum. The
 * header length is the first 8 bytes (little endian). */
static inline void fuzz_fix_crc(uint8_t *d, size_t size) {
    if (size < 8) return;
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--) n = (n << 8) | d[i];
    if (n > size - 8) return;
    const char key[] = "\"crc32\":\"";
    const size_t k = sizeof key - 1;
    for (size_t i = 8; i + k + 8 <= 8 + n; i++) {
        if (memcmp(d + i, key, k) != 0) continue;
        char hex[9];
        snprintf(hex, sizeof hex, "%08x", (unsigned)ag_crc32_update(0, d + 8 + n, (size_t)(size - 8 - n)));
        memcpy(d + i + k, hex, 8);
        return;
    }
}

#endif
