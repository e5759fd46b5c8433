-- 019_event_chunks (PostgreSQL): mirrors sql/019_event_chunks.sql, the
-- instants of an event trace packed in chunks of up to 1,024 events per
-- container (the record layout is described there and in
-- src/store/event_chunks.h). Partitioned by trace like state_chunks (016):
-- the key already starts with trace_id.
CREATE TABLE event_chunks (
    trace_id     bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    container_id bigint NOT NULL,
    chunk        bigint NOT NULL,            -- 0, 1, ... per container
    t0           double precision NOT NULL,
    t1           double precision NOT NULL,
    n            bigint NOT NULL,            -- events in data (1 to 1,024)
    data         bytea NOT NULL,
    PRIMARY KEY (trace_id, container_id, chunk)
) PARTITION BY LIST (trace_id);
CREATE TABLE event_chunks_default PARTITION OF event_chunks DEFAULT;
