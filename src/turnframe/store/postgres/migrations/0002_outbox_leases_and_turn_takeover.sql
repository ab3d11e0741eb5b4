-- Turnframe PostgreSQL store, migration 0002: outbox leases (relays claim rows with
-- FOR UPDATE SKIP LOCKED) and the compare-and-set takeover of crashed turns (guide §14).

ALTER TABLE tf_outbox
    ADD COLUMN attempts integer NOT NULL DEFAULT 0,
    ADD COLUMN lease_owner text,
    ADD COLUMN lease_until timestamptz,
    ADD COLUMN available_at timestamptz NOT NULL DEFAULT now(),
    ADD COLUMN last_error text,
    ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
CREATE INDEX tf_outbox_claimable ON tf_outbox (available_at, pos) WHERE status = 'pending';
CREATE INDEX tf_outbox_leased ON tf_outbox (lease_until) WHERE status = 'in_flight';

ALTER TABLE tf_turn
    ADD COLUMN owner text,
    ADD COLUMN lease_until timestamptz,
    ADD COLUMN dead_reason text,
    ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
