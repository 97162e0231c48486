-- The tool homes an artifact runs with (issue 17): a JSON list of paths under <data dir>/toolchains
-- (a Node build, a package manager); null: the machine's Node and npm.
ALTER TABLE artifacts ADD COLUMN tools VARCHAR(4000);
