-- Zip sources (DESIGN §3 Zip source): the bytes live in <data dir>/<path>, the row says whose they are.
CREATE TABLE uploads (
    id          VARCHAR(40)   PRIMARY KEY,
    account_id  VARCHAR(40)   NOT NULL REFERENCES accounts(id),
    size_bytes  BIGINT        NOT NULL,
    sha256      VARCHAR(64)   NOT NULL,
    path        VARCHAR(1000) NOT NULL,
    created_at  TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX uploads_account ON uploads(account_id, created_at);
