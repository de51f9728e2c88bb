/* progress.h - "still working" on stderr for runs longer than two seconds.
 *
 * The commands name the stage they are in (progress_stage); a background
 * thread redraws one status line, "tidal: parsing train.cu (3s)", once a
 * second from the second second on, and progress_done clears it.  Only
 * when stderr is a terminal, so logs see nothing.  TIDAL_PROGRESS=0 turns
 * it off; TIDAL_PROGRESS=always shows every stage as it starts, terminal or
 * not (tests). */
#ifndef TIDAL_PASS_PROGRESS_H
#define TIDAL_PASS_PROGRESS_H

/* Starts the status thread (a no-op when progress is off). */
void progress_begin(void);
/* The stage now running; what is a string that outlives the stage. */
void progress_stage(const char *what);
/* Clears the status line before a diagnostic is printed (diag.c). */
void progress_clear_line(void);
/* Stops the thread and clears the line. */
void progress_done(void);

#endif
