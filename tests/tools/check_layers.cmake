# check_layers.cmake: the include rules of the layers (docs/architecture.md),
# run by the build (target check_layer_headers), so that a forbidden include
# fails the build even when no symbol of it reaches the linker:
#   src/util      includes no other layer
#   src/analysis  no sqlite3.h, jansson.h, microhttpd.h; only util and analysis
#   src/ingest    no sqlite3.h, microhttpd.h; no store/, import/, server headers
#   src/store     no microhttpd.h; no jansson.h in any header
#   src/import    no microhttpd.h
#   src/gen       only util and gen
# Usage: cmake -DROOT=<source dir> -P check_layers.cmake
set(failures "")

# Appends "file: line" to failures for each line of the files matching
# the glob that matches the regular expression.
function(forbid glob regex why)
  file(GLOB files ${ROOT}/${glob})
  foreach(f IN LISTS files)
    file(STRINGS ${f} hits REGEX "${regex}")
    foreach(h IN LISTS hits)
      file(RELATIVE_PATH rel ${ROOT} ${f})
      set(failures "${failures}\n  ${rel}: ${h}  (${why})")
    endforeach()
  endforeach()
  set(failures "${failures}" PARENT_SCOPE)
endfunction()

set(any_layer "#include \"(analysis|ingest|store|import|gen|server)/")
forbid("src/util/*.[ch]" "${any_layer}" "util depends on no layer")
forbid("src/analysis/*.[ch]" "#include <(sqlite3|jansson|microhttpd)\\.h>" "analysis is pure: arrays in, structs out")
forbid("src/analysis/*.[ch]" "#include \"(ingest|store|import|gen)/" "analysis uses only util")
forbid("src/ingest/*.[ch]" "#include <(sqlite3|microhttpd)\\.h>" "readers never touch the database or HTTP")
forbid("src/ingest/*.[ch]" "#include \"(store|import|gen)/" "readers report to a sink, not to the store")
forbid("src/store/*.[ch]" "#include <microhttpd\\.h>" "the store knows no HTTP")
forbid("src/store/*.h" "#include <jansson\\.h>" "store interfaces return structs and arrays, not JSON")
forbid("src/store/*.[ch]" "#include \"(import|gen)/" "the store does not drive imports")
forbid("src/import/*.[ch]" "#include <microhttpd\\.h>" "imports run in the CLI too")
forbid("src/import/*.[ch]" "#include <(archive|jansson)\\.h>" "files are read through ari_input (src/ingest/input.h)")
forbid("src/store/*.[ch]" "#include <archive" "files are read through ari_input (src/ingest/input.h)")
forbid("server/*.[ch]" "#include <archive" "files are read through ari_input (src/ingest/input.h)")
forbid("src/gen/*.[ch]" "#include \"(analysis|ingest|store|import)/" "generators write files only")

if(failures)
  message(FATAL_ERROR "layer rules broken (docs/architecture.md, \"Layers\"):${failures}")
endif()
