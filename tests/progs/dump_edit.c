/* dump_edit — a trainer dump (--dump) with one tensor changed, to test what grading/equiv says
 * about a known difference:
 *
 *   dump_edit IN OUT TENSOR scale F       every element times F
 *   dump_edit IN OUT TENSOR zero          every element 0
 *   dump_edit IN OUT TENSOR add I J D     elements I..J (inclusive) plus D
 *   dump_edit IN OUT TENSOR add-small D W [MAX]
 *                                         plus D at every element (the first MAX) where tensor W of
 *                                         IN, of the same size, is within 1e-6 of 0: W a gradient,
 *                                         the elements AdamW is most sensitive at
 *
 * Every other tensor and the metadata are copied unchanged. */
#include "safetensors.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: dump_edit IN OUT TENSOR scale F | zero | add I J D | add-small D W [MAX]\n");
        return 2;
    }
    st_file_t f;
    char err[512];
    if (st_load(argv[1], &f, err, sizeof err) != 0) {
        fprintf(stderr, "dump_edit: %s\n", err);
        return 1;
    }
    const st_tensor_t *t = st_find(&f, argv[3]);
    if (!t || t->dt != DT_F32) {
        fprintf(stderr, "dump_edit: %s has no float32 tensor %s\n", argv[1], argv[3]);
        return 1;
    }
    float *x = malloc(t->numel * sizeof(float) + 1);
    if (!x) return 1;
    memcpy(x, t->data, t->numel * sizeof(float));
    const char *op = argv[4];
    if (!strcmp(op, "scale") && argc == 6) {
        for (size_t k = 0; k < t->numel; k++) x[k] *= (float)atof(argv[5]);
    } else if (!strcmp(op, "zero") && argc == 5) {
        memset(x, 0, t->numel * sizeof(float));
    } else if (!strcmp(op, "add") && argc == 8) {
        size_t i = strtoul(argv[5], NULL, 10), j = strtoul(argv[6], NULL, 10);
        for (size_t k = i; k <= j && k < t->numel; k++) x[k] += (float)atof(argv[7]);
    } else if (!strcmp(op, "add-small") && (argc == 7 || argc == 8)) {
        size_t max = argc == 8 ? strtoul(argv[7], NULL, 10) : t->numel;
        const st_tensor_t *where = st_find(&f, argv[6]);
        if (!where || where->dt != DT_F32 || where->numel != t->numel) {
            fprintf(stderr, "dump_edit: %s has no float32 tensor %s of %zu elements\n", argv[1], argv[6], t->numel);
            return 1;
        }
        const float *wv = where->data;
        for (size_t k = 0, done = 0; k < t->numel && done < max; k++)
            if (fabsf(wv[k]) <= 1e-6f) {
                x[k] += (float)atof(argv[5]);
                done++;
            }
    } else {
        fprintf(stderr, "dump_edit: unknown operation %s (or wrong arguments)\n", op);
        return 2;
    }
    st_writer_t *w = st_writer_new();
    for (int i = 0; i < f.ntensors; i++) {
        const st_tensor_t *s = &f.tensors[i];
        st_writer_add(w, s->name, s->dt, s->ndim, s->shape, s == t ? x : s->data);
    }
    for (int i = 0; i < f.nmeta; i++)
        if (strcmp(f.meta_keys[i], "crc32")) st_writer_meta(w, f.meta_keys[i], f.meta_values[i]);
    if (st_writer_save(w, argv[2], err, sizeof err) != 0) {
        fprintf(stderr, "dump_edit: %s\n", err);
        return 1;
    }
    st_writer_free(w);
    free(x);
    st_close(&f);
    return 0;
}
