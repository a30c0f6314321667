"""frontier: a living, LLM-curated knowledge base of a research field."""

__version__ = "0.1.0"
