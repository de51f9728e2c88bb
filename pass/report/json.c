/* json.c - see json.h.
 *
 * Recursive descent with an explicit depth bound: arrays and objects nest
 * at most JSON_MAX_DEPTH deep, so the C stack stays small whatever the
 * input.  Nodes come from a chain of blocks (no per-node free). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/json.h"

typedef struct block {
  struct block *next;
  size_t used, cap;
  char mem[];
} block;

struct json_doc {
  block *blocks;
  json_value *root;
};

typedef struct parser {
  const char *s, *end;
  json_doc *d;
  char *err;
  size_t cap;
  int failed;
  int truncated;
} parser;

static void *arena(json_doc *d, size_t n) {
  n = (n + 15) & ~(size_t)15;
  if (!d->blocks || d->blocks->used + n > d->blocks->cap) {
    size_t cap = n > 65536 ? n : 65536;
    block *b = malloc(sizeof *b + cap);
    if (!b) return NULL;
    b->next = d->blocks;
    b->used = 0;
    b->cap = cap;
    d->blocks = b;
  }
  void *p = d->blocks->mem + d->blocks->used;
  d->blocks->used += n;
  return p;
}

static void fail(parser *p, const char *at, const char *what) {
  if (p->failed) return;
  p->failed = 1;
  p->s = at;
  snprintf(p->err, p->cap, "%s", what);
}

static void ws(parser *p) {
  while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r'))
    p->s++;
}

static json_value *node(parser *p, json_kind k) {
  json_value *v = arena(p->d, sizeof *v);
  if (!v) {
    fail(p, p->s, "out of memory");
    return NULL;
  }
  memset(v, 0, sizeof *v);
  v->kind = k;
  return v;
}

static void put_utf8(char **o, unsigned cp) {
  if (cp < 0x80) {
    *(*o)++ = (char)cp;
  } else if (cp < 0x800) {
    *(*o)++ = (char)(0xc0 | (cp >> 6));
    *(*o)++ = (char)(0x80 | (cp & 0x3f));
  } else {
    *(*o)++ = (char)(0xe0 | (cp >> 12));
    *(*o)++ = (char)(0x80 | ((cp >> 6) & 0x3f));
    *(*o)++ = (char)(0x80 | (cp & 0x3f));
  }
}

static const char *string(parser *p) {
  const char *start = ++p->s; /* past '"' */
  const char *q = start;
  while (q < p->end && *q != '"') q += (*q == '\\' && q + 1 < p->end) ? 2 : 1;
  if (q >= p->end) {
    p->truncated = 1;
    fail(p, start, "unterminated string");
    return NULL;
  }
  char *out = arena(p->d, (size_t)(q - start) + 1), *o = out;
  if (!out) {
    fail(p, start, "out of memory");
    return NULL;
  }
  for (const char *c = start; c < q; c++) {
    if (*c != '\\') {
      *o++ = *c;
      continue;
    }
    c++;
    switch (*c) {
    case 'n': *o++ = '\n'; break;
    case 't': *o++ = '\t'; break;
    case 'r': *o++ = '\r'; break;
    case 'b': *o++ = '\b'; break;
    case 'f': *o++ = '\f'; break;
    case 'u': {
      unsigned cp = 0;
      int k;
      for (k = 1; k <= 4 && c + k < q; k++) {
        char h = c[k];
        cp = cp * 16 + (unsigned)(h >= '0' && h <= '9' ? h - '0' : (h | 32) - 'a' + 10);
      }
      c += k - 1;
      put_utf8(&o, cp);
      break;
    }
    default: *o++ = *c; break;
    }
  }
  *o = '\0';
  p->s = q + 1;
  return out;
}

static json_value *value(parser *p, int depth);

/* Array or object body after '[' / '{'. */
static json_value *container(parser *p, int depth, int is_object) {
  json_value *v = node(p, is_object ? JSON_OBJECT : JSON_ARRAY);
  if (!v) return NULL;
  if (depth >= JSON_MAX_DEPTH) {
    fail(p, p->s, "nested too deeply");
    return NULL;
  }
  char close = is_object ? '}' : ']';
  p->s++;
  json_value **tail = &v->first;
  ws(p);
  if (p->s < p->end && *p->s == close) {
    p->s++;
    return v;
  }
  for (;;) {
    ws(p);
    if (p->s >= p->end) {
      p->truncated = 1;
      return v; /* keep what was complete */
    }
    const char *key = NULL;
    if (is_object) {
      if (*p->s != '"') {
        fail(p, p->s, "expected a member name");
        return NULL;
      }
      key = string(p);
      if (!key) return p->truncated ? v : NULL;
      ws(p);
      if (p->s >= p->end) {
        p->truncated = 1;
        return v;
      }
      if (*p->s != ':') {
        fail(p, p->s, "expected ':'");
        return NULL;
      }
      p->s++;
    }
    json_value *e = value(p, depth + 1);
    if (!e) {
      if (p->truncated) {
        p->failed = 0;
        return v;
      }
      return NULL;
    }
    e->key = key;
    *tail = e;
    tail = &e->next;
    v->n++;
    ws(p);
    if (p->s >= p->end) {
      p->truncated = 1;
      return v;
    }
    if (*p->s == ',') {
      p->s++;
      continue;
    }
    if (*p->s == close) {
      p->s++;
      return v;
    }
    fail(p, p->s, is_object ? "expected ',' or '}'" : "expected ',' or ']'");
    return NULL;
  }
}

static json_value *value(parser *p, int depth) {
  ws(p);
  if (p->s >= p->end) {
    p->truncated = 1;
    fail(p, p->s, "unexpected end of input");
    return NULL;
  }
  char c = *p->s;
  if (c == '{' || c == '[') return container(p, depth, c == '{');
  if (c == '"') {
    const char *s = string(p);
    if (!s) return NULL;
    json_value *v = node(p, JSON_STRING);
    if (v) v->str = s;
    return v;
  }
  if (c == '-' || (c >= '0' && c <= '9')) {
    char buf[64];
    size_t n = 0;
    while (p->s + n < p->end && n < sizeof buf - 1 && strchr("+-0123456789.eE", p->s[n])) n++;
    memcpy(buf, p->s, n);
    buf[n] = '\0';
    char *e;
    double d = strtod(buf, &e);
    if (e == buf) {
      fail(p, p->s, "bad number");
      return NULL;
    }
    p->s += e - buf;
    json_value *v = node(p, JSON_NUMBER);
    if (v) v->num = d;
    return v;
  }
  static const struct { const char *w; json_kind k; double n; } words[] = {
      {"true", JSON_BOOL, 1}, {"false", JSON_BOOL, 0}, {"null", JSON_NULL, 0}};
  for (int i = 0; i < 3; i++) {
    size_t n = strlen(words[i].w);
    if ((size_t)(p->end - p->s) >= n && !memcmp(p->s, words[i].w, n)) {
      p->s += n;
      json_value *v = node(p, words[i].k);
      if (v) v->num = words[i].n;
      return v;
    }
  }
  fail(p, p->s, "unexpected character");
  return NULL;
}

json_doc *json_parse(const char *text, size_t len, int *truncated, char *err, size_t cap) {
  json_doc *d = calloc(1, sizeof *d);
  if (!d) {
    snprintf(err, cap, "out of memory");
    return NULL;
  }
  parser p = {text, text + len, d, err, cap, 0, 0};
  d->root = value(&p, 0);
  if (!p.failed) {
    ws(&p);
    if (p.s < p.end) fail(&p, p.s, "text after the document");
  }
  if (truncated) *truncated = p.truncated;
  if (!d->root || (p.failed && !p.truncated)) {
    if (!p.failed) {
      snprintf(err, cap, "empty document");
    } else { /* say where */
      char what[96];
      snprintf(what, sizeof what, "%s", err);
      snprintf(err, cap, "at byte %ld: %s", (long)(p.s - text), what);
    }
    json_doc_free(d);
    return NULL;
  }
  return d;
}

const json_value *json_root(const json_doc *d) { return d ? d->root : NULL; }

void json_doc_free(json_doc *d) {
  if (!d) return;
  for (block *b = d->blocks, *n; b; b = n) {
    n = b->next;
    free(b);
  }
  free(d);
}

const json_value *json_get(const json_value *v, const char *key) {
  if (!v || v->kind != JSON_OBJECT) return NULL;
  for (const json_value *e = v->first; e; e = e->next)
    if (e->key && !strcmp(e->key, key)) return e;
  return NULL;
}

double json_num(const json_value *v, const char *key, double dflt) {
  const json_value *m = json_get(v, key);
  return m && (m->kind == JSON_NUMBER || m->kind == JSON_BOOL) ? m->num : dflt;
}

const char *json_str(const json_value *v, const char *key) {
  const json_value *m = json_get(v, key);
  return m && m->kind == JSON_STRING ? m->str : NULL;
}
