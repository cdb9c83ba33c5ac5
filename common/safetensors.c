/* safetensors.c — see safetensors.h. */
#define _POSIX_C_SOURCE 200809L
#include "safetensors.h"

#include "crc32.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ST_MAX_HEADER (100u << 20)

/* The header checksum: CRC-32 of the padded header as written, with its own 8 hex digits read as
 * "00000000". The data checksum (crc32) cannot see a flipped digit of "step" or "seed"; this one
 * does, so a damaged header is refused like damaged data. It is found as raw bytes (not through the
 * parsed JSON) because it must cover every byte, whitespace and padding included. */
#define ST_HCRC_KEY "\"header_crc32\":\""

static uint32_t header_crc(const char *hdr, size_t len, size_t digits_at) {
    uint32_t crc = crc32_update(0, hdr, digits_at);
    crc = crc32_update(crc, "00000000", 8);
    return crc32_update(crc, hdr + digits_at + 8, len - digits_at - 8);
}

/* Offset of the 8 digits after ST_HCRC_KEY in hdr[0..len), or -1. */
static long header_crc_at(const char *hdr, size_t len) {
    size_t k = strlen(ST_HCRC_KEY);
    for (size_t i = 0; i + k + 8 <= len; i++)
        if (!memcmp(hdr + i, ST_HCRC_KEY, k)) return (long)(i + k);
    return -1;
}

/* Remove PATH.tmp.PID files that killed saves of this same target left behind (6-24 MB each).
 * Safe because the PID in the name is the writer's: a process that no longer exists (kill(pid, 0)
 * fails with ESRCH) cannot be writing it any more, and a live PID, whoever it is now, is left alone.
 * (A writer on another host of a shared file system would look dead here: the course never has two
 * hosts save to one target, each rank of FSDP writes its own file.) */
static void remove_stale_temporaries(const char *path) {
    char dir[4096];
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    if (slash == path) snprintf(dir, sizeof dir, "/");
    DIR *d = opendir(dir);
    if (!d) return;
    size_t blen = strlen(base);
    for (struct dirent *e; (e = readdir(d));) {
        if (strncmp(e->d_name, base, blen) || strncmp(e->d_name + blen, ".tmp.", 5)) continue;
        char *end;
        errno = 0;
        long pid = strtol(e->d_name + blen + 5, &end, 10);
        if (*end || end == e->d_name + blen + 5 || errno || pid <= 0 || pid > INT_MAX || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        char stale[8192];
        snprintf(stale, sizeof stale, "%s/%s", dir, e->d_name);
        remove(stale);
    }
    closedir(d);
}

typedef struct {
    char *name;
    dtype_t dt;
    int ndim;
    size_t shape[ST_MAX_DIMS];
    const void *data;
    size_t bytes;
} st_entry_t;

struct st_writer {
    int n, cap;
    st_entry_t *entries;
    cJSON *meta;
};

st_writer_t *st_writer_new(void) {
    st_writer_t *w = dp_calloc(1, sizeof *w);
    w->meta = cJSON_CreateObject();
    return w;
}

void st_writer_add(st_writer_t *w, const char *name, dtype_t dt, int ndim, const size_t *shape, const void *data) {
    if (ndim < 0 || ndim > ST_MAX_DIMS) dp_fatal("safetensors: tensor %s has %d dimensions", name, ndim);
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 16;
        st_entry_t *e = realloc(w->entries, (size_t)w->cap * sizeof *e);
        if (!e) dp_fatal("out of memory");
        w->entries = e;
    }
    st_entry_t *e = &w->entries[w->n++];
    e->name = dp_strdup(name);
    e->dt = dt;
    e->ndim = ndim;
    size_t numel = 1;
    for (int d = 0; d < ndim; d++) numel *= (e->shape[d] = shape[d]);
    e->data = data;
    e->bytes = numel * dtype_size(dt);
}

void st_writer_meta(st_writer_t *w, const char *key, const char *value) {
    cJSON_DeleteItemFromObjectCaseSensitive(w->meta, key);
    cJSON_AddStringToObject(w->meta, key, value);
}

int st_writer_save(st_writer_t *w, const char *path, char *err, size_t errlen) {
    uint32_t crc = 0;
    size_t offset = 0;
    cJSON *hdr = cJSON_CreateObject();
    for (int i = 0; i < w->n; i++) {
        st_entry_t *e = &w->entries[i];
        cJSON *t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "dtype", dtype_name(e->dt));
        cJSON *shape = cJSON_AddArrayToObject(t, "shape");
        for (int d = 0; d < e->ndim; d++) cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)e->shape[d]));
        cJSON *off = cJSON_AddArrayToObject(t, "data_offsets");
        cJSON_AddItemToArray(off, cJSON_CreateNumber((double)offset));
        cJSON_AddItemToArray(off, cJSON_CreateNumber((double)(offset + e->bytes)));
        cJSON_AddItemToObject(hdr, e->name, t);
        offset += e->bytes;
        crc = crc32_update(crc, e->data, e->bytes);
    }
    char crchex[16];
    snprintf(crchex, sizeof crchex, "%08x", crc);
    st_writer_meta(w, "crc32", crchex);
    st_writer_meta(w, "header_crc32", "00000000");
    cJSON_AddItemReferenceToObject(hdr, "__metadata__", w->meta);
    char *json = cJSON_PrintUnformatted(hdr);
    cJSON_Delete(hdr);
    size_t jlen = strlen(json), padded = (jlen + 7) / 8 * 8;
    char *header = dp_malloc(padded + 1);
    memcpy(header, json, jlen);
    memset(header + jlen, ' ', padded - jlen);
    free(json);
    long at = header_crc_at(header, padded);
    if (at < 0) dp_fatal("safetensors: the header checksum entry went missing (a bug)");
    snprintf(crchex, sizeof crchex, "%08x", header_crc(header, padded, (size_t)at));
    memcpy(header + at, crchex, 8);

    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        free(header);
        return dp_error(err, errlen, "cannot write %s: it is a directory; give a file name", path);
    }
    remove_stale_temporaries(path);
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        int e = errno;
        free(header);
        return dp_error(err, errlen, "cannot write %s: %s", path,
                        e == ENOENT ? "its directory does not exist" : strerror(e));
    }
    unsigned char n8[8];
    for (int i = 0; i < 8; i++) n8[i] = (unsigned char)((uint64_t)padded >> (8 * i));
    int ok = fwrite(n8, 1, 8, f) == 8 && fwrite(header, 1, padded, f) == padded;
    for (int i = 0; i < w->n && ok; i++)
        ok = fwrite(w->entries[i].data, 1, w->entries[i].bytes, f) == w->entries[i].bytes;
    int e = ok ? 0 : errno;
    free(header);
    if (fclose(f) != 0 && !e) e = errno, ok = 0;
    if (!ok) {
        remove(tmp);
        return dp_error(err, errlen, "writing %s failed: %s", path, e ? strerror(e) : "short write (disk full?)");
    }
    if (rename(tmp, path) != 0) {
        e = errno;
        remove(tmp);
        return dp_error(err, errlen, "cannot write %s: %s", path, e == EISDIR ? "it is a directory" : strerror(e));
    }
    return 0;
}

void st_writer_free(st_writer_t *w) {
    for (int i = 0; i < w->n; i++) free(w->entries[i].name);
    free(w->entries);
    cJSON_Delete(w->meta);
    free(w);
}

static int parse_dtype(const char *s, dtype_t *dt) {
    for (int t = 0; t < DT_COUNT; t++)
        if (!strcmp(s, dtype_name((dtype_t)t))) {
            *dt = (dtype_t)t;
            return 0;
        }
    return -1;
}

static int by_name(const void *a, const void *b) {
    return strcmp(((const st_tensor_t *)a)->name, ((const st_tensor_t *)b)->name);
}

static int by_offset(const void *a, const void *b) {
    const st_tensor_t *x = a, *y = b;
    return (const char *)x->data < (const char *)y->data ? -1 : (const char *)x->data > (const char *)y->data;
}

int st_load(const char *path, st_file_t *f, char *err, size_t errlen) {
    memset(f, 0, sizeof *f);
    f->buf = dp_read_file(path, &f->len);
    if (!f->buf) return dp_error(err, errlen, "%s not found, unreadable or not a regular file", path);
    cJSON *hdr = NULL;
    uint64_t hlen = 0;
    for (int i = 0; i < 8 && f->len >= 8; i++) hlen |= (uint64_t)f->buf[i] << (8 * i);
    if (f->len < 8 || hlen > ST_MAX_HEADER || hlen > f->len - 8) {
        dp_error(err, errlen, "%s is not a safetensors file or is truncated (header length %llu, file %zu bytes)", path,
                 (unsigned long long)hlen, f->len);
        goto bad;
    }
    const char *htext = (const char *)f->buf + 8;
    long at = header_crc_at(htext, (size_t)hlen);
    if (at < 0) {
        dp_error(err, errlen,
                 "%s has no header checksum (header_crc32): it is damaged, or was not written by this "
                 "build of the course (re-create it)",
                 path);
        goto bad;
    }
    char hgot[16];
    snprintf(hgot, sizeof hgot, "%08x", header_crc(htext, (size_t)hlen, (size_t)at));
    if (memcmp(hgot, htext + at, 8)) {
        dp_error(err, errlen, "%s is corrupt: header checksum mismatch (stored %.8s, computed %s)", path, htext + at,
                 hgot);
        goto bad;
    }
    const char *jend = NULL;
    hdr = cJSON_ParseWithLengthOpts(htext, (size_t)hlen, &jend, 0);
    int trailing = 0;
    for (const char *p = jend; hdr && p < htext + hlen; p++) trailing |= *p != ' ';
    if (!hdr || !cJSON_IsObject(hdr) || trailing) {
        dp_error(err, errlen, "%s is corrupt: its header is not one JSON object padded with spaces", path);
        goto bad;
    }
    const unsigned char *data = f->buf + 8 + hlen;
    size_t data_len = f->len - 8 - (size_t)hlen;
    int count = cJSON_GetArraySize(hdr);
    f->tensors = dp_calloc((size_t)count, sizeof *f->tensors);
    for (cJSON *it = hdr->child; it; it = it->next) {
        if (!strcmp(it->string, "__metadata__")) {
            if (f->meta_keys || !cJSON_IsObject(it)) {
                dp_error(err, errlen, "%s is corrupt: '__metadata__' is not one JSON object", path);
                goto bad;
            }
            int m = cJSON_GetArraySize(it);
            f->meta_keys = dp_calloc((size_t)m + 1, sizeof(char *));
            f->meta_values = dp_calloc((size_t)m + 1, sizeof(char *));
            for (cJSON *kv = it->child; kv; kv = kv->next) {
                if (!cJSON_IsString(kv)) {
                    dp_error(err, errlen, "%s is corrupt: metadata '%s' is not a string", path, kv->string);
                    goto bad;
                }
                if (st_meta(f, kv->string)) {
                    dp_error(err, errlen, "%s is corrupt: metadata '%s' appears twice", path, kv->string);
                    goto bad;
                }
                f->meta_keys[f->nmeta] = dp_strdup(kv->string);
                f->meta_values[f->nmeta++] = dp_strdup(kv->valuestring);
            }
            continue;
        }
        st_tensor_t *t = &f->tensors[f->ntensors++];
        t->name = dp_strdup(it->string);
        cJSON *dt = cJSON_GetObjectItemCaseSensitive(it, "dtype");
        cJSON *shape = cJSON_GetObjectItemCaseSensitive(it, "shape");
        cJSON *off = cJSON_GetObjectItemCaseSensitive(it, "data_offsets");
        if (!cJSON_IsString(dt) || parse_dtype(dt->valuestring, &t->dt) != 0 || !cJSON_IsArray(shape) ||
            cJSON_GetArraySize(shape) > ST_MAX_DIMS || !cJSON_IsArray(off) || cJSON_GetArraySize(off) != 2) {
            dp_error(err, errlen, "%s is corrupt: entry '%s' lacks a known dtype, a shape or data_offsets", path,
                     t->name);
            goto bad;
        }
        t->ndim = cJSON_GetArraySize(shape);
        t->numel = 1;
        for (int d = 0; d < t->ndim; d++) {
            cJSON *dim = cJSON_GetArrayItem(shape, d);
            double v = cJSON_IsNumber(dim) ? dim->valuedouble : -1;
            if (v < 0 || v > 1e15 || v != (double)(size_t)v) {
                dp_error(err, errlen, "%s is corrupt: tensor '%s' has a bad shape (dimension %d is not a count)", path,
                         t->name, d);
                goto bad;
            }
            if (__builtin_mul_overflow(t->numel, (size_t)v, &t->numel)) {
                dp_error(err, errlen, "%s is corrupt: tensor '%s' has more elements than can be counted", path,
                         t->name);
                goto bad;
            }
            t->shape[d] = (size_t)v;
        }
        size_t bytes;
        if (__builtin_mul_overflow(t->numel, dtype_size(t->dt), &bytes)) {
            dp_error(err, errlen, "%s is corrupt: tensor '%s' has %zu elements, more bytes than can be counted", path,
                     t->name, t->numel);
            goto bad;
        }
        cJSON *ob = cJSON_GetArrayItem(off, 0), *oe = cJSON_GetArrayItem(off, 1);
        double b = cJSON_IsNumber(ob) ? ob->valuedouble : -1, e = cJSON_IsNumber(oe) ? oe->valuedouble : -1;
        if (b < 0 || e < b || e > (double)data_len || b != (double)(size_t)b || e != (double)(size_t)e ||
            (size_t)e - (size_t)b != bytes) {
            dp_error(err, errlen,
                     "%s is corrupt or truncated: tensor '%s' has data offsets [%.0f, %.0f] "
                     "but the data section has %zu bytes and the tensor needs %zu",
                     path, t->name, b, e, data_len, bytes);
            goto bad;
        }
        t->data = data + (size_t)b;
    }
    /* The tensors must tile the data section exactly. */
    st_tensor_t *sorted = dp_malloc((size_t)(f->ntensors ? f->ntensors : 1) * sizeof *sorted);
    memcpy(sorted, f->tensors, (size_t)f->ntensors * sizeof *sorted);
    qsort(sorted, (size_t)f->ntensors, sizeof *sorted, by_offset);
    const unsigned char *expect = data;
    int tiled = 1;
    for (int i = 0; i < f->ntensors; i++) {
        if ((const unsigned char *)sorted[i].data != expect) tiled = 0;
        expect += sorted[i].numel * dtype_size(sorted[i].dt);
    }
    qsort(sorted, (size_t)f->ntensors, sizeof *sorted, by_name);
    const char *twice = NULL;
    for (int i = 1; i < f->ntensors && !twice; i++)
        if (!strcmp(sorted[i - 1].name, sorted[i].name)) twice = sorted[i].name;
    if (twice) {
        dp_error(err, errlen, "%s is corrupt: tensor '%s' appears twice", path, twice);
        free(sorted);
        goto bad;
    }
    free(sorted);
    if (!tiled || expect != data + data_len) {
        dp_error(err, errlen, "%s is corrupt: tensor data does not tile the data section (%zu bytes)", path, data_len);
        goto bad;
    }
    const char *crc = st_meta(f, "crc32");
    char got[16];
    snprintf(got, sizeof got, "%08x", crc32_update(0, data, data_len));
    if (!crc) {
        dp_error(err, errlen, "%s has no crc32 checksum in its metadata; it was not written by this course", path);
        goto bad;
    }
    if (strcmp(crc, got)) {
        dp_error(err, errlen, "%s is corrupt: checksum mismatch (stored %s, computed %s)", path, crc, got);
        goto bad;
    }
    cJSON_Delete(hdr);
    return 0;
bad:
    cJSON_Delete(hdr);
    st_close(f);
    return -1;
}

void st_close(st_file_t *f) {
    for (int i = 0; i < f->ntensors; i++) free(f->tensors[i].name);
    for (int i = 0; i < f->nmeta; i++) {
        free(f->meta_keys[i]);
        free(f->meta_values[i]);
    }
    free(f->tensors);
    free(f->meta_keys);
    free(f->meta_values);
    free(f->buf);
    memset(f, 0, sizeof *f);
}

const st_tensor_t *st_find(const st_file_t *f, const char *name) {
    for (int i = 0; i < f->ntensors; i++)
        if (!strcmp(f->tensors[i].name, name)) return &f->tensors[i];
    return NULL;
}

const char *st_meta(const st_file_t *f, const char *key) {
    for (int i = 0; i < f->nmeta; i++)
        if (!strcmp(f->meta_keys[i], key)) return f->meta_values[i];
    return NULL;
}

int st_meta_u64(const st_file_t *f, const char *path, const char *key, uint64_t max, uint64_t *out, char *err,
                size_t errlen) {
    const char *v = st_meta(f, key);
    if (!v) return dp_error(err, errlen, "%s has no '%s' in its metadata", path, key);
    uint64_t x = 0;
    int ok = *v != 0;
    for (const char *p = v; *p && ok; p++)
        ok = *p >= '0' && *p <= '9' && !__builtin_mul_overflow(x, 10, &x) &&
             !__builtin_add_overflow(x, (uint64_t)(*p - '0'), &x);
    if (!ok || x > max)
        return dp_error(err, errlen, "%s: metadata '%s' is '%.40s', expected a whole number from 0 to %" PRIu64, path,
                        key, v, max);
    *out = x;
    return 0;
}
