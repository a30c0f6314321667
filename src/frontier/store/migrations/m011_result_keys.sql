-- The keys the results table sorts, groups and filters claims by (metric family, parsed value,
-- canonical names, the system reported on), stored so that a filtered table reads only the
-- claims it shows. Derived data: `version` names the code and the names table that read them;
-- a claim or paper whose fields change loses its keys, and they are read again.
CREATE TABLE result_keys (
    claim_id  INTEGER PRIMARY KEY REFERENCES claims(id) ON DELETE CASCADE,
    family    TEXT,
    low       REAL,
    high      REAL,
    unit      TEXT,
    form      TEXT,
    start     REAL,
    finish    REAL,
    baselines TEXT NOT NULL DEFAULT '',     -- canonical names, joined by U+001F
    models    TEXT NOT NULL DEFAULT '',
    hardware  TEXT NOT NULL DEFAULT '',
    system    TEXT NOT NULL DEFAULT '',
    version   TEXT NOT NULL
);
CREATE INDEX result_keys_family ON result_keys(family);

CREATE TABLE result_names (
    role     TEXT NOT NULL,                 -- baseline | model | hardware
    name     TEXT NOT NULL COLLATE NOCASE,  -- canonical
    claim_id INTEGER NOT NULL REFERENCES claims(id) ON DELETE CASCADE,
    PRIMARY KEY (role, name, claim_id)
) WITHOUT ROWID;
CREATE INDEX result_names_claim ON result_names(claim_id);

CREATE TRIGGER result_keys_claim_changed
AFTER UPDATE OF metric, value, value_text, unit, baseline, model_name, hardware, quote ON claims
BEGIN
    DELETE FROM result_keys WHERE claim_id = NEW.id;
    DELETE FROM result_names WHERE claim_id = NEW.id;
END;

CREATE TRIGGER result_keys_paper_changed
AFTER UPDATE OF title, abstract ON papers
BEGIN
    DELETE FROM result_keys WHERE claim_id IN (SELECT id FROM claims WHERE paper_id = NEW.id);
    DELETE FROM result_names WHERE claim_id IN (SELECT id FROM claims WHERE paper_id = NEW.id);
END;
