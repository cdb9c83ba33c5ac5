/* output.h — files a program writes: checked before the work starts, written whole, never lost.
 *
 * A run that trains for an hour and then finds it cannot write its --stats file has lost the hour,
 * so every output path is checked up front (dp_check_output), and a file written at the end is
 * written to PATH.tmp.PID and renamed into place (dp_out_open / dp_out_close), so that a full disk
 * leaves the old file (or none), never an empty or half-written one. */
#ifndef DPC_OUTPUT_H
#define DPC_OUTPUT_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fatal (one line naming flag and path) unless path can be written: not a directory, not under a
 * non-directory, an existing file opens for writing, and the nearest existing directory takes a new
 * file (its missing subdirectories are created by the writers, with dp_mkdir_for). Writable devices
 * and FIFOs (/dev/null, /dev/full, /dev/stdout) are accepted: they are written in place. Nothing
 * for a NULL path. Leaves nothing behind. */
void dp_check_output(const char *flag, const char *path);
/* The same, and also refuses an existing path that is not a regular file: for outputs that are
 * always written to a temporary and renamed (checkpoints, dumps), which would replace a device. */
void dp_check_output_file(const char *flag, const char *path);

/* A whole file written at once. Regular (or new) files go to PATH.tmp.PID and are renamed into place
 * by dp_out_close; devices and FIFOs are written directly. Both return 0, or -1 with errno set;
 * dp_out_close checks every earlier write too, and on failure removes the temporary. */
typedef struct {
    FILE *f;
    const char *path;
    char tmp[4096]; /* "" when writing in place */
} dp_out_t;
int dp_out_open(dp_out_t *o, const char *path);
int dp_out_close(dp_out_t *o);
/* Give up on the file: close it and remove the temporary (errno is kept for the caller's message). */
void dp_out_discard(dp_out_t *o);

#ifdef __cplusplus
}
#endif

#endif
