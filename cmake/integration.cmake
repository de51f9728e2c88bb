# integration.cmake - what ties the pass, the runtime and users' builds
# together (included once from the top-level CMakeLists.txt, last):
#  - `tidal replay` (pass/replay.c) drives the real runtime, so the tidal
#    tool links libtidal;
#  - tools/tidal-nvcc and the installed CMake package and pkg-config file
#    (see docs/build-integration.md).
if(TARGET tidal-cli AND TARGET tidal)
  target_link_libraries(tidal-cli PRIVATE tidal)
endif()
