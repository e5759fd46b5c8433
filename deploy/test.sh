#!/usr/bin/env bash
# deploy/test.sh: the same set-up as deploy/run.sh, then the whole test
# suite (CTest: C unit tests, API tests against a live daemon, browser
# tests in headless chromium), built with AddressSanitizer and
# UndefinedBehaviorSanitizer. Arguments go to ctest (e.g. -L unit, -R api).
# Before the suite, the code must also build warning-free as gcc Release and
# with clang (house rules, CONTRIBUTING.md). In CI (ARIADNE_REQUIRE_ORACLES=1,
# set by .ci/run) the oracle tests fail when ../shared/data is missing.
# The API tests listed in CMakeLists.txt's PG_API_TESTS also run against a
# throwaway PostgreSQL 15 cluster (CTest's fixture pg: tests/lib/pg_cluster.sh).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
RUN_PACKAGES+=(libpq-dev)       # the build links libpq (the PostgreSQL store)
TEST_PACKAGES+=(postgresql-15)  # the throwaway cluster of the api_pg tests

apt_install "${RUN_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
install_node
vendor_frontend
npm_install "$ROOT/tests"
build "$ROOT/build" -DARIADNE_WERROR=ON
build "$ROOT/build-asan" -DARIADNE_SANITIZE=ON -DARIADNE_WERROR=ON
build "$ROOT/build-release" -DCMAKE_BUILD_TYPE=Release -DARIADNE_WERROR=ON
CC=clang build "$ROOT/build-clang" -DARIADNE_WERROR=ON
load_examples "$ROOT/build/examples.db"   # the examples import cleanly, as run.sh does it
log "running the test suite (sanitizers on)"
cd "$ROOT/build-asan"
# api_pg.pg_parity and api_pg.pg_shards compare every GET of two stores
# (SQLite and PostgreSQL; sharded and one server) with the Release build, for
# their time: equal answers are their point; the other API tests run under ASan.
export ARIADNE_PARITY_ARIADNED="$ROOT/build-release/ariadned"
# The browser tests run one at a time (RUN_SERIAL: chromium's timings) and
# test the dashboard: they too use the Release daemon, which cut their part
# of the suite by a third; the API tests keep the sanitizers on the daemon.
export ARIADNE_BROWSER_ARIADNED="$ROOT/build-release/ariadned"
exec ctest --output-on-failure --timeout 600 -j 2 "$@"
