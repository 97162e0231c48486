-- one unprivileged uid (and gid) per project: its apps and builds run as it under the sandbox (issue 14)
CREATE TABLE sandbox_identities (
    project_id  VARCHAR(64) PRIMARY KEY,
    uid         INTEGER     NOT NULL UNIQUE
);
