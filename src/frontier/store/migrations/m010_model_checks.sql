-- Whether each reply of a model passed the check of the step that asked for it: a step whose
-- replies from a model and prompt version keep failing stops asking that model (a sample still
-- goes, so a better model or prompt is noticed).
CREATE TABLE model_checks (
    id              INTEGER PRIMARY KEY,
    step            TEXT NOT NULL,
    model           TEXT NOT NULL,
    prompt_version  TEXT NOT NULL,
    passed          INTEGER NOT NULL,
    run_id          INTEGER REFERENCES runs(id),
    at              TEXT NOT NULL
);
CREATE INDEX model_checks_step ON model_checks(step, model, prompt_version, id);
