// settings.js: the settings dialog (the API token kept in this browser) and
// the error box every page uses, which points to the settings when the
// server asks for a token (401) or the token lacks a scope (403).
import { api, getToken, setToken } from './api.js';
import { h, modal } from './dom.js';

// Opens the settings dialog; resolves true when the token was changed.
export async function openSettings() {
  const input = h('input', {
    id: 'settings-token', type: 'password', class: 'input', autocomplete: 'off',
    spellcheck: 'false', placeholder: 'ari_...', value: getToken(),
  });
  const show = h('input', { id: 'settings-show', type: 'checkbox',
    onchange: () => { input.type = show.checked ? 'text' : 'password'; } });
  const body = h('div', { class: 'form-grid' },
    h('label', { for: 'settings-token' }, 'API token'),
    input,
    h('label', { class: 'check' }, show, ' Show token'),
    h('p', { class: 'help' },
      'Needed only when the server runs with authentication (any non-loopback address). ',
      'Ask an admin for a token (', h('code', {}, 'ariadned token create --name you --scope write'),
      '). It is stored in this browser only (localStorage) and sent as ',
      h('code', {}, 'Authorization: Bearer …'), '. Leave empty to send none.'));
  const result = await modal({
    title: 'Settings',
    body,
    buttons: [{ label: 'Cancel', value: null }, { label: 'Save', value: 'save', primary: true }],
    onSubmit: async () => {
      const token = input.value.trim();
      if (!token) return true;
      try {
        await api.get('/traces', { limit: 1 }, { token });
        return true;
      } catch (e) {
        if (e.status === 401 || e.status === 403) return `The server refused this token: ${e.message}`;
        return true; // other failures are not the token's fault
      }
    },
  });
  if (result !== 'save') return false;
  const changed = input.value.trim() !== getToken();
  setToken(input.value);
  if (changed) window.dispatchEvent(new CustomEvent('ariadne:token-changed'));
  return changed;
}

// A visible error message for `err` (an ApiError or any Error), with a
// button to the settings for authentication errors.
export function errorBox(err, what = '') {
  const auth = err && (err.status === 401 || err.status === 403);
  const title = auth
    ? (err.status === 401 ? 'This server needs an API token' : 'Your API token is not allowed to do this')
    : (what ? `Could not ${what}` : 'Something went wrong');
  return h('div', { class: 'alert alert-error', role: 'alert' },
    h('strong', {}, title),
    h('p', {}, err && err.message ? err.message : String(err)),
    auth ? h('button', { class: 'btn', type: 'button', onclick: () => openSettings() },
      'Open settings') : null);
}
