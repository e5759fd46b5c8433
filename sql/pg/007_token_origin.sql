-- 007_token_origin (PostgreSQL): mirrors sql/007_token_origin.sql: tokens
-- created through POST /api/v1/tokens while the server ran without auth
-- (a server with auth refuses them); command-line tokens keep 0.
ALTER TABLE tokens ADD COLUMN created_without_auth bigint NOT NULL DEFAULT 0;
