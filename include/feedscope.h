/* feedscope.h - step and phase markers for C/C++ training loops.
 *
 * Link with -lfeedscope-marker (static or shared). Under `feedscope run`
 * each call sends one record to feedscope (docs/markers.md); without it,
 * every call is a no-op costing a few nanoseconds. Calls never block, never
 * fail, and never touch errno.
 *
 *   fs_epoch_begin("train");          // optional: a new epoch of loader "train"
 *   for (;;) {
 *       fs_step_wait_begin();         // about to wait for the next batch
 *       if (!next_batch(&b)) break;
 *       fs_step_wait_end();           // batch in hand: compute starts
 *       train_step(&b);
 *       if (step % 1000 == 0) {
 *           fs_phase_begin("checkpoint");
 *           save_checkpoint();
 *           fs_phase_end();
 *       }
 *   }
 *   fs_steps_flush();                 // the last step's compute ends here
 *
 * A step's compute time runs from fs_step_wait_end() until the next
 * fs_step_wait_begin(), fs_epoch_begin() or fs_steps_flush() of the same
 * thread; its record is sent then. State is per thread; phases nest (up to
 * 8 deep). Safe across fork(): a child sends with its own pid.
 */
#ifndef FEEDSCOPE_H
#define FEEDSCOPE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Start a new epoch of the loop named loader (NULL: "train"): the epoch
 * number goes up by one (the first call gives epoch 0) and steps count from
 * 0 again. Without any call, everything is epoch 0 of "train". */
void fs_epoch_begin(const char *loader);

/* The loop is about to wait for its next batch. */
void fs_step_wait_begin(void);

/* The batch arrived; the step's compute starts. */
void fs_step_wait_end(void);

/* Send the pending step now (its compute ends here). */
void fs_steps_flush(void);

/* A named phase ("checkpoint", "eval", ...): from begin to the matching end. */
void fs_phase_begin(const char *name);
void fs_phase_end(void);

/* 1 if records go to a running feedscope, 0 if every call is a no-op. */
int fs_markers_enabled(void);

#ifdef __cplusplus
}
#endif

#endif
