/* gpt.c — the GPT model: parameters, presets, forward, and the backward walk with its
 * gradient-ready hook (see gpt.h for the picture and the orders). The layer math lives in
 * linear.c and xent.c (lesson 01's) and gpt_layers.c (given), reached through gpt_ops.c, which
 * runs each layer where the buffers are (on a GPU: gpt_kernels.cu): one walk for both devices. */
#include "gpt.h"

#include "gpt_layers.h"
#include "gpt_ops.h"
#include "layers.h"
#include "rng.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gpt_preset(const char *name, gpt_config_t *cfg) {
    /* Counts by gpt_count_params: V·C + T·C + L·(12C² + 13C) + 2C
     *   gpt-tiny:  27·16 + 8·16 + 2·(12·256 + 208) + 32          =     7,152
     *   gpt-mini:  97·64 + 64·64 + 2·(12·4096 + 832) + 128       =   110,400
     *   gpt-small: 256·256 + 128·256 + 6·(12·65536 + 3328) + 512  = 4,837,376 */
    static const struct {
        const char *name;
        gpt_config_t cfg;
    } presets[] = {
        {"gpt-tiny", {27, 8, 16, 2, 2}},
        {"gpt-mini", {97, 64, 64, 4, 2}},
        {"gpt-small", {256, 128, 256, 8, 6}},
    };
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
        if (strcmp(name, presets[i].name) == 0) {
            *cfg = presets[i].cfg;
            return 0;
        }
    return -1;
}

size_t gpt_count_params(const gpt_config_t *c) {
    size_t V = (size_t)c->vocab, T = (size_t)c->context, C = (size_t)c->channels, L = (size_t)c->layers;
    return V * C + T * C + L * (12 * C * C + 13 * C) + 2 * C;
}

int gpt_check_config(const gpt_config_t *c, char *err, size_t errlen) {
    const struct {
        const char *name;
        int value, max;
    } sizes[] = {{"vocab", c->vocab, 65536},
                 {"context", c->context, 1024},
                 {"channels", c->channels, 65536},
                 {"heads", c->heads, 1024},
                 {"layers", c->layers, 256}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (sizes[i].value < 1 || sizes[i].value > sizes[i].max)
            return dp_error(err, errlen, "gpt size %s=%d is out of range (1..%d)", sizes[i].name, sizes[i].value,
                            sizes[i].max);
    if (c->channels % c->heads != 0)
        return dp_error(err, errlen, "gpt channels=%d is not a multiple of heads=%d", c->channels, c->heads);
    size_t n = gpt_count_params(c); /* within the ranges above it fits in 64 bits */
    if (n > MODEL_MAX_PARAMS)
        return dp_error(err, errlen, "the gpt model has %zu parameters, more than the %zu this course supports", n,
                        MODEL_MAX_PARAMS);
    return 0;
}

void gpt_layout(flat_layout_t *L, const gpt_config_t *c) {
    size_t V = (size_t)c->vocab, T = (size_t)c->context, C = (size_t)c->channels;
    static const struct {
        const char *name;
        size_t rows, cols; /* cols 0: a vector of `rows` (in units of C) */
    } block[GPT_PER_BLOCK] = {
        {"ln_1.weight", 1, 0},      {"ln_1.bias", 1, 0},          {"attn.c_attn.weight", 3, 1},
        {"attn.c_attn.bias", 3, 0}, {"attn.c_proj.weight", 1, 1}, {"attn.c_proj.bias", 1, 0},
        {"ln_2.weight", 1, 0},      {"ln_2.bias", 1, 0},          {"mlp.c_fc.weight", 4, 1},
        {"mlp.c_fc.bias", 4, 0},    {"mlp.c_proj.weight", 1, 4},  {"mlp.c_proj.bias", 1, 0},
    };
    flat_layout_init(L);
    flat_layout_add(L, "transformer.wte.weight", 2, (size_t[]){V, C});
    flat_layout_add(L, "transformer.wpe.weight", 2, (size_t[]){T, C});
    char name[FLAT_MAX_NAME];
    for (int i = 0; i < c->layers; i++)
        for (int k = 0; k < GPT_PER_BLOCK; k++) {
            snprintf(name, sizeof name, "transformer.h.%d.%s", i, block[k].name);
            if (block[k].cols)
                flat_layout_add(L, name, 2, (size_t[]){block[k].rows * C, block[k].cols * C});
            else
                flat_layout_add(L, name, 1, (size_t[]){block[k].rows * C});
        }
    flat_layout_add(L, "transformer.ln_f.weight", 1, (size_t[]){C});
    flat_layout_add(L, "transformer.ln_f.bias", 1, (size_t[]){C});
}

static float *alloc_tracked(gpt_t *m, mem_cat_t cat, size_t count) {
    if (m->mem) mem_add(m->mem, cat, count * sizeof(float));
    return ops_alloc(m->ops, count);
}

static void free_tracked(gpt_t *m, mem_cat_t cat, float *p, size_t count) {
    if (!p) return; /* taken apart and freed already (FSDP, lesson 08, keeps shards only) */
    if (m->mem) mem_sub(m->mem, cat, count * sizeof(float));
    ops_free(m->ops, p);
}

/* Every activation buffer with its size, for gpt_init and gpt_free alike (one list, no leak). */
typedef struct {
    float **p;
    size_t count;
} gpt_buf_t;

static int activation_bufs(gpt_t *m, gpt_buf_t *out) {
    size_t N = (size_t)m->max_batch * (size_t)m->cfg.context, C = (size_t)m->cfg.channels;
    size_t V = (size_t)m->cfg.vocab, T = (size_t)m->cfg.context;
    size_t att = (size_t)m->max_batch * (size_t)m->cfg.heads * T * T;
    int n = 0;
#define BUF(ptr, cnt) out[n++] = (gpt_buf_t){&(ptr), (cnt)}
    BUF(m->encoded, N * C);
    for (int l = 0; l < m->cfg.layers; l++) {
        gpt_block_acts_t *a = &m->blocks[l];
        BUF(a->ln1, N * C), BUF(a->ln1_mean, N), BUF(a->ln1_rstd, N), BUF(a->qkv, N * 3 * C), BUF(a->att, att);
        BUF(a->atty, N * C), BUF(a->res_mid, N * C), BUF(a->ln2, N * C), BUF(a->ln2_mean, N), BUF(a->ln2_rstd, N);
        BUF(a->fc, N * 4 * C), BUF(a->fc_gelu, N * 4 * C), BUF(a->res_out, N * C);
    }
    BUF(m->lnf, N * C), BUF(m->lnf_mean, N), BUF(m->lnf_rstd, N);
    BUF(m->logits, N * V), BUF(m->probs, N * V), BUF(m->losses, N), BUF(m->dlogits, N * V);
    BUF(m->dres, N * C), BUF(m->dln, N * C), BUF(m->dbig, N * 4 * C);
    /* the CPU's attention works a head at a time; a GPU does every score row at once */
    BUF(m->att_scratch,
        m->ops->backend == OPS_CPU ? gpt_ops_attention_scratch_floats(m->ops, (int)T, (int)C, m->cfg.heads) : att);
    BUF(m->head_bias, V), BUF(m->head_dbias, V);
#undef BUF
    return n;
}
#define GPT_FIXED_BUFS 14 /* activation_bufs' buffers outside the blocks */

void gpt_init(gpt_t *m, const gpt_config_t *cfg, const ops_t *ops, int max_batch, uint64_t seed, mem_t *mem) {
    memset(m, 0, sizeof *m);
    char err[256];
    if (gpt_check_config(cfg, err, sizeof err) != 0) dp_fatal("%s", err);
    if (max_batch < 1) dp_fatal("gpt_init: max_batch=%d, it must be at least 1", max_batch);
    m->cfg = *cfg;
    m->ops = ops;
    m->mem = mem;
    m->max_batch = max_batch;
    gpt_layout(&m->layout, cfg);
    m->params = alloc_tracked(m, MEM_PARAMS, m->layout.numel);
    m->grads = alloc_tracked(m, MEM_GRADS, m->layout.numel);

    /* units: 0 = wte, wpe; 1+i = block i; L+1 = ln_f */
    int L = cfg->layers;
    m->nunits = L + 2;
    m->unit_offset = dp_calloc((size_t)m->nunits, sizeof(size_t));
    m->unit_numel = dp_calloc((size_t)m->nunits, sizeof(size_t));
    m->unit_of = dp_calloc((size_t)m->layout.count, sizeof(int));
    m->unit_params = dp_calloc((size_t)m->nunits, sizeof(float *));
    m->unit_grads = dp_calloc((size_t)m->nunits, sizeof(float *));
    for (int i = m->layout.count - 1; i >= 0; i--) { /* backwards: a unit's offset is its first view's */
        int u = gpt_unit_of(L, i);
        m->unit_of[i] = u;
        m->unit_offset[u] = m->layout.views[i].offset;
        m->unit_numel[u] += m->layout.views[i].numel;
    }
    for (int u = 0; u < m->nunits; u++) {
        m->unit_params[u] = m->params + m->unit_offset[u];
        m->unit_grads[u] = m->grads + m->unit_offset[u];
    }
    gpt_reset_params(m, seed);

    size_t N = (size_t)max_batch * (size_t)cfg->context;
    m->tokens = dp_calloc(N, sizeof(int32_t));
    m->targets = dp_calloc(N, sizeof(int32_t));
    m->tokens_dev = m->tokens, m->targets_dev = m->targets;
    if (ops->backend != OPS_CPU) {
        m->tokens_dev = ops_alloc_bytes(ops, N * sizeof(int32_t));
        m->targets_dev = ops_alloc_bytes(ops, N * sizeof(int32_t));
        m->xent_targets_dev = ops_alloc_bytes(ops, N * sizeof(int32_t));
        m->losses_host = dp_calloc(N, sizeof(float));
    }
    m->blocks = dp_calloc((size_t)L, sizeof(gpt_block_acts_t));
    gpt_buf_t *bufs = dp_malloc(((size_t)L * 13 + GPT_FIXED_BUFS) * sizeof(gpt_buf_t));
    int n = activation_bufs(m, bufs);
    for (int i = 0; i < n; i++) *bufs[i].p = alloc_tracked(m, MEM_ACTIVATIONS, bufs[i].count);
    free(bufs);
}

void gpt_reset_params(gpt_t *m, uint64_t seed) {
    int L = m->cfg.layers;
    float proj_std = 0.02f / sqrtf(2.0f * (float)L);
    rng_t r;
    rng_init(&r, seed);
    /* drawn on the host, then copied where the model is */
    float *host = m->ops->backend == OPS_CPU ? m->params : dp_malloc(m->layout.numel * sizeof(float));
    for (int i = 0; i < m->layout.count; i++) {
        const flat_view_t *v = &m->layout.views[i];
        float *p = host + v->offset;
        int k = i >= 2 && i < gpt_lnf_w(L) ? (i - 2) % GPT_PER_BLOCK : -1; /* the kind inside a block */
        bool is_ln_weight = k == GPT_LN1_W || k == GPT_LN2_W || i == gpt_lnf_w(L);
        float std = k == GPT_APROJ_W || k == GPT_MPROJ_W ? proj_std : 0.02f;
        if (v->ndim == 2) /* wte, wpe and every Linear weight */
            for (size_t j = 0; j < v->numel; j++) p[j] = std * rng_normal(&r);
        else
            for (size_t j = 0; j < v->numel; j++) p[j] = is_ln_weight ? 1.0f : 0.0f;
    }
    if (host != m->params) {
        ops_from_host(m->ops, m->params, host, m->layout.numel);
        free(host);
    }
}

void gpt_free(gpt_t *m) {
    if (m->blocks) {
        gpt_buf_t *bufs = dp_malloc(((size_t)m->cfg.layers * 13 + GPT_FIXED_BUFS) * sizeof(gpt_buf_t));
        int n = activation_bufs(m, bufs);
        for (int i = 0; i < n; i++) free_tracked(m, MEM_ACTIVATIONS, *bufs[i].p, bufs[i].count);
        free(bufs);
    }
    free_tracked(m, MEM_PARAMS, m->params, m->layout.numel);
    free_tracked(m, MEM_GRADS, m->grads, m->layout.numel);
    free(m->blocks);
    free(m->unit_offset);
    free(m->unit_numel);
    free(m->unit_of);
    free(m->unit_params);
    free(m->unit_grads);
    if (m->tokens_dev != m->tokens) {
        ops_free_bytes(m->ops, m->tokens_dev);
        ops_free_bytes(m->ops, m->targets_dev);
        ops_free_bytes(m->ops, m->xent_targets_dev);
        free(m->losses_host);
    }
    free(m->tokens);
    free(m->targets);
    flat_layout_free(&m->layout);
    memset(m, 0, sizeof *m);
}

size_t gpt_num_params(const gpt_t *m) { return m->layout.numel; }

void gpt_zero_grad(gpt_t *m) { ops_fill(m->ops, m->grads, 0.0f, m->layout.numel); }

float *gpt_param(const gpt_t *m, int i) {
    int u = m->unit_of[i];
    return m->unit_params[u] + (m->layout.views[i].offset - m->unit_offset[u]);
}

float *gpt_grad(const gpt_t *m, int i) {
    int u = m->unit_of[i];
    return m->unit_grads[u] + (m->layout.views[i].offset - m->unit_offset[u]);
}

#define HOOK(m, which, u)                                                                                              \
    do {                                                                                                               \
        if ((m)->unit_hooks.which) (m)->unit_hooks.which((m)->unit_hooks.ctx, (u));                                    \
    } while (0)

float gpt_forward(gpt_t *m, const int32_t *tokens, const int32_t *targets, int B, int Tn) {
    const gpt_config_t *c = &m->cfg;
    if (B < 1 || B > m->max_batch)
        dp_fatal("gpt forward on %d sequences, the model was sized for 1..%d", B, m->max_batch);
    if (Tn < 1 || Tn > c->context)
        dp_fatal("gpt forward on %d tokens per sequence, the block size allows 1..%d", Tn, c->context);
    double t0 = dp_now();
    int N = B * Tn, C = c->channels, V = c->vocab, L = c->layers;
    for (int n = 0; n < N; n++) {
        if (tokens[n] < 0 || tokens[n] >= V)
            dp_fatal("gpt forward: token %d at position %d is not in 0..%d", tokens[n], n, V - 1);
        if (targets && targets[n] >= V)
            dp_fatal("gpt forward: target %d at position %d is not below %d", targets[n], n, V);
    }
    m->batch = B;
    m->seq = Tn;
    memcpy(m->tokens, tokens, (size_t)N * sizeof(int32_t));
    m->counted = 0;
    for (int n = 0; n < N; n++) {
        m->targets[n] = targets ? targets[n] : -1;
        m->counted += m->targets[n] >= 0;
    }
    if (m->tokens_dev != m->tokens) {
        ops_upload(m->ops, m->tokens_dev, m->tokens, (size_t)N * sizeof(int32_t));
        ops_upload(m->ops, m->targets_dev, m->targets, (size_t)N * sizeof(int32_t));
    }

    /* embeddings: encoded[b, t] = wte[token] + wpe[t] */
    HOOK(m, pre_forward, 0);
    gpt_ops_embedding_forward(m->ops, gpt_param(m, gpt_wte()), gpt_param(m, gpt_wpe()), m->tokens_dev, B, Tn, C,
                              m->encoded);
    HOOK(m, post_forward, 0);

    const float *x = m->encoded;
    for (int l = 0; l < L; l++) {
        gpt_block_acts_t *a = &m->blocks[l];
#define P(k) gpt_param(m, gpt_block_param(l, k))
        HOOK(m, pre_forward, 1 + l);
        gpt_ops_layernorm_forward(m->ops, x, P(GPT_LN1_W), P(GPT_LN1_B), N, C, a->ln1, a->ln1_mean, a->ln1_rstd);
        gpt_ops_linear_forward(m->ops, a->ln1, P(GPT_ATTN_W), P(GPT_ATTN_B), N, C, 3 * C, a->qkv);
        gpt_ops_attention_forward(m->ops, a->qkv, B, Tn, C, c->heads, a->att, a->atty);
        gpt_ops_linear_forward(m->ops, a->atty, P(GPT_APROJ_W), P(GPT_APROJ_B), N, C, C, a->res_mid);
        ops_axpy(m->ops, 1.0f, x, a->res_mid, (size_t)N * C); /* the residual adds: y += 1·x is exact */
        gpt_ops_layernorm_forward(m->ops, a->res_mid, P(GPT_LN2_W), P(GPT_LN2_B), N, C, a->ln2, a->ln2_mean,
                                  a->ln2_rstd);
        gpt_ops_linear_forward(m->ops, a->ln2, P(GPT_FC_W), P(GPT_FC_B), N, C, 4 * C, a->fc);
        gpt_ops_gelu_forward(m->ops, a->fc, a->fc_gelu, (size_t)N * 4 * C);
        gpt_ops_linear_forward(m->ops, a->fc_gelu, P(GPT_MPROJ_W), P(GPT_MPROJ_B), N, 4 * C, C, a->res_out);
        ops_axpy(m->ops, 1.0f, a->res_mid, a->res_out, (size_t)N * C);
        HOOK(m, post_forward, 1 + l);
#undef P
        x = a->res_out;
    }

    HOOK(m, pre_forward, L + 1);
    gpt_ops_layernorm_forward(m->ops, x, gpt_param(m, gpt_lnf_w(L)), gpt_param(m, gpt_lnf_b(L)), N, C, m->lnf,
                              m->lnf_mean, m->lnf_rstd);
    HOOK(m, post_forward, L + 1);
    /* the tied head: logits = lnf · wteᵀ, a Linear [V, C] whose weight is wte and whose bias is 0 */
    HOOK(m, pre_forward, 0);
    gpt_ops_linear_forward(m->ops, m->lnf, gpt_param(m, gpt_wte()), m->head_bias, N, C, V, m->logits);
    HOOK(m, post_forward, 0);

    /* cross-entropy, ignored rows left out, averaged over the counted ones */
    float loss = gpt_ops_cross_entropy_forward(m);
    if (m->trace) {
        char span[48];
        snprintf(span, sizeof span, "fwd b=%d t=%d", B, Tn);
        trace_span(m->trace, "compute", span, t0, dp_now());
    }
    return loss;
}

static void ready(grad_ready_fn hook, void *ctx, int index) {
    if (hook) hook(ctx, index);
}

void gpt_backward(gpt_t *m, float grad_scale, grad_ready_fn hook, void *hook_ctx) {
    const gpt_config_t *c = &m->cfg;
    int B = m->batch, Tn = m->seq;
    if (B < 1) dp_fatal("gpt backward called before any forward");
    int N = B * Tn, C = c->channels, V = c->vocab, L = c->layers;
    double t0 = dp_now();
    char span[32];

    gpt_ops_cross_entropy_backward(m, grad_scale);

    /* the head: wte's first share of gradient (not final yet); the bias gradient goes to a sink */
    HOOK(m, pre_backward, 0);
    ops_fill(m->ops, m->head_dbias, 0.0f, (size_t)V);
    linear_backward(m->ops, m->lnf, gpt_param(m, gpt_wte()), m->dlogits, N, C, V, m->dln, gpt_grad(m, gpt_wte()),
                    m->head_dbias);

    /* ln_f: dres starts as ∂L/∂(last block's output) */
    HOOK(m, pre_backward, L + 1);
    const float *xlast = L > 0 ? m->blocks[L - 1].res_out : m->encoded;
    ops_fill(m->ops, m->dres, 0.0f, (size_t)N * C);
    gpt_ops_layernorm_backward(m->ops, xlast, gpt_param(m, gpt_lnf_w(L)), m->lnf_mean, m->lnf_rstd, m->dln, N, C,
                               m->dres, gpt_grad(m, gpt_lnf_w(L)), gpt_grad(m, gpt_lnf_b(L)));
    ready(hook, hook_ctx, gpt_lnf_b(L));
    ready(hook, hook_ctx, gpt_lnf_w(L));
    HOOK(m, post_backward, L + 1);
    trace_span(m->trace, "compute", "bwd head", t0, dp_now());

    /* blocks, last to first. dres is ∂L/∂(block output) on entry and ∂L/∂(block input) on exit:
     * each LayerNorm backward ADDS its branch's share to what the skip connection carried. */
    for (int l = L - 1; l >= 0; l--) {
        t0 = dp_now();
        gpt_block_acts_t *a = &m->blocks[l];
        const float *x = l > 0 ? m->blocks[l - 1].res_out : m->encoded;
#define P(k)     gpt_param(m, gpt_block_param(l, k))
#define G(k)     gpt_grad(m, gpt_block_param(l, k))
#define READY(k) ready(hook, hook_ctx, gpt_block_param(l, k))
        HOOK(m, pre_backward, 1 + l);
        /* MLP branch: res_out = res_mid + c_proj(gelu(c_fc(ln_2(res_mid)))) */
        linear_backward(m->ops, a->fc_gelu, P(GPT_MPROJ_W), m->dres, N, 4 * C, C, m->dbig, G(GPT_MPROJ_W),
                        G(GPT_MPROJ_B));
        READY(GPT_MPROJ_B), READY(GPT_MPROJ_W);
        gpt_ops_gelu_backward(m->ops, a->fc, m->dbig, m->dbig, (size_t)N * 4 * C);
        linear_backward(m->ops, a->ln2, P(GPT_FC_W), m->dbig, N, C, 4 * C, m->dln, G(GPT_FC_W), G(GPT_FC_B));
        READY(GPT_FC_B), READY(GPT_FC_W);
        gpt_ops_layernorm_backward(m->ops, a->res_mid, P(GPT_LN2_W), a->ln2_mean, a->ln2_rstd, m->dln, N, C, m->dres,
                                   G(GPT_LN2_W), G(GPT_LN2_B));
        READY(GPT_LN2_B), READY(GPT_LN2_W);
        /* attention branch: res_mid = x + c_proj(attention(c_attn(ln_1(x)))); dln holds ∂L/∂atty */
        linear_backward(m->ops, a->atty, P(GPT_APROJ_W), m->dres, N, C, C, m->dln, G(GPT_APROJ_W), G(GPT_APROJ_B));
        READY(GPT_APROJ_B), READY(GPT_APROJ_W);
        gpt_ops_attention_backward(m->ops, a->qkv, a->att, m->dln, B, Tn, C, c->heads, m->dbig, m->att_scratch);
        linear_backward(m->ops, a->ln1, P(GPT_ATTN_W), m->dbig, N, C, 3 * C, m->dln, G(GPT_ATTN_W), G(GPT_ATTN_B));
        READY(GPT_ATTN_B), READY(GPT_ATTN_W);
        gpt_ops_layernorm_backward(m->ops, x, P(GPT_LN1_W), a->ln1_mean, a->ln1_rstd, m->dln, N, C, m->dres,
                                   G(GPT_LN1_W), G(GPT_LN1_B));
        READY(GPT_LN1_B), READY(GPT_LN1_W);
        HOOK(m, post_backward, 1 + l);
#undef P
#undef G
#undef READY
        snprintf(span, sizeof span, "bwd h.%d", l);
        trace_span(m->trace, "compute", span, t0, dp_now());
    }

    /* embeddings: dres = ∂L/∂encoded; wpe[t] collects every sequence's position t, wte every use of
     * a token — on top of the head's share: now final */
    t0 = dp_now();
    gpt_ops_position_backward(m->ops, m->dres, B, Tn, C, gpt_grad(m, gpt_wpe()));
    ready(hook, hook_ctx, gpt_wpe());
    gpt_ops_token_backward(m->ops, m->dres, m->tokens_dev, B, Tn, V, C, gpt_grad(m, gpt_wte()));
    ready(hook, hook_ctx, gpt_wte());
    HOOK(m, post_backward, 0);
    trace_span(m->trace, "compute", "bwd embeddings", t0, dp_now());
}
