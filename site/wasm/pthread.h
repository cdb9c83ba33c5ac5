/* pthread.h for the WebAssembly quiz only (site/quiz_wasm.sh puts this folder first on the include
 * path): wasi-libc has no threads, but the lessons' headers (ddp.h, fsdp.h, comm_internal.h) name
 * pthread types in their structs. The quiz calls none of the functions that use them: the link
 * (only the archive members the quiz needs) fails if that ever changes. */
#ifndef DPC_SITE_WASM_PTHREAD_H
#define DPC_SITE_WASM_PTHREAD_H
typedef struct {
    int unused;
} pthread_t;
typedef struct {
    int unused;
} pthread_mutex_t;
typedef struct {
    int unused;
} pthread_cond_t;
#endif
