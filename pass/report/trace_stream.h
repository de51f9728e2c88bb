/* trace_stream.h - the events of a libtidal trace, one at a time.
 *
 * A trace is Chrome trace-event JSON: {"traceEvents": [EVENT, ...], ...}
 * or a bare array [EVENT, ...] (docs/runtime-api.md).  Traces grow with
 * the run (hundreds of KB an iteration), so they are never read whole:
 * the stream scans the file and hands out one event at a time, parsed on
 * its own (json.h), so memory holds one event, not the file.  The stream
 * can be rewound (the timeline reads a trace twice), so it reads a regular
 * file only.  A trace cut short (a program that died before
 * tidal_shutdown) ends at its last complete event. */
#ifndef TIDAL_PASS_TRACE_STREAM_H
#define TIDAL_PASS_TRACE_STREAM_H

#include <stdio.h>

#include "report/json.h"

/* The largest single event accepted: libtidal's are under 1 KiB. */
#define TRACE_EVENT_MAX_BYTES (64 * 1024)

typedef struct trace_stream trace_stream;

/* Reads f (which must stay open while the stream is used; the stream
 * does not close it) from its start.  NULL with a message in err when out
 * of memory. */
trace_stream *trace_stream_new(FILE *f, char *err, size_t cap);
/* The next event: 1 and *ev (json_doc_free it), 0 at the end of the
 * events, or -1 with a message in err ("at byte N: ..."). */
int trace_stream_next(trace_stream *s, json_doc **ev, char *err, size_t cap);
/* Back to the first event.  0, or -1 with a message. */
int trace_stream_rewind(trace_stream *s, char *err, size_t cap);
/* 1 if the events ended without the array's closing bracket. */
int trace_stream_truncated(const trace_stream *s);
void trace_stream_free(trace_stream *s);

#endif
