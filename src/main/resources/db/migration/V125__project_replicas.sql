-- How many instances of web a project's deployments run (PATCH /v1/projects/{id}); null: its slipway.toml's, else one.
ALTER TABLE projects ADD COLUMN replicas INTEGER;
