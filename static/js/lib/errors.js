// lib/errors.js: the error box of the task analyses. A trace without tasks
// (the API's 409 no_tasks) gets an explanation of what is missing and how
// to provide it instead of an error; noTasksBox is that explanation, for
// the views that catch no_tasks themselves.
import { h } from '../dom.js';
import { errorBox } from '../settings.js';

export const NO_TASKS_MESSAGE = 'This trace has no application tasks: the task views need a StarPU run traced '
  + 'with FxT (paje.trace and tasks.rec) or a StarVZ CSV set.';

// The trace kind named in the 409 message ("trace 3 (kind profile) has no
// application tasks ..."), or ''.
function kindOf(e) {
  const m = /\(kind (\w+)\)/.exec((e && e.message) || '');
  return m ? m[1] : '';
}

// How to get tasks into ariadne: the StarPU recipe, step by step.
function starpuRecipe() {
  return h('ol', { class: 'recipe' },
    h('li', {}, 'Build StarPU with FxT (', h('code', {}, './configure --with-fxt'), ').'),
    h('li', {}, 'Run the application with ', h('code', {}, 'STARPU_FXT_TRACE=1'), ' (and ',
      h('code', {}, 'STARPU_FXT_PREFIX=<dir>/'), '): it writes ', h('code', {}, 'prof_file_*'), '.'),
    h('li', {}, h('code', {}, 'starpu_fxt_tool -i <dir>/prof_file_*'), ' writes ', h('code', {}, 'paje.trace'), ', ',
      h('code', {}, 'tasks.rec'), ', ', h('code', {}, 'dag.dot'), ' and ', h('code', {}, 'data.rec'), '.'),
    h('li', {}, 'Upload that folder whole (other files in it are skipped and listed), or a StarVZ phase-1 directory.'));
}

// What is missing and how to provide it, for trace kind `kind` ('' if
// unknown); `what` names the view ("The Gantt view"), traceId (optional)
// links the Timeline.
export function noTasksBox(kind = '', what = 'This view', traceId = null) {
  const timeline = traceId === null ? 'the Timeline tab'
    : h('a', { href: `#/traces/${traceId}/timeline` }, 'the Timeline tab');
  if (kind === 'profile') {
    return h('div', { class: 'alert alert-info', role: 'status' }, h('strong', {}, 'A profile has no task timeline'),
      h('p', {}, `${what} needs a trace of tasks in time; a profile (HPCToolkit, Caliper, Hatchet, TAU) holds `
        + 'aggregated metrics per calling context. Its views are the call-tree table and the super graph.'),
      h('p', { class: 'small' }, 'To see tasks, upload a trace of the same run: ', starpuRecipe()));
  }
  return h('div', { class: 'alert alert-info', role: 'status' }, h('strong', {}, 'No application tasks in this trace'),
    h('p', {}, `${what} needs application tasks (with a JobId, type and worker). A plain Paje trace (a `
      + 'paje.trace alone, SimGrid, poti) has runtime states only: they are in ', timeline,
      '. To get tasks from a StarPU run:'),
    starpuRecipe(),
    h('p', { class: 'small muted' }, 'README.md, section “Supported inputs”, lists what each format needs.'));
}

export function analysisError(e, what) {
  if (e && e.code === 'no_tasks') return noTasksBox(kindOf(e));
  return errorBox(e, what);
}
