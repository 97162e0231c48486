-- A project's own alert rules: its error rate and p95 latency thresholds, each held for some minutes before it fires.
-- No row: the defaults (half of 10 or more requests answering 5xx in one sample; no latency rule).
CREATE TABLE alert_rules (
    project_id         VARCHAR(40) PRIMARY KEY,
    error_percent      INTEGER,
    error_minutes      INTEGER,
    error_min_requests INTEGER,
    p95_ms             INTEGER,
    p95_minutes        INTEGER,
    updated_at         TIMESTAMP WITH TIME ZONE NOT NULL
);
