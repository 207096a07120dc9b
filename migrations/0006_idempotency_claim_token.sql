-- The claim token of an Idempotency-Key: a random value written by the request
-- that claimed the key. The ticket insert, the completion and the release only
-- apply while the row still carries their request's token, so a request that
-- stalled past the takeover (60 s) cannot write after another took the key.
-- NULL on rows claimed before this column existed (they expire within 24 h).
ALTER TABLE idempotency_keys ADD COLUMN claim_token TEXT;
