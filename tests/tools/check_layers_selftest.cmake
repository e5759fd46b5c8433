# check_layers_selftest.cmake: the CTest test layers.selftest. It proves that
# check_layers.cmake (run by every build) is not vacuous: on a scratch tree
# holding one forbidden include per rule of issue 13 it must fail and name
# each file, and on the real tree it must pass.
# Usage: cmake -DROOT=<source dir> -DSCRATCH=<empty dir> -P check_layers_selftest.cmake
file(REMOVE_RECURSE ${SCRATCH})
file(WRITE ${SCRATCH}/src/analysis/bad_sql.c "#include <sqlite3.h>\n")
file(WRITE ${SCRATCH}/src/analysis/bad_json.c "#include <jansson.h>\n")
file(WRITE ${SCRATCH}/src/store/bad_api.h "#include <jansson.h>\n")
file(WRITE ${SCRATCH}/src/ingest/bad_store.c "#include \"store/trace_writer.h\"\n")
file(WRITE ${SCRATCH}/src/store/fine.c "#include <jansson.h>\n") # a .c file is not the interface
execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${SCRATCH} -P ${ROOT}/tests/tools/check_layers.cmake
  RESULT_VARIABLE rc ERROR_VARIABLE out OUTPUT_VARIABLE out2)
if(rc EQUAL 0)
  message(FATAL_ERROR "check_layers.cmake accepted forbidden includes")
endif()
foreach(f src/analysis/bad_sql.c src/analysis/bad_json.c src/store/bad_api.h src/ingest/bad_store.c)
  string(FIND "${out}" "${f}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "check_layers.cmake did not name ${f}:\n${out}")
  endif()
endforeach()
string(FIND "${out}" "src/store/fine.c" at)
if(NOT at EQUAL -1)
  message(FATAL_ERROR "check_layers.cmake refused jansson in a store .c file, which the rules allow")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${ROOT} -P ${ROOT}/tests/tools/check_layers.cmake
  RESULT_VARIABLE rc ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the real tree breaks the layer rules:\n${out}")
endif()
message("layer rules: 4 forbidden includes refused, the real tree passes")
file(REMOVE_RECURSE ${SCRATCH})
