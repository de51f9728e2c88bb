/* json.h - a small JSON reader for the traces tidal writes (report/).
 *
 * Parses a whole document into a tree of json_value nodes allocated in one
 * arena (json_doc_free releases everything).  Nesting is bounded
 * (JSON_MAX_DEPTH) and parsing is iterative in the depth of arrays of
 * events, so a hostile or truncated file ends in an error, never a crash.
 * A trace cut short by a program that died before tidal_shutdown (an open
 * "traceEvents" array) is accepted: the events read so far are kept. */
#ifndef TIDAL_PASS_JSON_H
#define TIDAL_PASS_JSON_H

#include <stddef.h>

#define JSON_MAX_DEPTH 64

typedef enum json_kind { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_kind;

typedef struct json_value json_value;
struct json_value {
  json_kind kind;
  double num;          /* NUMBER, BOOL (0/1) */
  const char *str;     /* STRING (NUL-terminated, escapes decoded) */
  const char *key;     /* the member's name when inside an object */
  json_value *first;   /* ARRAY/OBJECT: first element */
  json_value *next;    /* next sibling */
  size_t n;            /* ARRAY/OBJECT: number of elements */
};

typedef struct json_doc json_doc;

/* Parses text[0..len).  Returns the document, or NULL with a message in
 * err (cap bytes) such as "line 3: expected ':'".  *truncated is set when
 * the text ended inside an array or object (then the root holds what was
 * complete). */
json_doc *json_parse(const char *text, size_t len, int *truncated, char *err, size_t cap);
const json_value *json_root(const json_doc *d);
void json_doc_free(json_doc *d);

/* Member lookup (NULL if absent or v is not an object). */
const json_value *json_get(const json_value *v, const char *key);
/* The member's number, or dflt. */
double json_num(const json_value *v, const char *key, double dflt);
/* The member's string, or NULL. */
const char *json_str(const json_value *v, const char *key);

#endif
