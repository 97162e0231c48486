-- The app's folder in its repository or zip (a monorepo's frontend/ or apps/web); null: the top.
ALTER TABLE projects ADD COLUMN root_directory VARCHAR(255);
