/* switch_wire.h — the wire between a rank (common/comm_switch.c) and the per-job switch process
 * (grading/switch.c): what each side sends, byte for byte. Native byte order: both ends run on one
 * machine. */
#ifndef DPC_SWITCH_WIRE_H
#define DPC_SWITCH_WIRE_H

#include <stdint.h>

#define SW_MAGIC    0x57535044u /* "DPSW" */
#define SW_VERSION  1u
#define SW_KEY_MAX  64  /* a job key: 1..64 bytes of [A-Za-z0-9._:-], NUL-padded */
#define SW_MAX_SIZE 256 /* ranks in one job: the course runs 8 at most */

/* The first bytes a rank sends. */
typedef struct {
    uint32_t magic, version;
    uint32_t size, rank;
    char key[SW_KEY_MAX];
} sw_hello_t;

/* Message classes. */
enum {
    SW_P2P = 1,         /* comm_send / comm_recv / comm_sendrecv: what the students' algorithms move */
    SW_LIB = 2,         /* the library collectives' (and barrier's) own traffic */
    SW_CTL_LIBCALL = 3, /* no payload: one per library-collective call */
    SW_CTL_BYE = 4,     /* no payload: comm_finalize; a rank that disconnects without it died */
    SW_CTL_GONE = 5,    /* switch to rank only, no payload: rank `peer` disconnected without BYE */
    SW_CTL_ABORT = 6,   /* no payload, exit status in ctx: this rank ends the job (dp_fatal, watchdog);
                         * forwarded to every other rank with peer = the aborting rank, which exit with
                         * that status without a line of their own (what MPI_Abort does) */
    SW_CTL_ACK = 7,     /* no payload: the receiver took a SYNC frame from `peer` on context ctx */
};

/* Frame flags (the `flags` field). SYNC: a point-to-point message larger than SW_EAGER_MAX, whose
 * sender waits until the receiver has taken it (CTL_ACK), as MPI's rendezvous protocol does for
 * messages above its eager limit (Open MPI's shared-memory transport: 4 KiB): two ranks that both
 * send a large message before receiving deadlock here as they do under MPI, and are caught. */
#define SW_FLAG_SYNC 1u
#define SW_EAGER_MAX 4096u

/* Every message after the hello, both ways: peer is the destination rank on the way to the switch
 * and the source rank on the way out. Then `bytes` bytes of payload. */
typedef struct {
    uint32_t peer, ctx, cls, flags;
    uint64_t bytes;
} sw_frame_t;

#endif
