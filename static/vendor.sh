#!/bin/sh
# vendor.sh: copies the browser builds of the dashboard's npm dependencies
# (d3, d3-sankey) from node_modules/ into vendor/ (git-ignored), where
# index.html loads them. Run after `npm ci` in this directory (npm runs it
# as the postinstall script). Exits non-zero if a file is missing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mods="$here/node_modules"
out="$here/vendor"

copy() {
    if [ ! -f "$mods/$1" ]; then
        echo "vendor.sh: $mods/$1 is missing; run 'npm ci' in $here first" >&2
        exit 1
    fi
    cp "$mods/$1" "$out/$2"
}

mkdir -p "$out"
copy d3/dist/d3.min.js d3.min.js
copy d3-sankey/dist/d3-sankey.min.js d3-sankey.min.js
copy d3/LICENSE LICENSE.d3
copy d3-sankey/LICENSE LICENSE.d3-sankey
echo "vendor.sh: copied d3 and d3-sankey into $out"
