-- m007_answer_grounding: the sentences of an answer that code took out because the sources do
-- not bear them out (JSON list of {sentence, reason}).

ALTER TABLE asks ADD COLUMN dropped TEXT NOT NULL DEFAULT '[]';
