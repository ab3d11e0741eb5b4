-- Turnframe PostgreSQL store, migration 0004: the paged case listing and the word-search
-- index (turnframe.store.search). tf_case_search holds each case's folded search text
-- (NULL: unindexed, as every case stored before this migration is until the directory
-- indexes it) and its terms; tf_case_term holds the postings a lookup seeks.

CREATE INDEX tf_case_by_account_workflow ON tf_case (account, workflow, pos);

CREATE TABLE tf_case_search (
    pos bigint PRIMARY KEY REFERENCES tf_case (pos),
    account text NOT NULL,
    workflow text NOT NULL,
    text text,
    terms text[] NOT NULL DEFAULT '{}'
);
CREATE INDEX tf_case_search_unindexed ON tf_case_search (account, pos) WHERE text IS NULL;

CREATE TABLE tf_case_term (
    account text NOT NULL,
    term text COLLATE "C" NOT NULL,
    pos bigint NOT NULL,
    PRIMARY KEY (account, term, pos)
);

INSERT INTO tf_case_search (pos, account, workflow, text)
    SELECT pos, account, workflow, NULL FROM tf_case;
