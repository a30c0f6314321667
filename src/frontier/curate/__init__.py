"""Curation against the KB's own state: triage into topics, verified claims, relations to what
the KB tracks, and the entry that says why a paper matters here."""
