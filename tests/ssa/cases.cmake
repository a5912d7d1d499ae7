# Server-side apply checked against the reference oracle
# (../shared/oracle-ssa; testdata/ssa/README.md):
#   ssa.oracle_build    fixture: builds the oracle into the build tree
#                       (skips, 77, where it cannot be built)
#   ssa.golden_oracle   the oracle's answers equal every expected.json
#                       (SMP_UPDATE_GOLDEN=1: rewrites them from the oracle)
#   golden.ssa.<case>   the engine (tests/ssa/ssa_driver) on one golden case
#   ssa.merge_order     the golden cases' expected-smd-v4.4.2.json (the
#                       oracle's answer in SMD v4.4.2's list order) are there
#                       exactly where that order differs, and current
#                       (mergeorder.py; SMP_UPDATE_GOLDEN=1 rewrites them)
#   ssa.cache_same      every golden case of the built-in kinds, twice over
#                       in one driver run: the same answers with the calls
#                       sharing an smp_ssa_cache and without (cache_same.py)
#   ssa.differential    2,000 random chains of applies and updates, every
#                       step through the oracle and the engine (chains.py;
#                       needs python3 and the oracle, skips without them)
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

find_program(SMP_PYTHON3 python3)
if(SMP_PYTHON3)
  add_test(NAME ssa.merge_order
           COMMAND ${SMP_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/mergeorder.py golden ${SMP_SSA_CASES} ${SMP_SHARED_DIR})
  set_tests_properties(ssa.merge_order PROPERTIES
    DEPENDS ssa.golden_oracle SKIP_RETURN_CODE 77 LABELS "ssa;golden")
endif()

# One test per case directory, once the driver exists. They run after the
# oracle check and ssa.merge_order, which may be rewriting expected.json and
# expected-smd-v4.4.2.json (update mode).
if(TARGET ssa_driver)
  # Custom resources reach the driver as an OpenAPI document (-swagger FILE);
  # until the driver takes that flag their cases and chains are not run (and
  # cmake says so): a missing feature, reported, not a passing test.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/ssa_driver.c)
  file(READ ${CMAKE_CURRENT_SOURCE_DIR}/ssa_driver.c SMP_SSA_DRIVER_SRC)
  string(FIND "${SMP_SSA_DRIVER_SRC}" "\"-swagger\"" SMP_SSA_SWAGGER_POS)
  set(SMP_SSA_CHAIN_KINDS "deploy svc cm widget")
  if(SMP_SSA_SWAGGER_POS EQUAL -1)
    set(SMP_SSA_CHAIN_KINDS "deploy svc cm")
  endif()
  set(SMP_SSA_NOT_RUN 0)
  file(GLOB SMP_SSA_CASE_FILES CONFIGURE_DEPENDS ${SMP_SSA_CASES}/*/case.json)
  foreach(f ${SMP_SSA_CASE_FILES})
    get_filename_component(dir ${f} DIRECTORY)
    get_filename_component(case ${dir} NAME)
    if(SMP_SSA_SWAGGER_POS EQUAL -1 AND EXISTS ${dir}/definitions)
      math(EXPR SMP_SSA_NOT_RUN "${SMP_SSA_NOT_RUN} + 1")
      continue()
    endif()
    add_test(NAME golden.ssa.${case}
             COMMAND ssa_check case ${dir} $<TARGET_FILE:ssa_driver> ${SMP_SHARED_DIR})
    set_tests_properties(golden.ssa.${case} PROPERTIES
      DEPENDS "ssa.golden_oracle;ssa.merge_order" SKIP_RETURN_CODE 77 LABELS "ssa;golden")
  endforeach()
  if(SMP_SSA_NOT_RUN GREATER 0)
    message(STATUS "tests/ssa: ssa_driver takes no -swagger yet: ${SMP_SSA_NOT_RUN} custom-resource golden cases and the Widget chains are not run")
  endif()

  if(SMP_PYTHON3)
    add_test(NAME ssa.cache_same
             COMMAND ${SMP_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/cache_same.py
                     $<TARGET_FILE:ssa_driver> ${SMP_SSA_CASES})
    set_tests_properties(ssa.cache_same PROPERTIES LABELS "ssa")
    add_test(NAME ssa.differential
             COMMAND ${SMP_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/chains.py ${SMP_SSA_ORACLE}
                     $<TARGET_FILE:ssa_driver> $<TARGET_FILE:ssa_check> ${SMP_SHARED_DIR}
                     ${SMP_SSA_CASES} ${CMAKE_CURRENT_BINARY_DIR}/differential)
  else()
    add_test(NAME ssa.differential
             COMMAND sh -c "echo 'SKIP: python3 not found: the differential test of server-side apply skips'; exit 77")
  endif()
  set_tests_properties(ssa.differential PROPERTIES
    ENVIRONMENT "SSA_CHAINS_KINDS=${SMP_SSA_CHAIN_KINDS}"
    FIXTURES_REQUIRED ssa_oracle SKIP_RETURN_CODE 77 TIMEOUT 900 LABELS "ssa;oracle;differential")
endif()

# The command-line golden cases' expected outputs against the oracle's
# answers to the same requests (cli_oracle.py).
if(SMP_PYTHON3)
  add_test(NAME ssa.cli_oracle
           COMMAND ${SMP_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/cli_oracle.py ${SMP_SSA_ORACLE}
                   $<TARGET_FILE:smpatch> ${SMP_SHARED_DIR} ${CMAKE_SOURCE_DIR}/testdata/ssa-cli)
  set_tests_properties(ssa.cli_oracle PROPERTIES
    FIXTURES_REQUIRED ssa_oracle SKIP_RETURN_CODE 77 LABELS "ssa;oracle")
endif()

# The comparison itself, on answers whose verdict is known.
add_test(NAME ssa.check_selftest COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/check_selftest.sh $<TARGET_FILE:ssa_check>)
set_tests_properties(ssa.check_selftest PROPERTIES LABELS ssa)
