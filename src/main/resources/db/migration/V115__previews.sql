-- A deployment's target: production (it replaces production when live) or preview (served at its own address only,
-- never production, never in production's rollback history). promoted_from: the preview a promotion reuses the build of.
ALTER TABLE deployments ADD COLUMN target VARCHAR(20) DEFAULT 'production' NOT NULL;
ALTER TABLE deployments ADD COLUMN promoted_from VARCHAR(40);
