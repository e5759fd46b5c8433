-- 009_trace_notes: how a trace's time unit was decided, and the warnings
-- of its import (a list of {code, message}, e.g. a file cut mid-line).
-- time_unit_source '' means the format fixes the unit (the API says so).
ALTER TABLE traces ADD COLUMN time_unit_source TEXT NOT NULL DEFAULT '';
ALTER TABLE traces ADD COLUMN warnings_json TEXT NOT NULL DEFAULT '[]';
