CREATE TABLE accounts (
    id          VARCHAR(40)  PRIMARY KEY,
    name        VARCHAR(100) NOT NULL UNIQUE,
    tier        VARCHAR(10)  NOT NULL,
    rate_limit  INTEGER,
    created_at  TIMESTAMP WITH TIME ZONE NOT NULL
);

CREATE TABLE api_keys (
    id           VARCHAR(40)  PRIMARY KEY,
    account_id   VARCHAR(40)  NOT NULL REFERENCES accounts(id),
    name         VARCHAR(100) NOT NULL,
    prefix       VARCHAR(20)  NOT NULL,
    key_hash     VARCHAR(64)  NOT NULL UNIQUE,
    created_at   TIMESTAMP WITH TIME ZONE NOT NULL,
    last_used_at TIMESTAMP WITH TIME ZONE,
    revoked_at   TIMESTAMP WITH TIME ZONE
);
CREATE INDEX api_keys_account ON api_keys(account_id, created_at);

CREATE TABLE projects (
    id                       VARCHAR(40)  PRIMARY KEY,
    account_id               VARCHAR(40)  NOT NULL REFERENCES accounts(id),
    name                     VARCHAR(63)  NOT NULL UNIQUE,
    source                   VARCHAR(20)  NOT NULL,
    repo                     VARCHAR(200),
    branch                   VARCHAR(255),
    framework                VARCHAR(20),
    region                   VARCHAR(40)  NOT NULL,
    domain                   VARCHAR(253) UNIQUE,
    production_deployment_id VARCHAR(40),
    created_at               TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX projects_account_page ON projects(account_id, created_at DESC, id DESC);

CREATE TABLE project_env_vars (
    project_id VARCHAR(40)  NOT NULL REFERENCES projects(id),
    name       VARCHAR(255) NOT NULL,
    value_enc  VARCHAR(8000) NOT NULL,
    PRIMARY KEY (project_id, name)
);

-- Bucket4j's distributed buckets (used only on PostgreSQL, where every server shares the limit).
CREATE TABLE rate_limit_buckets (
    id         VARCHAR(200) PRIMARY KEY,
    state      BYTEA,
    expires_at BIGINT
);
