-- m009_digests: what a digest reports. Every fact a digest speaks of is logged once, in the order
-- it first appeared (seq): a paper, an entry (paper and topic), a relation (paper, topic, kind,
-- target), each status a gap or a conflict moves to, an input rejected or stored with a warning,
-- a model call. Rewriting a row with the same key (curation does it all the time) logs nothing;
-- a digest is the log between the seq where the previous one stopped and its own.

CREATE TABLE kb_log (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    kind    TEXT NOT NULL,                         -- paper | entry | relation | gap | conflict | input | llm
    key     TEXT NOT NULL,                         -- paper id; JSON [paper, topic(, kind, target)]; row id
    status  TEXT NOT NULL DEFAULT '',              -- gaps and conflicts: the status it moved to
    at      TEXT NOT NULL
);
CREATE INDEX kb_log_key ON kb_log(kind, key);
CREATE INDEX kb_log_at ON kb_log(at);

-- the first-seen triggers insert only keys not logged yet, so the conflict clause of the statement
-- that fires them (INSERT OR REPLACE) never applies to the log
CREATE TRIGGER kb_log_papers AFTER INSERT ON papers BEGIN
    INSERT INTO kb_log (kind, key, at)
    SELECT 'paper', new.id, strftime('%Y-%m-%dT%H:%M:%S+00:00', 'now')
    WHERE NOT EXISTS (SELECT 1 FROM kb_log WHERE kind = 'paper' AND key = new.id);
END;
CREATE TRIGGER kb_log_entries AFTER INSERT ON entries BEGIN
    INSERT INTO kb_log (kind, key, at)
    SELECT 'entry', json_array(new.paper_id, new.topic), strftime('%Y-%m-%dT%H:%M:%S+00:00', 'now')
    WHERE NOT EXISTS (
        SELECT 1 FROM kb_log WHERE kind = 'entry' AND key = json_array(new.paper_id, new.topic)
    );
END;
CREATE TRIGGER kb_log_relations AFTER INSERT ON relations BEGIN
    INSERT INTO kb_log (kind, key, at)
    SELECT 'relation', json_array(new.paper_id, new.topic, new.kind, new.target),
           strftime('%Y-%m-%dT%H:%M:%S+00:00', 'now')
    WHERE NOT EXISTS (
        SELECT 1 FROM kb_log WHERE kind = 'relation'
        AND key = json_array(new.paper_id, new.topic, new.kind, new.target)
    );
END;
CREATE TRIGGER kb_log_gaps_ai AFTER INSERT ON gaps BEGIN
    INSERT INTO kb_log (kind, key, status, at)
    VALUES ('gap', new.id, new.status, strftime('%Y-%m-%dT%H:%M:%S+00:00', 'now'));
END;
CREATE TRIGGER kb_log_gaps_au AFTER UPDATE OF status ON gaps WHEN old.status != new.status BEGIN
    INSERT INTO kb_log (kind, key, status, at)
    VALUES ('gap', new.id, new.status, strftime('%Y-%m-%dT%H:%M:%S+00:00', 'now'));
END;
CREATE TRIGGER kb_log_conflicts_ai AFTER INSERT ON conflicts BEGIN
    INSERT INTO kb_log (kind, key, status, at)
    VALUES ('conflict', new.id, new.status, strftime('%Y-%m-%dT%H:%M:%S+00:00', 'now'));
END;
CREATE TRIGGER kb_log_conflicts_au AFTER UPDATE OF status ON conflicts
WHEN old.status != new.status BEGIN
    INSERT INTO kb_log (kind, key, status, at)
    VALUES ('conflict', new.id, new.status, strftime('%Y-%m-%dT%H:%M:%S+00:00', 'now'));
END;
CREATE TRIGGER kb_log_inputs AFTER INSERT ON ingest_outcomes
WHEN new.outcome IN ('rejected', 'warning') BEGIN
    INSERT INTO kb_log (kind, key, status, at)
    VALUES ('input', new.id, new.outcome, strftime('%Y-%m-%dT%H:%M:%S+00:00', 'now'));
END;
CREATE TRIGGER kb_log_llm AFTER INSERT ON llm_calls BEGIN
    INSERT INTO kb_log (kind, key, at)
    VALUES ('llm', new.id, strftime('%Y-%m-%dT%H:%M:%S+00:00', 'now'));
END;

-- what a KB held before digests existed, stamped with the times it has (a relation: its paper's)
INSERT INTO kb_log (kind, key, at) SELECT 'paper', id, added_at FROM papers ORDER BY added_at, id;
INSERT INTO kb_log (kind, key, at)
    SELECT 'entry', json_array(paper_id, topic), at FROM entries ORDER BY at, paper_id, topic;
INSERT INTO kb_log (kind, key, at)
    SELECT 'relation', json_array(r.paper_id, r.topic, r.kind, r.target), p.added_at
    FROM relations r JOIN papers p ON p.id = r.paper_id
    ORDER BY p.added_at, r.paper_id, r.topic, r.kind, r.target;
INSERT INTO kb_log (kind, key, status, at)
    SELECT 'gap', id, status, COALESCE(closed_at, created_at) FROM gaps ORDER BY id;
INSERT INTO kb_log (kind, key, status, at)
    SELECT 'conflict', id, status, created_at FROM conflicts ORDER BY id;
INSERT INTO kb_log (kind, key, status, at)
    SELECT 'input', id, outcome, at FROM ingest_outcomes
    WHERE outcome IN ('rejected', 'warning') ORDER BY id;
INSERT INTO kb_log (kind, key, at) SELECT 'llm', id, at FROM llm_calls ORDER BY id;

-- one row per digest written: the log it covers (after_seq < seq <= upto_seq) and its file name
CREATE TABLE digests (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,              -- kb/digests/<name>.md: the date, -2, -3 after it
    run_id      INTEGER REFERENCES runs(id),
    after_seq   INTEGER NOT NULL,
    upto_seq    INTEGER NOT NULL,
    at          TEXT NOT NULL
);

-- the feed's identity, and where digests begin: a KB that existed before them starts its first
-- digest after what it already held
CREATE TABLE digest_state (
    key    TEXT PRIMARY KEY,
    value  TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO digest_state (key, value) VALUES ('feed_id', lower(hex(randomblob(16))));
INSERT INTO digest_state (key, value)
    VALUES ('began_at', strftime('%Y-%m-%dT%H:%M:%S+00:00', 'now'));
INSERT INTO digest_state (key, value) SELECT 'baseline', COALESCE(MAX(seq), 0) FROM kb_log;
