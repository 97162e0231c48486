-- How an endpoint's deliveries are written: slipway (the signed event, as ever), slack or discord (a chat message).
ALTER TABLE webhook_endpoints ADD COLUMN format VARCHAR(16) NOT NULL DEFAULT 'slipway';
