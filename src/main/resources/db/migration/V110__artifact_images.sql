-- The OCI image pushed for an artifact (issue 19): <repository>@sha256:<digest>; null when images are off,
-- for static sites, and for artifacts built before. A rollback reuses the artifact, so its image too.
ALTER TABLE artifacts ADD COLUMN image VARCHAR(512);
