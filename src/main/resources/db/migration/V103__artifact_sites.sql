-- A static site knows whether unknown paths get its index.html (a Vite single-page app without a
-- 404.html) or a 404; an app built from a folder of its repository (root_directory) runs in that folder.
ALTER TABLE artifacts ADD COLUMN spa_fallback BOOLEAN DEFAULT FALSE NOT NULL;
ALTER TABLE artifacts ADD COLUMN app_dir VARCHAR(1024);
UPDATE artifacts SET spa_fallback = TRUE WHERE framework = 'react-vite';
