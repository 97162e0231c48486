-- Prebuilt OCI images as a source. An image artifact keeps how its image runs (its Env and WorkingDir, as JSON) in
-- image_run, and the image it was pulled as, <repository>@sha256:<digest>, in image. A project of source 'image'
-- keeps its image reference in repo; a deployment keeps the image it was asked for, then the digest it resolved to.
ALTER TABLE artifacts ADD COLUMN image_run VARCHAR(16000);
ALTER TABLE deployments ADD COLUMN image VARCHAR(512);
-- A project's login to the registry its images come from (a private prebuilt image, a Dockerfile's private base
-- images). The password is sealed with the store's secret key, as env var values are; it is never returned.
CREATE TABLE project_registry_logins (
    project_id   VARCHAR(40)   PRIMARY KEY REFERENCES projects(id),
    registry     VARCHAR(260)  NOT NULL,
    username     VARCHAR(200)  NOT NULL,
    password_enc VARCHAR(8000) NOT NULL
);
-- The Dockerfile a project builds, relative to its app's folder (null: Dockerfile, when there is one).
ALTER TABLE projects ADD COLUMN dockerfile_path VARCHAR(255);
