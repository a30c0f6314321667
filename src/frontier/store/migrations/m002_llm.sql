-- m002_llm: the LLM response cache and the usage ledger (one row per call, cached or not).

CREATE TABLE llm_cache (
    key            TEXT PRIMARY KEY,               -- hash of model, messages, schema, sampling, prompt version
    model          TEXT NOT NULL,
    prompt_version TEXT NOT NULL DEFAULT '',
    response       TEXT NOT NULL,                  -- JSON: content, reasoning, usage
    created_at     TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE llm_calls (
    id                 INTEGER PRIMARY KEY,
    call_id            TEXT NOT NULL UNIQUE,       -- one logical call, so a retry never counts twice
    run_id             INTEGER REFERENCES runs(id),
    command            TEXT NOT NULL DEFAULT '',
    purpose            TEXT NOT NULL,
    endpoint           TEXT NOT NULL DEFAULT '',
    model              TEXT NOT NULL DEFAULT '',
    prompt_version     TEXT NOT NULL DEFAULT '',
    prompt_tokens      INTEGER NOT NULL DEFAULT 0,
    completion_tokens  INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens   INTEGER NOT NULL DEFAULT 0,
    cached_tokens      INTEGER NOT NULL DEFAULT 0,
    cache_hit          INTEGER NOT NULL DEFAULT 0,
    attempts           INTEGER NOT NULL DEFAULT 1,
    latency_ms         INTEGER NOT NULL DEFAULT 0,
    outcome            TEXT NOT NULL,              -- ok | invalid | timeout | error | cancelled
    error              TEXT NOT NULL DEFAULT '',
    at                 TEXT NOT NULL
);
CREATE INDEX llm_calls_run ON llm_calls(run_id);
