/* fsdp_consolidate — N shard files of train_fsdp --save into one lesson-01 checkpoint.
 *
 *   fsdp_consolidate --shards out/ck.safetensors --out out/full.safetensors
 *
 * Reads PATH.rank<r>-of-<N>.safetensors for r = 0..N−1, and for every unit lays the ranks' shards
 * end to end and drops the padding — the inverse of the sharding — for the parameters and AdamW's m
 * and v. The result loads in `train --resume` (lesson 01) and in train_fsdp on any number of ranks.
 *
 * Nothing is believed before it is checked: every shard must carry the same run_id, step, model and
 * optimizer state counters as rank 0's, its numbers must be numbers, the model sizes sane and every
 * shard exactly the size the model gives it, so a mix of two runs or a crafted file is refused in one
 * line instead of becoming a checkpoint. */
#include "cli.h"
#include "model.h"
#include "output.h"
#include "safetensors.h"
#include "trainer.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *need_meta(const st_file_t *f, const char *path, const char *key) {
    const char *v = st_meta(f, key);
    if (!v) dp_fatal("%s has no '%s': not a shard file of this build's train_fsdp --save", path, key);
    return v;
}

static uint64_t need_u64(const st_file_t *f, const char *path, const char *key, uint64_t max) {
    uint64_t v;
    char err[512];
    if (st_meta_u64(f, path, key, max, &v, err, sizeof err) != 0) dp_fatal("%s", err);
    return v;
}

/* Every shard must say the same as rank 0's about the run it comes from. */
static void same_as_rank0(const st_file_t *f, const char *path, const st_file_t *f0, const char *path0,
                          const char *key) {
    const char *mine = need_meta(f, path, key), *theirs = need_meta(f0, path0, key);
    if (strcmp(mine, theirs))
        dp_fatal("%s has %s '%.40s' but %s has '%.40s': the shards are not from one save of one run", path, key, mine,
                 path0, theirs);
}

/* The model a shard file names, in a lesson-01 checkpoint's words (model_config_string): the MLP's
 * "vocab=V context=T embed=E hidden=H layers=L" or "gpt vocab=V context=T channels=C heads=NH
 * layers=L". Only a string that model_config_string gives back unchanged is taken (no trailing or
 * missing words), and only sizes model_check_config accepts. */
static int parse_model(const char *s, model_config_t *mc, char *err, size_t errlen) {
    int end = -1;
    memset(mc, 0, sizeof *mc);
    if (!strncmp(s, "gpt ", 4)) {
        mc->kind = MODEL_GPT;
        sscanf(s, "gpt vocab=%d context=%d channels=%d heads=%d layers=%d%n", &mc->vocab, &mc->context, &mc->embed,
               &mc->heads, &mc->layers, &end);
        mc->hidden = 4 * mc->embed; /* implied by C (model.h) */
    } else {
        sscanf(s, "vocab=%d context=%d embed=%d hidden=%d layers=%d%n", &mc->vocab, &mc->context, &mc->embed,
               &mc->hidden, &mc->layers, &end);
    }
    char again[256];
    model_config_string(mc, again, sizeof again);
    if (end < 0 || s[end] || strcmp(s, again))
        return dp_error(err, errlen,
                        "'%.80s', expected 'vocab=V context=T embed=E hidden=H layers=L' or 'gpt vocab=V context=T "
                        "channels=C heads=NH layers=L'",
                        s);
    return model_check_config(mc, err, errlen);
}

/* The one N for which PATH.rank0-of-N.safetensors exists; two sets side by side are refused (which
 * one the user means cannot be guessed). */
static int find_world_size(const char *shards) {
    char path[4096];
    int N = 0;
    for (int n = 1; n <= 4096; n++) {
        snprintf(path, sizeof path, "%s.rank0-of-%d.safetensors", shards, n);
        FILE *probe = fopen(path, "rb");
        if (!probe) continue;
        fclose(probe);
        if (N)
            dp_fatal("both %s.rank0-of-%d.safetensors and %s: two shard sets (%d and %d ranks) at one path; move "
                     "the one you do not mean away",
                     shards, N, path, N, n);
        N = n;
    }
    if (!N) dp_fatal("no shard files %s.rank0-of-N.safetensors found", shards);
    return N;
}

int main(int argc, char **argv) {
    const char *shards = NULL, *out = NULL;
    const cli_opt_t opts[] = {
        {"shards", CLI_STRING, &shards, "the --save path given to train_fsdp (without .rankR-of-N.safetensors)"},
        {"out", CLI_STRING, &out, "where to write the full checkpoint"},
        CLI_END,
    };
    cli_parse(argc, argv, opts, "fsdp_consolidate --shards PATH --out FILE");
    if (!shards || !out) cli_usage_error("both --shards and --out are required");
    dp_check_output_file("--out", out);

    char path[4096], path0[4096], err[512];
    int N = find_world_size(shards);
    st_file_t *f = dp_calloc((size_t)N, sizeof *f);
    snprintf(path0, sizeof path0, "%s.rank0-of-%d.safetensors", shards, N);
    for (int r = 0; r < N; r++) {
        snprintf(path, sizeof path, "%s.rank%d-of-%d.safetensors", shards, r, N);
        if (st_load(path, &f[r], err, sizeof err) != 0) dp_fatal("%s", err);
        const char *fmt = need_meta(&f[r], path, "format");
        if (strcmp(fmt, "dpc-fsdp-shard-1"))
            dp_fatal("%s has format '%.40s', expected 'dpc-fsdp-shard-1' (a shard file of train_fsdp --save)", path,
                     fmt);
        if (need_u64(&f[r], path, "rank", 4095) != (uint64_t)r ||
            need_u64(&f[r], path, "world_size", 4096) != (uint64_t)N)
            dp_fatal("%s has rank %s of world_size %s, expected rank %d of %d (its file name)", path,
                     need_meta(&f[r], path, "rank"), need_meta(&f[r], path, "world_size"), r, N);
        need_u64(&f[r], path, "step", INT64_MAX);
        need_u64(&f[r], path, "optim_t", need_u64(&f[r], path, "step", INT64_MAX));
        need_u64(&f[r], path, "seed", UINT64_MAX);
        need_u64(&f[r], path, "global_batch", SIZE_MAX);
        const char *keys[] = {"run_id", "step", "model", "optimizer", "optim_t", "seed", "global_batch"};
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) same_as_rank0(&f[r], path, &f[0], path0, keys[k]);
        /* the data position: in every shard or in none (shards written before it was recorded) */
        const char *pos[] = {"data_replicas", "epoch", "consumed"};
        for (size_t k = 0; k < sizeof pos / sizeof pos[0] && st_meta(&f[0], pos[0]); k++) {
            need_u64(&f[r], path, pos[k], UINT32_MAX);
            same_as_rank0(&f[r], path, &f[0], path0, pos[k]);
        }
    }
    model_config_t mc;
    const char *model = need_meta(&f[0], path0, "model");
    if (parse_model(model, &mc, err, sizeof err) != 0) dp_fatal("%s: metadata 'model': %s", path0, err);
    flat_layout_t L;
    model_layout(&L, &mc);
    const char *opt = need_meta(&f[0], path0, "optimizer");
    if (strcmp(opt, "adamw") && strcmp(opt, "sgd"))
        dp_fatal("%s: metadata 'optimizer' is '%.40s', expected 'adamw' or 'sgd'", path0, opt);
    int with_v = !strcmp(opt, "adamw");
    /* Every shard of unit u holds exactly ceil(n_u / N) values: checked for all of them before the
     * full arrays are allocated, so the allocation is bounded by what the files hold. */
    int nunits = model_unit_of(&mc, L.count - 1) + 1;
    size_t *unit_numel = dp_calloc((size_t)nunits, sizeof(size_t));
    for (int i = 0; i < L.count; i++) unit_numel[model_unit_of(&mc, i)] += L.views[i].numel;
    for (int u = 0; u < nunits; u++) {
        size_t numel = unit_numel[u];
        size_t chunk = (numel + (size_t)N - 1) / (size_t)N;
        for (int r = 0; r < N; r++)
            for (int k = 0; k < (with_v ? 3 : 2); k++) {
                char name[32];
                snprintf(name, sizeof name, "unit%d.%s", u, (const char *[]){"param", "m", "v"}[k]);
                snprintf(path, sizeof path, "%s.rank%d-of-%d.safetensors", shards, r, N);
                const st_tensor_t *s = st_find(&f[r], name);
                if (!s || s->dt != DT_F32 || s->ndim != 1 || s->numel != chunk)
                    dp_fatal("%s: tensor '%s' is %s, expected F32 of shape [%zu] (unit %d of %s over %d ranks)", path,
                             name, s ? "of another dtype or shape" : "missing", chunk, u, model, N);
            }
    }
    float *full[3];
    for (int k = 0; k < 3; k++) full[k] = dp_calloc(L.numel, sizeof(float));
    const char *kinds[3] = {"param", "m", "v"};
    /* the units are contiguous runs of the layout, in order (model.h) */
    size_t offset = 0;
    for (int u = 0; u < nunits; u++) {
        size_t numel = unit_numel[u];
        for (int k = 0; k < (with_v ? 3 : 2); k++) {
            char name[32];
            snprintf(name, sizeof name, "unit%d.%s", u, kinds[k]);
            size_t done = 0;
            for (int r = 0; r < N && done < numel; r++) {
                const st_tensor_t *s = st_find(&f[r], name);
                if (!s || s->dt != DT_F32) dp_fatal("shard %d has no %s", r, name);
                size_t take = s->numel < numel - done ? s->numel : numel - done;
                memcpy(full[k] + offset + done, s->data, take * sizeof(float));
                done += take;
            }
            if (done != numel) dp_fatal("the shards of unit %d hold %zu of its %zu parameters", u, done, numel);
        }
        offset += numel;
    }
    checkpoint_parts_t parts = {&mc,
                                &L,
                                full[0],
                                full[1],
                                with_v ? full[2] : NULL,
                                opt,
                                (int64_t)need_u64(&f[0], path0, "step", INT64_MAX),
                                (int64_t)need_u64(&f[0], path0, "optim_t", INT64_MAX),
                                need_u64(&f[0], path0, "seed", UINT64_MAX),
                                (size_t)need_u64(&f[0], path0, "global_batch", SIZE_MAX)};
    if (st_meta(&f[0], "data_replicas")) {
        parts.has_position = true;
        parts.data_replicas = (int)need_u64(&f[0], path0, "data_replicas", 1 << 20);
        parts.epoch = (int64_t)need_u64(&f[0], path0, "epoch", INT64_MAX);
        parts.consumed = (int64_t)need_u64(&f[0], path0, "consumed", UINT32_MAX);
    }
    checkpoint_write(&parts, out);
    printf("fsdp_consolidate: %d shards -> %s (%zu parameters, step %lld)\n", N, out, L.numel, (long long)parts.step);
    for (int r = 0; r < N; r++) st_close(&f[r]);
    for (int k = 0; k < 3; k++) free(full[k]);
    free(f);
    free(unit_numel);
    flat_layout_free(&L);
    return 0;
}
