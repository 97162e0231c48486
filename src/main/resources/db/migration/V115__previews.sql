-- A deployment's target: production (it replaces production when live) or preview (served at its own address only,
-- never production, never in production's rollback history). promoted_from: the preview a promotion reuses the build of.
ALTER TABLE deployments ADD COLUMN target VARCHAR(20) DEFAULT 'production' NOT NULL;
ALTER TABLE deployments ADD COLUMN promoted_from VARCHAR(40);
-- What a push deploys: 'tags' (a pushed tag's commit) instead of pushes to the branch (null: the branch).
ALTER TABLE project_git ADD COLUMN deploy_on_push VARCHAR(10);
-- A preview gets the project's database only when its request said so (share_database).
ALTER TABLE deployments ADD COLUMN share_database BOOLEAN DEFAULT FALSE NOT NULL;
