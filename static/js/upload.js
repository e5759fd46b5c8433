// upload.js: the upload page (#/upload). Sends one file, several files (a
// StarPU bundle: paje.trace + tasks.rec + dag.dot ...) or an archive as one
// multipart POST /api/v1/traces, shows the bytes sent, then follows the
// import job (GET /api/v1/jobs/{id}) to its outcome: links to the new traces,
// or the job's error. Also lists the server's recent imports.
// The name field follows the files: choosing new files (or finishing an
// upload) replaces it with a name derived from them, so an upload is never
// stored under the previous one's name. The outcome lists the files the
// import skipped, and an upload identical to a stored trace offers that
// trace, or to import anyway (?allow_duplicate=true). With several files
// chosen, an optional "as an ensemble named ..." field sends ?ensemble=NAME:
// the imported profiles become that ensemble (linked in the outcome).
import { api, uploadTraces } from './api.js';
import { h, clear } from './dom.js';
import { formatBytes, formatDate } from './lib/format.js';
import { errorBox } from './settings.js';

const FAILURE_TITLES = {
  unsupported_format: 'The server has no reader for this file',
  invalid_input: 'The file could not be read',
  io_error: 'The server could not store the file',
  too_large: 'The upload is too large',
  duplicate_trace: 'This trace is already on the server',
  ensemble_failed: 'The files were imported, but the ensemble could not be made',
};

const ARCHIVE = /\.(tar|tgz|zip|tar\.(gz|zst|xz|bz2))$/i;

// The trace name for the chosen files: a folder's name (a folder chosen
// whole), a single file's name without its extensions, as the server would
// derive it; '' for an archive or several loose files, whose names the
// server derives from what they hold (the folder inside the archive).
export function nameFromFiles(files) {
  if (!files.length) return '';
  const rel = files[0].webkitRelativePath || '';
  if (rel.includes('/')) return rel.split('/')[0];
  if (files.length > 1 || ARCHIVE.test(files[0].name)) return '';
  const base = files[0].name;
  const dot = base.indexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}

export function renderUpload(el) {
  document.title = 'Upload · ariadne';
  const ui = buildForm();
  const recent = h('section', { class: 'panel', 'aria-labelledby': 'recent-title' },
    h('h2', { id: 'recent-title' }, 'Recent imports'), h('div', { class: 'recent-jobs' }, 'Loading…'));
  el.append(
    h('div', { class: 'page-header' },
      h('div', {}, h('h1', {}, 'Upload traces'),
        h('p', { class: 'page-subtitle' }, 'Add a trace or profile to the shared server; everyone on the team will see it.'))),
    h('div', { class: 'upload-layout' }, ui.form, helpPanel()),
    recent);
  ui.onFinished = () => loadRecent(recent.querySelector('.recent-jobs'));
  loadRecent(recent.querySelector('.recent-jobs'));
}

function helpPanel() {
  return h('aside', { class: 'panel help-panel', 'aria-label': 'What can be uploaded' },
    h('h2', {}, 'What to upload'),
    h('ul', {},
      h('li', {}, h('strong', {}, 'One file'), ': a Paje trace (', h('code', {}, '.trace'),
        '), a profile (Caliper ', h('code', {}, '.cali'), ' or JSON, Hatchet JSON), a Chrome/Kineto trace (', h('code', {}, '.json'),
        '), possibly gzip- or zstd-compressed.'),
      h('li', {}, h('strong', {}, 'Several files'), ' of one run, e.g. a StarPU bundle: ',
        h('code', {}, 'paje.trace'), ', ', h('code', {}, 'tasks.rec'), ', ', h('code', {}, 'dag.dot'),
        ', ', h('code', {}, 'data.rec'), ', or the ', h('code', {}, 'profile.N.C.T'), ' files of a TAU run. Select them together, or choose the whole folder: '
        + 'files ariadne does not read (logs, ', h('code', {}, '*.out'), ') are skipped and listed.'),
      h('li', {}, h('strong', {}, 'An archive'), ': ', h('code', {}, '.tar'), ', ',
        h('code', {}, '.tar.gz'), ', ', h('code', {}, '.tgz'), ', ', h('code', {}, '.tar.zst'),
        ' or ', h('code', {}, '.zip'), '; it is unpacked on the server.')),
    h('p', { class: 'help' }, 'The format is detected from the contents. From a script:'),
    h('code', { class: 'code-block' }, 'curl -F file=@paje.trace -F file=@tasks.rec \\\n     http://HOST/api/v1/traces'),
    readersLine());
}

// The server's upload limit, from GET /version (null until known).
let maxUpload = null;

// "Readers on this server: paje, ..." from GET /version.
function readersLine() {
  const p = h('p', { class: 'help readers' });
  api.get('/version').then((v) => {
    const f = v.formats || [];
    maxUpload = typeof v.max_upload_bytes === 'number' ? v.max_upload_bytes : null;
    const limit = maxUpload ? ` Largest upload: ${formatBytes(maxUpload)}.` : '';
    p.textContent = (f.length ? `Readers on this server: ${f.join(', ')}.`
      : 'This server has no readers yet: every import will fail.') + limit;
  }).catch(() => { p.hidden = true; });
  return p;
}

function buildForm() {
  const ui = { onFinished: null };
  const fileInput = h('input', { id: 'upload-files', name: 'files', type: 'file', multiple: true,
    class: 'file-input', 'aria-describedby': 'upload-files-help' });
  const folderInput = h('input', { id: 'upload-folder', name: 'folder', type: 'file', multiple: true,
    webkitdirectory: true, class: 'file-input', 'aria-label': 'Choose a folder' });
  const fileList = h('ul', { class: 'file-list', 'aria-live': 'polite' });
  const nameInput = h('input', { id: 'upload-name', name: 'name', class: 'input', maxlength: 200,
    autocomplete: 'off', placeholder: 'Default: derived from the files (an archive: the folder inside)' });
  const submit = h('button', { type: 'submit', class: 'btn btn-primary', disabled: true }, 'Upload');
  const cancel = h('button', { type: 'button', class: 'btn', hidden: true }, 'Cancel upload');
  const status = h('div', { class: 'upload-status', hidden: true });
  const drop = h('label', { class: 'drop-zone', for: 'upload-files' },
    h('span', { class: 'drop-title' }, 'Choose files or drop them here'),
    h('span', { id: 'upload-files-help', class: 'muted small' },
      'One trace, all files of one run, or one archive'),
    fileInput);
  const folderLink = h('label', { class: 'folder-pick small', for: 'upload-folder' },
    'or choose a whole folder (a StarPU output folder: files ariadne does not read are skipped and listed)',
    folderInput);
  // Several files: optionally "as an ensemble named ..." (POST /traces?ensemble=).
  const ensembleInput = h('input', { id: 'upload-ensemble', name: 'ensemble', class: 'input', maxlength: 200,
    autocomplete: 'off', placeholder: 'Leave empty for separate traces' });
  const ensembleField = h('div', { class: 'field', hidden: true },
    h('label', { for: 'upload-ensemble' }, 'As an ensemble named (optional)'), ensembleInput,
    h('span', { class: 'muted small' }, 'The imported profiles become an ensemble of runs of that name.'));
  const form = h('form', { class: 'panel upload-form', 'aria-label': 'Upload traces' },
    drop, folderLink, fileList,
    h('div', { class: 'field' }, h('label', { for: 'upload-name' }, 'Trace name (optional)'), nameInput),
    ensembleField,
    h('div', { class: 'form-actions' }, submit, cancel),
    status);

  let chosen = [];
  // New files: a new name derived from them (never the previous upload's).
  const choose = (files) => {
    chosen = [...files];
    nameInput.value = nameFromFiles(chosen);
    ensembleField.hidden = chosen.length < 2;
    if (ensembleField.hidden) ensembleInput.value = '';
    showFiles();
  };
  const showFiles = () => {
    const files = chosen;
    clear(fileList);
    for (const f of files) fileList.appendChild(h('li', {}, h('span', {}, f.name), h('span', { class: 'muted' }, formatBytes(f.size))));
    if (files.length > 1) {
      const total = files.reduce((s, f) => s + f.size, 0);
      fileList.appendChild(h('li', { class: 'total' }, h('span', {}, `${files.length} files, one trace`), h('span', {}, formatBytes(total))));
    }
    const total = files.reduce((s, f) => s + f.size, 0);
    const tooLarge = maxUpload !== null && total > maxUpload;
    if (tooLarge) {
      fileList.appendChild(h('li', { class: 'text-error', role: 'alert' },
        `Too large: this server accepts at most ${formatBytes(maxUpload)} per upload. `
        + 'Compress the files (.tar.zst, .gz) or ask the administrator to raise --max-upload.'));
    }
    submit.disabled = files.length === 0 || tooLarge;
  };
  fileInput.addEventListener('change', () => choose(fileInput.files));
  folderInput.addEventListener('change', () => choose(folderInput.files));
  drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('dragging'); });
  drop.addEventListener('dragleave', () => drop.classList.remove('dragging'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('dragging');
    if (e.dataTransfer && e.dataTransfer.files.length) {
      fileInput.files = e.dataTransfer.files;
      choose(fileInput.files);
    }
  });

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const files = chosen;
    if (!files.length) return;
    const busy = (on) => {
      submit.disabled = on;
      fileInput.disabled = on;
      folderInput.disabled = on;
      nameInput.disabled = on;
      ensembleInput.disabled = on;
      cancel.hidden = !on;
    };
    busy(true);
    let done = false;
    try {
      const ensemble = ensembleInput.value.trim();
      done = await runUpload(files, nameInput.value.trim(), status, cancel, ensemble ? { ensemble } : {});
    } finally {
      busy(false);
      if (done) { // the next upload starts afresh: no files, no name
        fileInput.value = '';
        folderInput.value = '';
        choose([]);
      }
      if (ui.onFinished) ui.onFinished();
    }
  });
  ui.form = form;
  return ui;
}

function progressStep(id, label) {
  const bar = h('progress', { id, max: 1, value: 0, 'aria-label': label });
  const text = h('span', { class: 'step-text' }, 'Waiting');
  const el = h('div', { class: 'step' }, h('div', { class: 'step-label' }, h('strong', {}, label), text), bar);
  return { el, bar, text };
}

// Uploads, then follows the import job; renders each stage into `status`.
// Returns true once the server has ended the job (succeeded or failed),
// false if the upload itself failed (the files stay chosen to retry).
async function runUpload(files, name, status, cancel, query) {
  const total = files.reduce((s, f) => s + f.size, 0);
  const send = progressStep('upload-progress', '1. Upload');
  const imp = progressStep('import-progress', '2. Import');
  const outcome = h('div', { class: 'outcome', role: 'status', 'aria-live': 'polite' });
  clear(status).append(send.el, imp.el, outcome);
  status.hidden = false;

  const upload = uploadTraces(files, name, (loaded, size) => {
    const all = size || total || 1;
    send.bar.value = Math.min(1, loaded / all);
    send.text.textContent = `${formatBytes(loaded)} of ${formatBytes(all)} (${Math.round(100 * loaded / all)}%)`;
  }, query);
  cancel.onclick = () => upload.abort();
  let job;
  try {
    job = await upload.promise;
  } catch (err) {
    send.text.textContent = 'Failed';
    send.el.classList.add('failed');
    outcome.appendChild(errorBox(err, 'upload the files'));
    return false;
  } finally {
    cancel.onclick = null;
  }
  send.bar.value = 1;
  send.text.textContent = `${formatBytes(total)} sent`;
  send.el.classList.add('done');
  cancel.hidden = true;

  imp.text.textContent = `Job #${job.id} ${job.status}`;
  try {
    job = await followJob(job, (j) => {
      imp.bar.value = typeof j.progress === 'number' ? j.progress : 0;
      imp.text.textContent = `${j.phase || j.status} (${Math.round(100 * (j.progress || 0))}%)`;
    });
  } catch (err) {
    imp.text.textContent = 'Unknown';
    outcome.appendChild(errorBox(err, `follow import job #${job.id}`));
    return false;
  }
  if (job.status === 'succeeded') {
    imp.bar.value = 1;
    imp.text.textContent = 'Done';
    imp.el.classList.add('done');
    outcome.appendChild(await successBox(job));
    if (query.ensemble) outcome.appendChild(await ensembleLink(query.ensemble, job));
  } else {
    const duplicate = job.error?.code === 'duplicate_trace';
    imp.text.textContent = duplicate ? 'Not imported: already on the server' : 'Failed';
    imp.el.classList.add('failed');
    const again = () => runUpload(files, name, status, cancel, { ...query, allow_duplicate: true });
    outcome.appendChild(duplicate ? duplicateBox(job, again) : failureBox(job));
  }
  return true;
}

// The ensemble an upload made (the job's ensemble_id), linked to its page.
async function ensembleLink(name, job) {
  try {
    const e = job.ensemble_id == null ? null : await api.get(`/ensembles/${job.ensemble_id}`);
    if (e) {
      return h('p', { class: 'ensemble-made' }, 'Ensemble ', h('a', { href: `#/ensembles/${e.id}` }, e.name),
        ` made of ${e.member_count} profile${e.member_count === 1 ? '' : 's'}.`);
    }
  } catch { /* said below */ }
  return h('p', { class: 'muted' }, `The ensemble "${name}" was not found after job #${job.id}.`);
}

// Polls the job until it succeeds or fails, calling onUpdate each time.
async function followJob(job, onUpdate) {
  let delay = 200;
  let busyRetries = 0;
  onUpdate(job);
  while (job.status !== 'succeeded' && job.status !== 'failed') {
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(1000, delay * 1.5);
    try {
      job = await api.get(`/jobs/${job.id}`);
    } catch (err) {
      if (err.code === 'busy' && busyRetries++ < 20) continue;
      throw err;
    }
    onUpdate(job);
  }
  return job;
}

async function successBox(job) {
  const ids = job.trace_ids || [];
  const items = await Promise.all(ids.map(async (id) => {
    try {
      const t = await api.get(`/traces/${id}`);
      return h('li', {}, h('a', { href: `#/traces/${id}`, class: 'trace-link' }, t.name),
        ` (${t.kind}, ${t.format})`);
    } catch {
      return h('li', {}, h('a', { href: `#/traces/${id}`, class: 'trace-link' }, `Trace #${id}`));
    }
  }));
  const dups = (job.duplicate_of || []).map((d) => h('p', { class: 'small' },
    `Imported anyway: identical to trace ${d.trace_id} (${d.name}), `,
    h('a', { href: `#/traces/${d.trace_id}` }, 'open it'), '.'));
  return h('div', { class: 'alert alert-success' },
    h('strong', {}, ids.length === 1 ? 'Imported 1 trace' : `Imported ${ids.length} traces`),
    h('ul', {}, items), dups, skippedList(job),
    h('p', {}, h('a', { href: '#/traces' }, 'See all traces')));
}

// The files the import did not read, with the reason of each.
function skippedList(job) {
  const skipped = job.skipped || [];
  if (!skipped.length) return null;
  const title = skipped.length === 1 ? '1 file skipped' : `${skipped.length} files skipped`;
  return h('div', { class: 'skipped-files' },
    h('p', { class: 'small' }, h('strong', {}, title),
      ': ariadne does not read them (logs and other tool outputs are fine to leave in a folder).'),
    h('ul', { class: 'small', 'aria-label': 'Skipped files' },
      skipped.map((f) => h('li', {}, h('code', {}, f.name), ` — ${f.reason}`))));
}

// An upload identical to a stored trace: offer it, or import anyway.
function duplicateBox(job, importAnyway) {
  const dups = job.duplicate_of || [];
  const first = dups[0] || {};
  const anyway = h('button', { type: 'button', class: 'btn' }, 'Import anyway');
  anyway.addEventListener('click', () => { anyway.disabled = true; importAnyway(); });
  return h('div', { class: 'alert alert-info duplicate-trace', role: 'alert' },
    h('strong', {}, `Identical to trace ${first.trace_id} (${first.name})`),
    h('p', {}, 'The server already holds a trace with exactly these files (same SHA-256), so nothing was imported.'
      + (dups.length > 1 ? ` ${dups.length - 1} more trace(s) of this upload are duplicates too.` : '')),
    h('p', { class: 'form-actions' },
      h('a', { class: 'btn btn-primary', href: `#/traces/${first.trace_id}` }, 'Open it'), anyway),
    skippedList(job));
}

function failureBox(job) {
  const err = job.error || { code: 'unknown', message: 'The server gave no reason.' };
  return h('div', { class: 'alert alert-error', role: 'alert' },
    h('strong', {}, `Import failed: ${FAILURE_TITLES[err.code] || err.code}`),
    h('p', {}, err.message),
    skippedList(job),
    h('p', { class: 'muted small' }, `Job #${job.id} · error code `, h('code', {}, err.code),
      ' · nothing of this upload was stored.'));
}

const STATUS_CLASS = { succeeded: 'ok', failed: 'error', running: 'info', queued: 'info' };

async function loadRecent(el) {
  let body;
  try {
    body = await api.get('/jobs', { limit: 8 });
  } catch (e) {
    clear(el).appendChild(errorBox(e, 'load the recent imports'));
    return;
  }
  clear(el);
  const jobs = Array.isArray(body) ? body : (body.jobs || []);
  if (!jobs.length) {
    el.appendChild(h('p', { class: 'muted' }, 'No imports yet.'));
    return;
  }
  el.appendChild(h('table', { class: 'table compact', 'aria-label': 'Recent imports' },
    h('thead', {}, h('tr', {}, ['Job', 'Status', 'Started (UTC)', 'Result'].map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, jobs.map((j) => h('tr', {},
      h('td', {}, `#${j.id}`),
      h('td', {}, h('span', { class: `status status-${STATUS_CLASS[j.status] || 'info'}` }, j.status)),
      h('td', { class: 'nowrap' }, formatDate(j.created_at).replace(' UTC', '')),
      h('td', {}, jobResult(j)))))));
}

function jobResult(j) {
  const dup = (j.duplicate_of || [])[0];
  if (j.status === 'failed' && j.error?.code === 'duplicate_trace' && dup) {
    return ['identical to ', h('a', { href: `#/traces/${dup.trace_id}` }, `trace #${dup.trace_id} (${dup.name})`)];
  }
  if (j.status === 'failed' && j.error) return `${j.error.code}: ${j.error.message}`;
  if (j.status === 'succeeded') {
    return (j.trace_ids || []).map((id, i) => [i ? ', ' : '', h('a', { href: `#/traces/${id}` }, `trace #${id}`)]);
  }
  return j.phase || '';
}
