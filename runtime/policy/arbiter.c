/* arbiter.c - one device budget shared by several processes, no daemon.
 *
 * Note [shared budget]: processes that set the same shared budget
 * (TIDAL_SHARED_BUDGET, cfg.shared_budget_bytes) on one device, as one user,
 * meet in a POSIX shared-memory segment (/tidal-u<uid>-<device or
 * TIDAL_SHARED_NAME>).  The first creates it; the last to leave unlinks it.
 * It holds the total, a process-shared robust mutex, and one slot per
 * process: pid, demand, share, and the physical bytes it holds.
 *  - Demand is what the process could use: the bytes of its allocations
 *    (whole chunks), capped by its own budget (TIDAL_BUDGET), at least one
 *    chunk.  Shares are the total divided in proportion to demand,
 *    recomputed whenever a process joins, leaves, dies or changes demand.
 *  - A process applies its share with rt_budget_set: shrinking evicts
 *    through the usual path, so nothing is lost.  It looks at the division
 *    at every op (one atomic load of the generation, unless its own demand
 *    changed) and, with the lock, at every iteration end.
 *  - The total is never exceeded, whoever is late to shrink: every physical
 *    chunk a process creates is taken from the segment's `held` counter
 *    first (compare-and-swap against the total) and given back when the
 *    chunk is released.  A process whose share grew but finds the total
 *    held by others evicts its own chunks, and waits (bounded) only when it
 *    has nothing to evict.
 *  - Liveness: each process holds its slot's robust mutex while it takes
 *    part.  When it dies, the next process that takes the lock and checks
 *    (at its iteration end, or while waiting for memory) gets EOWNERDEAD
 *    and returns the dead process's held bytes and share; kill(pid, 0)
 *    catches a process that no longer exists even if the mutex says
 *    otherwise.  The segment's own mutex is robust too: a process that dies
 *    holding it leaves the division to be recomputed, which the next
 *    locker does anyway.
 *  - A newcomer's first op may need more than its share (a process
 *    joining a busy group starts with little demand): the op's working
 *    set becomes the process's floor (`need`), the division grants every
 *    process its floor first and the rest in proportion to demand, and
 *    the others shrink at their next op while the newcomer waits for the
 *    memory (bounded, ARB_MEMORY_WAIT_S) - issue 23, where it failed at
 *    once ("the op's working set ... exceeds the ...-byte budget").
 * The slot's mutex is owned by the thread that called tidal_init: the
 * thread model (one training thread) makes that the thread that calls
 * tidal_shutdown.
 *
 * Note [segment trust]: the segment is a file under /dev/shm that anyone
 * could have made first under our name.  One made by another user, or
 * writable by group or others, is refused (a stranger's "1 TiB" total
 * would hand this process the whole device; a stranger's 0600 file would
 * deny it service - refused with the reason, not an opaque EACCES), and
 * so is one whose size, version or contents are not a tidal segment's:
 * each slot's pid, share and held bytes must be in range.  A process that
 * asks for another total than the group's is refused too: one of the two
 * is a mistake, and a silent total (once logged at warning level only) hid
 * it.
 *
 * Note [arbiter lock order]: a process holds its slot's `alive` from join
 * to leave, so every later lock of the segment's `mu` (poll, wait, leave)
 * is taken after `alive`.  The other order, `mu` then an `alive`, occurs
 * only under `mu` and only with trylock: join claiming a free slot and
 * reap_dead probing others.  No thread ever blocks on an `alive` while
 * holding `mu`, so the two cannot deadlock, and ThreadSanitizer (whose
 * deadlock detector records no edge for a trylock) agrees.  Join used to
 * block there: harmless while a free slot's mutex is unowned (pid 0 and
 * `alive` change together under `mu`), but a slot left locked by a live
 * thread (tidal_shutdown called from another thread than tidal_init, whose
 * unlock then fails) would have hung every later join with `mu` held, and
 * TSan reported the cycle join -> leave as a potential deadlock. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "policy/policy.h"

#define ARB_MAGIC 0x746964616c617262ull /* "tidalarb" */
#define ARB_VERSION 2u /* 2: a slot's `need` (its largest op) */
#define ARB_SLOTS 64             /* processes that may share one budget */
#define ARB_OPEN_WAIT_S 5.0      /* for a segment its creator is still setting up */
#define ARB_MEMORY_WAIT_S 30.0   /* for others to give back this process's share */
#define ARB_RECHECK_S 0.05       /* while waiting: look for dead processes this often */

typedef struct arb_slot {
  pthread_mutex_t alive;    /* held by the process while it takes part */
  _Atomic int32_t pid;      /* 0: free */
  uint64_t demand;          /* bytes it could use (under mu) */
  uint64_t need;            /* its largest op's working set that did not fit: its floor
                               (under mu) */
  _Atomic uint64_t share;   /* bytes granted (written under mu, read without it) */
  _Atomic uint64_t held;    /* physical bytes it holds */
} arb_slot;

typedef struct arb_seg {
  _Atomic uint64_t magic;   /* set last by the creator: the rest is ready */
  uint32_t version;
  uint32_t closed;          /* the last process left and unlinked it (under mu) */
  pthread_mutex_t mu;       /* guards demand, shares, closed and slot ownership */
  uint64_t total;
  _Atomic uint64_t generation; /* bumped whenever shares change */
  _Atomic uint64_t held;       /* physical bytes all processes hold */
  _Atomic uint64_t peak_held;  /* its high-water mark */
  arb_slot slot[ARB_SLOTS];
} arb_seg;

struct rt_arbiter {
  arb_seg *seg;
  int slot;
  char name[96];
  uint64_t seen_generation;
  uint64_t demand;          /* last published */
  size_t cap;               /* this process's own budget: its share never exceeds it */
};

static struct rt_arbiter arb;
static const rt_share_ops arb_share_ops; /* rt_mem.share: the end of this file */

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void sleep_s(double s) {
  struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&t, NULL);
}

static int init_robust(pthread_mutex_t *m) {
  pthread_mutexattr_t a;
  if (pthread_mutexattr_init(&a))
    return -1;
  int r = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED) ||
          pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST) || pthread_mutex_init(m, &a);
  pthread_mutexattr_destroy(&a);
  return r ? -1 : 0;
}

/* Locks a robust mutex; a dead owner's lock is taken over (its state is
 * recomputed by the caller).  0 on success. */
static int lock_robust(pthread_mutex_t *m) {
  int r = pthread_mutex_lock(m);
  if (r == EOWNERDEAD)
    r = pthread_mutex_consistent(m);
  return r;
}

/* Takes a free slot's `alive` mutex (mu held) without blocking: see Note
 * [arbiter lock order].  0 on success; EBUSY means a live thread holds it
 * although the slot reads free, and the slot is skipped. */
static int trylock_robust(pthread_mutex_t *m) {
  int r = pthread_mutex_trylock(m);
  if (r == EOWNERDEAD)
    r = pthread_mutex_consistent(m);
  return r;
}

/* Bytes this process could use (Note [shared budget]). */
static uint64_t demand_now(void) {
  uint64_t d = rt_mem.footprint_bytes;
  if (d > arb.cap)
    d = arb.cap;
  return d < rt_mem.chunk_bytes ? rt_mem.chunk_bytes : d;
}

/* Frees the slots of processes that died (mu held).  Returns how many. */
static int reap_dead(arb_seg *s) {
  int n = 0;
  for (int i = 0; i < ARB_SLOTS; i++) {
    arb_slot *sl = &s->slot[i];
    int32_t pid = atomic_load(&sl->pid);
    if (!pid || i == arb.slot)
      continue;
    int r = pthread_mutex_trylock(&sl->alive);
    int dead = 0;
    if (r == EOWNERDEAD) {
      pthread_mutex_consistent(&sl->alive);
      dead = 1;
    } else if (r == 0) {
      dead = 1; /* taken by nobody: its owner is gone */
    } else if (r == ENOTRECOVERABLE) {
      init_robust(&sl->alive);
      dead = 1;
    } else if (kill(pid, 0) != 0 && errno == ESRCH) {
      dead = 1;
    }
    if (!dead)
      continue;
    if (r == 0 || r == EOWNERDEAD)
      pthread_mutex_unlock(&sl->alive);
    atomic_fetch_sub(&s->held, atomic_load(&sl->held));
    atomic_store(&sl->held, 0);
    atomic_store(&sl->share, 0);
    sl->demand = sl->need = 0;
    atomic_store(&sl->pid, 0);
    rt_log(3, "shared budget %s: process %d is gone; its share is divided again", arb.name,
           (int)pid);
    n++;
  }
  return n;
}

/* The total divided (mu held): each process's floor (`need`) first, the
 * rest in proportion to demand beyond it; in proportion to demand alone
 * when the floors do not fit together. */
static void divide(arb_seg *s) {
  unsigned __int128 sum = 0, needs = 0, extra = 0;
  for (int i = 0; i < ARB_SLOTS; i++)
    if (atomic_load(&s->slot[i].pid)) {
      const arb_slot *sl = &s->slot[i];
      sum += sl->demand;
      needs += sl->need;
      extra += sl->demand > sl->need ? sl->demand - sl->need : 0;
    }
  int floors = needs > 0 && needs <= s->total;
  for (int i = 0; i < ARB_SLOTS; i++) {
    arb_slot *sl = &s->slot[i];
    if (!atomic_load(&sl->pid))
      continue;
    uint64_t share = 0;
    if (floors) {
      uint64_t rest = s->total - (uint64_t)needs;
      uint64_t ex = sl->demand > sl->need ? sl->demand - sl->need : 0;
      share = sl->need + (extra ? (uint64_t)((unsigned __int128)rest * ex / extra)
                                : (uint64_t)((unsigned __int128)rest * sl->need / needs));
    } else if (sum) {
      share = (uint64_t)((unsigned __int128)s->total * sl->demand / sum);
    }
    atomic_store(&sl->share, share);
  }
  atomic_fetch_add(&s->generation, 1);
}

/* This process's budget from its share: whole chunks, at least one, at
 * most its own cap. */
static size_t budget_of_share(uint64_t share) {
  size_t b = share < arb.cap ? (size_t)share : arb.cap;
  b -= b % rt_mem.chunk_bytes;
  return b ? b : rt_mem.chunk_bytes;
}

/* Note [segment trust]: an existing segment is ours alone, and sized as
 * one.  TIDAL_OK, or the refusal (fd closed). */
static tidal_status trust_segment(const char *name, int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return rt_error(TIDAL_ERR_CONFIG, "shared budget: /dev/shm%s: %s", name, strerror(e));
  }
  if (st.st_uid != geteuid() || (st.st_mode & 077) || !S_ISREG(st.st_mode)) {
    close(fd);
    return rt_error(TIDAL_ERR_CONFIG,
                    "shared budget: /dev/shm%s belongs to uid %u with mode %04o; a segment "
                    "must be this user's (uid %u) with no group or other access: it is not "
                    "trusted (Note [segment trust]; remove it, or choose another "
                    "TIDAL_SHARED_NAME)",
                    name, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777),
                    (unsigned)geteuid());
  }
  if ((size_t)st.st_size > sizeof(arb_seg)) {
    close(fd);
    return rt_error(TIDAL_ERR_CONFIG,
                    "shared budget: /dev/shm%s is %lld bytes, not a version-%u tidal segment "
                    "(remove it if no tidal process uses it)",
                    name, (long long)st.st_size, ARB_VERSION);
  }
  return TIDAL_OK;
}

/* Its contents are in range (mu held).  1 if so. */
static int segment_sane(const arb_seg *s, size_t chunk) {
  if (s->total < chunk || s->closed > 1)
    return 0;
  uint64_t held = atomic_load(&s->held);
  if (held > s->total)
    return 0;
  for (int i = 0; i < ARB_SLOTS; i++) {
    const arb_slot *sl = &s->slot[i];
    int32_t pid = atomic_load(&sl->pid);
    if (pid < 0 || atomic_load(&sl->share) > s->total || atomic_load(&sl->held) > s->total ||
        sl->need > s->total)
      return 0;
  }
  return 1;
}

static tidal_status open_segment(const char *name, size_t total, arb_seg **out) {
  double t0 = now_s();
  for (;;) {
    int created = 1;
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0 && errno == EEXIST) {
      created = 0;
      fd = shm_open(name, O_RDWR, 0600);
      if (fd < 0 && errno == ENOENT)
        continue; /* unlinked in between: create it */
      if (fd < 0 && errno == EACCES) /* made by someone else: Note [segment trust] */
        return rt_error(TIDAL_ERR_CONFIG,
                        "shared budget: /dev/shm%s exists and this user cannot open it: made "
                        "by another user, it is not trusted (Note [segment trust]; choose "
                        "another TIDAL_SHARED_NAME)",
                        name);
    }
    if (fd < 0)
      return rt_error(TIDAL_ERR_CONFIG, "shared budget: shm_open(%s): %s", name, strerror(errno));
    tidal_status tst = created ? TIDAL_OK : trust_segment(name, fd);
    if (tst != TIDAL_OK)
      return tst;
    if (created && ftruncate(fd, sizeof(arb_seg)) != 0) {
      int e = errno;
      close(fd);
      shm_unlink(name);
      return rt_error(TIDAL_ERR_HOST_MEMORY, "shared budget: sizing %s: %s", name, strerror(e));
    }
    struct stat st;
    while (!created && fstat(fd, &st) == 0 && (size_t)st.st_size < sizeof(arb_seg)) {
      if (now_s() - t0 > ARB_OPEN_WAIT_S) {
        close(fd);
        return rt_error(TIDAL_ERR_CONFIG, "shared budget: %s is not a tidal segment", name);
      }
      sleep_s(0.001); /* its creator is sizing it */
    }
    arb_seg *s = mmap(NULL, sizeof(arb_seg), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (s == MAP_FAILED)
      return rt_error(TIDAL_ERR_HOST_MEMORY, "shared budget: mapping %s: %s", name,
                      strerror(errno));
    if (created) {
      s->version = ARB_VERSION;
      s->total = total;
      int bad = init_robust(&s->mu);
      for (int i = 0; i < ARB_SLOTS && !bad; i++)
        bad = init_robust(&s->slot[i].alive);
      if (bad) {
        munmap(s, sizeof(arb_seg));
        shm_unlink(name);
        return rt_error(TIDAL_ERR_BACKEND, "shared budget: no process-shared robust mutexes");
      }
      atomic_store(&s->magic, ARB_MAGIC);
    }
    while (atomic_load(&s->magic) != ARB_MAGIC && now_s() - t0 < ARB_OPEN_WAIT_S)
      sleep_s(0.001);
    if (atomic_load(&s->magic) != ARB_MAGIC || s->version != ARB_VERSION) {
      munmap(s, sizeof(arb_seg));
      return rt_error(TIDAL_ERR_CONFIG,
                      "shared budget: %s is not a version-%u tidal segment (remove it from "
                      "/dev/shm if no tidal process uses it)",
                      name, ARB_VERSION);
    }
    if (lock_robust(&s->mu) != 0) {
      munmap(s, sizeof(arb_seg));
      return rt_error(TIDAL_ERR_BACKEND, "shared budget: cannot lock %s", name);
    }
    if (!created && !segment_sane(s, rt_mem.chunk_bytes)) {
      pthread_mutex_unlock(&s->mu);
      munmap(s, sizeof(arb_seg));
      return rt_error(TIDAL_ERR_CONFIG,
                      "shared budget: /dev/shm%s holds values no tidal process wrote (a total "
                      "under one chunk, or a slot out of range): not trusted (Note [segment "
                      "trust]; remove it if no tidal process uses it)",
                      name);
    }
    if (!s->closed) {
      *out = s; /* locked */
      return TIDAL_OK;
    }
    pthread_mutex_unlock(&s->mu); /* its last user unlinked it: make a new one */
    munmap(s, sizeof(arb_seg));
  }
}

static int name_ok(const char *n) {
  if (!*n || strlen(n) > 40)
    return 0;
  for (; *n; n++)
    if (!((*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') || (*n >= '0' && *n <= '9') ||
          *n == '-' || *n == '_' || *n == '.'))
      return 0;
  return 1;
}

tidal_status rt_arbiter_join(const tidal_config *cfg, size_t *budget) {
  if (!cfg->shared_budget_bytes) {
    if (cfg->shared_name) /* a group named with no budget to share: a mistake, not a no-op */
      return rt_error(TIDAL_ERR_CONFIG,
                      "TIDAL_SHARED_NAME=%s is set without a shared budget (TIDAL_SHARED_BUDGET): "
                      "a group shares a budget; set both or neither",
                      cfg->shared_name);
    return TIDAL_OK;
  }
  if (cfg->shared_budget_bytes < rt_mem.chunk_bytes)
    return rt_error(TIDAL_ERR_CONFIG, "shared budget of %zu bytes is under one %zu-byte chunk",
                    cfg->shared_budget_bytes, rt_mem.chunk_bytes);
  const char *group = cfg->shared_name ? cfg->shared_name : rt_dev.be->name;
  if (!name_ok(group))
    return rt_error(TIDAL_ERR_CONFIG,
                    "TIDAL_SHARED_NAME=%s: expected 1-40 letters, digits, '-', '_' or '.'", group);
  memset(&arb, 0, sizeof arb);
  arb.slot = -1;
  arb.cap = *budget;
  snprintf(arb.name, sizeof arb.name, "/tidal-u%u-%s", (unsigned)getuid(), group);
  arb_seg *s = NULL;
  tidal_status st = open_segment(arb.name, cfg->shared_budget_bytes, &s);
  if (st != TIDAL_OK)
    return st;
  reap_dead(s);
  if (s->total != cfg->shared_budget_bytes) { /* Note [segment trust] */
    uint64_t total = s->total;
    pthread_mutex_unlock(&s->mu);
    munmap(s, sizeof(arb_seg));
    return rt_error(TIDAL_ERR_CONFIG,
                    "shared budget %s: this process asks for a total of %zu bytes, the group "
                    "running shares %llu; give every process the same TIDAL_SHARED_BUDGET, or "
                    "this one another TIDAL_SHARED_NAME",
                    arb.name, cfg->shared_budget_bytes, (unsigned long long)total);
  }
  for (int i = 0; i < ARB_SLOTS && arb.slot < 0; i++)
    if (!atomic_load(&s->slot[i].pid) && trylock_robust(&s->slot[i].alive) == 0)
      arb.slot = i;
  if (arb.slot < 0) {
    pthread_mutex_unlock(&s->mu);
    munmap(s, sizeof(arb_seg));
    return rt_error(TIDAL_ERR_BUDGET, "shared budget %s: %d processes share it already", arb.name,
                    ARB_SLOTS);
  }
  arb_slot *me = &s->slot[arb.slot];
  arb.seg = s;
  arb.demand = me->demand = demand_now();
  me->need = 0;
  atomic_store(&me->held, 0);
  atomic_store(&me->pid, (int32_t)getpid());
  divide(s);
  arb.seen_generation = atomic_load(&s->generation);
  uint64_t share = atomic_load(&me->share);
  pthread_mutex_unlock(&s->mu);
  rt_pol.arb = &arb;
  rt_mem.share = &arb_share_ops;
  *budget = budget_of_share(share);
  rt_log(3, "shared budget %s: %llu bytes, %zu of them ours for now", arb.name,
         (unsigned long long)s->total, *budget);
  return TIDAL_OK;
}

void rt_arbiter_leave(void) {
  if (!arb.seg)
    return;
  arb_seg *s = arb.seg;
  arb_slot *me = &s->slot[arb.slot];
  int live = 0;
  if (lock_robust(&s->mu) == 0) {
    atomic_fetch_sub(&s->held, atomic_load(&me->held)); /* the pool is gone already */
    atomic_store(&me->held, 0);
    atomic_store(&me->share, 0);
    me->demand = me->need = 0;
    atomic_store(&me->pid, 0);
    pthread_mutex_unlock(&me->alive);
    reap_dead(s);
    for (int i = 0; i < ARB_SLOTS; i++)
      live += atomic_load(&s->slot[i].pid) != 0;
    if (live) {
      divide(s);
    } else {
      s->closed = 1;
      shm_unlink(arb.name);
    }
    pthread_mutex_unlock(&s->mu);
  }
  munmap(s, sizeof(arb_seg));
  memset(&arb, 0, sizeof arb);
  rt_pol.arb = NULL;
  rt_mem.share = NULL;
}

void rt_arbiter_poll(int full) {
  if (!arb.seg)
    return;
  arb_seg *s = arb.seg;
  uint64_t demand = demand_now();
  if (!full && demand == arb.demand && atomic_load(&s->generation) == arb.seen_generation)
    return;
  if (lock_robust(&s->mu) != 0)
    return;
  int changed = full ? reap_dead(s) : 0;
  if (demand != arb.demand) {
    s->slot[arb.slot].demand = arb.demand = demand;
    changed = 1;
  }
  if (changed)
    divide(s);
  arb.seen_generation = atomic_load(&s->generation);
  uint64_t share = atomic_load(&s->slot[arb.slot].share);
  pthread_mutex_unlock(&s->mu);
  size_t b = budget_of_share(share);
  if (b != rt_mem.budget_bytes && rt_budget_set(b) != TIDAL_OK)
    rt_clear_error(); /* within the device by construction; keep the old budget if not */
}

int rt_arbiter_need(size_t bytes) {
  if (!arb.seg)
    return 0;
  arb_seg *s = arb.seg;
  if (lock_robust(&s->mu) != 0)
    return 0;
  arb_slot *me = &s->slot[arb.slot];
  if (bytes > me->need) {
    me->need = bytes;
    reap_dead(s);
    divide(s);
  }
  arb.seen_generation = atomic_load(&s->generation);
  uint64_t share = atomic_load(&me->share);
  pthread_mutex_unlock(&s->mu);
  size_t b = budget_of_share(share);
  if (b != rt_mem.budget_bytes && rt_budget_set(b) != TIDAL_OK)
    rt_clear_error();
  if (rt_mem.budget_bytes < bytes)
    return 0;
  rt_log(3, "shared budget %s: the op needs %zu bytes; this process's share is now %zu", arb.name,
         bytes, rt_mem.budget_bytes);
  return 1;
}

static int arb_take(size_t bytes) {
  if (!arb.seg)
    return 1;
  arb_seg *s = arb.seg;
  uint64_t h = atomic_load(&s->held);
  do {
    if (h + bytes > s->total)
      return 0;
  } while (!atomic_compare_exchange_weak(&s->held, &h, h + bytes));
  atomic_fetch_add(&s->slot[arb.slot].held, bytes);
  uint64_t now = h + bytes, peak = atomic_load(&s->peak_held);
  while (now > peak && !atomic_compare_exchange_weak(&s->peak_held, &peak, now)) {
  }
  return 1;
}

static void arb_give(size_t bytes) {
  if (!arb.seg)
    return;
  atomic_fetch_sub(&arb.seg->slot[arb.slot].held, bytes);
  atomic_fetch_sub(&arb.seg->held, bytes);
}

static int arb_wait(size_t bytes) {
  if (!arb.seg)
    return 0;
  arb_seg *s = arb.seg;
  double t0 = now_s(), last_check = t0;
  for (;;) {
    if (atomic_load(&s->held) + bytes <= s->total)
      return 1;
    double t = now_s();
    if (t - t0 > ARB_MEMORY_WAIT_S)
      return 0;
    if (t - last_check > ARB_RECHECK_S) { /* a dead process's share comes back */
      last_check = t;
      if (lock_robust(&s->mu) == 0) {
        if (reap_dead(s))
          divide(s);
        pthread_mutex_unlock(&s->mu);
      }
      /* No longer entitled to more (our share shrank): stop waiting. */
      size_t entitled = budget_of_share(atomic_load(&s->slot[arb.slot].share));
      if (entitled / rt_mem.chunk_bytes <= rt_mem.nphys)
        return 0;
    }
    sleep_s(0.0005);
  }
}

void rt_arbiter_stats(uint64_t *total, uint64_t *peak) {
  *total = arb.seg ? arb.seg->total : 0;
  *peak = arb.seg ? atomic_load(&arb.seg->peak_held) : 0;
}

/* The pool's questions (rt_mem.share, memory/pool.c and residency.c). */
static const rt_share_ops arb_share_ops = {.take = arb_take, .give = arb_give, .wait = arb_wait};
