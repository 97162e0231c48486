-- Automatic HTTPS (issue 18). One row per domain the server keeps a certificate for: its state, the
-- certificate chain and private key (both sealed with the server key), and the claim that lets exactly one
-- server of those sharing the store work on its ACME order at a time.
CREATE TABLE certificates (
    domain          VARCHAR(253) PRIMARY KEY,
    status          VARCHAR(16)  NOT NULL,
    chain_enc       TEXT,
    key_enc         TEXT,
    serial          VARCHAR(64),
    expires_at      TIMESTAMP WITH TIME ZONE,
    last_error      VARCHAR(2000),
    attempts        INT          NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMP WITH TIME ZONE NOT NULL,
    claimed_by      VARCHAR(64),
    claimed_until   TIMESTAMP WITH TIME ZONE,
    updated_at      TIMESTAMP WITH TIME ZONE NOT NULL
);

-- The ACME account of each directory: its key pair (sealed) and its URL at the CA.
CREATE TABLE acme_accounts (
    directory_url VARCHAR(500) PRIMARY KEY,
    key_enc       TEXT         NOT NULL,
    location      VARCHAR(500),
    created_at    TIMESTAMP WITH TIME ZONE NOT NULL
);

-- HTTP-01 challenges in flight: any server on the store answers /.well-known/acme-challenge/<token>.
CREATE TABLE acme_challenges (
    token      VARCHAR(200) PRIMARY KEY,
    domain     VARCHAR(253) NOT NULL,
    content    VARCHAR(500) NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL
);

-- Strict-Transport-Security on the project's HTTPS answers, opted into per project.
ALTER TABLE projects ADD COLUMN hsts BOOLEAN NOT NULL DEFAULT FALSE;
