// lib/time_interactions.js: the mouse gestures of every chart on a time
// axis (the Gantt and the panels under it): wheel zoom around the cursor,
// drag to pan, shift+drag (or drag on the time axis) to zoom to a range,
// double-click to reset; hover for tooltips. A press anywhere on `el`
// focuses it when it is focusable (tabindex), so its keyboard shortcuts work
// at once (the press itself is kept from selecting text).
import { svg } from './svg.js';

export function attachTimeInteractions(el, { plotBox, getDomain, setDomain, reset, onHover, onLeave, brushHost }) {
  const local = (e) => { const r = el.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; };
  const inX = (px) => { const b = plotBox(); return px >= b.left && px <= b.left + b.width; };
  const toTime = (px) => { const b = plotBox(), d = getDomain(); return d[0] + (px - b.left) / b.width * (d[1] - d[0]); };
  el.addEventListener('wheel', (e) => {
    const [px] = local(e);
    if (!getDomain() || !inX(px)) return;
    e.preventDefault();
    const d = getDomain();
    const delta = e.deltaMode === 1 ? e.deltaY * 30 : e.deltaY;
    const f = Math.pow(1.0018, Math.max(-400, Math.min(400, delta)));
    const t = toTime(px);
    setDomain([t - (t - d[0]) * f, t + (d[1] - t) * f]);
  }, { passive: false });
  let drag = null;
  el.addEventListener('pointerdown', (e) => {
    if (el.tabIndex >= 0 && document.activeElement !== el) el.focus({ preventScroll: true });
    if (e.button !== 0 || !getDomain()) return;
    const [px, py] = local(e);
    if (!inX(px)) return;
    const b = plotBox();
    const brush = e.shiftKey || py < b.top;
    drag = { x0: px, d0: getDomain(), brush, moved: false, id: e.pointerId };
    el.setPointerCapture(e.pointerId);
    if (onLeave) onLeave();
    e.preventDefault();
  });
  el.addEventListener('pointermove', (e) => {
    const [px, py] = local(e);
    if (!drag) { if (onHover) onHover(px, py); return; }
    const b = plotBox();
    if (Math.abs(px - drag.x0) > 2) drag.moved = true;
    if (drag.brush) {
      drawBrush(brushHost && brushHost(), Math.min(px, drag.x0), Math.abs(px - drag.x0), b);
    } else if (drag.moved) {
      const span = drag.d0[1] - drag.d0[0];
      const dt = (px - drag.x0) / b.width * span;
      el.classList.add('is-panning');
      setDomain([drag.d0[0] - dt, drag.d0[1] - dt]);
    }
  });
  const end = (e) => {
    if (!drag) return;
    const [px] = local(e);
    const b = plotBox();
    if (drag.brush) {
      drawBrush(brushHost && brushHost(), 0, 0, b);
      if (Math.abs(px - drag.x0) > 4) {
        const x0 = Math.max(b.left, Math.min(px, drag.x0)), x1 = Math.min(b.left + b.width, Math.max(px, drag.x0));
        const d = drag.d0;
        const t = (p) => d[0] + (p - b.left) / b.width * (d[1] - d[0]);
        setDomain([t(x0), t(x1)]);
      }
    }
    el.classList.remove('is-panning');
    drag = null;
  };
  el.addEventListener('pointerup', end);
  el.addEventListener('pointercancel', end);
  el.addEventListener('pointerleave', () => { if (!drag && onLeave) onLeave(); });
  el.addEventListener('dblclick', (e) => { const [px] = local(e); if (inX(px)) reset(); });
}

function drawBrush(host, x, w, box) {
  if (!host) return;
  let r = host.querySelector('rect.brush');
  if (!w) { if (r) r.remove(); return; }
  if (!r) { r = svg('rect', { class: 'brush' }); host.appendChild(r); }
  r.setAttribute('x', x); r.setAttribute('width', w);
  r.setAttribute('y', Math.max(0, box.top - 24)); r.setAttribute('height', box.height + 24);
}
