-- DELETE /v1/projects/{id}: from deleting_at on, the project is gone for the API while its apps, files and rows are
-- removed (a job that resumes after a crash); the row goes last. The previous version ignores both columns.
ALTER TABLE projects ADD COLUMN deleting_at TIMESTAMP WITH TIME ZONE;
ALTER TABLE projects ADD COLUMN delete_database BOOLEAN NOT NULL DEFAULT FALSE;
