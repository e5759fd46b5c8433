// download.js: saving what a panel shows, computed in the page, as a file:
// a text (JSON, CSV) through a temporary object URL, and CSV text from a
// header and rows (RFC 4180 quoting, CRLF line ends).
import { h } from '../dom.js';

export function saveText(name, text, type) {
  const href = URL.createObjectURL(new Blob([text], { type }));
  const a = h('a', { href, download: name });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10000);
}

const csvCell = (v) => (v === null || v === undefined ? '' : /[",\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v));

export const csvText = (header, rows) => [header, ...rows].map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n';
