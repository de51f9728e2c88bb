/* program.c - the files of a whole program: several parsed inputs (each a
 * translation unit of its own) and the project headers they include.
 *
 * Decisions:
 *  - Files are compared by clang's unique file id (device and inode), never
 *    by CXFile pointer: each unit has its own CXFile for a shared header.
 *  - A project header is any file that is not a system header, not in the
 *    compat folder and not in the CUDA toolkit.  It gets a view (a pass_tu
 *    whose main file is the header, borrowing the first unit that met it)
 *    the first time the analysis asks, so the graph can name its
 *    statements and the rewriter can edit its bytes.
 *  - A call to a function defined in another input has no definition in
 *    the caller's unit: definitions are indexed by USR over every unit's
 *    main file (USRs are the same in every unit; a static function's USR
 *    names its file, so two statics of one name stay apart). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/cxstring.h"
#include "frontend/frontend.h"

typedef struct program_def {
  char *usr;
  CXCursor def;
} program_def;

static int same_id(const CXFileUniqueID *a, const CXFileUniqueID *b) {
  return a->data[0] == b->data[0] && a->data[1] == b->data[1] && a->data[2] == b->data[2];
}

static int under(const char *path, const char *dir) {
  if (!dir || !*dir) return 0;
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') n--;
  return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

static int is_project_file(pass_program *p, CXTranslationUnit tu, CXFile f) {
  if (clang_Location_isInSystemHeader(clang_getLocationForOffset(tu, f, 0))) return 0;
  char *name = string_and_dispose(clang_getFileName(f));
  char real[PATH_MAX];
  const char *path = realpath(name, real) ? real : name;
  int ok = !under(path, p->compat_dir) && !under(path, p->cuda_dir);
  free(name);
  return ok;
}

static int add_file(pass_program *p, pass_tu *v) {
  if (p->n_files == p->cap_files) {
    int nc = p->cap_files ? p->cap_files * 2 : 16;
    pass_tu **nf = realloc(p->files, (size_t)nc * sizeof *nf);
    if (!nf) return -1;
    p->files = nf;
    CXFileUniqueID *ni = realloc(p->ids, (size_t)nc * sizeof *ni);
    if (!ni) return -1;
    p->ids = ni;
    p->cap_files = nc;
  }
  memset(&p->ids[p->n_files], 0, sizeof p->ids[0]);
  clang_getFileUniqueID(v->main_file, &p->ids[p->n_files]);
  v->file_index = p->n_files;
  v->prog = p;
  p->files[p->n_files++] = v;
  return 0;
}

int program_add_unit(pass_program *p, pass_tu *u) {
  u->is_unit = 1;
  if (add_file(p, u) < 0) return -1;
  p->n_units = p->n_files;
  return 0;
}

pass_tu *program_view_of_file(const pass_tu *t, CXCursor c, CXFile f) {
  pass_program *p = t ? t->prog : NULL;
  if (!p || !f) return NULL;
  CXFileUniqueID id;
  if (clang_getFileUniqueID(f, &id) != 0) return NULL;
  for (int i = 0; i < p->n_files; i++)
    if (same_id(&p->ids[i], &id)) return p->files[i];
  CXTranslationUnit tu = clang_Cursor_getTranslationUnit(c);
  if (!tu || !is_project_file(p, tu, f)) return NULL;
  size_t size = 0;
  const char *buf = clang_getFileContents(tu, f, &size);
  if (!buf) return NULL;
  pass_tu *v = calloc(1, sizeof *v);
  if (!v) return NULL;
  v->tu = tu;
  for (int i = 0; i < p->n_units; i++)
    if (p->files[i]->tu == tu) v->lang = p->files[i]->lang; /* parsed as the unit including it */
  v->main_file = f;
  v->main_path = string_and_dispose(clang_getFileName(f));
  v->main_source = malloc(size + 1);
  v->arena = p->arena;
  if (!v->main_path || !v->main_source || add_file(p, v) < 0) {
    free(v->main_path);
    free(v->main_source);
    free(v);
    return NULL;
  }
  memcpy(v->main_source, buf, size);
  v->main_source[size] = '\0';
  v->main_size = size;
  return v;
}

pass_tu *program_view_of(const pass_tu *t, CXCursor c) {
  CXFile f = NULL;
  clang_getExpansionLocation(clang_getCursorLocation(c), &f, NULL, NULL, NULL);
  return program_view_of_file(t, c, f);
}

int program_same_file(const pass_tu *t, CXFile f) {
  pass_program *p = t->prog;
  if (!p || !f || t->file_index < 0 || t->file_index >= p->n_files) return 0;
  CXFileUniqueID id;
  if (clang_getFileUniqueID(f, &id) != 0) return 0;
  return same_id(&p->ids[t->file_index], &id);
}

/* ---- definitions by USR ---- */

typedef struct def_scan {
  pass_program *p;
  pass_tu *u;
} def_scan;

/* c's expansion location is in u's main file (frontend_in_main_file,
 * without calling back into frontend.c). */
static int cursor_in_file(const pass_tu *u, CXCursor c) {
  CXFile f = NULL;
  clang_getExpansionLocation(clang_getCursorLocation(c), &f, NULL, NULL, NULL);
  return program_same_file(u, f);
}

static void add_def(pass_program *p, CXCursor c) {
  char *usr = string_and_dispose(clang_getCursorUSR(c));
  if (!usr || !*usr) {
    free(usr);
    return;
  }
  if (p->n_defs == p->cap_defs) {
    int nc = p->cap_defs ? p->cap_defs * 2 : 256;
    program_def *nd = realloc(p->defs, (size_t)nc * sizeof *nd);
    if (!nd) {
      free(usr);
      return;
    }
    p->defs = nd;
    p->cap_defs = nc;
  }
  p->defs[p->n_defs].usr = usr;
  p->defs[p->n_defs].def = c;
  p->n_defs++;
}

static enum CXChildVisitResult def_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  def_scan *s = d;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec || k == CXCursor_StructDecl ||
      k == CXCursor_ClassDecl || k == CXCursor_ClassTemplate)
    return CXChildVisit_Recurse;
  if ((k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod || k == CXCursor_Constructor ||
       k == CXCursor_Destructor || k == CXCursor_FunctionTemplate) &&
      clang_isCursorDefinition(c) && cursor_in_file(s->u, c))
    add_def(s->p, c);
  return CXChildVisit_Continue;
}

static int def_cmp(const void *a, const void *b) {
  return strcmp(((const program_def *)a)->usr, ((const program_def *)b)->usr);
}

static void build_defs(pass_program *p) {
  p->defs_built = 1;
  for (int i = 0; i < p->n_units; i++) {
    def_scan s = {p, p->files[i]};
    clang_visitChildren(clang_getTranslationUnitCursor(p->files[i]->tu), def_visitor, &s);
  }
  /* equal USRs only come from one file given twice, which frontend_parse
   * refuses, so any hit is the definition */
  if (p->n_defs > 1) qsort(p->defs, (size_t)p->n_defs, sizeof *p->defs, def_cmp);
}

CXCursor program_definition(const pass_tu *t, CXCursor decl) {
  if (clang_Cursor_isNull(decl)) return decl;
  CXCursor def = clang_getCursorDefinition(decl);
  if (!clang_Cursor_isNull(def)) return def;
  pass_program *p = t ? t->prog : NULL;
  if (!p || p->n_units < 2) return def;
  if (!p->defs_built) build_defs(p);
  char *usr = string_and_dispose(clang_getCursorUSR(decl));
  if (!usr || !*usr) {
    free(usr);
    return def;
  }
  program_def key = {usr, clang_getNullCursor()};
  program_def *hit = p->n_defs ? bsearch(&key, p->defs, (size_t)p->n_defs, sizeof *p->defs, def_cmp)
                               : NULL;
  free(usr);
  return hit ? hit->def : def;
}

int program_units(const pass_tu *t, pass_tu *const **units) {
  if (!t || !t->prog) {
    static pass_tu *none[1];
    none[0] = (pass_tu *)t;
    *units = none;
    return t ? 1 : 0;
  }
  /* Not files itself: visiting a unit can meet a project header, whose view
   * is appended to files and may move it under the caller's loop (a
   * use-after-free on gpt2.cu).  The units never change once parsed. */
  pass_program *p = t->prog;
  if (p->n_units_copied != p->n_units) {
    pass_tu **u = realloc(p->units, (size_t)(p->n_units ? p->n_units : 1) * sizeof *u);
    if (!u) {
      *units = p->files;
      return p->n_units;
    }
    p->units = u;
    p->n_units_copied = p->n_units;
  }
  memcpy(p->units, p->files, (size_t)p->n_units * sizeof *p->units);
  *units = p->units;
  return p->n_units;
}

typedef struct read_visit {
  void (*fn)(void *ud, const char *path);
  void *ud;
} read_visit;

static void inclusion_visitor(CXFile f, CXSourceLocation *stack, unsigned n, CXClientData d) {
  (void)stack;
  (void)n;
  read_visit *v = d;
  char *name = string_and_dispose(clang_getFileName(f));
  if (name) v->fn(v->ud, name);
  free(name);
}

void program_each_file_read(const pass_tu *t, void (*fn)(void *ud, const char *path), void *ud) {
  if (!t || !t->prog) return;
  pass_tu *const *units;
  int n = program_units(t, &units);
  read_visit v = {fn, ud};
  for (int i = 0; i < n; i++) {
    if (units[i]->main_path) fn(ud, units[i]->main_path);
    if (units[i]->tu) clang_getInclusions(units[i]->tu, inclusion_visitor, &v);
  }
}

void program_free(pass_program *p) {
  if (!p) return;
  for (int i = 0; i < p->n_defs; i++) free(p->defs[i].usr);
  free(p->defs);
  free(p->files);
  free(p->units);
  free(p->ids);
  free(p->compat_dir);
  free(p->cuda_dir);
  free(p);
}
