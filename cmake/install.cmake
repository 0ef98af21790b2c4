# Install rules: header, static and shared libraries, the CLI, its man
# page, pkg-config and CMake package files. `make install PREFIX=...`
# (and DESTDIR) drives them; `make uninstall` removes what the manifest lists.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set_target_properties(fastblock_static PROPERTIES EXPORT_NAME static)
set_target_properties(fastblock_shared PROPERTIES EXPORT_NAME fastblock)
foreach(t fastblock_static fastblock_shared)
  target_include_directories(${t} INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
endforeach()

install(FILES ${CMAKE_SOURCE_DIR}/include/fastblock.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS fastblock_static fastblock_shared EXPORT fastblockTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT Development
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS fastblock_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${CMAKE_SOURCE_DIR}/docs/fastblock.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
# Where the OpenSSL provider module will go once it exists (a documented
# hook: OpenSSL's own module directory is found with `openssl version -m`).
set(FB_OSSL_MODULE_DIR ${CMAKE_INSTALL_LIBDIR}/ossl-modules CACHE STRING
    "install directory of the OpenSSL provider module, relative to the prefix")

# pkg-config: fastblock.pc for `pkg-config --cflags --libs fastblock`,
# relocatable (the prefix is found from the file's own place), so that
# `cmake --install --prefix` elsewhere than configured still gives a
# correct file.
file(RELATIVE_PATH FB_PC_TO_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
configure_file(${CMAKE_SOURCE_DIR}/cmake/fastblock.pc.in ${CMAKE_BINARY_DIR}/fastblock.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/fastblock.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# CMake: find_package(fastblock) gives fastblock::fastblock (shared) and
# fastblock::static.
install(EXPORT fastblockTargets NAMESPACE fastblock:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fastblock)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/fastblockConfig.cmake.in
  ${CMAKE_BINARY_DIR}/fastblockConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fastblock)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/fastblockConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/fastblockConfig.cmake ${CMAKE_BINARY_DIR}/fastblockConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fastblock)
