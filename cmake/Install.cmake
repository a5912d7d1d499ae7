# Install.cmake - `make install` / `cmake --install`: the header, the shared
# and static libraries, the program and its kubectl plugin link, the man page,
# a pkg-config file and a relocatable CMake package (find_package(smpatch)
# gives smpatch::smpatch, the shared library, and smpatch::smpatch_static).
# Every path is relative to the install prefix, so `cmake --install --prefix`
# and DESTDIR both work.
include(CMakePackageConfigHelpers)

set(SMP_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/smpatch)
set(SMP_PKGCONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

set_target_properties(smpatch_shared PROPERTIES EXPORT_NAME smpatch)
set_target_properties(smpatch_static PROPERTIES EXPORT_NAME smpatch_static)

install(TARGETS smpatch_shared smpatch_static EXPORT smpatchTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT lib NAMELINK_COMPONENT dev
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The installed static library exposes only the SMP_API functions, like the
# shared one: its objects are linked into one relocatable object whose
# hidden symbols (every internal helper, whatever its name) become local, so
# they cannot clash with an embedder's own symbols. The build tree's
# libsmpatch.a keeps them global: the module tests call internals.
if(CMAKE_LINKER AND CMAKE_OBJCOPY AND CMAKE_AR)
  install(CODE "
    set(_smp_a \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:smpatch_static>\")
    set(_smp_o \"\${_smp_a}.smpatch-all.o\")
    execute_process(COMMAND \"${CMAKE_LINKER}\" -r --whole-archive \"\${_smp_a}\" -o \"\${_smp_o}\"
                    RESULT_VARIABLE _smp_rc)
    if(_smp_rc EQUAL 0)
      execute_process(COMMAND \"${CMAKE_OBJCOPY}\" --localize-hidden \"\${_smp_o}\"
                      RESULT_VARIABLE _smp_rc)
    endif()
    if(_smp_rc EQUAL 0)
      file(REMOVE \"\${_smp_a}\")
      execute_process(COMMAND \"${CMAKE_AR}\" rcs \"\${_smp_a}\" \"\${_smp_o}\"
                      RESULT_VARIABLE _smp_rc)
    endif()
    file(REMOVE \"\${_smp_o}\")
    if(NOT _smp_rc EQUAL 0)
      message(FATAL_ERROR \"localizing the internal symbols of \${_smp_a} failed\")
    endif()
    message(STATUS \"Localized internal symbols: \${_smp_a}\")
  " COMPONENT dev)
else()
  message(WARNING "ld, objcopy or ar not found: the installed libsmpatch.a keeps "
                  "its internal symbols global")
endif()
install(FILES ${CMAKE_SOURCE_DIR}/include/smpatch.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
install(TARGETS smpatch RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT bin)
install(FILES ${CMAKE_SOURCE_DIR}/docs/smpatch.1
  DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT bin)

# kubectl runs any `kubectl-NAME` on PATH as `kubectl NAME`; a relative link
# keeps the installed tree relocatable. The install script sees the final
# prefix (--prefix overrides it) and DESTDIR.
install(CODE "
  set(_smp_bindir \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}\")
  message(STATUS \"Installing: \${_smp_bindir}/kubectl-smpatch -> smpatch\")
  file(REMOVE \"\${_smp_bindir}/kubectl-smpatch\")
  file(CREATE_LINK smpatch \"\${_smp_bindir}/kubectl-smpatch\" SYMBOLIC)
" COMPONENT bin)

# pkg-config: prefix is computed from the .pc file's own place, so the file
# stays right wherever the tree is installed or moved.
file(RELATIVE_PATH SMP_PC_RELPREFIX "/prefix/${SMP_PKGCONFIG_DIR}" "/prefix")
string(REGEX REPLACE "/$" "" SMP_PC_RELPREFIX "${SMP_PC_RELPREFIX}")
# libyaml, RE2 (and cJSON when the library links it) are private
# dependencies: only static linking needs them (and RE2 the C++ runtime).
set(SMP_PC_REQUIRES_PRIVATE "yaml-0.1 re2")
get_target_property(_smp_obj_libs smpatch_obj LINK_LIBRARIES)
if(_smp_obj_libs MATCHES "PkgConfig::CJSON")
  string(APPEND SMP_PC_REQUIRES_PRIVATE " libcjson")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/smpatch.pc.in
  ${CMAKE_BINARY_DIR}/pkgconfig-install/smpatch.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/pkgconfig-install/smpatch.pc
  DESTINATION ${SMP_PKGCONFIG_DIR} COMPONENT dev)
# The build tree's own smpatch.pc serves the library uninstalled
# (PKG_CONFIG_PATH=build): the source tree's header, the build tree's
# libraries, a run path to them.
configure_file(${CMAKE_CURRENT_LIST_DIR}/smpatch-uninstalled.pc.in
  ${CMAKE_BINARY_DIR}/smpatch.pc @ONLY)

install(EXPORT smpatchTargets NAMESPACE smpatch::
  DESTINATION ${SMP_CMAKE_DIR} COMPONENT dev)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/smpatchConfig.cmake.in
  ${CMAKE_BINARY_DIR}/smpatchConfig.cmake
  INSTALL_DESTINATION ${SMP_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/smpatchConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/smpatchConfig.cmake
  ${CMAKE_BINARY_DIR}/smpatchConfigVersion.cmake
  DESTINATION ${SMP_CMAKE_DIR} COMPONENT dev)
