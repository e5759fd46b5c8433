# deploy/lib.sh: the set-up shared by deploy/run.sh and deploy/test.sh.
# Sourced, not run. Every step is idempotent: it installs only what is
# missing (Debian packages with apt-get, front-end and test packages with
# npm) and rebuilds only what changed.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export ROOT

# Packages to build and run ariadne.
RUN_PACKAGES=(build-essential cmake pkg-config
    libmicrohttpd-dev libjansson-dev libsqlite3-dev libgsl-dev libhwloc-dev libglpk-dev
    libarchive-dev libexpat1-dev nettle-dev zlib1g-dev libzstd-dev
    libcurl4-openssl-dev
    sqlite3)
# Packages the test suite and benchmarks also need: cmocka, headless
# chromium for the browser tests, and the reference tools results are
# checked against (pj_dump, glpsol, R with the cluster and Rtsne packages).
TEST_PACKAGES=(libcmocka-dev chromium pajeng glpk-utils r-base-core r-cran-cluster r-cran-rtsne curl time clang)
# OTF2 (Score-P) traces: libotf2 to read them, otf2-print to check the reader against.
RUN_PACKAGES+=(libotf2-trace-dev)
TEST_PACKAGES+=(otf2-tools)

log() { printf '\033[1m[ariadne]\033[0m %s\n' "$*" >&2; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        log "need root to run: $*  (run as root or install sudo)"
        return 1
    fi
}

# apt_install PKG...: installs the packages that are not installed yet.
apt_install() {
    local missing=()
    for pkg in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
            missing+=("$pkg")
        fi
    done
    if [ ${#missing[@]} -eq 0 ]; then
        return 0
    fi
    log "installing Debian packages: ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# install_node: Node.js and npm, for the front-end libraries and the tests.
# Checked by command, not by package: some machines have a nodejs package
# that bundles npm and conflicts with Debian's npm package.
install_node() {
    command -v node >/dev/null 2>&1 || apt_install nodejs
    command -v npm >/dev/null 2>&1 || apt_install npm
}

# npm_install DIR: runs `npm ci` in DIR when its node_modules is missing or
# older than its lock file.
npm_install() {
    local dir=$1
    if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
        log "installing npm packages in ${dir#"$ROOT"/}"
        (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
    fi
}

# vendor_frontend: d3 and d3-sankey into static/vendor/ (git-ignored).
vendor_frontend() {
    npm_install "$ROOT/static"
    if [ ! -f "$ROOT/static/vendor/d3.min.js" ]; then
        sh "$ROOT/static/vendor.sh"
    fi
}

# build DIR [CMAKE ARGS...]: configures (once) and builds into DIR.
build() {
    local dir=$1
    shift
    if [ ! -f "$dir/CMakeCache.txt" ]; then
        log "configuring ${dir#"$ROOT"/}"
        cmake -S "$ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
    fi
    log "building ${dir#"$ROOT"/}"
    if ! cmake --build "$dir" -j "$(nproc)" >"$dir/build.log" 2>&1; then
        grep -E 'error|Error' -A3 "$dir/build.log" | head -60 >&2
        log "build failed; full log in $dir/build.log"
        return 1
    fi
}

# load_examples DB: writes the bundled examples (simulated StarPU runs of a
# tiled Cholesky and a simulated ROSS PDES run, labelled simulated) and
# imports them when DB has no traces.
load_examples() {
    local db=$1 bin=$ROOT/build/ariadned
    local count=0
    if [ -f "$db" ]; then
        count=$(sqlite3 "$db" "SELECT count(*) FROM traces" 2>/dev/null || echo 0)
    fi
    if [ "$count" -gt 0 ]; then
        log "database $db already holds $count trace(s); not loading the examples again"
        return 0
    fi
    local out=$ROOT/build/examples
    rm -rf "$out"
    mkdir -p "$out"
    log "generating the example traces (simulated StarPU and ROSS runs) in ${out#"$ROOT"/}"
    "$bin" generate --out "$out/cholesky-2nodes" --tiles 12 --nodes 2 --cpus 4 --gpus 1 --seed 1 >/dev/null
    "$bin" generate --out "$out/cholesky-1node" --tiles 10 --nodes 1 --cpus 6 --gpus 2 --seed 2 >/dev/null
    "$bin" generate --kind pdes --out "$out/ross-8pe" --pes 8 --kps 16 --samples 200 --seed 1 >/dev/null
    # an MPI event trace: OTF2 written by the test tool tests/tools/gen_otf2.c
    "$ROOT/build/gen_otf2" --ranks 8 --iterations 40 --late-sender 3 --late-ns 8000 --bytes 65536 \
        --out "$out/mpi-ring-8ranks" >/dev/null
    log "importing the examples into $db"
    "$bin" import --db "$db" --quiet --name "Cholesky 12x12 tiles, 2 nodes (simulated)" "$out/cholesky-2nodes"
    "$bin" import --db "$db" --quiet --name "Cholesky 10x10 tiles, 1 node (simulated)" "$out/cholesky-1node"
    "$bin" import --db "$db" --quiet --name "ROSS PDES, 8 PEs x 16 KPs, 200 GVT samples (simulated)" "$out/ross-8pe"
    "$bin" import --db "$db" --quiet --name "MPI ring, 8 ranks, late sender 3 -> 4 (synthetic OTF2)" \
        "$out/mpi-ring-8ranks"
}
