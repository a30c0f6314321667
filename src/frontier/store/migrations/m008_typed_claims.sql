-- m008_typed_claims: claims typed from spans of their sentence. A claim records whether it is one
-- of its paper's headline results, which section it stands in, and where its model or hardware
-- came from when its sentence names neither. A relation records the page of its quoted evidence
-- and the model's one checked "how" sentence. An entry keeps its what-it-is part apart, as checked.

ALTER TABLE claims ADD COLUMN headline INTEGER NOT NULL DEFAULT 0;
ALTER TABLE claims ADD COLUMN section TEXT NOT NULL DEFAULT '';
ALTER TABLE claims ADD COLUMN setup_page INTEGER;
ALTER TABLE claims ADD COLUMN setup_fields TEXT NOT NULL DEFAULT '';
CREATE INDEX claims_headline ON claims(paper_id) WHERE headline = 1;

ALTER TABLE relations ADD COLUMN page INTEGER;
ALTER TABLE relations ADD COLUMN how TEXT NOT NULL DEFAULT '';

ALTER TABLE entries ADD COLUMN what TEXT NOT NULL DEFAULT '';
