-- m001_initial: papers, their pages, sections and chunks, full-text indexes, runs and outcomes.

CREATE TABLE runs (
    id          INTEGER PRIMARY KEY,
    command     TEXT NOT NULL,
    args        TEXT NOT NULL DEFAULT '',
    started_at  TEXT NOT NULL,
    ended_at    TEXT,
    status      TEXT NOT NULL DEFAULT 'running',   -- running | ok | with problems | failed | interrupted
    pid         INTEGER,                           -- to tell a killed run from a live one
    summary     TEXT NOT NULL DEFAULT '{}'
);

CREATE TABLE papers (
    id                TEXT PRIMARY KEY,            -- arXiv id, doi:..., or h:<content hash prefix>
    arxiv_id          TEXT UNIQUE,
    arxiv_version     INTEGER,
    doi               TEXT UNIQUE,
    title             TEXT NOT NULL,
    title_norm        TEXT NOT NULL,
    title_provisional INTEGER NOT NULL DEFAULT 0,
    authors           TEXT NOT NULL DEFAULT '[]',
    published         TEXT,
    updated           TEXT,
    categories        TEXT NOT NULL DEFAULT '[]',
    abstract          TEXT,
    pdf_url           TEXT,
    url               TEXT,
    site              TEXT,
    kind              TEXT NOT NULL DEFAULT 'paper', -- paper | article | slides
    source            TEXT NOT NULL,
    source_ref        TEXT NOT NULL,
    collection        TEXT,
    content_hash      TEXT UNIQUE,                 -- of the PDF or article text behind the full text
    status            TEXT NOT NULL DEFAULT 'metadata', -- metadata | fulltext
    n_pages           INTEGER NOT NULL DEFAULT 0,
    warnings          TEXT NOT NULL DEFAULT '[]',
    added_at          TEXT NOT NULL,
    updated_at        TEXT NOT NULL,
    run_id            INTEGER REFERENCES runs(id)
);
CREATE INDEX papers_title_norm ON papers(title_norm);
CREATE INDEX papers_published ON papers(published);

CREATE TABLE paper_versions (
    paper_id  TEXT NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
    version   INTEGER NOT NULL,
    seen_at   TEXT NOT NULL,
    PRIMARY KEY (paper_id, version)
) WITHOUT ROWID;

CREATE TABLE paper_sources (
    paper_id     TEXT NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
    source       TEXT NOT NULL,
    source_ref   TEXT NOT NULL,
    content_hash TEXT,
    added_at     TEXT NOT NULL,
    PRIMARY KEY (paper_id, source, source_ref)
) WITHOUT ROWID;

CREATE TABLE pages (
    paper_id  TEXT NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
    page      INTEGER NOT NULL,                    -- 1-based physical page of the PDF
    text      TEXT NOT NULL,
    PRIMARY KEY (paper_id, page)
) WITHOUT ROWID;

CREATE TABLE sections (
    paper_id    TEXT NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
    ord         INTEGER NOT NULL,
    number      TEXT NOT NULL DEFAULT '',
    title       TEXT NOT NULL,
    kind        TEXT NOT NULL,
    page_start  INTEGER NOT NULL,
    PRIMARY KEY (paper_id, ord)
) WITHOUT ROWID;

CREATE TABLE chunks (
    id        INTEGER PRIMARY KEY,
    paper_id  TEXT NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
    ord       INTEGER NOT NULL,
    page      INTEGER,                             -- NULL for an abstract-only chunk
    section   TEXT NOT NULL,
    text      TEXT NOT NULL,
    n_tokens  INTEGER NOT NULL,
    UNIQUE (paper_id, ord)
);

CREATE VIRTUAL TABLE chunks_fts USING fts5(
    text, content='chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;

CREATE VIRTUAL TABLE papers_fts USING fts5(
    paper_id UNINDEXED, title, abstract, tokenize='porter unicode61 remove_diacritics 2'
);

CREATE TABLE downloads (
    url           TEXT PRIMARY KEY,
    content_hash  TEXT NOT NULL,
    fetched_at    TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE ingest_outcomes (
    id            INTEGER PRIMARY KEY,
    run_id        INTEGER REFERENCES runs(id),
    item          TEXT NOT NULL,                   -- file, URL or record the user gave
    content_hash  TEXT,
    outcome       TEXT NOT NULL,                   -- stored | warning | updated | duplicate | rejected | failed
    code          TEXT NOT NULL DEFAULT '',
    reason        TEXT NOT NULL DEFAULT '',
    paper_id      TEXT,
    at            TEXT NOT NULL
);
CREATE INDEX ingest_outcomes_item ON ingest_outcomes(item);
