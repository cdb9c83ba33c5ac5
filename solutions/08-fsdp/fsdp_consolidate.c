/* fsdp_consolidate — N shard files of train_fsdp --save into one lesson-01 checkpoint.
 *
 *   fsdp_consolidate --shards out/ck.safetensors --out out/full.safetensors
 *
 * Reads PATH.rank<r>-of-<N>.safetensors for r = 0..N−1, and for every unit lays the ranks' shards
 * end to end and drops the padding — the inverse of the sharding — for the parameters and AdamW's m
 * and v. The result loads in `train --resume` (lesson 01) and in train_fsdp on any number of ranks. */
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
    if (!v) dp_fatal("%s has no '%s': not a shard file of train_fsdp --save", path, key);
    return v;
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

    char path[4096], err[512];
    int N = 0;
    for (int n = 1; n <= 4096 && !N; n++) {
        snprintf(path, sizeof path, "%s.rank0-of-%d.safetensors", shards, n);
        FILE *probe = fopen(path, "rb");
        if (probe) fclose(probe), N = n;
    }
    if (!N) dp_fatal("no shard files %s.rank0-of-N.safetensors found", shards);
    st_file_t *f = dp_calloc((size_t)N, sizeof *f);
    for (int r = 0; r < N; r++) {
        snprintf(path, sizeof path, "%s.rank%d-of-%d.safetensors", shards, r, N);
        if (st_load(path, &f[r], err, sizeof err) != 0) dp_fatal("%s", err);
        if (strcmp(need_meta(&f[r], path, "format"), "dpc-fsdp-shard-1") || atoi(need_meta(&f[r], path, "rank")) != r ||
            atoi(need_meta(&f[r], path, "world_size")) != N)
            dp_fatal("%s is not shard %d of %d", path, r, N);
        if (r && (strcmp(need_meta(&f[r], path, "step"), need_meta(&f[0], shards, "step")) ||
                  strcmp(need_meta(&f[r], path, "model"), need_meta(&f[0], shards, "model"))))
            dp_fatal("%s is from a different step or model than rank 0's shard", path);
    }
    model_config_t mc;
    if (sscanf(need_meta(&f[0], shards, "model"), "vocab=%d context=%d embed=%d hidden=%d layers=%d", &mc.vocab,
               &mc.context, &mc.embed, &mc.hidden, &mc.layers) != 5)
        dp_fatal("cannot read the model sizes of %s", shards);
    flat_layout_t L;
    model_layout(&L, &mc);
    const char *opt = need_meta(&f[0], shards, "optimizer");
    int with_v = !strcmp(opt, "adamw");
    float *full[3];
    for (int k = 0; k < 3; k++) full[k] = dp_calloc(L.numel, sizeof(float));
    const char *kinds[3] = {"param", "m", "v"};
    /* units: wte, then one per hidden layer, then the head — contiguous runs of the layout */
    size_t offset = 0;
    int nunits = mc.layers + 2;
    for (int u = 0; u < nunits; u++) {
        int first = u == 0 ? 0 : 1 + 2 * (u - 1), last = u == 0 ? 0 : first + 1;
        size_t numel = 0;
        for (int i = first; i <= last; i++) numel += L.views[i].numel;
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
    checkpoint_parts_t parts = {&mc, &L, full[0], full[1], with_v ? full[2] : NULL, opt,
                                strtoll(need_meta(&f[0], shards, "step"), NULL, 10),
                                strtoll(need_meta(&f[0], shards, "optim_t"), NULL, 10),
                                strtoull(need_meta(&f[0], shards, "seed"), NULL, 10),
                                (size_t)strtoull(need_meta(&f[0], shards, "global_batch"), NULL, 10)};
    checkpoint_write(&parts, out);
    printf("fsdp_consolidate: %d shards -> %s (%zu parameters, step %lld)\n", N, out, L.numel, (long long)parts.step);
    for (int r = 0; r < N; r++) st_close(&f[r]);
    for (int k = 0; k < 3; k++) free(full[k]);
    free(f);
    flat_layout_free(&L);
    return 0;
}
