-- When the kernel started an instance's process (epoch milliseconds): a restarted server adopts the process only if
-- the recorded pid still names that process, never one that reused the pid.
ALTER TABLE runtime_instances ADD COLUMN process_start_ms BIGINT;
