"""From a PDF's bytes to clean pages, sections and page-anchored chunks."""
