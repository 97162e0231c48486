-- Which server reports the usage every server can read alike (a cluster's pods): the one holding this lease, renewed
-- at each of its samples; another takes it once it has run out.
CREATE TABLE usage_leases (
    name  VARCHAR(40)  PRIMARY KEY,
    node  VARCHAR(100) NOT NULL,
    until TIMESTAMP WITH TIME ZONE NOT NULL
);
