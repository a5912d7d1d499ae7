# Wheel.cmake - the Python package's build (pyproject.toml, scikit-build-core:
# `pip install .`, `python -m build`). Only the shared library is built; it
# goes inside the package (wheel.install-dir is the package, so destinations
# here are relative to it) as libsmpatch.so.1, its soname, with libyaml's
# shared library beside it as libyaml-0.so.2 and a run path of $ORIGIN: the
# installed package needs no `make install`, and `auditwheel show` finds
# every library it needs inside the wheel. libyaml's copyright goes with it.
# (the file is copied as built, so it is built with its install run path)
set_target_properties(smpatch_shared PROPERTIES BUILD_WITH_INSTALL_RPATH ON
                      INSTALL_RPATH "$ORIGIN")
install(FILES $<TARGET_FILE:smpatch_shared> DESTINATION .
        RENAME libsmpatch.so.${PROJECT_VERSION_MAJOR} COMPONENT wheel)

# The libyaml the library links: its file and soname as the linker sees them.
find_library(SMP_LIBYAML NAMES yaml-0 yaml HINTS ${YAML_LIBRARY_DIRS} REQUIRED)
get_filename_component(SMP_LIBYAML_FILE "${SMP_LIBYAML}" REALPATH)
execute_process(COMMAND objdump -p "${SMP_LIBYAML_FILE}" OUTPUT_VARIABLE smp_yaml_dyn
                RESULT_VARIABLE smp_rc)
string(REGEX MATCH "SONAME +([^ \n]+)" smp_m "${smp_yaml_dyn}")
if(NOT smp_rc EQUAL 0 OR NOT CMAKE_MATCH_1)
  message(FATAL_ERROR "cannot read the soname of ${SMP_LIBYAML_FILE} (objdump -p)")
endif()
install(FILES "${SMP_LIBYAML_FILE}" DESTINATION . RENAME ${CMAKE_MATCH_1} COMPONENT wheel)
foreach(smp_c /usr/share/doc/libyaml-0-2/copyright ${YAML_PREFIX}/share/doc/libyaml-0-2/copyright)
  if(EXISTS ${smp_c})
    install(FILES ${smp_c} DESTINATION . RENAME LIBYAML-COPYRIGHT COMPONENT wheel)
    break()
  endif()
endforeach()
