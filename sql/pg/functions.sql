-- functions.sql: what the store's shared SQL (written in SQLite's dialect)
-- calls that PostgreSQL lacks, under SQLite's names and with its meaning.
-- Applied by every ariadned start after the migrations (src/store/store.c),
-- so each definition is CREATE OR REPLACE (or made only if missing).
-- What is rewritten word by word instead lives in src/store/pg_dialect.c.

-- (No COLLATE NOCASE: the store orders by lower(name), which is SQLite's
-- NOCASE order on both backends since text columns are COLLATE "C".)

-- ---- JSON: SQLite's json1 functions over text documents ----
-- Documents are text columns holding JSON; these read them as `json` (not
-- jsonb), which keeps the members' order and each token as written, and
-- write them back minified, as SQLite does. Paths are SQLite's: `$`, `.key`
-- (or `."quoted key"`), `[N]`, and `[#]` (one past the end) when writing.

-- A path as its steps: '.key' for a member, '[N]' or '[#]' for an element.
CREATE OR REPLACE FUNCTION ari_json_path(path text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    steps text[] := '{}';
    i int := 2;
    n int := length(path);
    j int;
BEGIN
    IF left(path, 1) <> '$' THEN
        RAISE EXCEPTION 'JSON path error near ''%''', path;
    END IF;
    WHILE i <= n LOOP
        IF substr(path, i, 1) = '.' AND substr(path, i + 1, 1) = '"' THEN
            j := strpos(substr(path, i + 2), '"');
            IF j = 0 THEN
                RAISE EXCEPTION 'JSON path error near ''%''', substr(path, i);
            END IF;
            steps := steps || ('.' || substr(path, i + 2, j - 1));
            i := i + 2 + j;
        ELSIF substr(path, i, 1) = '.' THEN
            j := i + 1;
            WHILE j <= n AND substr(path, j, 1) NOT IN ('.', '[') LOOP
                j := j + 1;
            END LOOP;
            IF j = i + 1 THEN
                RAISE EXCEPTION 'JSON path error near ''%''', substr(path, i);
            END IF;
            steps := steps || ('.' || substr(path, i + 1, j - i - 1));
            i := j;
        ELSIF substr(path, i, 1) = '[' THEN
            j := strpos(substr(path, i), ']');
            IF j = 0 OR substr(path, i + 1, j - 2) !~ '^([0-9]+|#)$' THEN
                RAISE EXCEPTION 'JSON path error near ''%''', substr(path, i);
            END IF;
            steps := steps || substr(path, i, j);
            i := i + j;
        ELSE
            RAISE EXCEPTION 'JSON path error near ''%''', substr(path, i);
        END IF;
    END LOOP;
    RETURN steps;
END
$$;

-- A JSON value as SQLite writes it: minified, members in order, scalars
-- as their tokens.
CREATE OR REPLACE FUNCTION ari_json_min(v json) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    out text;
BEGIN
    CASE json_typeof(v)
    WHEN 'object' THEN
        SELECT '{' || coalesce(string_agg(to_json(e.key)::text || ':' || ari_json_min(e.value), ','
                                          ORDER BY e.n), '') || '}'
          INTO out FROM json_each(v) WITH ORDINALITY AS e(key, value, n);
    WHEN 'array' THEN
        SELECT '[' || coalesce(string_agg(ari_json_min(e.value), ',' ORDER BY e.n), '') || ']'
          INTO out FROM json_array_elements(v) WITH ORDINALITY AS e(value, n);
    ELSE
        out := btrim(v::text, E' \t\r\n');
    END CASE;
    RETURN out;
END
$$;

-- The value at the steps of a path, or NULL if there is none.
CREATE OR REPLACE FUNCTION ari_json_at(doc json, steps text[]) RETURNS json
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    step text;
BEGIN
    FOREACH step IN ARRAY steps LOOP
        EXIT WHEN doc IS NULL;
        IF left(step, 1) = '.' AND json_typeof(doc) = 'object' THEN
            doc := doc -> substr(step, 2);
        ELSIF left(step, 1) = '[' AND step <> '[#]' AND json_typeof(doc) = 'array' THEN
            doc := doc -> substr(step, 2, length(step) - 2)::int;
        ELSE
            doc := NULL;
        END IF;
    END LOOP;
    RETURN doc;
END
$$;

-- SQLite's type name of a JSON value.
CREATE OR REPLACE FUNCTION ari_json_type_name(v json) RETURNS text
LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT CASE json_typeof(v)
        WHEN 'string' THEN 'text'
        WHEN 'boolean' THEN v::text
        WHEN 'number' THEN CASE WHEN v::text ~ '[.eE]' THEN 'real' ELSE 'integer' END
        ELSE json_typeof(v) END
$$;

-- A real token as SQLite's text of the double it reads: 2.50 -> 2.5,
-- 1.5e2 -> 150.0, 1e20 -> 1.0e+20; digits as PostgreSQL's shortest exact
-- form (extra_float_digits = 1), so that the double read back is the same.
CREATE OR REPLACE FUNCTION ari_json_real(token text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT SET extra_float_digits = 1 AS $$
    SELECT CASE WHEN r ~ '[.eEnN]' THEN regexp_replace(r, '^(-?[0-9]+)e', '\1.0e') ELSE r || '.0' END
      FROM (SELECT token::float8::text AS r) AS q
$$;

-- A JSON value as SQLite's functions return it to SQL: a string unquoted,
-- true/false as 1/0, null as NULL, an integer as its token, a real as
-- ari_json_real, an array or an object minified. (SQLite's are typed
-- values; here text, which the store reads as a number where it wants one.)
CREATE OR REPLACE FUNCTION ari_json_sql(v json) RETURNS text
LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT CASE json_typeof(v)
        WHEN 'string' THEN v #>> '{}'
        WHEN 'boolean' THEN CASE WHEN v::text = 'true' THEN '1' ELSE '0' END
        WHEN 'null' THEN NULL
        WHEN 'number' THEN CASE WHEN v::text ~ '[.eE]' THEN ari_json_real(btrim(v::text, E' \t\r\n'))
                                ELSE btrim(v::text, E' \t\r\n') END
        ELSE ari_json_min(v) END
$$;

-- false for NULL, as SQLite 3.40 (0).
CREATE OR REPLACE FUNCTION json_valid(doc text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    IF doc IS NULL THEN
        RETURN false;
    END IF;
    PERFORM doc::json;
    RETURN true;
EXCEPTION WHEN others THEN
    RETURN false;
END
$$;

CREATE OR REPLACE FUNCTION json_extract(doc text, path text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT ari_json_sql(ari_json_at(doc::json, ari_json_path(path)))
$$;

-- doc -> path: the JSON text of the value (SQLite's `->`).
CREATE OR REPLACE FUNCTION ari_json_arrow(doc text, path text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT ari_json_min(ari_json_at(doc::json, ari_json_path(path)))
$$;

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_operator WHERE oprname = '->>'
                   AND oprleft = 'text'::regtype AND oprright = 'text'::regtype) THEN
        CREATE OPERATOR ->> (LEFTARG = text, RIGHTARG = text, FUNCTION = json_extract);
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_operator WHERE oprname = '->'
                   AND oprleft = 'text'::regtype AND oprright = 'text'::regtype) THEN
        CREATE OPERATOR -> (LEFTARG = text, RIGHTARG = text, FUNCTION = ari_json_arrow);
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION json_type(doc text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT ari_json_type_name(doc::json)
$$;

CREATE OR REPLACE FUNCTION json_type(doc text, path text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT ari_json_type_name(ari_json_at(doc::json, ari_json_path(path)))
$$;

CREATE OR REPLACE FUNCTION json_array_length(doc text) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT CASE WHEN json_typeof(doc::json) = 'array' THEN json_array_length(doc::json)::bigint ELSE 0 END
$$;

-- The members of an object or the elements of an array (a scalar: itself),
-- SQLite's columns: key (text; an element's index as text), value and atom
-- as ari_json_sql, type as SQLite names it, id rising in document order
-- (as SQLite's), parent NULL, fullkey and path.
-- ROWS 20, the planner's guess (not 1000), keeps the estimated cost of the
-- job listing (store_jobs.c) under the JIT threshold.
CREATE OR REPLACE FUNCTION json_each(doc text, root text DEFAULT '$')
RETURNS TABLE(key text, value text, type text, atom text, id bigint, parent bigint, fullkey text, path text)
LANGUAGE plpgsql IMMUTABLE ROWS 20 AS $$
#variable_conflict use_column
DECLARE
    v json;
BEGIN
    IF doc IS NULL OR root IS NULL THEN
        RETURN;
    END IF;
    v := ari_json_at(doc::json, ari_json_path(root));
    IF v IS NULL THEN
        RETURN;
    END IF;
    CASE json_typeof(v)
    WHEN 'object' THEN
        RETURN QUERY SELECT e.k, ari_json_sql(e.v), ari_json_type_name(e.v),
            CASE WHEN json_typeof(e.v) IN ('object', 'array') THEN NULL ELSE ari_json_sql(e.v) END,
            e.n, NULL::bigint,
            root || CASE WHEN e.k ~ '^[A-Za-z_][A-Za-z0-9_]*$' THEN '.' || e.k
                                   ELSE '."' || e.k || '"' END,
            root
          FROM json_each(v) WITH ORDINALITY AS e(k, v, n);
    WHEN 'array' THEN
        RETURN QUERY SELECT (e.n - 1)::text, ari_json_sql(e.v), ari_json_type_name(e.v),
            CASE WHEN json_typeof(e.v) IN ('object', 'array') THEN NULL ELSE ari_json_sql(e.v) END,
            e.n, NULL::bigint, root || '[' || (e.n - 1) || ']', root
          FROM json_array_elements(v) WITH ORDINALITY AS e(v, n);
    ELSE
        RETURN QUERY SELECT NULL::text, ari_json_sql(v), ari_json_type_name(v), ari_json_sql(v),
            1::bigint, NULL::bigint, root, root;
    END CASE;
END
$$;

-- RFC 7396 merge of patch into target, as SQLite's json_patch: members
-- keep their place, new ones come last, a null member removes one.
CREATE OR REPLACE FUNCTION ari_json_merge(target json, patch json) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    parts text[] := '{}';
    e record;
    p json;
BEGIN
    IF patch IS NULL OR json_typeof(patch) <> 'object' THEN
        RETURN ari_json_min(patch);
    END IF;
    IF target IS NOT NULL AND json_typeof(target) = 'object' THEN
        FOR e IN SELECT t.key, t.value FROM json_each(target) WITH ORDINALITY AS t(key, value, n) ORDER BY t.n LOOP
            p := patch -> e.key;
            IF p IS NULL THEN
                parts := parts || (to_json(e.key)::text || ':' || ari_json_min(e.value));
            ELSIF json_typeof(p) <> 'null' THEN
                parts := parts || (to_json(e.key)::text || ':' || ari_json_merge(e.value, p));
            END IF;
        END LOOP;
    END IF;
    FOR e IN SELECT t.key, t.value FROM json_each(patch) WITH ORDINALITY AS t(key, value, n) ORDER BY t.n LOOP
        IF json_typeof(e.value) <> 'null'
           AND (target IS NULL OR json_typeof(target) <> 'object' OR (target -> e.key) IS NULL) THEN
            parts := parts || (to_json(e.key)::text || ':' || ari_json_merge(NULL, e.value));
        END IF;
    END LOOP;
    RETURN '{' || array_to_string(parts, ',') || '}';
END
$$;

CREATE OR REPLACE FUNCTION json_patch(target text, patch text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT ari_json_merge(target::json, patch::json)
$$;

CREATE OR REPLACE FUNCTION json_patch(target text, patch json) RETURNS text
LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT ari_json_merge(target::json, patch)
$$;

-- json_set (replace = true, insert = true) and json_insert (replace =
-- false): the document with val (minified JSON text) at the steps; a
-- missing member is added (and objects made for the rest of the path); an
-- element is added at [#] or at the array's length.
CREATE OR REPLACE FUNCTION ari_json_put(doc json, steps text[], val text, replace boolean) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    step text := steps[1];
    rest text[] := steps[2:];
    parts text[] := '{}';
    e record;
    found boolean := false;
    idx int;
    len int;
BEGIN
    IF step IS NULL THEN
        RETURN CASE WHEN replace THEN val ELSE ari_json_min(doc) END;
    END IF;
    IF doc IS NULL THEN  -- a missing member: made of the rest of the path
        IF left(step, 1) <> '.' THEN
            RETURN NULL;
        END IF;
        RETURN '{' || to_json(substr(step, 2))::text || ':' || ari_json_put(NULL, rest, val, replace) || '}';
    END IF;
    IF left(step, 1) = '.' AND json_typeof(doc) = 'object' THEN
        FOR e IN SELECT t.key, t.value FROM json_each(doc) WITH ORDINALITY AS t(key, value, n) ORDER BY t.n LOOP
            IF NOT found AND e.key = substr(step, 2) THEN
                found := true;
                parts := parts || (to_json(e.key)::text || ':' || ari_json_put(e.value, rest, val, replace));
            ELSE
                parts := parts || (to_json(e.key)::text || ':' || ari_json_min(e.value));
            END IF;
        END LOOP;
        IF NOT found THEN
            parts := parts || (to_json(substr(step, 2))::text || ':' || ari_json_put(NULL, rest, val, replace));
        END IF;
        RETURN '{' || array_to_string(parts, ',') || '}';
    END IF;
    IF left(step, 1) = '[' AND json_typeof(doc) = 'array' THEN
        len := json_array_length(doc);
        idx := CASE WHEN step = '[#]' THEN len ELSE substr(step, 2, length(step) - 2)::int END;
        SELECT coalesce(array_agg(CASE WHEN t.n - 1 = idx THEN ari_json_put(t.value, rest, val, replace)
                                       ELSE ari_json_min(t.value) END ORDER BY t.n), '{}')
          INTO parts FROM json_array_elements(doc) WITH ORDINALITY AS t(value, n);
        IF idx = len AND rest = '{}' THEN
            parts := parts || val;
        END IF;
        RETURN '[' || array_to_string(parts, ',') || ']';
    END IF;
    RETURN ari_json_min(doc);
END
$$;

-- A SQL value as SQLite stores it in a document.
CREATE OR REPLACE FUNCTION ari_json_of(v text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT coalesce(to_json(v)::text, 'null') $$;
CREATE OR REPLACE FUNCTION ari_json_of(v bigint) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT coalesce(v::text, 'null') $$;
CREATE OR REPLACE FUNCTION ari_json_of(v double precision) RETURNS text
LANGUAGE sql IMMUTABLE SET extra_float_digits = 0 AS $$
    SELECT CASE WHEN v IS NULL THEN 'null'
                WHEN v::text ~ '[.eEnN]' THEN regexp_replace(v::text, '^(-?[0-9]+)e', '\1.0e')
                ELSE v::text || '.0' END
$$;
CREATE OR REPLACE FUNCTION ari_json_of(v json) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT coalesce(ari_json_min(v), 'null') $$;

CREATE OR REPLACE FUNCTION json_set(doc text, path text, val text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT ari_json_put(doc::json, ari_json_path(path), ari_json_of(val), true) $$;
CREATE OR REPLACE FUNCTION json_set(doc text, path text, val bigint) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT ari_json_put(doc::json, ari_json_path(path), ari_json_of(val), true) $$;
CREATE OR REPLACE FUNCTION json_set(doc text, path text, val integer) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT ari_json_put(doc::json, ari_json_path(path), ari_json_of(val::bigint), true) $$;
CREATE OR REPLACE FUNCTION json_set(doc text, path text, val double precision) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT ari_json_put(doc::json, ari_json_path(path), ari_json_of(val), true) $$;
CREATE OR REPLACE FUNCTION json_set(doc text, path text, val json) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT ari_json_put(doc::json, ari_json_path(path), ari_json_of(val), true) $$;

CREATE OR REPLACE FUNCTION json_insert(doc text, path text, val text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT ari_json_put(doc::json, ari_json_path(path), ari_json_of(val), false) $$;
CREATE OR REPLACE FUNCTION json_insert(doc text, path text, val bigint) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT ari_json_put(doc::json, ari_json_path(path), ari_json_of(val), false) $$;
CREATE OR REPLACE FUNCTION json_insert(doc text, path text, val integer) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT ari_json_put(doc::json, ari_json_path(path), ari_json_of(val::bigint), false) $$;
CREATE OR REPLACE FUNCTION json_insert(doc text, path text, val double precision) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT ari_json_put(doc::json, ari_json_path(path), ari_json_of(val), false) $$;
CREATE OR REPLACE FUNCTION json_insert(doc text, path text, val json) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT ari_json_put(doc::json, ari_json_path(path), ari_json_of(val), false) $$;

-- ---- time: SQLite's strftime over 'now' or an ISO-8601 time (UTC) ----
-- Formats %Y %m %d %H %M %S %f %j %s %%; modifiers '+N unit' / '-N unit'
-- (seconds, minutes, hours, days). 'now' is the statement's time, as in
-- SQLite (one value for the whole statement).
CREATE OR REPLACE FUNCTION strftime(fmt text, tv text, VARIADIC mods text[] DEFAULT '{}') RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
    ts timestamp;
    m text;
    out text := '';
    i int := 1;
    c text;
BEGIN
    IF fmt IS NULL OR tv IS NULL THEN
        RETURN NULL;
    END IF;
    IF tv = 'now' THEN
        ts := statement_timestamp() AT TIME ZONE 'UTC';
    ELSE
        BEGIN
            ts := rtrim(tv, 'Z')::timestamp;
        EXCEPTION WHEN others THEN
            RETURN NULL;
        END;
    END IF;
    FOREACH m IN ARRAY mods LOOP
        IF m !~* '^\s*[-+]?[0-9]+(\.[0-9]*)?\s+(second|minute|hour|day)s?\s*$' THEN
            RETURN NULL;
        END IF;
        ts := ts + m::interval;
    END LOOP;
    WHILE i <= length(fmt) LOOP
        c := substr(fmt, i, 1);
        IF c = '%' THEN
            i := i + 1;
            c := substr(fmt, i, 1);
            out := out || CASE c
                WHEN 'Y' THEN to_char(ts, 'YYYY') WHEN 'm' THEN to_char(ts, 'MM')
                WHEN 'd' THEN to_char(ts, 'DD') WHEN 'H' THEN to_char(ts, 'HH24')
                WHEN 'M' THEN to_char(ts, 'MI') WHEN 'S' THEN to_char(ts, 'SS')
                WHEN 'f' THEN to_char(ts, 'SS.MS') WHEN 'j' THEN to_char(ts, 'DDD')
                WHEN 's' THEN floor(extract(epoch FROM ts))::bigint::text
                WHEN '%' THEN '%' END;
            IF c NOT IN ('Y', 'm', 'd', 'H', 'M', 'S', 'f', 'j', 's', '%') THEN
                RETURN NULL;
            END IF;
        ELSE
            out := out || c;
        END IF;
        i := i + 1;
    END LOOP;
    RETURN out;
END
$$;

-- ---- numbers as text ----
-- A double as SQLite's "%.15g" when that reads back as the same double,
-- else PostgreSQL's shortest exact form: store_ensembles.c's metadata
-- values (SQLite's printf('%.17g') prints at most 16 correct digits, which
-- PostgreSQL has no way to reproduce; both are exact there).
CREATE OR REPLACE FUNCTION ari_real_15g(v double precision) RETURNS text
LANGUAGE sql IMMUTABLE STRICT SET extra_float_digits = 0 AS $$ SELECT v::text $$;
CREATE OR REPLACE FUNCTION ari_real_shortest(v double precision) RETURNS text
LANGUAGE sql IMMUTABLE STRICT SET extra_float_digits = 1 AS $$ SELECT v::text $$;
CREATE OR REPLACE FUNCTION ari_real_text(v double precision) RETURNS text
LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT CASE WHEN ari_real_15g(v)::double precision = v THEN ari_real_15g(v) ELSE ari_real_shortest(v) END
$$;

-- ---- profiles: the super graph's sums per process (src/store/supergraph_queries.c) ----
-- ari_vsum(sign, v ORDER BY ...): the element-wise sum of the vectors v
-- (one float8 per process) times sign, from zeros, in the aggregate's
-- order, NULL elements (unmeasured) skipped: fill_metrics' add_row in
-- src/analysis/supergraph.c, addition for addition, so the sums are the C
-- code's bit for bit.
CREATE OR REPLACE FUNCTION ari_vadd(acc float8[], sgn float8, v float8[]) RETURNS float8[]
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    IF acc IS NULL THEN
        acc := array_fill(0::float8, ARRAY[cardinality(v)]);
    END IF;
    FOR i IN 1 .. cardinality(v) LOOP
        IF v[i] IS NOT NULL THEN
            acc[i] := acc[i] + sgn * v[i];
        END IF;
    END LOOP;
    RETURN acc;
END
$$;
CREATE OR REPLACE AGGREGATE ari_vsum(float8, float8[]) (SFUNC = ari_vadd, STYPE = float8[]);
