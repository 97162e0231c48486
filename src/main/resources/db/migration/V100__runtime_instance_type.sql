-- the limits an instance runs under (issue 14); rows written before this run as the smallest type
ALTER TABLE runtime_instances ADD COLUMN instance_type VARCHAR(40);
