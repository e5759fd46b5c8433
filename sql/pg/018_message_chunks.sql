-- 018_message_chunks (PostgreSQL): mirrors sql/018_message_chunks.sql, an
-- event trace's matched messages packed in chunks of 2,048 little-endian
-- records of 56 bytes (the layout is described there and in
-- src/store/message_chunks.h). Partitioned by trace like state_chunks
-- (016): the key already starts with trace_id.
CREATE TABLE message_chunks (
    trace_id bigint NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    chunk    bigint NOT NULL,            -- 0, 1, ... per trace, in matching order
    t0       double precision NOT NULL,  -- smallest send_time of its messages
    t1       double precision NOT NULL,  -- largest recv_time of its messages
    n        bigint NOT NULL,            -- messages in data (1 to 2,048)
    data     bytea NOT NULL,             -- n records of 56 bytes
    PRIMARY KEY (trace_id, chunk)
) PARTITION BY LIST (trace_id);
CREATE TABLE message_chunks_default PARTITION OF message_chunks DEFAULT;
