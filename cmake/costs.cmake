# costs.cmake - one table of default copy costs (included once from the
# top-level CMakeLists.txt, before the runtime and the pass).
#
# runtime/device/sim_costs.txt is the table: the sim compiles the whole file
# in (runtime/CMakeLists.txt), and its copy costs - bandwidth each way and
# the per-copy latency - are also what the pass's cost model
# (pass/plan/costmodel.c), the run-time planner's copy model and the
# trace's copy slices assume when nothing overrides them.  This writes
# those three values as macros into ${TIDAL_GENERATED_DIR}/tidal_copy_costs.h
# for them, so that changing the file changes all of them.
set(TIDAL_COSTS_FILE ${PROJECT_SOURCE_DIR}/runtime/device/sim_costs.txt)
set(TIDAL_GENERATED_DIR ${PROJECT_BINARY_DIR}/generated)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${TIDAL_COSTS_FILE})

# A value of the file ("54G", "7.5u": costs.c's syntax) as a C double literal.
function(tidal_cost_value key out)
  file(STRINGS ${TIDAL_COSTS_FILE} lines REGEX "^${key}[ \t]")
  list(LENGTH lines n)
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "${TIDAL_COSTS_FILE}: expected one '${key}' line, found ${n}")
  endif()
  if(NOT lines MATCHES "^${key}[ \t]+([0-9]+(\\.[0-9]+)?)([numkKMGT]?)([ \t]|#|$)")
    message(FATAL_ERROR "${TIDAL_COSTS_FILE}: '${lines}': not a number with an optional suffix")
  endif()
  set(number ${CMAKE_MATCH_1})
  set(suffix ${CMAKE_MATCH_3})
  set(exp_n e-9)
  set(exp_u e-6)
  set(exp_m e-3)
  set(exp_k e3)
  set(exp_K e3)
  set(exp_M e6)
  set(exp_G e9)
  set(exp_T e12)
  if(suffix)
    set(${out} "${number}${exp_${suffix}}" PARENT_SCOPE)
  else()
    set(${out} "${number}" PARENT_SCOPE)
  endif()
endfunction()

tidal_cost_value(h2d_bytes_per_s TIDAL_COST_H2D)
tidal_cost_value(d2h_bytes_per_s TIDAL_COST_D2H)
tidal_cost_value(copy_latency_s TIDAL_COST_LATENCY)
file(WRITE ${TIDAL_GENERATED_DIR}/tidal_copy_costs.h.new
"/* tidal_copy_costs.h - generated from runtime/device/sim_costs.txt by
 * cmake/costs.cmake: the default copy costs the pass's cost model, the sim,
 * the run-time planner and the trace share.  Edit the .txt file. */
#ifndef TIDAL_COPY_COSTS_H
#define TIDAL_COPY_COSTS_H
#define TIDAL_COPY_H2D_BYTES_PER_S ${TIDAL_COST_H2D} /* host to device, pinned */
#define TIDAL_COPY_D2H_BYTES_PER_S ${TIDAL_COST_D2H} /* device to host, pinned */
#define TIDAL_COPY_LATENCY_S ${TIDAL_COST_LATENCY} /* per copy, before bytes move */
#endif
")
file(COPY_FILE ${TIDAL_GENERATED_DIR}/tidal_copy_costs.h.new
     ${TIDAL_GENERATED_DIR}/tidal_copy_costs.h ONLY_IF_DIFFERENT)
