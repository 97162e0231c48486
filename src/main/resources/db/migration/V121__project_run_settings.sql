-- PATCH /v1/projects/{id} instance_type: the type of the project's next deployments (null: production's, else the
-- tier's default). The previous version ignores it.
ALTER TABLE projects ADD COLUMN instance_type VARCHAR(40);
