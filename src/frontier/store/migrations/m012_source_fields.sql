-- m012_source_fields: what a followed source (a Zotero library) last said about each paper, one
-- short digest per descriptive field (JSON), so reading the library again updates only the
-- fields its user changed since; NULL for the sources that are not followed.
ALTER TABLE paper_sources ADD COLUMN field_digests TEXT;
CREATE INDEX paper_sources_ref ON paper_sources(source, source_ref);
