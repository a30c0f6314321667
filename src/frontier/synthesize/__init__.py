"""Synthesis over the curated KB: retrieval, cited answers, research maps, conflicts."""
