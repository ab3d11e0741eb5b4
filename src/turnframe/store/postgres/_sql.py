"""The SQL of :class:`turnframe.store.postgres.PostgresStore` (docs/postgres.md "Store").

Plain statements with ``%(name)s`` / ``%s`` placeholders; tables are unqualified and
resolved through the connection's ``search_path`` (the store's schema).
"""

from __future__ import annotations

TURN_COLS = "turn_id, account, conversation_id, seq, phase, input, data, attempts"
CARD_COLS = "id, account, conversation_id, turn_id, spec, payload_hash, status, resolution, seq"
EVENT_COLS = "id, workflow, case_id, revision, type, data, operation, turn_id, idempotency_key"
CASE_COLS = "workflow, case_id, account, state, revision, workflow_version"
OUTBOX_COLS = "id, workflow, case_id, topic, payload, status"

# conversations ----------------------------------------------------------------------
GET_CONVERSATION = "SELECT state FROM tf_conversation WHERE account = %s AND conversation_id = %s"
PUT_CONVERSATION = (
    "INSERT INTO tf_conversation (account, conversation_id, state) VALUES (%s, %s, %s)"
    " ON CONFLICT (account, conversation_id) DO UPDATE SET state = excluded.state"
)

# turns ----------------------------------------------------------------------------------
# seq = 1 + the conversation's highest seq, read from the end of the UNIQUE (account,
# conversation_id, seq) index (one probe, not a count of the conversation's turns); a
# concurrent insert in the same conversation violates that constraint and the store retries.
BEGIN_TURN = (
    f"INSERT INTO tf_turn ({TURN_COLS})"
    " SELECT %(turn_id)s, %(account)s, %(conv)s, 1 + COALESCE(max(seq), 0), %(phase)s,"
    " %(input)s, %(data)s, %(attempts)s FROM tf_turn"
    " WHERE account = %(account)s AND conversation_id = %(conv)s"
    " RETURNING seq"
)
SET_PHASE = (
    "UPDATE tf_turn SET phase = %s, data = COALESCE(%s, data), updated_at = now()"
    " WHERE turn_id = %s"
)
# The turn's last phase is what a user was answered with: commit it durably, which also
# flushes every earlier write of the turn (the WAL is sequential).
SET_PHASE_DURABLE = SET_PHASE + " AND set_config('synchronous_commit', 'on', true) = 'on'"
SAVE_REPLY = "UPDATE tf_turn SET reply = %s, updated_at = now() WHERE turn_id = %s"
GET_TURN = f"SELECT {TURN_COLS} FROM tf_turn WHERE turn_id = %s AND account = %s"
UNFINISHED = (
    f"SELECT {TURN_COLS} FROM tf_turn WHERE phase <> 'replied'"
    " AND (%(account)s::text IS NULL OR account = %(account)s) ORDER BY pos"
)
LOAD_REPLY = "SELECT reply FROM tf_turn WHERE turn_id = %s AND account = %s"
CONVERSATION_REPLIES = (
    "SELECT turn_id, reply FROM tf_turn WHERE account = %s AND conversation_id = %s"
    " AND reply IS NOT NULL ORDER BY seq"
)

# crash recovery (docs/architecture.md "Failures") -----------------------------------------
STALLED_TURNS = (
    f"SELECT {TURN_COLS} FROM tf_turn WHERE phase NOT IN ('replied', 'dead_letter')"
    " AND updated_at <= now() - make_interval(secs => %(idle)s)"
    " AND (lease_until IS NULL OR lease_until < now())"
    " AND (%(account)s::text IS NULL OR account = %(account)s) ORDER BY pos LIMIT %(limit)s"
)
# The compare-and-set handoff: only the recoverer that saw `attempts` wins.
CLAIM_TURN = (
    "UPDATE tf_turn SET attempts = attempts + 1, owner = %(owner)s,"
    " lease_until = now() + make_interval(secs => %(lease)s), updated_at = now()"
    " WHERE turn_id = %(turn_id)s AND attempts = %(attempts)s"
    " AND phase NOT IN ('replied', 'dead_letter')"
    " AND (lease_until IS NULL OR lease_until < now())"
    f" RETURNING {TURN_COLS}"
)
DEAD_LETTER_TURN = (
    "UPDATE tf_turn SET phase = 'dead_letter', dead_reason = %(reason)s, owner = NULL,"
    " lease_until = NULL, updated_at = now()"
    " WHERE turn_id = %(turn_id)s AND attempts = %(attempts)s"
    " AND phase NOT IN ('replied', 'dead_letter')"
    " RETURNING turn_id"
)
RELEASE_TURN = (
    "UPDATE tf_turn SET owner = NULL, lease_until = NULL,"
    " dead_reason = COALESCE(%s, dead_reason) WHERE turn_id = %s AND owner = %s"
)
DEAD_LETTERS = (
    f"SELECT {TURN_COLS}, dead_reason FROM tf_turn WHERE phase = 'dead_letter'"
    " AND (%(account)s::text IS NULL OR account = %(account)s) ORDER BY pos"
)

# interactions ---------------------------------------------------------------------------
SUPERSEDE_OPEN = (
    "UPDATE tf_interaction SET status = 'superseded' WHERE account = %s"
    " AND case_workflow = %s AND case_id = %s AND status = 'open'"
)
INSERT_CARD = (
    f"INSERT INTO tf_interaction ({CARD_COLS}, case_workflow, case_id)"
    " SELECT %(id)s, %(account)s, %(conv)s, %(turn_id)s, %(spec)s, %(hash)s, %(status)s,"
    " %(resolution)s, 1 + COALESCE(max(seq), 0), %(workflow)s, %(case_id)s"
    " FROM tf_interaction WHERE account = %(account)s AND conversation_id = %(conv)s"
    " RETURNING seq"
)
GET_CARD = (
    f"SELECT {CARD_COLS} FROM tf_interaction WHERE id = %s AND account = %s"
    " AND conversation_id = %s"
)
OPEN_CARDS = (
    f"SELECT {CARD_COLS} FROM tf_interaction WHERE account = %s AND conversation_id = %s"
    " AND status = 'open' ORDER BY seq"
)
CLOSE_CARD = (
    "UPDATE tf_interaction SET status = %s, resolution = %s WHERE id = %s AND status = 'open'"
)
RESOLVE_CARD = (
    "UPDATE tf_interaction SET status = %s, resolution = %s"
    " WHERE id = %s AND account = %s AND status = 'open' RETURNING 1"
)
CARD_STATUS = "SELECT status FROM tf_interaction WHERE id = %s AND account = %s"

# cases and the atomic commit -------------------------------------------------------------
LOAD_CASE = f"SELECT {CASE_COLS} FROM tf_case WHERE workflow = %s AND case_id = %s"
LIST_CASES = f"SELECT {CASE_COLS} FROM tf_case WHERE account = %s ORDER BY pos"
CASE_REVISION = "SELECT revision, account FROM tf_case WHERE workflow = %s AND case_id = %s"

# The revision check is in the writing statement itself (I12); the same statement draws
# the event and outbox positions, so the commit learns its ids in one round trip.
_IDS = (
    " RETURNING revision,"
    " set_config('synchronous_commit', 'on', true),"
    " ARRAY(SELECT nextval('tf_event_pos') FROM generate_series(1, %(n_events)s)),"
    " ARRAY(SELECT nextval('tf_outbox_pos') FROM generate_series(1, %(n_outbox)s))"
)
CREATE_CASE = (
    f"INSERT INTO tf_case ({CASE_COLS}) VALUES (%(workflow)s, %(case_id)s, %(account)s,"
    " %(state)s, 1, %(version)s) ON CONFLICT (workflow, case_id) DO NOTHING" + _IDS
)
UPDATE_CASE = (
    "UPDATE tf_case SET state = %(state)s, revision = revision + 1,"
    " workflow_version = %(version)s"
    " WHERE workflow = %(workflow)s AND case_id = %(case_id)s AND account = %(account)s"
    " AND revision = %(expected)s" + _IDS
)
INSERT_EVENTS = (
    "INSERT INTO tf_event (pos, id, workflow, case_id, revision, ord, type, data, operation,"
    " turn_id, idempotency_key)"
    " SELECT p, 'ev-' || p, %(workflow)s, %(case_id)s, %(revision)s, o, t, d, op, %(turn_id)s,"
    " %(key)s FROM unnest(%(pos)s::bigint[], %(ord)s::int[], %(types)s::text[],"
    " %(datas)s::text[], %(ops)s::text[]) AS x(p, o, t, d, op)"
)
INSERT_OUTBOX = (
    "INSERT INTO tf_outbox (pos, id, workflow, case_id, topic, payload, status)"
    " SELECT p, 'ob-' || p, %(workflow)s, %(case_id)s, t, d, 'pending'"
    " FROM unnest(%(pos)s::bigint[], %(topics)s::text[], %(payloads)s::text[]) AS x(p, t, d)"
)
# A concurrent duplicate waits here on the unique index until the first commits; zero
# rows then means the key is taken and the commit rolls back to read the stored outcome.
INSERT_JOURNAL = (
    "INSERT INTO tf_command (account, idempotency_key, request_hash, turn_id, operations,"
    " result) VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING RETURNING 1"
)
LOOKUP_JOURNAL = (
    "SELECT request_hash, result FROM tf_command WHERE account = %s AND idempotency_key = %s"
)

# events, outbox, replay ------------------------------------------------------------------
CASE_EVENTS = (
    f"SELECT {EVENT_COLS} FROM tf_event WHERE workflow = %s AND case_id = %s ORDER BY revision, ord"
)
EVENTS_BY_ID = f"SELECT {EVENT_COLS} FROM tf_event WHERE id = ANY(%s) ORDER BY pos"
OUTBOX = (
    f"SELECT {OUTBOX_COLS} FROM tf_outbox WHERE (%(status)s::text IS NULL OR status = %(status)s)"
    " ORDER BY pos"
)
SET_OUTBOX_STATUS = "UPDATE tf_outbox SET status = %s, updated_at = now() WHERE id = %s"
# The record's first part; a second part stored before (in either place) is cleared.
SAVE_REPLAY = (
    "WITH cleared AS (UPDATE tf_turn SET replay_outcome = NULL"
    " WHERE turn_id = %(t)s AND account = %(a)s AND replay_outcome IS NOT NULL)"
    " INSERT INTO tf_replay (account, turn_id, record) VALUES (%(a)s, %(t)s, %(r)s)"
    " ON CONFLICT (account, turn_id) DO UPDATE SET record = excluded.record, outcome = NULL"
)
# The first part, a second part stored before migration 0007 and one stored since.
LOAD_REPLAY = (
    "SELECT (SELECT record FROM tf_replay WHERE account = %(a)s AND turn_id = %(t)s),"
    " (SELECT outcome FROM tf_replay WHERE account = %(a)s AND turn_id = %(t)s),"
    " (SELECT replay_outcome FROM tf_turn WHERE turn_id = %(t)s AND account = %(a)s)"
)

# the folded turn writes (docs/adr/0024-four-writes-per-turn.md) ---------------------------
STORE_PLAN = (
    "UPDATE tf_turn SET phase = 'committing', data = %s, updated_at = now() WHERE turn_id = %s"
)
CLOSE_OWN_CARD = (
    "UPDATE tf_interaction SET status = %s, resolution = %s"
    " WHERE id = %s AND account = %s AND status = 'open'"
)
# The reply is what a user was answered with: commit it durably (which also flushes every
# earlier write of the turn, the WAL being sequential).
# The replay record's second part goes in the turn's row (migration 0007), kept when
# the reply carries none.
FINISH_TURN = (
    "UPDATE tf_turn SET phase = 'replied', data = %s, reply = %s,"
    " replay_outcome = COALESCE(%s, replay_outcome), updated_at = now()"
    " WHERE turn_id = %s AND set_config('synchronous_commit', 'on', true) = 'on'"
)

# the outbox relay (docs/postgres.md "Store") ----------------------------------------------
_OUTBOX_RETURNING = (
    " RETURNING o.id, o.workflow, o.case_id, o.topic, o.payload, o.status, o.attempts"
)
CLAIM_OUTBOX = (
    "WITH next AS ("
    " SELECT pos FROM tf_outbox WHERE status = %(from)s AND available_at <= now()"
    " AND (%(topics)s::text[] IS NULL OR topic = ANY(%(topics)s))"
    " ORDER BY available_at, pos LIMIT %(limit)s FOR UPDATE SKIP LOCKED)"
    " UPDATE tf_outbox o SET status = %(to)s, lease_owner = %(owner)s,"
    " lease_until = now() + make_interval(secs => %(lease)s), attempts = o.attempts + 1,"
    " updated_at = now()"
    " FROM next WHERE o.pos = next.pos" + _OUTBOX_RETURNING
)
# Acknowledgements are compare-and-set on the lease: a relay that lost it is refused.
SETTLE_OUTBOX = (
    "UPDATE tf_outbox SET status = %(status)s, lease_owner = NULL, lease_until = NULL,"
    " last_error = %(error)s, available_at = now() + make_interval(secs => %(delay)s),"
    " updated_at = now()"
    " WHERE id = %(id)s AND lease_owner = %(owner)s AND status IN ('in_flight', 'reconciling')"
    " AND lease_until >= now() RETURNING id"
)
# An expired lease: the effect may have happened. Retry-safe topics go back to pending
# (the receiver deduplicates by outbox id); every other one to outcome_unknown.
EXPIRE_LEASES = (
    "UPDATE tf_outbox SET status = CASE WHEN status = 'in_flight'"
    " AND topic = ANY(%(safe)s::text[]) THEN 'pending' ELSE 'outcome_unknown' END,"
    " lease_owner = NULL, lease_until = NULL, last_error = 'lease expired', updated_at = now()"
    " WHERE status IN ('in_flight', 'reconciling') AND lease_until < now() RETURNING id, status"
)
OUTBOX_ROW = f"SELECT {OUTBOX_COLS}, attempts, lease_owner, last_error FROM tf_outbox WHERE id = %s"
