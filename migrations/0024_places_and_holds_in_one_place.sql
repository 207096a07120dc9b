-- Each rule in one place (issue 39).
--
-- Where a ticket takes places is one rule, the view ticket_place_refs: a
-- ticket's ref in each scope ('day': '' for a general ticket; 'slot': its
-- entry time; 'event': its event), none where it takes no place. Its CASE
-- is the statements' own fragment (src/tickets/statements/places.ts
-- placeRef), held to it by test/tickets/place-scopes.test.ts. The triggers
-- that count a ticket's places read it.
CREATE VIEW ticket_place_refs (ticket_id, ticket_date, scope, ref) AS
SELECT ticket_id, ticket_date, scope, ref
  FROM (SELECT t.ticket_id, t.ticket_date, s.scope,
               (CASE s.scope WHEN 'day' THEN (CASE WHEN t.ticket_type = 'general' THEN '' END)
                 WHEN 'slot' THEN t.entry_time
                 WHEN 'event' THEN (CASE WHEN t.ticket_type = 'event' THEN t.event_id END) END) AS ref
          FROM tickets t, (SELECT 'day' AS scope UNION ALL SELECT 'slot' UNION ALL SELECT 'event') s)
 WHERE ref IS NOT NULL;

DROP TRIGGER ticket_takes_places;
CREATE TRIGGER ticket_takes_places
AFTER INSERT ON tickets
WHEN NEW.cancelled_at IS NULL
BEGIN
  INSERT INTO ticket_places (ticket_date, scope, ref, taken)
  SELECT ticket_date, scope, ref, 1 FROM ticket_place_refs WHERE ticket_id = NEW.ticket_id
  ON CONFLICT (ticket_date, scope, ref) DO UPDATE SET taken = taken + 1;
END;

DROP TRIGGER cancelled_ticket_frees_places;
CREATE TRIGGER cancelled_ticket_frees_places
AFTER UPDATE OF cancelled_at ON tickets
WHEN OLD.cancelled_at IS NULL AND NEW.cancelled_at IS NOT NULL
BEGIN
  UPDATE ticket_places SET taken = taken - 1
   WHERE (ticket_date, scope, ref) IN (SELECT ticket_date, scope, ref FROM ticket_place_refs WHERE ticket_id = NEW.ticket_id);
END;

-- A hold that runs out is never recorded: its ticket reads as cancelled
-- (`hold-expired`) from its hold's end, and reads of places subtract it.
-- So no statement makes a cancelled ticket valid again (a late confirmation
-- sells a hold that ran out, which was never cancelled), and every
-- cancellation of a held ticket releases its order.
DROP TRIGGER reinstated_ticket_takes_places;

DROP TRIGGER held_order_released;
CREATE TRIGGER held_order_released
AFTER UPDATE OF cancelled_at ON tickets
WHEN NEW.order_id IS NOT NULL AND NEW.hold_until IS NOT NULL AND NEW.cancelled_at IS NOT NULL
BEGIN
  UPDATE orders SET status = 'released' WHERE order_id = NEW.order_id AND status = 'held';
END;
