# integration.cmake - what ties the pass, the runtime and users' builds
# together (included once from the top-level CMakeLists.txt, last):
#  - `tidal replay` (pass/replay/replay.c) drives the real runtime, so the tidal
#    tool links libtidal;
#  - tools/tidal-nvcc and the installed CMake package and pkg-config file
#    (see docs/build-integration.md).
if(TARGET tidal-cli AND TARGET tidal)
  target_link_libraries(tidal-cli PRIVATE tidal)
endif()

# ---- installed package (docs/build-integration.md) ----
include(CMakePackageConfigHelpers)
set(TIDAL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tidal)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/tidal-nvcc DESTINATION ${CMAKE_INSTALL_BINDIR})
# Public headers under include/tidal/ (tidal/rewrite.h: what rewritten
# sources include); runtime/ installs tidal.h itself.
if(EXISTS ${PROJECT_SOURCE_DIR}/include/tidal)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tidal/
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tidal FILES_MATCHING PATTERN "*.h")
endif()
if(TARGET tidal)
  install(EXPORT tidalTargets NAMESPACE tidal:: DESTINATION ${TIDAL_CMAKE_DIR})
endif()
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/tidalConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/tidalConfig.cmake
  INSTALL_DESTINATION ${TIDAL_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/tidalConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/tidalConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/tidalConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/TidalRewrite.cmake
        DESTINATION ${TIDAL_CMAKE_DIR})
# The .pc file is relocatable: its prefix is found from its own folder
# (<libdir>/pkgconfig), however deep libdir is (lib, lib/x86_64-linux-gnu).
file(RELATIVE_PATH TIDAL_PC_TO_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
configure_file(${CMAKE_CURRENT_LIST_DIR}/tidal.pc.in ${PROJECT_BINARY_DIR}/cmake/tidal.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cmake/tidal.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The install test: install into a temporary prefix, then build a consumer
# with find_package(tidal) and with pkg-config (test/install/).
if(BUILD_TESTING AND TARGET tidal)
  add_test(NAME install-package
           COMMAND ${CMAKE_COMMAND} -E env bash ${PROJECT_SOURCE_DIR}/test/install/run.sh
                   ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
  set_tests_properties(install-package PROPERTIES LABELS "install" TIMEOUT 600)
endif()
