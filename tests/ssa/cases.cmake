# Server-side apply checked against the reference oracle
# (../shared/oracle-ssa; testdata/ssa/README.md):
#   ssa.oracle_build    fixture: builds the oracle into the build tree
#                       (skips, 77, where it cannot be built)
#   ssa.golden_oracle   the oracle's answers equal every expected.json
#                       (SMP_UPDATE_GOLDEN=1: rewrites them from the oracle)
#   golden.ssa.<case>   the engine (tests/ssa/ssa_driver) on one golden case
add_executable(ssa_check ssa_check.c)
target_compile_options(ssa_check PRIVATE ${SMP_WARNINGS})
target_link_libraries(ssa_check PRIVATE PkgConfig::CJSON m)

set(SMP_SSA_ORACLE ${CMAKE_BINARY_DIR}/ssa-oracle)
set(SMP_SSA_CASES ${CMAKE_SOURCE_DIR}/testdata/ssa)

add_test(NAME ssa.oracle_build
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/oracle_build.sh ${SMP_SHARED_DIR} ${SMP_SSA_ORACLE})
set_tests_properties(ssa.oracle_build PROPERTIES
  FIXTURES_SETUP ssa_oracle SKIP_RETURN_CODE 77 TIMEOUT 900 LABELS "ssa;oracle")

add_test(NAME ssa.golden_oracle
         COMMAND ssa_check oracle ${SMP_SSA_CASES} ${SMP_SSA_ORACLE} ${SMP_SHARED_DIR})
set_tests_properties(ssa.golden_oracle PROPERTIES
  FIXTURES_REQUIRED ssa_oracle SKIP_RETURN_CODE 77 LABELS "ssa;oracle;golden")

# One test per case directory, once the driver exists. They run after the
# oracle check, which may be rewriting expected.json (update mode).
if(TARGET ssa_driver)
  file(GLOB SMP_SSA_CASE_FILES CONFIGURE_DEPENDS ${SMP_SSA_CASES}/*/case.json)
  foreach(f ${SMP_SSA_CASE_FILES})
    get_filename_component(dir ${f} DIRECTORY)
    get_filename_component(case ${dir} NAME)
    add_test(NAME golden.ssa.${case}
             COMMAND ssa_check case ${dir} $<TARGET_FILE:ssa_driver> ${SMP_SHARED_DIR})
    set_tests_properties(golden.ssa.${case} PROPERTIES
      DEPENDS ssa.golden_oracle SKIP_RETURN_CODE 77 LABELS "ssa;golden")
  endforeach()
endif()

# The comparison itself, on answers whose verdict is known.
add_test(NAME ssa.check_selftest COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/check_selftest.sh $<TARGET_FILE:ssa_check>)
set_tests_properties(ssa.check_selftest PROPERTIES LABELS ssa)
