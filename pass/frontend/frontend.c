/* frontend.c - parsing one CUDA translation unit with libclang.
 *
 * Owns: the clang command line (CUDA mode, the compat folder, flags from
 * compile_commands.json and after "--"), the one parse, and the diagnostic
 * policy.  Decisions:
 *  - Parse once, with bodies (the kernel analysis needs them), a detailed
 *    preprocessing record (the rewriter needs macro expansions) and
 *    KeepGoing (so a device-code error does not hide the host code).
 *  - Each input is parsed in its own language (Note [input languages]):
 *    .cu/.cuh as CUDA, .c as C, .cpp/.cc/.cxx as C++, or what "-x LANG"
 *    after "--" names; anything else is refused before parsing.
 *  - Errors are classified by where they are: inside the body of a
 *    __global__ or __device__ (not __host__ __device__) function they are
 *    downgraded to a warning, since host-side analysis never looks inside
 *    them except for the kernel analysis, which then sees a partial body;
 *    anywhere else they are printed clang-style and the parse fails.
 *  - compile_commands.json (-p) entries are usually nvcc commands: only
 *    the flags that change what the source means (-I -D -U -isystem
 *    -iquote -include -std, and clang's -nocudainc -nocudalib --cuda-path)
 *    are kept, with relative paths made absolute
 *    against the entry's directory; code-generation flags are dropped.
 * See Note [compat folder] in docs/pass-frontend.md for the compat flags. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/diag.h"
#include "frontend/frontend.h"

#ifndef TIDAL_COMPAT_DIR
#define TIDAL_COMPAT_DIR "compat"
#endif
#ifndef TIDAL_COMPAT_INSTALL_REL
#define TIDAL_COMPAT_INSTALL_REL "share/tidal/compat"
#endif
#ifndef TIDAL_CUDA_PATH
#define TIDAL_CUDA_PATH "/usr/local/cuda"
#endif

/* ---- a growable argv ---------------------------------------------------- */

typedef struct strvec {
  char **v;
  int n, cap;
} strvec;

static int sv_push(strvec *s, const char *str) {
  if (s->n == s->cap) {
    int cap = s->cap ? s->cap * 2 : 32;
    char **nv = realloc(s->v, sizeof *nv * (size_t)cap);
    if (!nv) return -1;
    s->v = nv;
    s->cap = cap;
  }
  if (!(s->v[s->n] = strdup(str))) return -1;
  s->n++;
  return 0;
}

static void sv_free(strvec *s) {
  for (int i = 0; i < s->n; i++) free(s->v[i]);
  free(s->v);
  s->v = NULL;
  s->n = s->cap = 0;
}

static int file_exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int dir_exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (cap - n < 65536) {
      cap = cap ? cap * 2 : 65536;
      char *nb = realloc(buf, cap + 1);
      if (!nb) {
        free(buf);
        fclose(f);
        return NULL;
      }
      buf = nb;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  fclose(f);
  buf[n] = '\0';
  if (len) *len = n;
  return buf;
}

/* ---- the compat folder ---------------------------------------------------- */

/* TIDAL_COMPAT_DIR in the environment, else <exe dir>/../share/tidal/compat
 * (an installed tool), else the source tree's compat/ (a build tree). */
static char *find_compat_dir(void) {
  const char *env = getenv("TIDAL_COMPAT_DIR");
  if (env && *env) return strdup(env);
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) {
      *slash = '\0';
      char cand[PATH_MAX * 2];
      snprintf(cand, sizeof cand, "%s/../%s/tidal_cuda_compat.h", exe, TIDAL_COMPAT_INSTALL_REL);
      if (file_exists(cand)) {
        cand[strlen(cand) - strlen("/tidal_cuda_compat.h")] = '\0';
        return strdup(cand);
      }
    }
  }
  return strdup(TIDAL_COMPAT_DIR);
}

/* ---- compile_commands.json ------------------------------------------------ */

/* A tiny JSON reader for the compilation database: an array of objects whose
 * "directory", "file", "command" are strings and "arguments" an array of
 * strings.  Other members are skipped whatever their type. */
typedef struct jreader {
  const char *p, *end;
  int err;
} jreader;

static void j_ws(jreader *r) {
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r')) r->p++;
}

static int j_peek(jreader *r) {
  j_ws(r);
  return r->p < r->end ? (unsigned char)*r->p : -1;
}

static int buf_put(char **buf, size_t *n, size_t *cap, char c) {
  if (*n + 1 >= *cap) {
    size_t nc = *cap ? *cap * 2 : 64;
    char *nb = realloc(*buf, nc);
    if (!nb) return -1;
    *buf = nb;
    *cap = nc;
  }
  (*buf)[(*n)++] = c;
  (*buf)[*n] = '\0';
  return 0;
}

/* \uXXXX as UTF-8 (surrogate pairs are not joined: paths never need it). */
static int buf_put_utf8(char **buf, size_t *n, size_t *cap, unsigned cp) {
  if (cp < 0x80) return buf_put(buf, n, cap, (char)cp);
  if (cp < 0x800)
    return buf_put(buf, n, cap, (char)(0xC0 | (cp >> 6))) |
           buf_put(buf, n, cap, (char)(0x80 | (cp & 0x3F)));
  return buf_put(buf, n, cap, (char)(0xE0 | (cp >> 12))) |
         buf_put(buf, n, cap, (char)(0x80 | ((cp >> 6) & 0x3F))) |
         buf_put(buf, n, cap, (char)(0x80 | (cp & 0x3F)));
}

/* Returns a malloc'd string, or NULL (r->err set). */
static char *j_string(jreader *r) {
  if (j_peek(r) != '"') {
    r->err = 1;
    return NULL;
  }
  r->p++;
  char *buf = NULL;
  size_t n = 0, cap = 0;
  if (buf_put(&buf, &n, &cap, 'x') < 0) goto bad;
  n = 0;
  buf[0] = '\0';
  while (r->p < r->end && *r->p != '"') {
    char c = *r->p++;
    int err;
    if (c == '\\' && r->p < r->end) {
      char e = *r->p++;
      switch (e) {
      case 'n': c = '\n'; break;
      case 't': c = '\t'; break;
      case 'r': c = '\r'; break;
      case 'b': c = '\b'; break;
      case 'f': c = '\f'; break;
      case 'u': {
        unsigned cp = 0;
        for (int i = 0; i < 4 && r->p < r->end; i++) {
          char h = *r->p++;
          cp = cp * 16 + (unsigned)(h >= 'a' ? h - 'a' + 10 : h >= 'A' ? h - 'A' + 10 : h - '0');
        }
        if (buf_put_utf8(&buf, &n, &cap, cp) < 0) goto bad;
        continue;
      }
      default: c = e; break;
      }
    }
    err = buf_put(&buf, &n, &cap, c);
    if (err < 0) goto bad;
  }
  if (r->p >= r->end) goto bad;
  r->p++;
  return buf;
bad:
  free(buf);
  r->err = 1;
  return NULL;
}

static void j_skip(jreader *r, int depth) {
  int c = j_peek(r);
  if (depth > 64) {
    r->err = 1;
    return;
  }
  if (c == '"') {
    free(j_string(r));
  } else if (c == '[' || c == '{') {
    int close = c == '[' ? ']' : '}';
    r->p++;
    if (j_peek(r) == close) {
      r->p++;
      return;
    }
    while (!r->err) {
      if (close == '}') {
        free(j_string(r));
        if (j_peek(r) != ':') {
          r->err = 1;
          return;
        }
        r->p++;
      }
      j_skip(r, depth + 1);
      int d = j_peek(r);
      if (d == ',') r->p++;
      else if (d == close) {
        r->p++;
        return;
      } else {
        r->err = 1;
        return;
      }
    }
  } else if (c >= 0) {
    while (r->p < r->end && !strchr(",]} \n\t\r", *r->p)) r->p++;
  } else {
    r->err = 1;
  }
}

/* Shell-style splitting of a "command" string (quotes and backslashes). */
static int split_command(const char *cmd, strvec *out) {
  size_t len = strlen(cmd);
  char *word = malloc(len + 1);
  if (!word) return -1;
  const char *p = cmd;
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\n') p++;
    if (!*p) break;
    size_t n = 0;
    char q = 0;
    while (*p && (q || (*p != ' ' && *p != '\t' && *p != '\n'))) {
      if (q) {
        if (*p == q) q = 0;
        else if (q == '"' && *p == '\\' && p[1]) word[n++] = *++p;
        else word[n++] = *p;
      } else if (*p == '"' || *p == '\'') {
        q = *p;
      } else if (*p == '\\' && p[1]) {
        word[n++] = *++p;
      } else {
        word[n++] = *p;
      }
      p++;
    }
    word[n] = '\0';
    if (sv_push(out, word) < 0) {
      free(word);
      return -1;
    }
  }
  free(word);
  return 0;
}

static char *join_path(const char *dir, const char *p) {
  if (p[0] == '/' || !dir || !*dir) return strdup(p);
  size_t a = strlen(dir), b = strlen(p);
  char *r = malloc(a + b + 2);
  if (!r) return NULL;
  memcpy(r, dir, a);
  r[a] = '/';
  memcpy(r + a + 1, p, b + 1);
  return r;
}

static int same_file(const char *a, const char *b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Keeps the flags that change the meaning of the source; see the header
 * comment.  Path-valued flags are made absolute against dir. */
static int filter_compdb_args(const strvec *args, const char *dir, strvec *out) {
  static const char *const path_flags[] = {"-I", "-isystem", "-iquote", "-idirafter", "-include"};
  for (int i = 1; i < args->n; i++) {
    const char *a = args->v[i];
    int done = 0;
    for (size_t k = 0; k < sizeof path_flags / sizeof path_flags[0] && !done; k++) {
      size_t n = strlen(path_flags[k]);
      if (strncmp(a, path_flags[k], n) != 0) continue;
      const char *val = NULL;
      if (a[n] == '\0' && i + 1 < args->n) val = args->v[++i];
      else if (a[n] == '=') val = a + n + 1; /* nvcc spells "-isystem=DIR" */
      else if (a[n] != '\0' && !strcmp(path_flags[k], "-I")) val = a + n;
      else continue;
      /* -include names a file searched for on the include path: made
       * absolute only when it exists relative to the entry's directory. */
      char *abs = join_path(dir, val);
      if (abs && !strcmp(path_flags[k], "-include") && !file_exists(abs)) {
        free(abs);
        abs = strdup(val);
      }
      if (!abs || sv_push(out, path_flags[k]) < 0 || sv_push(out, abs) < 0) {
        free(abs);
        return -1;
      }
      free(abs);
      done = 1;
    }
    if (done) continue;
    if ((!strncmp(a, "-D", 2) || !strncmp(a, "-U", 2))) {
      if (a[2] == '\0' && i + 1 < args->n) {
        if (sv_push(out, a) < 0 || sv_push(out, args->v[++i]) < 0) return -1;
      } else if (sv_push(out, a) < 0) {
        return -1;
      }
    } else if (!strncmp(a, "-std=", 5) || !strcmp(a, "-nocudainc") || !strcmp(a, "-nocudalib") ||
               !strncmp(a, "--cuda-path=", 12)) {
      /* clang's own CUDA flags, when the database was written for clang */
      if (sv_push(out, a) < 0) return -1;
    } else if ((!strcmp(a, "-o") || !strcmp(a, "-MF") || !strcmp(a, "-MT") || !strcmp(a, "-MQ") ||
                !strcmp(a, "-x") || !strcmp(a, "-ccbin") || !strcmp(a, "-arch")) &&
               i + 1 < args->n) {
      i++; /* flags with a separate value we do not want */
    }
  }
  return 0;
}

/* Expands nvcc's `--options-file FILE` / `-optf FILE` (CMake writes the
 * include paths of CUDA targets into such a file: includes_CUDA.rsp) and
 * `@FILE` response files, in place, relative to the entry's directory;
 * nested files up to a small depth.  A file that cannot be read is kept as
 * written (its flags are then simply missing, as before). */
static int expand_response_files(const strvec *in, const char *dir, strvec *out, int depth) {
  for (int i = 0; i < in->n; i++) {
    const char *a = in->v[i];
    const char *file = NULL;
    int skip = 0;
    if ((!strcmp(a, "--options-file") || !strcmp(a, "-optf")) && i + 1 < in->n) {
      file = in->v[i + 1];
      skip = 1;
    } else if (!strncmp(a, "--options-file=", 15)) {
      file = a + 15;
    } else if (a[0] == '@' && a[1]) {
      file = a + 1;
    }
    if (file && depth < 8) {
      char *path = join_path(dir, file);
      size_t len = 0;
      char *text = path ? read_file(path, &len) : NULL;
      free(path);
      if (text) {
        strvec sub = {0};
        int bad = split_command(text, &sub) < 0 || expand_response_files(&sub, dir, out, depth + 1) < 0;
        sv_free(&sub);
        free(text);
        if (bad) return -1;
        i += skip;
        continue;
      }
    }
    if (sv_push(out, a) < 0) return -1;
  }
  return 0;
}

/* input's flags into *flags; or, when all is not NULL, every entry's file
 * (directory + file) into *all and no flags (multi-entry -p: the whole
 * program). */
static int load_compdb(const char *dir, const char *input, strvec *flags, strvec *all) {
  /* -p takes the build folder (clang tools' convention) or the database
   * file itself. */
  int is_file = !dir_exists(dir) && file_exists(dir);
  if (!is_file && !dir_exists(dir)) {
    diag_error(NULL, 0, 0, "-p: no such directory or file: '%s'", dir);
    return TIDAL_EXIT_BAD_INPUT;
  }
  char *path = is_file ? strdup(dir) : join_path(dir, "compile_commands.json");
  size_t len = 0;
  char *text = path ? read_file(path, &len) : NULL;
  int rc = TIDAL_EXIT_BAD_INPUT, found = 0;
  if (!text) {
    diag_error(path ? path : dir, 0, 0, "cannot read the compilation database: %s",
               strerror(errno ? errno : ENOENT));
    goto out;
  }
  jreader r = {text, text + len, 0};
  if (j_peek(&r) != '[') goto bad;
  r.p++;
  if (j_peek(&r) == ']') goto none;
  while (!r.err && !found) {
    if (j_peek(&r) != '{') goto bad;
    r.p++;
    char *edir = NULL, *efile = NULL, *ecmd = NULL;
    strvec eargs = {0};
    int have_args = 0;
    if (j_peek(&r) != '}') {
      for (;;) {
        char *key = j_string(&r);
        if (!key || j_peek(&r) != ':') {
          free(key);
          r.err = 1;
          break;
        }
        r.p++;
        if (!strcmp(key, "directory")) edir = j_string(&r);
        else if (!strcmp(key, "file")) efile = j_string(&r);
        else if (!strcmp(key, "command")) ecmd = j_string(&r);
        else if (!strcmp(key, "arguments") && j_peek(&r) == '[') {
          have_args = 1;
          r.p++;
          while (!r.err && j_peek(&r) != ']') {
            char *s = j_string(&r);
            if (!s || sv_push(&eargs, s) < 0) r.err = 1;
            free(s);
            if (j_peek(&r) == ',') r.p++;
          }
          if (!r.err) r.p++;
        } else
          j_skip(&r, 0);
        free(key);
        if (r.err) break;
        int c = j_peek(&r);
        if (c == ',') {
          r.p++;
          continue;
        }
        if (c != '}') r.err = 1;
        break;
      }
    }
    if (!r.err) r.p++;
    if (!r.err && efile) {
      char *full = join_path(edir, efile);
      if (all) {
        if (!full || sv_push(all, full) < 0) r.err = 1;
      } else if (full && same_file(full, input)) {
        found = 1;
        if (!have_args && ecmd && split_command(ecmd, &eargs) < 0) r.err = 1;
        strvec expanded = {0};
        if (!r.err && expand_response_files(&eargs, edir, &expanded, 0) < 0) r.err = 1;
        if (!r.err && filter_compdb_args(&expanded, edir, flags) < 0) r.err = 1;
        sv_free(&expanded);
      }
      free(full);
    }
    free(edir);
    free(efile);
    free(ecmd);
    sv_free(&eargs);
    if (r.err || found) break;
    int c = j_peek(&r);
    if (c == ',') r.p++;
    else if (c == ']') break;
    else r.err = 1;
  }
  if (r.err) goto bad;
  if (found || (all && all->n)) {
    rc = 0;
    goto out;
  }
none:
  if (all) diag_error(path, 0, 0, "the compilation database has no entries");
  else diag_error(path, 0, 0, "no entry for '%s' in the compilation database", input);
  goto out;
bad:
  diag_error(path, 0, 0, "malformed compilation database (expected a JSON array of objects)");
out:
  free(text);
  free(path);
  return rc;
}

/* ---- diagnostics ------------------------------------------------------------ */

typedef struct body_range {
  CXFile file;
  unsigned begin, end; /* file offsets of the function body */
} body_range;

typedef struct range_collect {
  body_range *v;
  int n, cap;
} range_collect;

/* __global__, or __device__ without __host__. */
static enum CXChildVisitResult cuda_attr_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  unsigned *bits = d;
  switch (clang_getCursorKind(c)) {
  case CXCursor_CUDAGlobalAttr: *bits |= 1; break;
  case CXCursor_CUDADeviceAttr: *bits |= 2; break;
  case CXCursor_CUDAHostAttr: *bits |= 4; break;
  case CXCursor_CompoundStmt: *bits |= 8; break;
  default: break;
  }
  return CXChildVisit_Continue;
}

static enum CXChildVisitResult device_body_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  range_collect *rc = d;
  enum CXCursorKind k = clang_getCursorKind(c);
  switch (k) {
  case CXCursor_Namespace:
  case CXCursor_LinkageSpec:
  case CXCursor_StructDecl:
  case CXCursor_ClassDecl:
  case CXCursor_ClassTemplate:
  case CXCursor_ClassTemplatePartialSpecialization:
  case CXCursor_UnexposedDecl:
    return CXChildVisit_Recurse;
  case CXCursor_FunctionDecl:
  case CXCursor_FunctionTemplate:
  case CXCursor_CXXMethod: {
    if (!clang_isCursorDefinition(c)) return CXChildVisit_Continue;
    unsigned bits = 0;
    clang_visitChildren(c, cuda_attr_visitor, &bits);
    int device = (bits & 1) || ((bits & 2) && !(bits & 4));
    if (!device) return CXChildVisit_Continue;
    CXSourceRange ext = clang_getCursorExtent(c);
    CXFile f1, f2;
    unsigned b, e;
    clang_getExpansionLocation(clang_getRangeStart(ext), &f1, NULL, NULL, &b);
    clang_getExpansionLocation(clang_getRangeEnd(ext), &f2, NULL, NULL, &e);
    if (!f1 || !clang_File_isEqual(f1, f2)) return CXChildVisit_Continue;
    if (rc->n == rc->cap) {
      int cap = rc->cap ? rc->cap * 2 : 64;
      body_range *nv = realloc(rc->v, sizeof *nv * (size_t)cap);
      if (!nv) return CXChildVisit_Break;
      rc->v = nv;
      rc->cap = cap;
    }
    rc->v[rc->n++] = (body_range){f1, b, e};
    return CXChildVisit_Continue;
  }
  default:
    return CXChildVisit_Continue;
  }
}

static int in_device_body(const range_collect *rc, CXSourceLocation loc) {
  CXFile f;
  unsigned off;
  clang_getExpansionLocation(loc, &f, NULL, NULL, &off);
  if (!f) return 0;
  for (int i = 0; i < rc->n; i++)
    if (clang_File_isEqual(rc->v[i].file, f) && off >= rc->v[i].begin && off <= rc->v[i].end)
      return 1;
  return 0;
}

static void print_diag(CXDiagnostic d) {
  char *s = string_and_dispose(clang_formatDiagnostic(
      d, CXDiagnostic_DisplaySourceLocation | CXDiagnostic_DisplayColumn |
             CXDiagnostic_DisplayOption));
  fprintf(stderr, "%s\n", s);
  free(s);
  CXDiagnosticSet kids = clang_getChildDiagnostics(d);
  for (unsigned i = 0; i < clang_getNumDiagnosticsInSet(kids); i++) {
    CXDiagnostic k = clang_getDiagnosticInSet(kids, i);
    print_diag(k);
    clang_disposeDiagnostic(k);
  }
}

/* Note [error limit]
 * clang parses with -ferror-limit=0: errors in device bodies are only
 * warnings to tidal, and a clang that stopped at its limit would leave the
 * host code half parsed.  The limit is applied here instead, to what is
 * printed: after `limit` diagnostics (errors and device-code warnings;
 * clang's default of 20, or the -ferror-limit=N the command line gives
 * after '--'; 0: no limit) the rest are counted, not printed, so 20 KB of
 * binary garbage prints about 20 errors, not 5,000 lines. */
static int error_limit(const frontend_options *opt) {
  int limit = 20;
  for (int i = 0; i < opt->n_clang_args; i++) {
    const char *a = opt->clang_args[i];
    if (!strncmp(a, "-ferror-limit=", 14)) limit = atoi(a + 14);
    else if (!strcmp(a, "-ferror-limit") && i + 1 < opt->n_clang_args) limit = atoi(opt->clang_args[++i]);
  }
  return limit < 0 ? 0 : limit;
}

/* Returns the number of errors that make the host code unanalyzable. */
static int scan_diagnostics(pass_tu *t, int limit) {
  unsigned n = clang_getNumDiagnostics(t->tu);
  range_collect rc = {0};
  int ranges_done = 0, host_errors = 0, shown = 0, hidden = 0;
  for (unsigned i = 0; i < n; i++) {
    CXDiagnostic d = clang_getDiagnostic(t->tu, i);
    enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(d);
    if (sev < CXDiagnostic_Error) {
      clang_disposeDiagnostic(d);
      continue;
    }
    /* Device-body ranges are only needed once something went wrong. */
    if (!ranges_done) {
      clang_visitChildren(clang_getTranslationUnitCursor(t->tu), device_body_visitor, &rc);
      ranges_done = 1;
    }
    CXSourceLocation loc = clang_getDiagnosticLocation(d);
    int device = sev == CXDiagnostic_Error && in_device_body(&rc, loc);
    if (!device) host_errors++;
    if (limit && shown >= limit) {
      hidden++;
      clang_disposeDiagnostic(d);
      continue;
    }
    shown++;
    if (device) {
      CXFile f;
      unsigned line, col;
      clang_getExpansionLocation(loc, &f, &line, &col, NULL);
      char *fname = f ? string_and_dispose(clang_getFileName(f)) : NULL;
      char *msg = string_and_dispose(clang_getDiagnosticSpelling(d));
      diag_warning(fname ? fname : t->main_path, line, col,
                   "ignoring error in device code: %s", msg);
      free(fname);
      free(msg);
    } else {
      print_diag(d);
    }
    clang_disposeDiagnostic(d);
  }
  free(rc.v);
  if (hidden)
    diag_note(t->main_path, 0, 0, "%d more diagnostics not shown (the limit is %d; "
              "-- -ferror-limit=N changes it, 0 shows all)", hidden, limit);
  return host_errors;
}

/* ---- parse -------------------------------------------------------------------- */

/* Says why the input cannot be parsed, if it cannot: clang would report a
 * directory or an unreadable file as "libclang error 1" (exit 2, as if
 * tidal were broken), and '-' is not stdin to it. */
static int input_unusable(const char *path) {
  struct stat st;
  if (!path || !*path) {
    diag_error(NULL, 0, 0, "no input file");
    return 1;
  }
  if (!strcmp(path, "-")) {
    diag_error(NULL, 0, 0, "reading the program from stdin ('-') is not supported: "
               "give the path of a .cu file");
    return 1;
  }
  if (stat(path, &st) != 0) {
    if (errno == ENOENT) diag_error(NULL, 0, 0, "no such file: '%s'", path);
    else diag_error(path, 0, 0, "cannot read the input: %s", strerror(errno));
    return 1;
  }
  if (S_ISDIR(st.st_mode)) {
    diag_error(path, 0, 0, "the input is a directory, not a source file");
    return 1;
  }
  if (!S_ISREG(st.st_mode)) {
    diag_error(path, 0, 0, "the input is not a regular file");
    return 1;
  }
  FILE *f = fopen(path, "rb");
  if (!f) {
    diag_error(path, 0, 0, "cannot read the input: %s", strerror(errno));
    return 1;
  }
  fclose(f);
  return 0;
}

/* The language the user names with `-x LANG` (or `-xLANG`) after "--",
 * the last one winning as with clang; -1 if none. */
static int user_language(const frontend_options *opt, const char **name) {
  int lang = -1;
  for (int i = 0; i < opt->n_clang_args; i++) {
    const char *a = opt->clang_args[i], *v = NULL;
    if (!strcmp(a, "-x") && i + 1 < opt->n_clang_args) v = opt->clang_args[++i];
    else if (!strncmp(a, "-x", 2) && a[2]) v = a + 2;
    if (!v) continue;
    *name = v;
    if (!strcmp(v, "cuda")) lang = PASS_LANG_CUDA;
    else if (!strcmp(v, "c")) lang = PASS_LANG_C;
    else if (!strcmp(v, "c++")) lang = PASS_LANG_CXX;
    else lang = -2; /* another language: refused */
  }
  return lang;
}

/* Note [input languages]: a program's build compiles each file in its own
 * language - .cu with nvcc, .c with the host C compiler, .cpp with the
 * host C++ one - and so does tidal: C is not a subset of C++ (an int
 * initialising an enum member, `void *` converted implicitly), so a .c
 * file parsed as CUDA fails where gcc succeeds, and C++ host files must not
 * see __CUDACC__.  By extension; `-x LANG` after "--" names the language
 * of every input, as it does for clang.  Anything else is refused before
 * parsing: a header or a text file parsed as a program yields an empty,
 * misleading graph. */
static int input_language(const frontend_options *opt) {
  const char *xname = NULL;
  int user = user_language(opt, &xname);
  if (user != -1) return user;
  const char *dot = strrchr(opt->input, '.');
  const char *slash = strrchr(opt->input, '/');
  if (!dot || (slash && dot < slash)) return -1;
  if (!strcmp(dot, ".cu") || !strcmp(dot, ".cuh")) return PASS_LANG_CUDA;
  if (!strcmp(dot, ".c")) return PASS_LANG_C;
  if (!strcmp(dot, ".cpp") || !strcmp(dot, ".cc") || !strcmp(dot, ".cxx") || !strcmp(dot, ".C") ||
      !strcmp(dot, ".c++") || !strcmp(dot, ".cp"))
    return PASS_LANG_CXX;
  return -1;
}

/* A flag after "--" (or from the database) that does not apply to a unit
 * of this language: one -- list serves every input of a program, so
 * `-std=c++17` must not reach its C files nor `-std=c99` its C++ ones, and
 * clang's CUDA flags mean nothing outside CUDA.  *skip: values to drop too. */
static int flag_not_for(pass_lang lang, const char *a, int *skip) {
  *skip = 0;
  if (!strcmp(a, "-x")) {
    *skip = 1; /* the language is set once, first (input_language) */
    return 1;
  }
  if (!strncmp(a, "-x", 2) && a[2]) return 1;
  if (!strncmp(a, "-std=", 5) || !strncmp(a, "--std=", 6)) {
    int cxx = strstr(a, "++") != NULL || strstr(a, "cuda") != NULL;
    return lang == PASS_LANG_C ? cxx : !cxx;
  }
  if (lang == PASS_LANG_CUDA) return 0;
  if (!strcmp(a, "-nocudainc") || !strcmp(a, "-nocudalib") || !strncmp(a, "--cuda-", 7) ||
      !strncmp(a, "--offload-arch", 14) || !strcmp(a, "-fgpu-rdc") || !strcmp(a, "-fcuda-rdc"))
    return 1;
  return 0;
}

static int parse_unit(const frontend_options *opt, int whole_program, sym_arena *arena,
                      pass_tu **out) {
  *out = NULL;
  strvec args = {0};
  char *compat = NULL;
  pass_tu *t = NULL;
  int rc = TIDAL_EXIT_INTERNAL;

  if (input_unusable(opt->input)) return TIDAL_EXIT_BAD_INPUT;
  (void)whole_program;
  int lang = input_language(opt);
  if (lang < 0) {
    const char *xname = NULL;
    if (user_language(opt, &xname) == -2)
      diag_error(opt->input, 1, 1, "'-x %s': tidal reads CUDA, C and C++ ('-x cuda', '-x c', "
                 "'-x c++')", xname);
    else
      diag_error(opt->input, 1, 1,
                 "not a CUDA, C or C++ source file (expected .cu, .cuh, .c, .cpp, .cc or .cxx; "
                 "pass '-- -x cuda' to treat it as CUDA)");
    return TIDAL_EXIT_BAD_INPUT;
  }
  if (!(compat = find_compat_dir())) goto oom;
  {
    char cuda_path[PATH_MAX + 16], cccl[PATH_MAX + 16], inc[PATH_MAX + 16];
    const char *cuda = getenv("TIDAL_CUDA_PATH");
    if (!cuda || !*cuda) cuda = TIDAL_CUDA_PATH;
    snprintf(cuda_path, sizeof cuda_path, "--cuda-path=%s", cuda);
    snprintf(cccl, sizeof cccl, "%s/include/cccl", cuda);
    snprintf(inc, sizeof inc, "%s/include", cuda);
    const char *cu[] = {"-x", "cuda", cuda_path, "--cuda-gpu-arch=sm_90",
                        "-Wno-unknown-cuda-version", "-ferror-limit=0", "-isystem", cccl,
                        "-I", compat, "-include", "tidal_cuda_compat.h"};
    /* Host files see the toolkit's headers as their build's -I does (nvcc
     * adds it itself; a host compiler's command line names it).  C: the
     * errors clang 16+ makes of what gcc 12 only warns about. */
    const char *c[] = {"-x", "c", "-ferror-limit=0", "-isystem", inc,
                       "-Wno-error=implicit-function-declaration", "-Wno-error=int-conversion",
                       "-Wno-error=incompatible-pointer-types", "-Wno-error=implicit-int",
                       "-Wno-error=return-type"};
    const char *cxx[] = {"-x", "c++", "-ferror-limit=0", "-isystem", inc, "-isystem", cccl};
    const char **base = lang == PASS_LANG_C ? c : lang == PASS_LANG_CXX ? cxx : cu;
    size_t nb = lang == PASS_LANG_C ? sizeof c / sizeof *c
              : lang == PASS_LANG_CXX ? sizeof cxx / sizeof *cxx : sizeof cu / sizeof *cu;
    for (size_t i = 0; i < nb; i++)
      if (sv_push(&args, base[i]) < 0) goto oom;
  }
  if (opt->compdb_dir) {
    strvec db = {0};
    rc = load_compdb(opt->compdb_dir, opt->input, &db, NULL);
    for (int i = 0; !rc && i < db.n; i++) {
      int skip;
      if (flag_not_for((pass_lang)lang, db.v[i], &skip)) {
        i += skip;
        continue;
      }
      if (sv_push(&args, db.v[i]) < 0) rc = TIDAL_EXIT_INTERNAL;
    }
    sv_free(&db);
    if (rc) goto fail;
    rc = TIDAL_EXIT_INTERNAL;
  }
  for (int i = 0; i < opt->n_clang_args; i++) {
    /* tidal applies -ferror-limit itself (Note [error limit]) */
    if (!strncmp(opt->clang_args[i], "-ferror-limit=", 14)) continue;
    if (!strcmp(opt->clang_args[i], "-ferror-limit")) {
      i++;
      continue;
    }
    int skip;
    if (flag_not_for((pass_lang)lang, opt->clang_args[i], &skip)) {
      i += skip;
      continue;
    }
    if (sv_push(&args, opt->clang_args[i]) < 0) goto oom;
  }

  if (!(t = calloc(1, sizeof *t))) goto oom;
  t->lang = (pass_lang)lang;
  if (!(t->main_path = strdup(opt->input))) goto oom;
  if (arena) t->arena = arena;
  else if (!(t->arena = sym_arena_create())) goto oom;
  t->owns_arena = arena == NULL;
  t->owns_tu = 1;
  t->index = clang_createIndex(0, 0);
  enum CXErrorCode ec = clang_parseTranslationUnit2(
      t->index, opt->input, (const char *const *)args.v, args.n, NULL, 0,
      CXTranslationUnit_DetailedPreprocessingRecord | CXTranslationUnit_KeepGoing, &t->tu);
  if (ec != CXError_Success || !t->tu) {
    diag_error(opt->input, 0, 0, "clang could not parse the file (libclang error %d)", (int)ec);
    rc = ec == CXError_ASTReadError || ec == CXError_InvalidArguments ? TIDAL_EXIT_BAD_INPUT
                                                                      : TIDAL_EXIT_INTERNAL;
    goto fail;
  }
  if (scan_diagnostics(t, error_limit(opt)) > 0) {
    rc = TIDAL_EXIT_BAD_INPUT;
    goto fail;
  }
  t->main_file = clang_getFile(t->tu, opt->input);
  size_t size = 0;
  const char *buf = t->main_file ? clang_getFileContents(t->tu, t->main_file, &size) : NULL;
  if (!buf) {
    diag_error(opt->input, 0, 0, "clang did not load the input file");
    goto fail;
  }
  if (!(t->main_source = malloc(size + 1))) goto oom;
  memcpy(t->main_source, buf, size);
  t->main_source[size] = '\0';
  t->main_size = size;
  sv_free(&args);
  free(compat);
  *out = t;
  return TIDAL_EXIT_OK;
oom:
  diag_error(NULL, 0, 0, "out of memory");
  rc = TIDAL_EXIT_INTERNAL;
fail:
  sv_free(&args);
  free(compat);
  frontend_dispose(t);
  return rc;
}

static int defines_main(pass_tu *u);

/* Every input, or with -p and no input every entry of the database, into
 * one program whose files[0] defines main(). */
int frontend_parse(const frontend_options *opt, pass_tu **out) {
  *out = NULL;
  strvec all = {0};
  const char *const *inputs = opt->inputs;
  int n = opt->n_inputs, whole = 0, rc = TIDAL_EXIT_INTERNAL;
  const char *single[1];
  if (n == 0 && opt->input) {
    single[0] = opt->input;
    inputs = single;
    n = 1;
  }
  if (n == 0 && opt->compdb_dir) {
    rc = load_compdb(opt->compdb_dir, NULL, NULL, &all);
    if (rc) return rc;
    inputs = (const char *const *)all.v;
    n = all.n;
    whole = 1;
  }
  if (n == 0) {
    diag_error(NULL, 0, 0, "no input file");
    return TIDAL_EXIT_BAD_INPUT;
  }
  if (n > 1) whole = 1;
  pass_program *p = calloc(1, sizeof *p);
  if (!p || !(p->arena = sym_arena_create())) goto oom;
  {
    char real[PATH_MAX];
    char *compat = find_compat_dir();
    if (compat) p->compat_dir = strdup(realpath(compat, real) ? real : compat);
    free(compat);
    const char *cuda = getenv("TIDAL_CUDA_PATH");
    if (!cuda || !*cuda) cuda = TIDAL_CUDA_PATH;
    p->cuda_dir = strdup(realpath(cuda, real) ? real : cuda);
  }
  for (int i = 0; i < n; i++) {
    int dup = 0;
    for (int j = 0; j < i && !dup; j++) dup = same_file(inputs[i], inputs[j]);
    if (dup) continue; /* a file listed twice is one file */
    frontend_options one = *opt;
    one.input = inputs[i];
    one.n_inputs = 0;
    one.inputs = NULL;
    if (all.n) {
      /* an entry of the database, with its own flags: every C, C++ and
       * CUDA file of the build (Note [input languages]); others (an
       * assembler file, a Fortran one) are not the program's host code */
      one.input = inputs[i];
      const char *xname = NULL;
      if (input_language(&one) < 0 && user_language(&one, &xname) == -1) continue;
    }
    pass_tu *u = NULL;
    rc = parse_unit(&one, whole, p->arena, &u);
    if (rc) goto fail;
    if (program_add_unit(p, u) < 0) {
      frontend_dispose(u);
      goto oom;
    }
  }
  if (p->n_units == 0) {
    diag_error(opt->compdb_dir, 0, 0, "the compilation database lists no C, C++ or CUDA file");
    rc = TIDAL_EXIT_BAD_INPUT;
    goto fail;
  }
  /* the unit defining main() goes first: the analysis starts there */
  for (int i = 1; i < p->n_units; i++)
    if (defines_main(p->files[i]) && !defines_main(p->files[0])) {
      pass_tu *tmp = p->files[0];
      p->files[0] = p->files[i];
      p->files[i] = tmp;
      CXFileUniqueID id = p->ids[0];
      p->ids[0] = p->ids[i];
      p->ids[i] = id;
      p->files[0]->file_index = 0;
      p->files[i]->file_index = i;
      break;
    }
  sv_free(&all);
  *out = p->files[0];
  return TIDAL_EXIT_OK;
oom:
  diag_error(NULL, 0, 0, "out of memory");
  rc = TIDAL_EXIT_INTERNAL;
fail:
  sv_free(&all);
  if (p && p->n_files) frontend_dispose(p->files[0]);
  else if (p) {
    if (p->arena) sym_arena_destroy(p->arena);
    program_free(p);
  }
  return rc;
}

typedef struct main_scan {
  pass_tu *u;
  int found;
} main_scan;

static enum CXChildVisitResult main_def_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  main_scan *m = d;
  if (clang_getCursorKind(c) == CXCursor_FunctionDecl && clang_isCursorDefinition(c) &&
      frontend_in_main_file(m->u, c)) {
    char *nm = string_and_dispose(clang_getCursorSpelling(c));
    m->found = strcmp(nm, "main") == 0;
    free(nm);
    if (m->found) return CXChildVisit_Break;
  }
  return CXChildVisit_Continue;
}

static int defines_main(pass_tu *u) {
  main_scan m = {u, 0};
  clang_visitChildren(clang_getTranslationUnitCursor(u->tu), main_def_visitor, &m);
  return m.found;
}

static void dispose_one(pass_tu *t) {
  if (!t) return;
  if (t->owns_tu && t->tu) clang_disposeTranslationUnit(t->tu);
  if (t->owns_tu && t->index) clang_disposeIndex(t->index);
  if (t->owns_arena && !t->prog) sym_arena_destroy(t->arena);
  free(t->main_path);
  free(t->main_source);
  free(t);
}

void frontend_dispose(pass_tu *t) {
  if (!t) return;
  pass_program *p = t->prog;
  if (!p) {
    dispose_one(t);
    return;
  }
  sym_arena *arena = p->arena;
  for (int i = 0; i < p->n_files; i++) dispose_one(p->files[i]);
  program_free(p);
  sym_arena_destroy(arena);
}

int frontend_in_main_file(const pass_tu *t, CXCursor c) {
  CXFile f;
  clang_getExpansionLocation(clang_getCursorLocation(c), &f, NULL, NULL, NULL);
  if (!f || !t->main_file) return 0;
  if (clang_Cursor_getTranslationUnit(c) == t->tu) return clang_File_isEqual(f, t->main_file);
  return program_same_file(t, f);
}

char *frontend_cursor_text(const pass_tu *t, CXCursor c) {
  CXSourceRange ext = clang_getCursorExtent(c);
  CXFile f1, f2;
  unsigned b, e;
  clang_getExpansionLocation(clang_getRangeStart(ext), &f1, NULL, NULL, &b);
  clang_getExpansionLocation(clang_getRangeEnd(ext), &f2, NULL, NULL, &e);
  /* The bytes come from the file the cursor is in (another input, a
   * project header), tokens from the cursor's own translation unit. */
  const pass_tu *v = f1 ? program_view_of_file(t, c, f1) : NULL;
  if (v) t = v;
  CXTranslationUnit ctu = clang_Cursor_getTranslationUnit(c);
  if (f1 && f2 && t->main_file && clang_File_isEqual(f1, f2) &&
      (v || clang_File_isEqual(f1, t->main_file)) && b <= e && e <= t->main_size) {
    char *r = malloc(e - b + 1);
    if (!r) return NULL;
    memcpy(r, t->main_source + b, e - b);
    r[e - b] = '\0';
    return r;
  }
  /* Outside the main file (a project header): join the tokens. */
  CXToken *toks = NULL;
  unsigned n = 0;
  CXTranslationUnit tu = ctu ? ctu : t->tu;
  clang_tokenize(tu, ext, &toks, &n);
  size_t len = 0, cap = 64;
  char *r = malloc(cap);
  if (!r) goto out;
  r[0] = '\0';
  for (unsigned i = 0; i < n; i++) {
    char *s = string_and_dispose(clang_getTokenSpelling(tu, toks[i]));
    size_t sl = strlen(s);
    if (len + sl + 2 > cap) {
      while (len + sl + 2 > cap) cap *= 2;
      char *nr = realloc(r, cap);
      if (!nr) {
        free(s);
        free(r);
        r = NULL;
        goto out;
      }
      r = nr;
    }
    if (i) r[len++] = ' ';
    memcpy(r + len, s, sl + 1);
    len += sl;
    free(s);
  }
out:
  if (toks) clang_disposeTokens(tu, toks, n);
  return r;
}
