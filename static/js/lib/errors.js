// lib/errors.js: the error box of the task analyses: a trace without tasks
// (the API's 409 no_tasks) gets an explanation instead of an error.
import { h } from '../dom.js';
import { errorBox } from '../settings.js';

export const NO_TASKS_MESSAGE = 'This trace has no task information (a plain Paje trace); the Gantt needs a StarPU bundle or StarVZ CSV set.';

export function analysisError(e, what) {
  if (e && e.code === 'no_tasks') {
    return h('div', { class: 'alert alert-info', role: 'alert' }, h('strong', {}, 'No tasks in this trace'),
      h('p', {}, NO_TASKS_MESSAGE));
  }
  return errorBox(e, what);
}
