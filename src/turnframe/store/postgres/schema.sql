-- Turnframe PostgreSQL store: the whole current schema, for a fresh install.
-- `turnframe db migrate` applies this file to an empty schema and records every numbered
-- migration as applied; an existing schema gets the numbered files in migrations/ instead.
-- A test checks that both paths give the same catalog. Keep them in step.

CREATE TABLE tf_conversation (
    account text NOT NULL,
    conversation_id text NOT NULL,
    state text NOT NULL,
    PRIMARY KEY (account, conversation_id)
);

CREATE TABLE tf_turn (
    pos bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    turn_id text NOT NULL UNIQUE,
    account text NOT NULL,
    conversation_id text NOT NULL,
    seq integer NOT NULL,
    phase text NOT NULL,
    input text NOT NULL,
    data text NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    reply text,
    owner text,
    lease_until timestamptz,
    dead_reason text,
    updated_at timestamptz NOT NULL DEFAULT now(),
    -- the replay record's second part, written with the reply (migration 0007);
    -- tf_replay.outcome holds the second parts stored before it
    replay_outcome text,
    UNIQUE (account, conversation_id, seq)
);
CREATE INDEX tf_turn_unfinished ON tf_turn (pos) WHERE phase <> 'replied';

CREATE TABLE tf_interaction (
    pos bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text NOT NULL UNIQUE,
    account text NOT NULL,
    conversation_id text NOT NULL,
    turn_id text NOT NULL,
    case_workflow text,
    case_id text,
    spec text NOT NULL,
    payload_hash text NOT NULL,
    status text NOT NULL,
    resolution text,
    seq integer NOT NULL,
    UNIQUE (account, conversation_id, seq)
);
-- I5 as a constraint: at most one open card per case and account.
CREATE UNIQUE INDEX tf_interaction_one_open_per_case
    ON tf_interaction (account, case_workflow, case_id)
    WHERE status = 'open' AND case_id IS NOT NULL;

CREATE TABLE tf_case (
    pos bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    workflow text NOT NULL,
    case_id text NOT NULL,
    account text NOT NULL,
    state text NOT NULL,
    revision integer NOT NULL CHECK (revision >= 1),
    -- The workflow version whose commit wrote the state (migration 0006; NULL: not recorded).
    workflow_version text,
    UNIQUE (workflow, case_id)
);
CREATE INDEX tf_case_by_account ON tf_case (account, pos);

-- Event and outbox positions come from sequences so a commit learns its ids in the
-- statement that checks the revision; a rolled-back commit leaves a gap (no global
-- order is offered, reliability research §0.6).
CREATE SEQUENCE tf_event_pos;
CREATE TABLE tf_event (
    pos bigint PRIMARY KEY,
    id text NOT NULL UNIQUE,
    workflow text NOT NULL,
    case_id text NOT NULL,
    revision integer NOT NULL,
    ord integer NOT NULL,
    type text NOT NULL,
    data text NOT NULL,
    operation text NOT NULL,
    turn_id text NOT NULL,
    idempotency_key text NOT NULL,
    UNIQUE (workflow, case_id, revision, ord),
    FOREIGN KEY (workflow, case_id) REFERENCES tf_case (workflow, case_id)
);

CREATE SEQUENCE tf_outbox_pos;
CREATE TABLE tf_outbox (
    pos bigint PRIMARY KEY,
    id text NOT NULL UNIQUE,
    workflow text NOT NULL,
    case_id text NOT NULL,
    topic text NOT NULL,
    payload text NOT NULL,
    status text NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    lease_owner text,
    lease_until timestamptz,
    available_at timestamptz NOT NULL DEFAULT now(),
    last_error text,
    updated_at timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (workflow, case_id) REFERENCES tf_case (workflow, case_id)
);
CREATE INDEX tf_outbox_by_status ON tf_outbox (status, pos);
CREATE INDEX tf_outbox_claimable ON tf_outbox (available_at, pos) WHERE status = 'pending';
CREATE INDEX tf_outbox_leased ON tf_outbox (lease_until) WHERE status = 'in_flight';

-- The command journal (I13): keyed by (account, idempotency key), with the request hash
-- and the serialised outcome, written in the same transaction as the events.
CREATE TABLE tf_command (
    account text NOT NULL,
    idempotency_key text NOT NULL,
    request_hash text NOT NULL,
    turn_id text NOT NULL,
    operations text NOT NULL,
    result text NOT NULL,
    committed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account, idempotency_key)
);

CREATE TABLE tf_replay (
    account text NOT NULL,
    turn_id text NOT NULL,
    record text NOT NULL,
    outcome text,
    PRIMARY KEY (account, turn_id)
);

-- The paged case listing and the word-search index (turnframe.store.search; migration
-- 0003): each case's folded search text (NULL: unindexed) and terms, and the postings.
CREATE INDEX tf_case_by_account_workflow ON tf_case (account, workflow, pos);
CREATE TABLE tf_case_search (
    pos bigint PRIMARY KEY REFERENCES tf_case (pos),
    account text NOT NULL,
    workflow text NOT NULL,
    text text,
    terms text[] NOT NULL DEFAULT '{}',
    changed bigint NOT NULL
);
CREATE INDEX tf_case_search_unindexed ON tf_case_search (account, pos) WHERE text IS NULL;
-- Each case's change position, drawn by every commit of it (migration 0005).
CREATE SEQUENCE tf_case_change;
CREATE INDEX tf_case_search_by_change ON tf_case_search (account, changed);
CREATE TABLE tf_case_term (
    account text NOT NULL,
    term text COLLATE "C" NOT NULL,
    pos bigint NOT NULL,
    PRIMARY KEY (account, term, pos)
);
