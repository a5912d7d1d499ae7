# smp_add_golden_dir(AREA LABEL): every case directory of testdata/AREA/ (one
# holding an `args` or `args.*` file) becomes the ctest test
# golden.AREA.CASE, labelled `golden` and LABEL, run by run_golden.sh (the
# layout is described there). Cases that need ../shared skip without it.
set(SMP_GOLDEN_RUNNER ${CMAKE_CURRENT_LIST_DIR}/run_golden.sh)
function(smp_add_golden_dir area label)
  file(GLOB cases LIST_DIRECTORIES true CONFIGURE_DEPENDS
       ${CMAKE_SOURCE_DIR}/testdata/${area}/*)
  foreach(dir ${cases})
    if(NOT IS_DIRECTORY ${dir})
      continue()
    endif()
    file(GLOB runs ${dir}/args ${dir}/args.*)
    if(NOT runs)
      continue()
    endif()
    get_filename_component(case ${dir} NAME)
    set(name golden.${area}.${case})
    add_test(NAME ${name} COMMAND sh ${SMP_GOLDEN_RUNNER} $<TARGET_FILE:smpatch> ${dir})
    set_tests_properties(${name} PROPERTIES LABELS "golden;${label}" SKIP_RETURN_CODE 77
                         ENVIRONMENT "SMP_SHARED_DIR=${SMP_SHARED_DIR}")
  endforeach()
endfunction()
