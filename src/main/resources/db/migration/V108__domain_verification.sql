-- Proof of control of a custom domain (issue 18): a domain is served only once a TXT record at
-- _slipway-challenge.<domain> holds the project's token. Domains stored before this are pending like new
-- ones: the server gives them a token when it starts (DomainChecks), and with verification off they are
-- verified at once.
ALTER TABLE projects ADD COLUMN domain_status VARCHAR(32);
ALTER TABLE projects ADD COLUMN domain_token VARCHAR(64);
ALTER TABLE projects ADD COLUMN domain_checked_at TIMESTAMP WITH TIME ZONE;
ALTER TABLE projects ADD COLUMN domain_check_reason VARCHAR(500);
ALTER TABLE projects ADD COLUMN domain_next_check_at TIMESTAMP WITH TIME ZONE;
ALTER TABLE projects ADD COLUMN domain_verified_at TIMESTAMP WITH TIME ZONE;
UPDATE projects SET domain_status = 'pending_verification', domain_next_check_at = created_at WHERE domain IS NOT NULL;
CREATE INDEX projects_domain_checks ON projects(domain_status, domain_next_check_at);
