// lib/function_focus.js: the function (region) the user clicked last in a
// view of an event trace, shared by every view of the page so that a click on
// a function anywhere (flat profile row, time-profile area, imbalance bar,
// timeline state) highlights it everywhere. A tiny store:
//
//   setFocus('MPI_Send')           // or null to clear; notifies subscribers
//   getFocus()                     // the focused name or null
//   const off = subscribe((name) => redraw());   // call off() on dispose
//   focusFromParams(params, traceId)   // the URL's ?fn= (views keep it there)
//
// The name lives in the URL as `fn` (each view writes it with its own
// setParams), so the focus survives a reload and a copied link; a tab change
// (whose link has no parameters) keeps the focus of the same trace.
let focused = null;
let focusedTrace = null;
const listeners = new Set();

export function getFocus() {
  return focused;
}

export function setFocus(name) {
  const next = typeof name === 'string' && name ? name : null;
  if (next === focused) return;
  focused = next;
  for (const fn of [...listeners]) {
    try { fn(focused); } catch (e) { console.warn('function focus listener:', e); }
  }
}

// Toggles: focusing the focused function again clears the focus.
export function toggleFocus(name) {
  setFocus(name === focused ? null : name);
}

export function subscribe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

// Takes the focus from the URL parameters of a view of trace `traceId` (the
// `fn` key), so the page opened from a link shows the same highlight; without
// `fn` the focus of the same trace stays (another trace starts with none).
// Returns the focus.
export function focusFromParams(params, traceId) {
  const name = params && typeof params.fn === 'string' && params.fn ? params.fn : null;
  if (traceId !== focusedTrace) { focusedTrace = traceId; setFocus(name); }
  else if (name) setFocus(name);
  return focused;
}

// The URL form of the focus, for setParams: {fn: name} or {fn: null}.
export const focusParams = () => ({ fn: focused });
