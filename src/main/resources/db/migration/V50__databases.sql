-- A project's database: made by Slipway on the operator's server (action create) or an existing one
-- it connects to (action connect). secret_enc is the password or service_key, sealed (AES-GCM) and
-- wiped when the database is dropped. state: provisioning -> ready; dropped (removed or detached after
-- its migration failed); failed (removing it failed: retried by housekeeping).
CREATE TABLE databases (
    id           VARCHAR(40)  PRIMARY KEY,
    account_id   VARCHAR(40)  NOT NULL REFERENCES accounts(id),
    project_id   VARCHAR(40)  NOT NULL REFERENCES projects(id),
    migration_id VARCHAR(40),
    type         VARCHAR(20)  NOT NULL,
    action       VARCHAR(20)  NOT NULL,
    host         VARCHAR(255) NOT NULL,
    port         INTEGER      NOT NULL,
    db_name      VARCHAR(128) NOT NULL,
    username     VARCHAR(128) NOT NULL,
    options      VARCHAR(2000),
    secret_enc   VARCHAR(4000),
    state        VARCHAR(20)  NOT NULL,
    created_at   TIMESTAMP WITH TIME ZONE NOT NULL,
    updated_at   TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX databases_project ON databases(project_id, created_at);
CREATE INDEX databases_state ON databases(state);
