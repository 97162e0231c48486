-- The newest commit status of each deployment of a git project with a token, waiting to be reported to its git host
-- (GitHub's statuses API, GitLab's commit status API, Bitbucket's build statuses). One row per deployment: a newer
-- state replaces one not sent yet (version counts the replacements). next_attempt_at null: sent, or given up.
CREATE TABLE commit_statuses (
    deployment_id   VARCHAR(40)   PRIMARY KEY,
    project_id      VARCHAR(40)   NOT NULL,
    source          VARCHAR(20)   NOT NULL,
    repo            VARCHAR(300)  NOT NULL,
    commit_sha      VARCHAR(64)   NOT NULL,
    context         VARCHAR(100)  NOT NULL,
    state           VARCHAR(20)   NOT NULL,
    description     VARCHAR(300)  NOT NULL,
    target_url      VARCHAR(2000) NOT NULL,
    version         INT           NOT NULL,
    attempts        INT           NOT NULL,
    next_attempt_at TIMESTAMP WITH TIME ZONE,
    lease_owner     VARCHAR(100),
    lease_until     TIMESTAMP WITH TIME ZONE,
    last_error      VARCHAR(1000),
    updated_at      TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX commit_statuses_due ON commit_statuses(next_attempt_at);
-- Whether the project's deployments are reported as commit statuses with its token (null: yes).
ALTER TABLE project_git ADD COLUMN commit_statuses BOOLEAN;
