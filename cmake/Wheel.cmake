# Wheel.cmake - the Python package's build (pyproject.toml, scikit-build-core:
# `pip install .`, `python -m build`). Only the shared library is built; it
# goes inside the package (wheel.install-dir is the package, so destinations
# here are relative to it) as libsmpatch.so.1, its soname, with libyaml's
# and RE2's shared libraries beside it under their sonames and a run path of $ORIGIN: the
# installed package needs no `make install`, and `auditwheel show` finds
# every library it needs inside the wheel. Their copyrights go with them.
# (the file is copied as built, so it is built with its install run path)
set_target_properties(smpatch_shared PROPERTIES BUILD_WITH_INSTALL_RPATH ON
                      INSTALL_RPATH "$ORIGIN")
install(FILES $<TARGET_FILE:smpatch_shared> DESTINATION .
        RENAME libsmpatch.so.${PROJECT_VERSION_MAJOR} COMPONENT wheel)

# The shared libraries the library links (libyaml; RE2, whose C++ runtime
# is the system's as for any C++ wheel): each file and soname as the linker
# sees them, with its copyright.
function(smp_wheel_bundle var names dirs doc upper)
  find_library(${var} NAMES ${names} HINTS ${dirs} REQUIRED)
  get_filename_component(smp_file "${${var}}" REALPATH)
  execute_process(COMMAND objdump -p "${smp_file}" OUTPUT_VARIABLE smp_dyn
                  RESULT_VARIABLE smp_rc)
  string(REGEX MATCH "SONAME +([^ \n]+)" smp_m "${smp_dyn}")
  if(NOT smp_rc EQUAL 0 OR NOT CMAKE_MATCH_1)
    message(FATAL_ERROR "cannot read the soname of ${smp_file} (objdump -p)")
  endif()
  install(FILES "${smp_file}" DESTINATION . RENAME ${CMAKE_MATCH_1} COMPONENT wheel)
  foreach(smp_c ${doc})
    if(EXISTS ${smp_c})
      install(FILES ${smp_c} DESTINATION . RENAME ${upper}-COPYRIGHT COMPONENT wheel)
      break()
    endif()
  endforeach()
endfunction()
smp_wheel_bundle(SMP_LIBYAML "yaml-0;yaml" "${YAML_LIBRARY_DIRS}"
  "/usr/share/doc/libyaml-0-2/copyright;${YAML_PREFIX}/share/doc/libyaml-0-2/copyright" LIBYAML)
file(GLOB smp_re2_docs /usr/share/doc/libre2-*/copyright)
smp_wheel_bundle(SMP_LIBRE2 re2 "${RE2_LIBRARY_DIRS}" "${smp_re2_docs}" LIBRE2)
