-- m005_incremental: what lets a run with nothing new finish without rereading the whole KB.

-- 0 until conflict detection has paired the claim with the others; a rewritten claim is a new row
ALTER TABLE claims ADD COLUMN conflicts_seen INTEGER NOT NULL DEFAULT 0;
CREATE INDEX claims_conflicts_unseen ON claims(id) WHERE conflicts_seen = 0;

-- bumped whenever a paper's pages or chunks are written or removed: a step whose quick key (made
-- from this version) matches what it stored need not read the paper's text to know it is current
ALTER TABLE papers ADD COLUMN text_version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE curate_state ADD COLUMN quick_key TEXT NOT NULL DEFAULT '';

CREATE TRIGGER chunks_version_ai AFTER INSERT ON chunks BEGIN
    UPDATE papers SET text_version = text_version + 1 WHERE id = new.paper_id;
END;
CREATE TRIGGER chunks_version_ad AFTER DELETE ON chunks BEGIN
    UPDATE papers SET text_version = text_version + 1 WHERE id = old.paper_id;
END;
CREATE TRIGGER pages_version_ai AFTER INSERT ON pages BEGIN
    UPDATE papers SET text_version = text_version + 1 WHERE id = new.paper_id;
END;
CREATE TRIGGER pages_version_ad AFTER DELETE ON pages BEGIN
    UPDATE papers SET text_version = text_version + 1 WHERE id = old.paper_id;
END;
CREATE TRIGGER pages_version_au AFTER UPDATE OF text ON pages BEGIN
    UPDATE papers SET text_version = text_version + 1 WHERE id = new.paper_id;
END;

-- every change of the text the lexical indexes hold (store/lexical.py), in order; an index
-- applies it from where it stopped, and entries every index has applied are deleted
CREATE TABLE text_log (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    corpus  TEXT NOT NULL,                         -- chunks | papers
    key     TEXT NOT NULL
);
CREATE TRIGGER chunks_log_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO text_log (corpus, key) VALUES ('chunks', new.id);
END;
CREATE TRIGGER chunks_log_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO text_log (corpus, key) VALUES ('chunks', old.id);
END;
CREATE TRIGGER papers_log_ai AFTER INSERT ON papers BEGIN
    INSERT INTO text_log (corpus, key) VALUES ('papers', new.id);
END;
CREATE TRIGGER papers_log_au AFTER UPDATE OF title, abstract ON papers BEGIN
    INSERT INTO text_log (corpus, key) VALUES ('papers', new.id);
END;
CREATE TRIGGER papers_log_ad AFTER DELETE ON papers BEGIN
    INSERT INTO text_log (corpus, key) VALUES ('papers', old.id);
END;

-- moves on with every insert or delete of a chunk vector: whether the vectors a search loaded
-- are still those stored is one lookup instead of counting a million rows
CREATE TABLE change_counters (
    name   TEXT PRIMARY KEY,
    value  INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO change_counters (name, value) VALUES ('chunk_embeddings', 0);
CREATE TRIGGER chunk_embeddings_count_ai AFTER INSERT ON chunk_embeddings BEGIN
    UPDATE change_counters SET value = value + 1 WHERE name = 'chunk_embeddings';
END;
CREATE TRIGGER chunk_embeddings_count_ad AFTER DELETE ON chunk_embeddings BEGIN
    UPDATE change_counters SET value = value + 1 WHERE name = 'chunk_embeddings';
END;
