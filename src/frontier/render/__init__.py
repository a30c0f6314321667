"""The markdown view of the KB: pages rendered from the store into a vault folder."""

from __future__ import annotations

from frontier.render.vault import render_vault, vault_pages

__all__ = ["render_vault", "vault_pages"]
