/* model.h — the character-level MLP language model of lesson 01.
 *
 *   context tokens  c[0..T)                         (T = --context)
 *        │ wte: embedding [V, E]
 *        ▼
 *   x0 = concat(wte[c0], ..., wte[c(T-1)])         [B, T·E]
 *        │ h.0: Linear(T·E → H) + tanh
 *        ▼
 *   h0                                              [B, H]
 *        │ h.1 ... h.(L-1): Linear(H → H) + tanh
 *        ▼
 *   h(L-1)                                          [B, H]
 *        │ head: Linear(H → V)
 *        ▼
 *   logits → softmax cross-entropy with the next token, averaged over the batch → loss
 *
 * Parameters live in one flat array (see common/flat.h), registered in this order — the order of
 * PyTorch's model.parameters() for the same model:
 *   wte, h.0.weight, h.0.bias, ..., h.(L-1).weight, h.(L-1).bias, head.weight, head.bias
 * A Linear's weight is [out, in] and computes y = x·Wᵀ + b, as torch.nn.Linear does.
 *
 * Backward walks the layers in reverse and, as soon as a parameter's gradient is final, calls the
 * gradient-ready hook with that parameter's index: head.bias, head.weight, h.(L-1).bias, ..., wte —
 * exactly reverse registration order. DDP (lesson 05) hangs its bucketing on this hook. */
#ifndef DPC_MODEL_H
#define DPC_MODEL_H

#include "flat.h"
#include "mem.h"
#include "ops.h"
#include "trace.h"

#include <stdint.h>

/* Which network a model_t is. MODEL_MLP (0, so that a config written as {V, T, E, H, L} is the
 * MLP) is the network pictured above; MODEL_GPT is gpt.h's transformer, which model_t wraps so that
 * every lesson's code and every student file drives it through the same model_t (see below). */
typedef enum { MODEL_MLP = 0, MODEL_GPT = 1 } model_kind_t;

typedef struct {
    int vocab;   /* V */
    int context; /* T */
    int embed;   /* E (a GPT: its channels C) */
    int hidden;  /* H (a GPT: its MLP's width 4C, implied by C and not checked) */
    int layers;  /* L: hidden Linear+tanh layers, >= 1 (a GPT: transformer blocks) */
    model_kind_t kind;
    int heads; /* a GPT only: attention heads NH, C % NH == 0 */
} model_config_t;

typedef void (*grad_ready_fn)(void *ctx, int param_index);

/* A unit is what FSDP (lesson 08) gathers and frees at once: the embedding (unit 0), each hidden
 * Linear with its bias (units 1..L), the head (unit L+1) — each a contiguous run of the flat
 * layout. The model reads unit u's parameters at unit_params[u] and writes its gradients at
 * unit_grads[u] (by default: the unit's slice of the flat arrays), and calls these hooks around
 * the unit's forward and backward so that a later lesson can put them elsewhere first. */
typedef struct {
    void *ctx;
    void (*pre_forward)(void *ctx, int unit);
    void (*post_forward)(void *ctx, int unit);
    void (*pre_backward)(void *ctx, int unit);
    void (*post_backward)(void *ctx, int unit);
} model_unit_hooks_t;

struct gpt;
struct mixed_precision;

/* A GPT inside model_t. model_t owns a gpt_t and SHARES its layout, params, grads and unit arrays
 * (the fields below point at the gpt_t's own), and forwards unit_hooks and trace to it on every
 * forward and backward: DDP's buckets, FSDP's units, the optimizer, checkpoints and dumps see one
 * flat layout whichever the network is. The MLP's activation fields below stay NULL.
 *
 * Its examples are the MLP's: ctx [B, T] and ONE target per example, the token after the window.
 * The GPT predicts at every position, and its targets are the window shifted by one — ctx[b, 1..T)
 * then targets[b] — so model_forward builds them from these two and nothing upstream changes (a
 * student's accumulation step slices t->targets one per example, as for the MLP). Its loss is the
 * mean over the B·T positions: every example counts T, so the mean of equal micro-batches' or
 * ranks' means is the global mean, as for the MLP. */
typedef struct {
    model_config_t cfg;
    const ops_t *ops;
    struct gpt *gpt;      /* cfg.kind == MODEL_GPT: the network; NULL for the MLP */
    int32_t *gpt_targets; /* a GPT: [max_batch, T] the shifted window of the last forward */
    int32_t *gpt_tokens;  /* a GPT: [max_batch, T] the window, cut to the batch's longest example */
    /* Variable-length examples (common/records.h): -1 in ctx is padding (no token, no target). A
     * GPT's forward cuts the batch to its longest example unless pad_to_context; the MLP takes none. */
    bool pad_to_context;
    /* Multiplies the loss forward returns and the gradient backward computes (1; --loss-norm tokens
     * sets N·n_r/Σn, records.h) */
    float loss_weight;
    flat_layout_t layout; /* the parameters' names, shapes, offsets */
    float *params;        /* layout.numel floats */
    float *grads;         /* layout.numel floats, same layout */
    int max_batch;        /* activations are sized for this many examples */
    /* the trainer's batch buffers (max_batch examples; NULL: none registered): a forward whose ctx or
     * targets point into them must take the same examples from both, inside them (model_forward) */
    const int32_t *batch_ctx, *batch_targets;
    /* activations of the last forward (kept for backward) */
    int batch;                      /* B of the last forward */
    int32_t *ctx;                   /* [B, T] copy of the inputs (host) */
    int32_t *targets;               /* [B] (host) */
    int32_t *ctx_dev, *targets_dev; /* the same in the context's memory (== ctx, targets on the CPU) */
    float *losses_host;             /* [B] per-example losses, on the host */
    float *x0;                      /* [B, T·E] */
    float **h;                      /* h[l]: [B, H] after tanh */
    float *logits;                  /* [B, V] */
    float *probs;                   /* [B, V] softmax of logits */
    float *losses;                  /* [B] per-example loss */
    float *dlogits;                 /* [B, V] */
    float *dh_a, *dh_b;             /* [B, max(H, T·E)] ping-pong gradient buffers */
    trace_t *trace;                 /* optional: forward records a span with its batch size, backward one per layer */
    mem_t *mem;                     /* optional: memory accounting */
    /* units (see above) */
    int nunits;
    size_t *unit_offset, *unit_numel; /* in the flat layout */
    int *unit_of;                     /* parameter index -> unit */
    float **unit_params, **unit_grads;
    model_unit_hooks_t unit_hooks;
    /* --mixed-precision (mixed_precision.h): forward rounds the parameters into a bf16/fp16 copy
     * that the units point at, backward rounds each gradient; NULL: float32 throughout */
    struct mixed_precision *mp;
} model_t;

/* Where parameter i's values / gradient are right now (inside its unit's current buffer). */
float *model_param(const model_t *m, int i);
float *model_grad(const model_t *m, int i);

/* Parameter indices in the layout. */
static inline int model_wte(void) { return 0; }
static inline int model_weight(int layer) { return 1 + 2 * layer; } /* layer L = head */
static inline int model_bias(int layer) { return 2 + 2 * layer; }

/* Allocate (parameters, gradients, activations for up to max_batch examples) and initialise the
 * parameters from seed like PyTorch does: wte ~ N(0,1); Linear W, b ~ U(-1/sqrt(in), 1/sqrt(in)). */
void model_init(model_t *m, const model_config_t *cfg, const ops_t *ops, int max_batch, uint64_t seed, mem_t *mem);
/* Re-draw the parameters from another seed (model_init does it with its own). */
void model_reset_params(model_t *m, uint64_t seed);
/* Sizes every model must have: each in 1..its maximum (the trainer's flag limits) and at most
 * MODEL_MAX_PARAMS parameters in all. Returns 0, or -1 with err saying which size is wrong. Checked
 * before anything is allocated, so sizes read from a crafted file never ask for terabytes. */
#define MODEL_MAX_PARAMS ((size_t)1 << 31)
int model_check_config(const model_config_t *cfg, char *err, size_t errlen);
/* Parameters only (no gradients or activations): for tools that read checkpoints. Call
 * model_check_config first. */
void model_layout(flat_layout_t *layout, const model_config_t *cfg);
/* The unit of parameter i (model_t's unit_of) from the config alone: for tools that have a layout
 * but no model (fsdp_consolidate). */
int model_unit_of(const model_config_t *cfg, int index);
void model_free(model_t *m);
size_t model_num_params(const model_t *m);

/* "vocab=V context=T embed=E hidden=H layers=L" for the MLP (what checkpoints have always held),
 * "gpt vocab=V context=T channels=C heads=NH layers=L" for a GPT: a checkpoint's identity. */
void model_config_string(const model_config_t *cfg, char *out, size_t n);
/* A GPT preset's config (gpt-tiny, gpt-mini, gpt-small; gpt.h) with the vocabulary `vocab`: 0, or -1 for an
 * unknown name. */
int model_gpt_preset(const char *name, int vocab, model_config_t *cfg);

/* Forward on B examples (ctx [B, T], targets [B]); returns the mean cross-entropy loss (a GPT: over
 * the B·T positions, see above). */
float model_forward(model_t *m, const int32_t *ctx, const int32_t *targets, int B);
/* Backward of the last forward. Gradients ACCUMULATE into m->grads (zero them first for a fresh
 * step). grad_scale multiplies the gradient of the mean loss (1 for plain training; b_i/B for a
 * micro-batch of b_i of the step's B examples, lesson 06). hook(hook_ctx, i) fires when parameter i's gradient is final. */
void model_backward(model_t *m, float grad_scale, grad_ready_fn hook, void *hook_ctx);
void model_zero_grad(model_t *m);

#endif
