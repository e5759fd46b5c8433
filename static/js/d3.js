// d3.js: hands the analysis views the d3 library (with d3-sankey's
// d3.sankey), which index.html loads as classic scripts from vendor/
// (copied there by static/vendor.sh). Throws a clear error when the
// front-end libraries were not installed.
export function getD3() {
  const d3 = globalThis.d3;
  if (!d3 || typeof d3.select !== 'function') {
    throw new Error('The d3 library is missing from static/vendor/: run `npm ci` in static/ '
      + '(its postinstall runs vendor.sh) and reload.');
  }
  return d3;
}
