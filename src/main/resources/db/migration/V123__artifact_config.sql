-- What a build's slipway.toml said, as JSON (null: it had none): recorded with the build, shown in the deployment
-- read, and read when its app, cron runs and volumes start. The previous version ignores it.
ALTER TABLE artifacts ADD COLUMN config VARCHAR(64000);
