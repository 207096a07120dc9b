-- The request that records a delivery hands it to the Queue and writes
-- nothing more (one D1 round trip for an event change, webhooks or not). So
-- "the Queue never got it" is told by age: a delivery still `pending` (no
-- attempt yet) once WEBHOOK_SWEEP_GRACE_SECONDS have passed since it was
-- recorded, or since the sweep last re-sent it (resent_at), is re-sent.
-- A delivery the Queue did get but had not yet run by then may be sent twice;
-- the consumer records one attempt only, and subscribers dedupe by webhook-id
-- (docs/webhooks.md).
DROP INDEX webhook_deliveries_unsent;
ALTER TABLE webhook_deliveries RENAME COLUMN enqueued_at TO resent_at;
-- The sweep: pending deliveries by the time they were last handed to the Queue.
CREATE INDEX webhook_deliveries_unattempted ON webhook_deliveries (coalesce(resent_at, created_at))
  WHERE status = 'pending';
