-- An alert fires once per incident and says once when it resolves: open_key is set while it is open (one open
-- incident per project, kind and server), and cleared when it resolves.
CREATE TABLE alert_incidents (
    id          VARCHAR(40)  PRIMARY KEY,
    project_id  VARCHAR(40)  NOT NULL,
    kind        VARCHAR(40)  NOT NULL,
    node        VARCHAR(100) NOT NULL,
    open_key    VARCHAR(200) UNIQUE,
    detail      VARCHAR(2000) NOT NULL,
    opened_at   TIMESTAMP WITH TIME ZONE NOT NULL,
    resolved_at TIMESTAMP WITH TIME ZONE
);
CREATE INDEX alert_incidents_project ON alert_incidents(project_id, opened_at);
