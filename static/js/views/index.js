// views/index.js: imports every analysis view of the trace page, so that each
// registers itself with registerView() (js/trace.js). The tabs follow this
// order. A new view is a new module in this folder plus one line here.
import './overview.js';
import './gantt.js';
import './timeline.js';
import './events_comm.js';
import './events_functions.js';
import './bounds.js';
import './progression.js';
import './supergraph.js';
import './cct_table.js';
import './pic.js';
import './regression.js';
import './atree.js';
import './datamove.js';
import './pdes.js';
