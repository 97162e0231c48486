-- What each project's apps used and served, per server: a sample every 10 seconds (kept an hour), and five minutes of
-- them rolled up into one row (kept 7 days). Latency is an HDR histogram (compressed, base64), so that rollups and the
-- servers' rows merge exactly.
CREATE TABLE app_usage (
    project_id         VARCHAR(40)  NOT NULL,
    node               VARCHAR(100) NOT NULL,
    step_seconds       INTEGER      NOT NULL,
    at                 TIMESTAMP WITH TIME ZONE NOT NULL,
    cpu_seconds        DOUBLE PRECISION NOT NULL,
    memory_bytes       BIGINT       NOT NULL,
    memory_limit_bytes BIGINT       NOT NULL,
    processes          INTEGER      NOT NULL,
    oom_kills          BIGINT       NOT NULL,
    restarts           INTEGER      NOT NULL,
    requests           BIGINT       NOT NULL,
    errors_5xx         BIGINT       NOT NULL,
    bytes_out          BIGINT       NOT NULL,
    latency            VARCHAR(20000),
    PRIMARY KEY (project_id, node, step_seconds, at)
);
CREATE INDEX app_usage_age ON app_usage(step_seconds, at);
