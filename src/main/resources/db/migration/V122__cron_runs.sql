-- Every run of a project's cron jobs: one row per job and scheduled time (the unique key is what makes a time run
-- on one server only), with its status, exit code and times; its output is in log_entries under its id.
CREATE TABLE cron_runs (
    id            VARCHAR(40)  PRIMARY KEY,
    project_id    VARCHAR(40)  NOT NULL,
    deployment_id VARCHAR(40)  NOT NULL,
    name          VARCHAR(64)  NOT NULL,
    scheduled_for TIMESTAMP WITH TIME ZONE NOT NULL,
    status        VARCHAR(16)  NOT NULL,
    exit_code     INTEGER,
    reason        VARCHAR(500),
    owner_node    VARCHAR(100),
    heartbeat_at  TIMESTAMP WITH TIME ZONE,
    started_at    TIMESTAMP WITH TIME ZONE,
    finished_at   TIMESTAMP WITH TIME ZONE,
    created_at    TIMESTAMP WITH TIME ZONE NOT NULL,
    CONSTRAINT cron_runs_once UNIQUE (project_id, name, scheduled_for)
);
CREATE INDEX cron_runs_project_page ON cron_runs(project_id, created_at DESC, id DESC);
CREATE INDEX cron_runs_running ON cron_runs(status, heartbeat_at);
