-- Links that let a dashboard user choose a new password, sent by mail. Only a SHA-256 of the link's token is stored.
CREATE TABLE password_resets (
    token_hash  VARCHAR(64)  PRIMARY KEY,
    user_id     VARCHAR(40)  NOT NULL REFERENCES users(id),
    created_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    expires_at  TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX password_resets_user ON password_resets(user_id, created_at);
CREATE INDEX password_resets_expiry ON password_resets(expires_at);
