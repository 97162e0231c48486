-- When each env var last changed (GET /v1/projects/{id}/env). A row an earlier version wrote has none: it reads as
-- changed when its project was made.
ALTER TABLE project_env_vars ADD COLUMN updated_at TIMESTAMP WITH TIME ZONE;
-- A value of the longest allowed (32 KiB) is longer than 8,000 characters once sealed. Wider only: the previous
-- version reads and writes the column as before.
ALTER TABLE project_env_vars ALTER COLUMN value_enc SET DATA TYPE VARCHAR(64000);
