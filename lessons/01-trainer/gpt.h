/* gpt.h — a small GPT-2-style transformer, the course's second model: a CPU reference that also runs
 * on a GPU (every layer through gpt_ops.h, which picks gpt_kernels.cu's kernels there).
 *
 *   tokens [B, T']                                          (T' <= T = block size)
 *     │ wte[token] + wpe[position]
 *     ▼
 *   x [B·T', C]  ── residual stream ─────────────────────────────────────────────┐
 *     │  block i = 0 .. L-1 (pre-LayerNorm):                                     │
 *     │    x += attn.c_proj( causal_attention( attn.c_attn( ln_1(x) ) ) )        │
 *     │    x += mlp.c_proj( gelu_tanh( mlp.c_fc( ln_2(x) ) ) )                   │
 *     ▼                                                                          │
 *   ln_f(x) ──► · wteᵀ (the LM head, TIED to wte: no tensor of its own) ──► logits [B·T', V]
 *     ──► softmax cross-entropy with targets [B, T'], averaged over the counted positions
 *
 * Every position predicts: target[b, t] is the token after tokens[b, 0..t] (the data pipeline's
 * business). A target < 0 is IGNORED (PyTorch's ignore_index=-1, extended to every negative):
 * it adds nothing to the loss, nor to the count the mean divides by. A batch with no counted
 * position has loss 0 and adds no gradient (PyTorch would return NaN).
 *
 * The Linear layers and the cross-entropy are lesson 01's own functions (layers.h), so a
 * student's lesson 01 trains this model too; LayerNorm, GELU and attention are gpt_layers.c.
 *
 * Parameters: one flat array (common/flat.h), registered in the order of PyTorch's
 * model.parameters() for the equivalent nn.Module, under names it loads without renaming
 * (Linear weights are [out, in]: y = x·Wᵀ + b, as torch.nn.Linear):
 *
 *   index        name                                 shape
 *   0            transformer.wte.weight               [V, C]
 *   1            transformer.wpe.weight               [T, C]
 *   2+12i+0,1    transformer.h.i.ln_1.weight, .bias   [C], [C]
 *   2+12i+2,3    transformer.h.i.attn.c_attn.weight   [3C, C], bias [3C]
 *   2+12i+4,5    transformer.h.i.attn.c_proj.weight   [C, C],  bias [C]
 *   2+12i+6,7    transformer.h.i.ln_2.weight, .bias   [C], [C]
 *   2+12i+8,9    transformer.h.i.mlp.c_fc.weight      [4C, C], bias [4C]
 *   2+12i+10,11  transformer.h.i.mlp.c_proj.weight    [C, 4C], bias [C]
 *   2+12L, 3+12L transformer.ln_f.weight, .bias       [C], [C]
 *
 *   count = V·C + T·C + L·(12C² + 13C) + 2C
 *
 * Backward fires the gradient-ready hook once per parameter, as soon as its gradient is final, in
 * EXACTLY reverse registration order:
 *   ln_f.bias, ln_f.weight,
 *   then for i = L-1 down to 0: mlp.c_proj.bias, mlp.c_proj.weight, mlp.c_fc.bias, mlp.c_fc.weight,
 *     ln_2.bias, ln_2.weight, attn.c_proj.bias, attn.c_proj.weight, attn.c_attn.bias,
 *     attn.c_attn.weight, ln_1.bias, ln_1.weight,
 *   then wpe, then wte.
 * The tied wte gets a first share of its gradient from the head (the first thing backward does)
 * but is final only after the embedding backward (the last): being registered first, it is fired
 * last, so tying costs the reverse order nothing — but a DDP bucket holding wte waits for the
 * whole backward.
 *
 * Units (what FSDP, lesson 08, gathers at once), each a contiguous run of the layout: unit 0 = wte, wpe;
 * unit 1+i = block i; unit L+1 = ln_f. The unit hooks (model.h's struct) fire around each use of
 * a unit's parameters: forward: 0, 1 .. L, L+1, then 0 again (the head reads wte); backward:
 * pre_backward(0) before the head, then L+1, L .. 1 (pre and post each), and post_backward(0)
 * after the embedding backward — unit 0 stays live through the whole backward, as a tied weight
 * must. */
#ifndef DPC_GPT_H
#define DPC_GPT_H

#include "flat.h"
#include "mem.h"
#include "model.h" /* grad_ready_fn, model_unit_hooks_t, MODEL_MAX_PARAMS */
#include "ops.h"
#include "trace.h"

#include <stdint.h>

typedef struct {
    int vocab;    /* V */
    int context;  /* T: block size, the longest sequence */
    int channels; /* C */
    int heads;    /* NH: C % NH == 0, head size C/NH */
    int layers;   /* L: transformer blocks, >= 1 */
} gpt_config_t;

/* A block's parameters, in registration order: block i's parameter k is index 2 + 12i + k. */
enum {
    GPT_LN1_W,
    GPT_LN1_B,
    GPT_ATTN_W,
    GPT_ATTN_B,
    GPT_APROJ_W,
    GPT_APROJ_B,
    GPT_LN2_W,
    GPT_LN2_B,
    GPT_FC_W,
    GPT_FC_B,
    GPT_MPROJ_W,
    GPT_MPROJ_B,
    GPT_PER_BLOCK
};

static inline int gpt_wte(void) { return 0; }
static inline int gpt_wpe(void) { return 1; }
static inline int gpt_block_param(int block, int k) { return 2 + GPT_PER_BLOCK * block + k; }
static inline int gpt_lnf_w(int layers) { return 2 + GPT_PER_BLOCK * layers; }
static inline int gpt_lnf_b(int layers) { return 3 + GPT_PER_BLOCK * layers; }
/* The unit of parameter i: 0 = wte, wpe; 1+i = block i; L+1 = ln_f (see the units below). */
static inline int gpt_unit_of(int layers, int i) {
    return i < 2 ? 0 : i < gpt_lnf_w(layers) ? 1 + (i - 2) / GPT_PER_BLOCK : layers + 1;
}

/* What one block's forward keeps for its backward; N = B·T' rows. */
typedef struct {
    float *ln1, *ln1_mean, *ln1_rstd; /* [N, C], [N], [N] */
    float *qkv;                       /* [N, 3C] */
    float *att;                       /* [B, NH, T', T'] attention probabilities */
    float *atty;                      /* [N, C] attention output, before c_proj */
    float *res_mid;                   /* [N, C] x after the attention's residual add */
    float *ln2, *ln2_mean, *ln2_rstd; /* [N, C], [N], [N] */
    float *fc, *fc_gelu;              /* [N, 4C] before and after GELU */
    float *res_out;                   /* [N, C] x after the MLP's residual add: the block's output */
} gpt_block_acts_t;

typedef struct gpt {
    gpt_config_t cfg;
    const ops_t *ops; /* the CPU's (the reference) or a GPU's: where every buffer below lives */
    flat_layout_t layout;
    float *params, *grads; /* layout.numel floats each */
    int max_batch;         /* activations are sized for max_batch sequences of T tokens */
    /* the last forward */
    int batch, seq;            /* B, T' */
    int counted;               /* targets >= 0 in it (0: no targets given) */
    int32_t *tokens, *targets; /* [B·T'] copies, on the host */
    /* the same where the model is (== tokens, targets on the CPU), and on a GPU the targets lesson
     * 01's cross-entropy kernels may index (an ignored row's replaced by 0) and the losses' way back */
    int32_t *tokens_dev, *targets_dev, *xent_targets_dev;
    float *losses_host;
    float *encoded;           /* [N, C] wte[token] + wpe[t]: the residual stream's start */
    gpt_block_acts_t *blocks; /* [L] */
    float *lnf, *lnf_mean, *lnf_rstd;
    float *logits, *probs, *losses; /* [N, V], [N, V], [N] (losses of ignored rows: 0) */
    /* backward scratch */
    float *dlogits;    /* [N, V] */
    float *dres, *dln; /* [N, C]: the residual stream's gradient, a LayerNorm output's */
    float *dbig;       /* [N, 4C]: dqkv, then the MLP's hidden gradient */
    float
        *att_scratch; /* the attention backward's: gpt_ops_attention_scratch_floats() on the CPU; GPU: [B, NH, T, T] */
    float *head_bias, *head_dbias; /* [V]: the untied head has no bias; linear_* get zeros / a sink */
    trace_t *trace;                /* optional */
    mem_t *mem;                    /* optional: memory accounting */
    /* units (see above) */
    int nunits;
    size_t *unit_offset, *unit_numel;
    int *unit_of;
    float **unit_params, **unit_grads;
    model_unit_hooks_t unit_hooks;
} gpt_t;

/* Presets by name: "gpt-tiny" (V=27 T=8 C=16 NH=2 L=2: 7,152 parameters, for checks),
 * "gpt-mini" (V=97, the fortune corpus's characters, T=64 C=64 NH=4 L=2: 110,400 parameters, what
 * make demo trains in a few minutes on 2 cores) and "gpt-small" (V=256 byte-level, T=128 C=256 NH=8
 * L=6: 4,837,376 parameters). Returns 0, or -1 for an unknown name. */
int gpt_preset(const char *name, gpt_config_t *cfg);
/* The parameter count of a configuration, by the formula above. */
size_t gpt_count_params(const gpt_config_t *cfg);
/* Sizes in range, C % NH == 0, at most MODEL_MAX_PARAMS parameters: 0, or -1 with err saying why. */
int gpt_check_config(const gpt_config_t *cfg, char *err, size_t errlen);
/* The parameter layout alone (call gpt_check_config first). */
void gpt_layout(flat_layout_t *layout, const gpt_config_t *cfg);

/* Allocate parameters, gradients (zeroed) and activations for up to max_batch sequences of T tokens,
 * and initialise the parameters from seed (gpt_reset_params). */
void gpt_init(gpt_t *m, const gpt_config_t *cfg, const ops_t *ops, int max_batch, uint64_t seed, mem_t *mem);
/* GPT-2's initialisation in PyTorch's conventions, drawn from one Philox stream (common/rng.h)
 * in registration order (tensors that are not random draw nothing):
 *   wte, wpe, c_attn.weight, c_fc.weight      ~ N(0, 0.02²)
 *   attn.c_proj.weight, mlp.c_proj.weight      ~ N(0, (0.02/sqrt(2L))²)  (each residual add
 *                                                 keeps the stream's variance from growing with L)
 *   every bias 0;  LayerNorm weight 1, bias 0 */
void gpt_reset_params(gpt_t *m, uint64_t seed);
void gpt_free(gpt_t *m);
size_t gpt_num_params(const gpt_t *m);

/* Where parameter i's values / gradient are right now (inside its unit's current buffer). */
float *gpt_param(const gpt_t *m, int i);
float *gpt_grad(const gpt_t *m, int i);

/* Forward on B sequences of Tn tokens (tokens and targets [B, Tn], 1 <= Tn <= T, 1 <= B <= max_batch).
 * targets may be NULL (logits only; returns 0). Returns the mean cross-entropy over the counted
 * positions. */
float gpt_forward(gpt_t *m, const int32_t *tokens, const int32_t *targets, int B, int Tn);
/* Backward of the last forward. Gradients ACCUMULATE into m->grads; grad_scale multiplies the
 * gradient of the mean loss; hook(hook_ctx, i) fires when parameter i's gradient is final (order
 * above). After a forward with no counted target (targets NULL, or all ignored) it adds nothing
 * but still fires every hook: a DDP rank whose batch was all padding must not stall the others. */
void gpt_backward(gpt_t *m, float grad_scale, grad_ready_fn hook, void *hook_ctx);
void gpt_zero_grad(gpt_t *m);

#endif
