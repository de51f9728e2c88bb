# TidalRewrite.cmake - tidal_rewrite_sources(<target> [PLAN mode]
#                      [BUDGET size|pct] [BINDS NAME=VALUE...]
#                      [REQUIRE_PLAN] [MIN_COVERAGE pct])
#
# Replaces each .cu source of <target> by its `tidal rewrite` output,
# generated in the build folder by a custom command (re-run when the source
# or the tidal tool changes), and links tidal::tidal and CUDA::cuda_driver.
# The original file's folder is added to the include path so that its
# quoted includes still resolve; the target's include directories and
# definitions are passed to the rewriter's parse.  PLAN and BUDGET default
# to the TIDAL_PLAN and TIDAL_BUDGET cache variables when set; REQUIRE_PLAN
# and MIN_COVERAGE pass --require-plan and --min-coverage (the rewrite's
# warnings and summary line appear in the build output either way).
#
# The original sources stay in compile_commands.json: an object library
# that is never built (<target>_tidal_originals, EXCLUDE_FROM_ALL) compiles
# them with the target's flags, so `tidal ... -p BUILD_DIR` and clang tools
# still find an entry for the file the user edits.
include_guard(GLOBAL)

set(TIDAL_PLAN "" CACHE STRING "default --plan for tidal_rewrite_sources (auto|swap|recompute|none)")
set(TIDAL_BUDGET "" CACHE STRING "default --budget for tidal_rewrite_sources (e.g. 50% or 8G)")

function(tidal_rewrite_sources target)
  cmake_parse_arguments(PARSE_ARGV 1 TRW "REQUIRE_PLAN" "PLAN;BUDGET;MIN_COVERAGE" "BINDS")
  if(NOT TARGET ${target})
    message(FATAL_ERROR "tidal_rewrite_sources: '${target}' is not a target")
  endif()
  if(NOT TIDAL_EXECUTABLE OR NOT EXISTS "${TIDAL_EXECUTABLE}")
    message(FATAL_ERROR "tidal_rewrite_sources: the tidal tool was not found "
                        "(TIDAL_EXECUTABLE='${TIDAL_EXECUTABLE}')")
  endif()
  set(plan "${TRW_PLAN}")
  if(NOT plan)
    set(plan "${TIDAL_PLAN}")
  endif()
  set(budget "${TRW_BUDGET}")
  if(NOT budget)
    set(budget "${TIDAL_BUDGET}")
  endif()
  set(opts)
  if(plan)
    list(APPEND opts --plan ${plan})
  endif()
  if(budget)
    list(APPEND opts --budget ${budget})
  endif()
  foreach(b IN LISTS TRW_BINDS)
    list(APPEND opts --bind ${b})
  endforeach()
  if(TRW_REQUIRE_PLAN)
    list(APPEND opts --require-plan)
  endif()
  if(DEFINED TRW_MIN_COVERAGE)
    list(APPEND opts --min-coverage=${TRW_MIN_COVERAGE})
  endif()
  set(incs "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(defs "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  # $<SEMICOLON>: a literal ";" would split the genex; COMMAND_EXPAND_LISTS
  # turns the joined list into one argument per flag.
  set(parse_flags "$<$<BOOL:${incs}>:-I$<JOIN:${incs},$<SEMICOLON>-I>>"
                  "$<$<BOOL:${defs}>:-D$<JOIN:${defs},$<SEMICOLON>-D>>")

  get_target_property(srcs ${target} SOURCES)
  get_target_property(srcdir ${target} SOURCE_DIR)
  set(outdir "${CMAKE_CURRENT_BINARY_DIR}/tidal/${target}")
  set(new_srcs)
  set(orig_dirs)
  set(orig_cu)
  foreach(src IN LISTS srcs)
    if(NOT src MATCHES "\\.cu$")
      list(APPEND new_srcs "${src}")
      continue()
    endif()
    get_filename_component(abs "${src}" ABSOLUTE BASE_DIR "${srcdir}")
    get_filename_component(name "${src}" NAME_WE)
    get_filename_component(dir "${abs}" DIRECTORY)
    set(out "${outdir}/${name}.tidal.cu")
    add_custom_command(
      OUTPUT "${out}"
      COMMAND ${CMAKE_COMMAND} -E make_directory "${outdir}"
      COMMAND "${TIDAL_EXECUTABLE}" rewrite "${abs}" -o "${out}" ${opts} -- ${parse_flags}
      DEPENDS "${abs}" "${TIDAL_EXECUTABLE}"
      COMMENT "tidal rewrite ${src}"
      COMMAND_EXPAND_LISTS VERBATIM)
    list(APPEND new_srcs "${out}")
    list(APPEND orig_dirs "${dir}")
    list(APPEND orig_cu "${abs}")
  endforeach()
  if(orig_cu AND NOT TARGET ${target}_tidal_originals)
    add_library(${target}_tidal_originals OBJECT EXCLUDE_FROM_ALL ${orig_cu})
    target_include_directories(${target}_tidal_originals PRIVATE ${incs})
    target_compile_definitions(${target}_tidal_originals PRIVATE ${defs})
    target_compile_options(${target}_tidal_originals PRIVATE
                           "$<TARGET_PROPERTY:${target},COMPILE_OPTIONS>")
    get_target_property(archs ${target} CUDA_ARCHITECTURES)
    if(archs)
      set_target_properties(${target}_tidal_originals PROPERTIES CUDA_ARCHITECTURES "${archs}")
    endif()
  endif()
  list(REMOVE_DUPLICATES orig_dirs)
  set_property(TARGET ${target} PROPERTY SOURCES ${new_srcs})
  target_include_directories(${target} PRIVATE ${orig_dirs})
  if(NOT TARGET CUDA::cuda_driver)
    find_package(CUDAToolkit REQUIRED)
  endif()
  target_link_libraries(${target} PRIVATE tidal::tidal CUDA::cuda_driver)
endfunction()
