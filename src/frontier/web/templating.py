"""Jinja2 templates (autoescaped) and the names every page shares: links, navigation, filters."""

from __future__ import annotations

from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from frontier.render.common import Context, quote_parts, value_with_unit
from frontier.store.claim_text import phrase_claim
from frontier.synthesize.measurement import family_label
from frontier.web.base import View
from frontier.web.links import Links, VaultLinks, link_citations
from frontier.web.pages import navigation


@cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("frontier.web", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["value_unit"] = value_with_unit
    env.filters["phrase"] = phrase_claim
    env.filters["quote_parts"] = quote_parts
    env.filters["family_label"] = family_label
    env.globals["cite"] = link_citations
    return env


def render(view: View, ctx: Context | None, links: Links | VaultLinks, **extra: Any) -> str:
    """The page's HTML: its template with the view's data and the shared names."""
    names: dict[str, Any] = {
        "title": view.title,
        "url": links.url,
        "static_site": links.static_site,
        "nav": navigation(links.static_site),
        "field_name": ctx.settings.field.name if ctx else "frontier",
        "topic_title": ctx.topic_title if ctx else str,
        "allow_edits": False,
        "shared": False,
        "csrf": "",
        **extra,
        **view.data,
    }
    return environment().get_template(view.template).render(names)
