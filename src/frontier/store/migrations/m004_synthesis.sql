-- m004_synthesis: answers, research maps, and conflicts found between claims.

CREATE TABLE asks (
    id             INTEGER PRIMARY KEY,
    run_id         INTEGER REFERENCES runs(id),
    question       TEXT NOT NULL,
    preset         TEXT NOT NULL DEFAULT '',
    topic          TEXT NOT NULL DEFAULT '',
    bundle         TEXT NOT NULL,                  -- JSON: the numbered sources (paper, pages, chunks)
    answer         TEXT NOT NULL,
    supported      INTEGER NOT NULL,
    cited          TEXT NOT NULL DEFAULT '[]',
    removed        TEXT NOT NULL DEFAULT '[]',     -- citations the model made up, taken out
    model          TEXT NOT NULL DEFAULT '',
    prompt_version TEXT NOT NULL DEFAULT '',
    at             TEXT NOT NULL
);

CREATE TABLE maps (
    id             INTEGER PRIMARY KEY,
    run_id         INTEGER REFERENCES runs(id),
    topic          TEXT NOT NULL,
    since          TEXT NOT NULL DEFAULT '',
    path           TEXT NOT NULL,                  -- the markdown view under kb/maps/
    content        TEXT NOT NULL,                  -- JSON of the map
    bundle         TEXT NOT NULL,
    removed        TEXT NOT NULL DEFAULT '[]',
    model          TEXT NOT NULL DEFAULT '',
    prompt_version TEXT NOT NULL DEFAULT '',
    at             TEXT NOT NULL
);

ALTER TABLE gaps ADD COLUMN evidence TEXT NOT NULL DEFAULT '';

-- one row per pair of disagreeing claims; the conflict row carries topic, text and status
CREATE TABLE conflict_claims (
    conflict_id    INTEGER PRIMARY KEY REFERENCES conflicts(id) ON DELETE CASCADE,
    claim_key      TEXT NOT NULL UNIQUE,           -- stable across re-curation: papers, metric, setting
    paper_a        TEXT NOT NULL,
    paper_b        TEXT NOT NULL,
    metric         TEXT NOT NULL,
    setting        TEXT NOT NULL,
    quote_a        TEXT NOT NULL,
    quote_b        TEXT NOT NULL,
    page_a         INTEGER,
    page_b         INTEGER,
    value_a        TEXT NOT NULL,
    value_b        TEXT NOT NULL,
    why            TEXT NOT NULL,                  -- what code found: direction or factor
    label          TEXT NOT NULL DEFAULT '',       -- contradiction | different conditions
    reason         TEXT NOT NULL DEFAULT '',
    later          TEXT NOT NULL DEFAULT '[]',     -- JSON: later claims measuring the same setting
    model          TEXT NOT NULL DEFAULT '',
    prompt_version TEXT NOT NULL DEFAULT '',
    run_id         INTEGER REFERENCES runs(id)
);
