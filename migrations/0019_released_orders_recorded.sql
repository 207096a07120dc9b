-- A held order a change released (its held tickets cancelled by a closure, a
-- deleted event or the box office: any source but the hold running out) is
-- recorded `released` by the statement that cancels them, so the table never
-- reads `held` for an order nothing can sell any more. Written so that it can
-- run again.
CREATE TRIGGER IF NOT EXISTS held_order_released
AFTER UPDATE OF cancelled_at ON tickets
WHEN NEW.order_id IS NOT NULL AND NEW.hold_until IS NOT NULL AND NEW.cancelled_at IS NOT NULL
 AND NEW.cancel_source <> 'hold-expired'
BEGIN
  UPDATE orders SET status = 'released' WHERE order_id = NEW.order_id AND status = 'held';
END;

-- Orders released before the trigger: their tickets' cancelled_at is set to
-- itself, so the trigger's condition (the rule, written once) records them.
-- The other triggers on cancelled_at fire only when it changes to or from NULL.
UPDATE tickets SET cancelled_at = cancelled_at
 WHERE order_id IN (SELECT order_id FROM orders WHERE status = 'held');
