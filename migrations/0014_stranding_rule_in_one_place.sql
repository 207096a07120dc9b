-- "A change must not strand sold tickets" is decided in one place: the
-- guard each change's batch carries (src/tickets/statements.ts `strandedBy`,
-- with the hours' `keepsEntry`). These triggers repeated it in SQL of their
-- own; the guard runs in the same transaction as the change, so they added
-- no protection a request can reach.
DROP TRIGGER event_date_keeps_valid_tickets;
DROP TRIGGER closure_keeps_valid_tickets_insert;
DROP TRIGGER closure_keeps_valid_tickets_update;
DROP TRIGGER reopening_keeps_valid_tickets;
