-- A held order a change released (its held tickets cancelled by a closure, a
-- deleted event or the box office: any source but the hold running out) is
-- recorded `released` by the statement that cancels them, so the table never
-- reads `held` for an order nothing can sell any more. Written so that it can
-- run again: the backfill records orders released before this trigger.
CREATE TRIGGER IF NOT EXISTS held_order_released
AFTER UPDATE OF cancelled_at ON tickets
WHEN NEW.order_id IS NOT NULL AND NEW.hold_until IS NOT NULL AND NEW.cancelled_at IS NOT NULL
 AND NEW.cancel_source <> 'hold-expired'
BEGIN
  UPDATE orders SET status = 'released' WHERE order_id = NEW.order_id AND status = 'held';
END;

UPDATE orders SET status = 'released'
 WHERE status = 'held'
   AND EXISTS (SELECT 1 FROM tickets t
                WHERE t.order_id = orders.order_id AND t.hold_until IS NOT NULL
                  AND t.cancelled_at IS NOT NULL AND t.cancel_source <> 'hold-expired');
