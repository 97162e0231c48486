-- What each node should run, so that a restarted server kills its leftovers and runs its apps again.
CREATE TABLE runtime_instances (
    deployment_id VARCHAR(40)  PRIMARY KEY,
    project_id    VARCHAR(40)  NOT NULL,
    artifact      VARCHAR      NOT NULL,  -- JSON: every field of the build artifact
    env_enc       VARCHAR      NOT NULL,  -- SecretBox-sealed JSON {env, secrets}; never in clear
    desired_state VARCHAR(16)  NOT NULL,  -- RUNNING, or STOPPED while a stop is under way
    owner_node    VARCHAR(100) NOT NULL,  -- the server (data dir) that runs it
    port          INTEGER      NOT NULL,
    pid           BIGINT,
    pgid          BIGINT,
    started_at    TIMESTAMP WITH TIME ZONE,
    stop_after    TIMESTAMP WITH TIME ZONE, -- set while retired: replaced production kept warm until then
    updated_at    TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX runtime_instances_owner ON runtime_instances(owner_node);
