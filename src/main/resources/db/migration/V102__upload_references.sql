-- The upload sweep asks, for each old upload, whether a run still waiting to build needs it.
CREATE INDEX deployments_upload ON deployments(upload_id);
CREATE INDEX migrations_upload ON migrations(upload_id);
