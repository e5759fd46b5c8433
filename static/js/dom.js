// dom.js: small DOM helpers shared by the dashboard modules (element
// builder, modal dialogs); the formatters are in lib/format.js, the SVG
// builder in lib/svg.js.

// h('a', {href: '#/', class: 'x', onclick: fn}, 'text', child...) -> element.
// Attributes starting with "on" become listeners; null/false attributes and
// children are skipped; strings become text nodes (never parsed as HTML).
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2), value);
    } else if (key === 'class') {
      el.className = value;
    } else if (key === 'dataset') {
      Object.assign(el.dataset, value);
    } else if (value === true) {
      el.setAttribute(key, '');
    } else {
      el.setAttribute(key, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

// "states" -> "States", "time_unit" -> "Time unit".
export function humanize(key) {
  const s = String(key).replace(/_/g, ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

// Shows a modal <dialog> built from `body` with the given buttons and
// resolves with the value of the button pressed (or null on Escape).
// buttons: [{label, value, primary, danger}]. If `onSubmit(value)` returns a
// string, it is shown as an error and the dialog stays open.
export function modal({ title, body, buttons, onSubmit }) {
  return new Promise((resolve) => {
    const error = h('p', { class: 'form-error', role: 'alert', hidden: true });
    const actions = h('div', { class: 'dialog-actions' });
    const form = h('form', { method: 'dialog' },
      h('h2', { class: 'dialog-title' }, title), body, error, actions);
    const dialog = h('dialog', { class: 'dialog', 'aria-label': title }, form);
    for (const b of buttons) {
      actions.appendChild(h('button', {
        type: b.value === null ? 'button' : 'submit', value: String(b.value),
        class: b.danger ? 'btn btn-danger' : b.primary ? 'btn btn-primary' : 'btn',
        onclick: b.value === null ? () => dialog.close('') : null,
      }, b.label));
    }
    form.addEventListener('submit', async (ev) => {
      const value = ev.submitter ? ev.submitter.value : buttons.find((b) => b.primary)?.value;
      if (!onSubmit) return;
      ev.preventDefault();
      const msg = await onSubmit(value);
      if (typeof msg === 'string') {
        error.textContent = msg;
        error.hidden = false;
      } else {
        dialog.close(String(value));
      }
    });
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(dialog.returnValue && dialog.returnValue !== 'null' ? dialog.returnValue : null);
    });
    document.body.appendChild(dialog);
    dialog.showModal();
  });
}

export function confirmDialog(title, text, confirmLabel = 'OK', danger = false) {
  return modal({
    title,
    body: h('p', {}, text),
    buttons: [{ label: 'Cancel', value: null },
      { label: confirmLabel, value: 'ok', primary: !danger, danger }],
  }).then((v) => v === 'ok');
}
