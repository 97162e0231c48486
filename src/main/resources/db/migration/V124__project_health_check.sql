-- PATCH /v1/projects/{id} health_check: the project's own health check (JSON), over its slipway.toml's; null: the
-- file's, else the default. The previous version ignores it.
ALTER TABLE projects ADD COLUMN health_check VARCHAR(1000);
