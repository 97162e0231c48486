-- Prebuilt OCI images as a source. An image artifact keeps how its image runs (its Env and WorkingDir, as JSON) in
-- image_run, and the image it was pulled as, <repository>@sha256:<digest>, in image. A project of source 'image'
-- keeps its image reference in repo; a deployment keeps the image it was asked for, then the digest it resolved to.
ALTER TABLE artifacts ADD COLUMN image_run VARCHAR(16000);
ALTER TABLE deployments ADD COLUMN image VARCHAR(512);
