-- The servers of this store that run without a working sandbox (--isolation=auto, the start check failed): the
-- part that failed and its fix. Each server writes its row at start and deletes it at a clean stop; the operator
-- commands, another process, refuse new accounts (and keys and users for any account but the first) while one is here.
CREATE TABLE servers_without_sandbox (
    node_id    VARCHAR(64)   PRIMARY KEY,
    part       VARCHAR(100)  NOT NULL,
    detail     VARCHAR(4000) NOT NULL,
    fix        VARCHAR(1000) NOT NULL,
    checked_at TIMESTAMP WITH TIME ZONE NOT NULL
);
