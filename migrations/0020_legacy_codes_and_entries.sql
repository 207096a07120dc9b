-- Codes of the earlier kind (HMAC, `MT1.…`, signed with TICKET_SIGNING_KEY)
-- admit only the tickets sold while images carried them: a ticket sold since
-- the Ed25519 codes came in is admitted by its Ed25519 code alone, so the old
-- secret forges no entry for it (docs/admission.md, "Codes printed before").
--   sold_with_legacy_code  1: sold before the Ed25519 codes, its HMAC code
--                          still admitted online; 0 (every ticket written
--                          from now on): its Ed25519 code only
-- The Ed25519 codes came with migration 0016 (the same release), so a sold
-- ticket written before wrangler recorded 0016 as applied (d1_migrations,
-- UTC) is marked here, once; a ticket still held, or whose hold ended, had no
-- code then and is not. A database with no such record (its migrations
-- applied by hand) marks none: an operator marks its earlier tickets with
-- this statement, the moment the Ed25519 codes were deployed in place of the
-- subquery (docs/admission.md).
ALTER TABLE tickets ADD COLUMN sold_with_legacy_code INTEGER NOT NULL DEFAULT 0 CHECK (sold_with_legacy_code IN (0, 1));

UPDATE tickets SET sold_with_legacy_code = 1
 WHERE hold_until IS NULL
   AND julianday(created_at) < (SELECT julianday(applied_at) FROM d1_migrations WHERE name = '0016_offline_scans.sql');

-- An upload's scan of a ticket whose entry an earlier upload recorded, then
-- cancelled (`cancelled-after-entry`), is `already-admitted`: the few such
-- scans, by ticket, so an upload finds them without reading the table.
CREATE INDEX offline_entries_cancelled_after ON offline_scans (ticket_id) WHERE outcome = 'cancelled-after-entry';
