/* test_planner_recompute.c - the run-time planner releases a gap by
 * recompute only when the op whose closure would re-run does not read the
 * tensor it would regenerate (planner.c, step 4; Note [self-reading
 * closures], memory/recompute.c).
 *
 * Op 1 updates A in place - a write-only and a read-only access to A, as
 * llm.c's `gelu_backward(dl_bt4c, l_fch, dl_bt4c, N)` - and a recompute
 * registration follows it; ops 2 and 3 read C under a budget that leaves
 * no room for A; op 4 reads A.  Copies are slow, so a recompute (op 1's
 * duration) is the cheaper release: the plan took it, and at run time the
 * closure needed its own output (a cycle) - or, the runtime attaching no
 * such chunk, the release was a copy with no prefetch.  The plan must swap
 * A instead.  The same record with op 1 writing A without reading it is
 * the control: recompute stays the choice.  rt_plan_build is called
 * directly on hand-made records: no device, no runtime. */
#include "testhelp.h"
#include "policy/planner.h"

#define CH ((size_t)4096)

/* ops: 0 writes A; 1 writes A and reads B (and A when in_place); 2 and 3
 * read C; 4 reads A.  The budget holds one chunk: over ops 2-3 both A and
 * B must go. */
static uint8_t release_kind(int in_place) {
  const uintptr_t A = 0x100000, B = 0x200000, C = 0x300000;
  rt_rec_acc accs[7] = {
      {.base = A, .alloc_bytes = CH, .len = CH, .mode = TIDAL_WRITE},
      {.base = A, .alloc_bytes = CH, .len = CH, .mode = TIDAL_WRITE},
      {.base = B, .alloc_bytes = CH, .len = CH, .mode = TIDAL_READ},
      {.base = in_place ? A : B, .alloc_bytes = CH, .len = CH, .mode = TIDAL_READ},
      {.base = C, .alloc_bytes = CH, .len = CH, .mode = TIDAL_READ},
      {.base = C, .alloc_bytes = CH, .len = CH, .mode = TIDAL_READ},
      {.base = A, .alloc_bytes = CH, .len = CH, .mode = TIDAL_READ},
  };
  const uint32_t first[] = {0, 1, 4, 5, 6}, count[] = {1, 3, 1, 1, 1};
  rt_rec_op ops[5];
  memset(ops, 0, sizeof ops);
  for (uint32_t i = 0; i < 5; i++) {
    ops[i].acc0 = first[i];
    ops[i].nacc = count[i];
    ops[i].hash = i + 1;
    ops[i].dur_s = 10e-6;
  }
  /* registered after op 1, i.e. before op 2 */
  rt_rec_hint hint = {.pos = 2, .kind = RT_HINT_RECOMPUTE, .base = A, .alloc_bytes = CH,
                      .off = 0, .len = CH};
  rt_record r;
  memset(&r, 0, sizeof r);
  r.ops = ops;
  r.nops = r.cap_ops = 5;
  r.accs = accs;
  r.naccs = r.cap_accs = 7;
  r.hints = &hint;
  r.nhints = r.cap_hints = 1;
  r.timed = 1;
  /* copies of a 4 KiB chunk take 4 ms: far dearer than op 1's 10 us */
  rt_plan_params p = {.chunk_bytes = CH, .avail_chunks = 1, .margin_chunks = 0,
                      .h2d_bytes_per_s = 1e6, .d2h_bytes_per_s = 1e6, .latency_s = 1e-6,
                      .slack = 0.1};
  rt_plan pl;
  CHECK(rt_plan_build(&r, &p, NULL, &pl) == 0);
  CHECK(pl.binding);
  uint8_t kind = 0;
  for (uint32_t k = 0; k < pl.nacts; k++) {
    const rt_plan_gap *g = &pl.gaps[pl.acts[k].gap];
    if (pl.acts[k].kind != RT_ACT_PREFETCH && pl.allocs[pl.groups[g->group].alloc].base == A &&
        g->from == 1)
      kind = pl.acts[k].kind;
  }
  rt_plan_free(&pl);
  return kind;
}

int main(void) {
  uint8_t control = release_kind(0), in_place = release_kind(1);
  if (control != RT_ACT_RECOMPUTE)
    TH_FAIL("write-only producer: A's gap after op 1 released as %d, not by recompute (%d)",
            control, RT_ACT_RECOMPUTE);
  if (in_place != RT_ACT_SWAP)
    TH_FAIL("producer reading A: A's gap after op 1 released as %d, not swapped (%d): its "
            "closure would need its own output",
            in_place, RT_ACT_SWAP);
  printf("planner_recompute: ok\n");
  return 0;
}
