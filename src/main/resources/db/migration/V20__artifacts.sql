-- Build results (dev.slipway.build.ArtifactStore). The files live under <data dir>/artifacts/<id>;
-- a row whose directory is gone (another node's data dir, a wiped disk) reads as missing, and the
-- caller rebuilds from the same commit.
CREATE TABLE artifacts (
    id                VARCHAR(40)   PRIMARY KEY,
    project_id        VARCHAR(40)   NOT NULL,
    framework         VARCHAR(20)   NOT NULL,
    commit_sha        VARCHAR(64),
    root              VARCHAR(1024) NOT NULL,
    start_command     VARCHAR(8000) NOT NULL,
    static_root       VARCHAR(1024),
    size_bytes        BIGINT        NOT NULL,
    build_duration_ms BIGINT        NOT NULL,
    created_at        TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX artifacts_project ON artifacts(project_id, created_at DESC, id DESC);
