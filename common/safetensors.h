/* safetensors.h — read and write the safetensors format (https://github.com/huggingface/safetensors):
 *
 *   [ u64 little-endian N ][ N bytes of JSON header, space-padded to a multiple of 8 ][ raw data ]
 *
 *   header: {"wte": {"dtype": "F32", "shape": [27, 16], "data_offsets": [0, 1728]}, ...,
 *            "__metadata__": {"step": "100", "crc32": "1a2b3c4d", ...}}
 *
 * Offsets are relative to the start of the data section; tensors follow each other with no gaps.
 * This writer always adds metadata "crc32" (CRC-32 of the whole data section, 8 hex digits) and
 * the reader refuses a file whose data does not match it — so a truncated or bit-flipped checkpoint
 * is reported, never silently loaded; "header_crc32" does the same for the header (see
 * safetensors.c). Files load with the `safetensors` Python package. */
#ifndef DPC_SAFETENSORS_H
#define DPC_SAFETENSORS_H

#include "dtype.h"

#include <stddef.h>
#include <stdint.h>

#define ST_MAX_DIMS 8

typedef struct st_writer st_writer_t;

st_writer_t *st_writer_new(void);
/* The data is referenced, not copied: keep it alive until st_writer_save. */
void st_writer_add(st_writer_t *w, const char *name, dtype_t dt, int ndim, const size_t *shape, const void *data);
void st_writer_meta(st_writer_t *w, const char *key, const char *value);
/* Write to path (through a temporary file and a rename, so a crash never leaves half a file).
 * Returns 0, or -1 with the reason in err. */
int st_writer_save(st_writer_t *w, const char *path, char *err, size_t errlen);
void st_writer_free(st_writer_t *w);

typedef struct {
    char *name;
    dtype_t dt;
    int ndim;
    size_t shape[ST_MAX_DIMS];
    size_t numel;
    const void *data; /* inside the loaded file buffer */
} st_tensor_t;

typedef struct {
    unsigned char *buf;
    size_t len;
    int ntensors;
    st_tensor_t *tensors;
    int nmeta;
    char **meta_keys, **meta_values;
} st_file_t;

/* Load and validate (header, offsets, dtype sizes, checksum). Returns 0, or -1 with err set. */
int st_load(const char *path, st_file_t *f, char *err, size_t errlen);
void st_close(st_file_t *f);
const st_tensor_t *st_find(const st_file_t *f, const char *name);
const char *st_meta(const st_file_t *f, const char *key); /* NULL if absent */
/* Metadata key of f (loaded from path) as a decimal number in [0, max]: digits only, no sign, no
 * spaces, nothing after them. Returns 0, or -1 with err naming the file, the key and what was expected. */
int st_meta_u64(const st_file_t *f, const char *path, const char *key, uint64_t max, uint64_t *out, char *err,
                size_t errlen);

#endif
