-- Whether a deployment's instance type was named by its request (POST /v1/deployments, a migration). Otherwise (null,
-- as every row of an earlier release) it was inherited, and the build's slipway.toml [run] instance_type may choose it.
ALTER TABLE deployments ADD COLUMN instance_type_requested BOOLEAN;
