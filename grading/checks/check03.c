/* check03 — the grader's checks of lesson 03 (linked with the submission's lesson-03 code).
 *
 *   check03 reduce_cpu                 the C loop, on exact inputs, with guard elements
 *   check03 reduce_kernel              the CUDA kernel against the C loop (exit 77: no GPU here)
 *   mpirun -np N check03 allreduce     naive_allreduce: exact-oracle sweep, traffic only through rank 0
 *                                      (per peer, every communicator), only rank 0 averages */
#include "allreduce_check.h"
#include "checklib.h"
#include "util.h"

#ifdef DPC_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* n values plus 8 guard elements on each side that must stay untouched. */
static int reduce_case(void (*fn)(float *, const float *, size_t), size_t n, const char *what) {
    size_t g = 8;
    float *acc = dp_calloc(n + 2 * g, 4), *in = dp_calloc(n + 2 * g, 4), *want = dp_calloc(n + 2 * g, 4);
    for (size_t i = 0; i < n + 2 * g; i++) {
        acc[i] = (float)((int)(i % 17) - 8) / 64.0f;
        in[i] = (float)((int)(i % 11) - 5) / 32.0f;
        want[i] = (i >= g && i < n + g) ? acc[i] + in[i] : acc[i];
    }
    fn(acc + g, in + g, n);
    /* the whole buffer, guards included, as the judge reads it (checklib.h, "the tape") */
    char tag[96];
    snprintf(tag, sizeof tag, "%s n=%zu: acc and its guard elements", what, n);
    ck_tape(tag, acc, (n + 2 * g) * 4);
    int bad = 0;
    for (size_t i = 0; i < n + 2 * g && !bad; i++)
        if (memcmp(&acc[i], &want[i], 4)) {
            bad = 1;
            if (i < g || i >= n + g)
                printf("FAIL: %s with n=%zu wrote outside [0, n): element %lld was changed\n", what, n,
                       (long long)i - (long long)g);
            else
                printf("FAIL: %s with n=%zu: acc[%zu] = %.7g, expected acc + in = %.7g\n", what, n, i - g,
                       (double)acc[i], (double)want[i]);
        }
    free(acc), free(in), free(want);
    return bad;
}

static int reduce_cpu_check(void) {
    size_t sizes[] = {0, 1, 7, 1000, 1u << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (reduce_case(reduce_add_cpu, sizes[i], "reduce_add_cpu")) return 1;
    printf("reduce_add_cpu: exact for n = 0, 1, 7, 1000, 2^20, nothing written outside the range\n");
    return 0;
}

#ifdef DPC_HAVE_CUDA
/* Run the kernel on device copies of the same data. */
static void kernel_on_host(float *acc, const float *in, size_t n) {
    float *dacc = NULL, *din = NULL;
    size_t bytes = (n + 16) * 4;
    cudaMalloc((void **)&dacc, bytes);
    cudaMalloc((void **)&din, bytes);
    /* guards around the range live on the host side of reduce_case; copy the range plus neighbours */
    cudaMemcpy(dacc, acc - 8, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(din, in - 8, bytes, cudaMemcpyHostToDevice);
    reduce_add_cuda(dacc + 8, din + 8, n, NULL);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(acc - 8, dacc, bytes, cudaMemcpyDeviceToHost);
    /* the judge prints the run's status (the buffer itself is taped by reduce_case) */
    char tag[96];
    snprintf(tag, sizeof tag, "reduce_add_kernel n=%zu: status", n);
    e = (cudaError_t)ck_tape_ll(tag, (long long)e);
    if (e != cudaSuccess) printf("FAIL: the kernel failed: %s\n", cudaGetErrorString(e));
    cudaFree(dacc);
    cudaFree(din);
}
#endif

static int reduce_kernel_check(void) {
#ifdef DPC_HAVE_CUDA
    if (ops_cuda_available()) {
        size_t sizes[] = {0, 1, 255, 256, 257, 1000003, 50u << 20};
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            if (reduce_case(kernel_on_host, sizes[i], "reduce_add_kernel")) return 1;
        printf("reduce_add_kernel: exact for n = 0 .. 50 Mi (block-size edges included), nothing written outside\n");
        return 0;
    }
#endif
    printf("SKIP: no GPU on this machine: the CUDA kernel is compiled but not run\n");
    exit(SKIPPED);
}

/* Naive: everything goes through rank 0: it exchanges one buffer each way with every other rank; a
 * worker talks to rank 0 only, one buffer each way. */
static void naive_traffic(int rank, int N, size_t count, traffic_t *want) {
    uint64_t b = count * 4;
    for (int p = 0; p < N; p++)
        if (p != rank && (rank == 0 || p == 0)) want[p] = (traffic_t){1, 1, b, b, 0};
}

/* Only the root averages: the workers receive the finished result. */
static size_t naive_scaled(int rank, int N, size_t count) {
    (void)N;
    return rank == 0 ? count : 0;
}

static int allreduce_check(void) {
    comm_opts_t o;
    comm_opts_default(&o);
    comm_t *c = comm_init(NULL, NULL, &o);
    ops_t *ops = ops_create(OPS_CPU, 1);
    coll_t coll;
    coll_init(&coll, c, ops);
    const allreduce_spec_t spec = {
        .name = "naive_allreduce",
        .fn = naive_allreduce,
        .traffic = naive_traffic,
        .traffic_hint = "every message goes through rank 0: a worker sends its buffer to rank 0 once and receives the "
                        "result from it once; rank 0 does that with each worker (no worker talks to another)",
        .scaled = naive_scaled,
        .scale_hint = "only rank 0 averages (once, before it sends the result); the workers receive the finished "
                      "average and must not scale it",
    };
    int bad = allreduce_sweep(&coll, &spec);
    coll_free(&coll);
    comm_finalize(c);
    ops_destroy(ops);
    return bad;
}

int main(int argc, char **argv) {
    dp_set_progname("check03");
    const ck_entry_t checks[] = {{"reduce_cpu", reduce_cpu_check},
                                 {"reduce_kernel", reduce_kernel_check},
                                 {"allreduce", allreduce_check},
                                 {NULL, NULL}};
    return ck_main(argc, argv, checks);
}
