-- A project's log drains: where its logs and request logs are shipped (syslog or HTTPS). The URL may hold a token, so it
-- is stored encrypted and shown with its query's values masked. The cursors are the last log entry and request line
-- shipped: a drain ships each line once, in order, from where it stopped.
CREATE TABLE log_drains (
    id             VARCHAR(40)   PRIMARY KEY,
    project_id     VARCHAR(40)   NOT NULL,
    account_id     VARCHAR(40)   NOT NULL,
    url_encrypted  VARCHAR(4000) NOT NULL,
    url_shown      VARCHAR(2100) NOT NULL,
    sources        VARCHAR(100)  NOT NULL,
    log_cursor     BIGINT        NOT NULL,
    request_cursor BIGINT        NOT NULL,
    lines_sent     BIGINT        NOT NULL DEFAULT 0,
    failures       INTEGER       NOT NULL DEFAULT 0,
    failing_since  TIMESTAMP WITH TIME ZONE,
    last_error     VARCHAR(1000),
    next_try_at    TIMESTAMP WITH TIME ZONE,
    lease_node     VARCHAR(100),
    lease_until    TIMESTAMP WITH TIME ZONE,
    created_at     TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX log_drains_project ON log_drains(project_id);
