-- 007_token_origin.sql: tokens created through POST /api/v1/tokens while
-- the server ran without auth. Anyone who could reach that server could
-- create them, so a server with auth refuses them. Tokens created on the
-- command line (`ariadned token create`) are trusted and keep 0.
ALTER TABLE tokens ADD COLUMN created_without_auth INTEGER NOT NULL DEFAULT 0;
