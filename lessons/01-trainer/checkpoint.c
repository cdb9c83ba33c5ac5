/* checkpoint.c — save and resume training in one safetensors file:
 *
 *   tensors   <name>            parameters, e.g. "h.0.weight"
 *             optim.m.<name>    AdamW first moment (SGD: the momentum buffer)
 *             optim.v.<name>    AdamW second moment
 *   metadata  format, step, optim_t, optimizer, model (the kind and sizes: model_config_string), seed,
 *             global_batch, crc32, header_crc32; where the data order is known, data_replicas (the
 *             sampler's num_replicas, 0 for the course's own order), epoch and consumed (positions of
 *             that epoch's list already trained on: a restart on another world size continues there,
 *             lesson 12); under fp16 also loss_scale and growth_tracker (the
 *             state torch.cuda.amp.GradScaler saves), so a resumed run scales as the uninterrupted one
 *
 * The data order is a function of (seed, step) and the model and optimizer state are stored
 * exactly, so a resumed run repeats the uninterrupted one bit for bit. Anything that does not fit
 * the model being trained (sizes, optimizer, a damaged file) is refused with the reason. */
#include "trainer.h"

#include "safetensors.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CKPT_FORMAT "dpc-checkpoint-1"

void checkpoint_write(const checkpoint_parts_t *p, const char *path) {
    const flat_layout_t *L = p->layout;
    st_writer_t *w = st_writer_new();
    char name[96], val[160];
    for (int i = 0; i < L->count; i++)
        st_writer_add(w, L->views[i].name, DT_F32, L->views[i].ndim, L->views[i].shape, p->params + L->views[i].offset);
    for (int i = 0; i < L->count; i++) {
        snprintf(name, sizeof name, "optim.m.%s", L->views[i].name);
        st_writer_add(w, name, DT_F32, L->views[i].ndim, L->views[i].shape, p->m + L->views[i].offset);
        if (p->v) {
            snprintf(name, sizeof name, "optim.v.%s", L->views[i].name);
            st_writer_add(w, name, DT_F32, L->views[i].ndim, L->views[i].shape, p->v + L->views[i].offset);
        }
    }
    st_writer_meta(w, "format", CKPT_FORMAT);
    snprintf(val, sizeof val, "%" PRId64, p->step);
    st_writer_meta(w, "step", val);
    snprintf(val, sizeof val, "%" PRId64, p->optim_t);
    st_writer_meta(w, "optim_t", val);
    st_writer_meta(w, "optimizer", p->optimizer);
    model_config_string(p->model, val, sizeof val);
    st_writer_meta(w, "model", val);
    snprintf(val, sizeof val, "%" PRIu64, p->seed);
    st_writer_meta(w, "seed", val);
    snprintf(val, sizeof val, "%zu", p->global_batch);
    st_writer_meta(w, "global_batch", val);
    if (p->has_position) {
        snprintf(val, sizeof val, "%d", p->data_replicas);
        st_writer_meta(w, "data_replicas", val);
        snprintf(val, sizeof val, "%" PRId64, p->epoch);
        st_writer_meta(w, "epoch", val);
        snprintf(val, sizeof val, "%" PRId64, p->consumed);
        st_writer_meta(w, "consumed", val);
    }
    if (p->scaler) {
        snprintf(val, sizeof val, "%.17g", p->scaler->scale);
        st_writer_meta(w, "loss_scale", val);
        snprintf(val, sizeof val, "%d", p->scaler->growth_tracker);
        st_writer_meta(w, "growth_tracker", val);
    }
    char err[512];
    dp_mkdir_for(path);
    if (st_writer_save(w, path, err, sizeof err) != 0) dp_fatal("%s", err);
    st_writer_free(w);
}

void checkpoint_data_position(const trainer_t *t, int *replicas, int64_t *epoch, int64_t *consumed) {
    int64_t spe = (int64_t)t->order.steps_per_epoch;
    *replicas = t->order.replicas;
    *epoch = spe > 0 ? t->step / spe : 0;
    *consumed = spe > 0 ? t->step % spe * (int64_t)t->order.batch : 0;
}

void checkpoint_save(trainer_t *t, const char *path) {
    model_t *m = &t->model;
    float *params = t->rank == 0 ? dp_malloc(m->layout.numel * sizeof(float)) : NULL;
    t->full_params(t, params);
    if (t->rank != 0) return;
    /* the optimizer state may live on a GPU: bring it to the host */
    size_t bytes = m->layout.numel * sizeof(float);
    float *hm = dp_malloc(bytes), *hv = t->optim.v ? dp_malloc(bytes) : NULL;
    ops_download(t->ops, hm, t->optim.m, bytes);
    if (hv) ops_download(t->ops, hv, t->optim.v, bytes);
    checkpoint_parts_t parts = {.model = &m->cfg,
                                .layout = &m->layout,
                                .params = params,
                                .m = hm,
                                .v = hv,
                                .optimizer = t->optim.kind == OPTIM_ADAMW ? "adamw" : "sgd",
                                .step = t->step,
                                .optim_t = t->optim.t,
                                .seed = t->cfg.seed,
                                .global_batch = t->order.batch,
                                .has_position = t->order.steps_per_epoch > 0,
                                .scaler = t->optim.scaler};
    checkpoint_data_position(t, &parts.data_replicas, &parts.epoch, &parts.consumed);
    checkpoint_write(&parts, path);
    free(params);
    free(hm);
    free(hv);
}

static const st_tensor_t *need(const st_file_t *f, const char *path, const char *name, const flat_view_t *v) {
    const st_tensor_t *s = st_find(f, name);
    if (!s) dp_fatal("checkpoint %s has no tensor '%s'; it was saved by a different model or optimizer", path, name);
    if (s->dt != DT_F32)
        dp_fatal("checkpoint %s: tensor '%s' has dtype %s, expected %s", path, name, dtype_name(s->dt),
                 dtype_name(DT_F32));
    /* the shape, not just the count: a transposed [in, out] has the right count and the wrong layout */
    int same = s->ndim == v->ndim;
    for (int d = 0; d < v->ndim && same; d++) same = s->shape[d] == v->shape[d];
    if (!same) {
        char got[96] = "", want[96] = "";
        for (int d = 0; d < s->ndim; d++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%zu", d ? "x" : "", s->shape[d]);
        for (int d = 0; d < v->ndim; d++)
            snprintf(want + strlen(want), sizeof want - strlen(want), "%s%zu", d ? "x" : "", v->shape[d]);
        dp_fatal("checkpoint %s: tensor '%s' has shape [%s], this model's is [%s]; use the model flags it was saved "
                 "with",
                 path, name, got, want);
    }
    return s;
}

/* fp16's loss scale: a power of two (unscaling must stay exact), and the good steps since it last
 * moved. A checkpoint without them (saved by a bf16 or float32 run) starts from torch's 2^16. */
static void load_scaler(const st_file_t *f, const char *path, grad_scaler_t *s, int rank) {
    const char *v = st_meta(f, "loss_scale");
    if (!v) {
        if (rank == 0)
            fprintf(stderr, "%s: note: %s holds no fp16 loss scale (not saved by an fp16 run); starting from %g\n",
                    dp_progname(), path, s->scale);
        return;
    }
    char *end;
    double scale = strtod(v, &end);
    int e;
    if (end == v || *end || !isfinite(scale) || scale <= 0 || frexp(scale, &e) != 0.5)
        dp_fatal("checkpoint %s: loss_scale '%s' is not a positive power of two; the file is damaged", path, v);
    uint64_t tracker;
    char err[512];
    if (st_meta_u64(f, path, "growth_tracker", (uint64_t)s->growth_interval, &tracker, err, sizeof err) != 0)
        dp_fatal("%s", err);
    s->scale = scale;
    s->growth_tracker = (int)tracker;
}

void checkpoint_load(trainer_t *t, const char *path) {
    st_file_t f;
    char err[512];
    if (st_load(path, &f, err, sizeof err) != 0) dp_fatal("%s", err);
    const char *fmt = st_meta(&f, "format");
    if (!fmt || strcmp(fmt, CKPT_FORMAT))
        dp_fatal("%s is not a training checkpoint of this course (format '%s', expected '%s')", path,
                 fmt ? fmt : "none", CKPT_FORMAT);
    model_t *m = &t->model;
    char want[160];
    model_config_string(&m->cfg, want, sizeof want);
    const char *have = st_meta(&f, "model");
    if (!have || strcmp(have, want))
        dp_fatal("checkpoint %s was saved for a different model (%s); this run has %s — use the same --model, --preset "
                 "or size flags",
                 path, have ? have : "unknown", want);
    const char *opt = st_meta(&f, "optimizer");
    const char *mine = t->optim.kind == OPTIM_ADAMW ? "adamw" : "sgd";
    if (!opt || strcmp(opt, mine))
        dp_fatal("checkpoint %s holds %s state but this run uses --optimizer %s", path, opt ? opt : "no optimizer",
                 mine);
    /* the counters are checked as strictly as the tensors: "abc" or "12x" must not become step 0 or 12 */
    uint64_t step, ot, seed, gb;
    if (st_meta_u64(&f, path, "step", INT64_MAX, &step, err, sizeof err) != 0) dp_fatal("%s", err);
    if (step > (uint64_t)t->cfg.steps)
        dp_fatal("checkpoint %s is at step %" PRIu64 " but this run has --steps %d; raise --steps to continue", path,
                 step, t->cfg.steps);
    if (st_meta_u64(&f, path, "optim_t", step, &ot, err, sizeof err) != 0 ||
        st_meta_u64(&f, path, "seed", UINT64_MAX, &seed, err, sizeof err) != 0 ||
        st_meta_u64(&f, path, "global_batch", SIZE_MAX, &gb, err, sizeof err) != 0)
        dp_fatal("%s", err);
    const flat_layout_t *L = &m->layout;
    float *host = dp_malloc(L->numel * sizeof(float));
    char name[96];
    for (int i = 0; i < L->count; i++) {
        const flat_view_t *v = &L->views[i];
        memcpy(host + v->offset, need(&f, path, v->name, v)->data, v->numel * sizeof(float));
        snprintf(name, sizeof name, "optim.m.%s", v->name);
        ops_upload(t->ops, t->optim.m + v->offset, need(&f, path, name, v)->data, v->numel * sizeof(float));
        if (t->optim.v) {
            snprintf(name, sizeof name, "optim.v.%s", v->name);
            ops_upload(t->ops, t->optim.v + v->offset, need(&f, path, name, v)->data, v->numel * sizeof(float));
        }
    }
    ops_from_host(t->ops, m->params, host, L->numel);
    free(host);
    if (t->optim.scaler) load_scaler(&f, path, t->optim.scaler, t->rank);
    t->step = (int64_t)step;
    t->optim.t = (int64_t)ot;
    t->resumed.loaded = true;
    t->resumed.step = (int64_t)step;
    t->resumed.global_batch = gb;
    /* the data position: all three or none (a checkpoint older than the fields, or assembled by lesson
     * 08's consolidation); the bounds keep a damaged value from becoming a huge epoch downstream */
    if (st_meta(&f, "epoch") || st_meta(&f, "consumed") || st_meta(&f, "data_replicas")) {
        uint64_t ep, cons, reps;
        if (st_meta_u64(&f, path, "epoch", step, &ep, err, sizeof err) != 0 ||
            st_meta_u64(&f, path, "consumed", UINT32_MAX, &cons, err, sizeof err) != 0 ||
            st_meta_u64(&f, path, "data_replicas", 1 << 20, &reps, err, sizeof err) != 0)
            dp_fatal("%s", err);
        t->resumed.has_position = true;
        t->resumed.epoch = (int64_t)ep;
        t->resumed.consumed = (int64_t)cons;
        t->resumed.data_replicas = (int)reps;
    }
    /* a trainer with a fixed global batch (lesson 12's --batch-global) refuses another one itself */
    if (t->rank == 0 && (seed != t->cfg.seed || (gb != t->order.batch && !t->cfg.global_batch)))
        fprintf(stderr,
                "%s: note: %s was trained with seed %" PRIu64 " and global batch %" PRIu64 "; this run uses "
                "seed %llu and global batch %zu, so the data order differs from an uninterrupted run\n",
                dp_progname(), path, seed, gb, (unsigned long long)t->cfg.seed, t->order.batch);
    st_close(&f);
}

/* ---- the last good checkpoint (lesson 12) ---------------------------------------------------- */

typedef struct {
    int64_t step;
    int shards;
} candidate_t;

static int newest_first(const void *a, const void *b) {
    const candidate_t *x = a, *y = b;
    if (x->step != y->step) return x->step < y->step ? 1 : -1;
    return x->shards - y->shards; /* one whole file before shards of the same step */
}

/* One file: it loads (header and data checksums), it is a checkpoint, and its step is the name's.
 * Returns 0, or -1 with the reason in why. */
static int check_file(const char *path, int64_t step, char *why, size_t n) {
    st_file_t f;
    if (st_load(path, &f, why, n) != 0) return -1;
    uint64_t got;
    int rc = st_meta_u64(&f, path, "step", INT64_MAX, &got, why, n);
    if (rc == 0 && got != (uint64_t)step) {
        snprintf(why, n, "%s holds step %" PRIu64 ", not the %" PRId64 " of its name", path, got, step);
        rc = -1;
    }
    st_close(&f);
    return rc;
}

int checkpoint_last_good(const char *save, checkpoint_found_t *out, char *err, size_t errlen) {
    /* SAVE = DIR/STEM EXT, as the trainer names its step files: DIR/STEM.stepN EXT */
    const char *slash = strrchr(save, '/'), *base = slash ? slash + 1 : save;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base) dot = base + strlen(base);
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - save) + 1 : 1, slash ? save : ".");
    int stem = (int)(dot - base);
    const char *ext = dot;
    DIR *d = opendir(dir);
    if (!d && errno == ENOENT) return 0; /* nothing saved yet: the trainer makes it at its first save */
    if (!d) return dp_error(err, errlen, "cannot read the directory %s: %s", dir, strerror(errno));
    candidate_t *c = NULL;
    size_t nc = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        const char *name = e->d_name;
        if (strncmp(name, base, (size_t)stem) || strncmp(name + stem, ".step", 5)) continue;
        char *end;
        const char *digits = name + stem + 5;
        if (*digits < '0' || *digits > '9') continue;
        long long step = strtoll(digits, &end, 10);
        int shards = 0, rank = -1;
        char canon[512];
        /* the name must be exactly what the trainer writes (no "step010", nothing after the extension
         * but a shard's suffix) */
        snprintf(canon, sizeof canon, "%.*s.step%lld%s", stem, base, step, ext);
        size_t cl = strlen(canon);
        if (strncmp(name, canon, cl)) continue;
        if (name[cl]) {
            char tail[64];
            if (sscanf(name + cl, ".rank%d-of-%d", &rank, &shards) != 2 || rank != 0 || shards < 1) continue;
            snprintf(tail, sizeof tail, ".rank0-of-%d.safetensors", shards);
            if (strcmp(name + cl, tail)) continue;
        }
        if (nc == cap) {
            candidate_t *more = dp_malloc((cap = cap ? 2 * cap : 16) * sizeof *c);
            if (nc) memcpy(more, c, nc * sizeof *c);
            free(c);
            c = more;
        }
        c[nc++] = (candidate_t){step, shards};
    }
    closedir(d);
    qsort(c, nc, sizeof *c, newest_first);
    int found = 0;
    for (size_t i = 0; i < nc && !found; i++) {
        char path[4096], file[4200], why[1024] = "";
        snprintf(path, sizeof path, "%.*s%.*s.step%lld%s", (int)(base - save), save, stem, base, (long long)c[i].step,
                 ext);
        int bad = 0;
        if (!c[i].shards) {
            bad = check_file(path, c[i].step, why, sizeof why);
        } else {
            for (int r = 0; r < c[i].shards && !bad; r++) {
                snprintf(file, sizeof file, "%s.rank%d-of-%d.safetensors", path, r, c[i].shards);
                bad = check_file(file, c[i].step, why, sizeof why);
            }
        }
        if (bad) {
            fprintf(stderr, "%s: note: skipping the checkpoint of step %lld: %s\n", dp_progname(), (long long)c[i].step,
                    why);
            continue;
        }
        out->step = c[i].step;
        out->shards = c[i].shards;
        snprintf(out->path, sizeof out->path, "%s", path);
        found = 1;
    }
    free(c);
    return found;
}
