-- A project's git settings, one row per project that has any. Its credentials for a private repository: an HTTPS
-- token (credential_type 'token', with an optional user name) or an SSH deploy key the server made ('ssh', the
-- private key in secret_enc and its public half shown). Secrets are sealed with the store's secret key, as env var
-- values are, and never returned. watch_paths: a JSON array of globs; a push that changes none of them is skipped.
-- The push webhook: its id is the last part of its URL, its secret verifies the git host's signature. The deploy
-- hook: a URL whose last part is its secret, kept as a SHA-256 only.
CREATE TABLE project_git (
    project_id         VARCHAR(40)   PRIMARY KEY REFERENCES projects(id),
    credential_type    VARCHAR(10),
    username           VARCHAR(200),
    secret_enc         VARCHAR(8000),
    ssh_public_key     VARCHAR(1000),
    watch_paths        VARCHAR(8000),
    webhook_id         VARCHAR(40)   UNIQUE,
    webhook_secret_enc VARCHAR(8000),
    webhook_created_at TIMESTAMP WITH TIME ZONE,
    deploy_hook_hash   VARCHAR(64)   UNIQUE
);
-- Push deliveries a webhook accepted, by the delivery id the git host gave: a second delivery with the same id is a
-- replay and is refused. Kept for 90 days.
CREATE TABLE git_push_deliveries (
    webhook_id  VARCHAR(40)  NOT NULL,
    delivery_id VARCHAR(200) NOT NULL,
    received_at TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (webhook_id, delivery_id)
);
CREATE INDEX git_push_deliveries_age ON git_push_deliveries(received_at);
-- The SSH host key of each git host, recorded the first time the server connects to it (host as host:port): a host
-- that later shows another key is refused.
CREATE TABLE git_host_keys (
    host          VARCHAR(300)  PRIMARY KEY,
    public_key    VARCHAR(4000) NOT NULL,
    first_seen_at TIMESTAMP WITH TIME ZONE NOT NULL
);
