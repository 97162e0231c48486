-- The plant-store sample API: plants are kept per account.
CREATE TABLE sandbox_plants (
    account_id VARCHAR(40)  NOT NULL REFERENCES accounts(id),
    id         BIGINT       NOT NULL,
    name       VARCHAR(1000) NOT NULL,
    tag        VARCHAR(1000),
    created_at TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (account_id, id)
);
