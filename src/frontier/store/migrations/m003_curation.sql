-- m003_curation: embeddings, triage, claims, relations to the KB, entries, gaps, conflicts, entities.

CREATE TABLE paper_embeddings (
    paper_id   TEXT PRIMARY KEY REFERENCES papers(id) ON DELETE CASCADE,
    model      TEXT NOT NULL,
    text_hash  TEXT NOT NULL,
    vector     BLOB NOT NULL
) WITHOUT ROWID;

CREATE TABLE chunk_embeddings (
    chunk_id   INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
    model      TEXT NOT NULL,
    vector     BLOB NOT NULL
);

CREATE TABLE triage (
    paper_id       TEXT NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
    topic          TEXT NOT NULL,                  -- a topic slug, or '' for out of field
    stage          TEXT NOT NULL,                  -- embedding | llm
    reason         TEXT NOT NULL,
    scope_line     TEXT NOT NULL DEFAULT '',
    score          REAL NOT NULL DEFAULT 0,
    boundary       INTEGER NOT NULL DEFAULT 0,     -- outside the window, taken for an open gap
    model          TEXT NOT NULL DEFAULT '',
    prompt_version TEXT NOT NULL DEFAULT '',
    run_id         INTEGER REFERENCES runs(id),
    input_hash     TEXT NOT NULL,
    at             TEXT NOT NULL,
    PRIMARY KEY (paper_id, topic)
) WITHOUT ROWID;
CREATE INDEX triage_topic ON triage(topic);

CREATE TABLE claims (
    id             INTEGER PRIMARY KEY,
    paper_id       TEXT NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
    metric         TEXT NOT NULL,
    value          REAL,
    value_text     TEXT NOT NULL,
    unit           TEXT NOT NULL DEFAULT '',
    direction      TEXT NOT NULL DEFAULT '',       -- higher | lower | ''
    baseline       TEXT NOT NULL DEFAULT '',
    model_name     TEXT NOT NULL DEFAULT '',       -- the LLM the paper measured (not ours)
    hardware       TEXT NOT NULL DEFAULT '',
    condition      TEXT NOT NULL DEFAULT '',       -- precision, batch size, setting
    page           INTEGER,
    quote          TEXT NOT NULL,
    verified       INTEGER NOT NULL DEFAULT 0,
    verify_note    TEXT NOT NULL DEFAULT '',
    model          TEXT NOT NULL DEFAULT '',       -- the LLM that typed the claim
    prompt_version TEXT NOT NULL DEFAULT '',
    run_id         INTEGER REFERENCES runs(id),
    at             TEXT NOT NULL
);
CREATE INDEX claims_paper ON claims(paper_id);
CREATE INDEX claims_metric ON claims(metric);

CREATE TABLE entities (
    slug     TEXT PRIMARY KEY,
    name     TEXT NOT NULL,
    kind     TEXT NOT NULL,
    aliases  TEXT NOT NULL DEFAULT '[]'
) WITHOUT ROWID;

CREATE TABLE gaps (
    id          INTEGER PRIMARY KEY,
    topic       TEXT NOT NULL,
    text        TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'open',      -- open | closed | proposed | rejected
    source      TEXT NOT NULL DEFAULT 'manual',    -- config | manual | map
    created_at  TEXT NOT NULL,
    closed_at   TEXT,
    UNIQUE (topic, text)
);

CREATE TABLE conflicts (
    id          INTEGER PRIMARY KEY,
    topic       TEXT NOT NULL,
    text        TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'open',
    source      TEXT NOT NULL DEFAULT 'manual',
    created_at  TEXT NOT NULL,
    UNIQUE (topic, text)
);

CREATE TABLE relations (
    paper_id   TEXT NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
    topic      TEXT NOT NULL,
    kind       TEXT NOT NULL,                      -- entity | gap | conflict | first | coverage | thesis
    target     TEXT NOT NULL,                      -- entity slug, gap id, thesis text, ...
    detail     TEXT NOT NULL DEFAULT '',
    evidence   TEXT NOT NULL DEFAULT '',
    stage      TEXT NOT NULL DEFAULT 'code',       -- code | embedding | llm
    PRIMARY KEY (paper_id, topic, kind, target)
) WITHOUT ROWID;

CREATE TABLE entries (
    paper_id       TEXT NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
    topic          TEXT NOT NULL,
    text           TEXT NOT NULL,
    model          TEXT NOT NULL DEFAULT '',
    prompt_version TEXT NOT NULL DEFAULT '',
    run_id         INTEGER REFERENCES runs(id),
    input_hash     TEXT NOT NULL,
    at             TEXT NOT NULL,
    PRIMARY KEY (paper_id, topic)
) WITHOUT ROWID;

CREATE TABLE curate_state (
    paper_id    TEXT NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
    step        TEXT NOT NULL,                     -- triage | claims | relations | entry
    input_hash  TEXT NOT NULL,
    done_at     TEXT NOT NULL,
    PRIMARY KEY (paper_id, step)
) WITHOUT ROWID;
