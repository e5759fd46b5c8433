# check_oracle_data.cmake: the CTest test oracle.shared_data. The tests
# labelled `oracle` compare ariadne with reference tools on the real data of
# ../shared/data (StarVZ, pj_dump, R, Hatchet, DMVis, ...) and skip their
# real-data cases when it is absent, so that the suite passes on a machine
# without it. In CI (ARIADNE_REQUIRE_ORACLES=1, set by .ci/run) a missing
# folder must not pass silently: this test fails, naming it.
#
# Usage: cmake -DDATA=<shared data dir> -P check_oracle_data.cmake
# Exit: 0 all present; 77 (CTest: skipped) some absent and not required;
# a fatal error (non-zero) some absent and required.
set(needed starpu starvz hatchet pajeng dmvis speedscope perfetto)
set(missing "")
foreach(d IN LISTS needed)
  if(NOT IS_DIRECTORY "${DATA}/${d}")
    list(APPEND missing ${d})
  endif()
endforeach()
if(NOT missing)
  message("oracle data present in ${DATA}: ${needed}")
  return()
endif()
list(JOIN missing ", " names)
if("$ENV{ARIADNE_REQUIRE_ORACLES}" STREQUAL "1")
  message(FATAL_ERROR "the oracle tests need ${DATA}/{${names}}, which is missing: "
    "put the shared data next to the clone (../shared/data), or run with "
    "ARIADNE_REQUIRE_ORACLES=0 to let their real-data cases skip")
endif()
message("oracle data missing in ${DATA}: ${names}; the real-data cases of the `oracle` tests skip")
# CMake scripts cannot choose their exit code; a marker line lets CTest's
# SKIP_REGULAR_EXPRESSION report the test as skipped.
message("ORACLE_DATA_SKIPPED")
