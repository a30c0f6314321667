"""Research map pages (`maps/<date>-<topic>.md`), rendered from the maps table."""

from __future__ import annotations

import json
from typing import Any

from frontier.model import StoredMap
from frontier.render.common import bullets, link, para, shown_date, source_path, text


def _cited(value: str) -> str:
    """Model prose with its [n] citations kept readable (escaped brackets read back as [n])."""
    return para(value).replace("\\[", "[").replace("\\]", "]")


def _paper_ref(source: dict[str, Any], here: str) -> str:
    return f"[{source['number']}] " + link(source["title"], here, source_path(source["paper_id"]))


def map_page(stored: StoredMap) -> str:
    content = json.loads(stored.content)
    sources = {s["number"]: s for s in json.loads(stored.bundle)}
    here = stored.path
    usage = content.get("usage", {})
    title = stored.topic or "all topics"
    lines = [
        f"# Research map: {text(title)} ({stored.at[:10]})",
        "",
        f"_{len(sources)} papers{' since ' + text(stored.since) if stored.since else ''}; "
        f"{text(content.get('mode', ''))}; model {text(stored.model or 'none')}; prompt "
        f"{text(stored.prompt_version)}; run {stored.run_id}; tokens: "
        f"{usage.get('prompt_tokens', 0):,} prompt, {usage.get('completion_tokens', 0):,} "
        f"completion, {usage.get('reasoning_tokens', 0):,} reasoning, "
        f"{usage.get('cached_tokens', 0):,} cached._",
        "",
        "## Overview",
        "",
    ]
    if content["overview"]:
        lines += [_cited(content["overview"]) + f" _(written by {text(stored.model)})_", ""]
    lines += bullets(
        (f"**{text(t['name'])}**: {_cited(t['summary'])}" for t in content["themes"]),
        "no themes",
    )
    lines += ["", "## Themes", ""]
    papers = {p["number"]: p for p in content.get("papers", [])}
    for i, theme in enumerate(content["themes"], start=1):
        lines += [f"### {i}. {text(theme['name'])}{_named_by(theme)}", ""]
        lines += bullets(
            (_member(sources[n], papers.get(n), here) for n in theme["members"]), "no papers"
        )
        lines.append("")
    if content.get("apart"):
        lines += ["### Papers apart (close to no theme)", ""]
        lines += bullets(
            (_member(sources[n], papers.get(n), here) for n in content["apart"]), "none"
        )
        lines.append("")
    lines += ["## Chronology", ""]
    lines += bullets(
        (
            f"**{text(period['period'])}**: "
            + ", ".join(_paper_ref(sources[n], here) for n in period["papers"])
            for period in content["chronology"]
        ),
        "no dated papers",
    )
    lines += ["", "## Open problems", "", "_What the papers say they leave open._", ""]
    lines += bullets((_item(i) for i in content["open_problems"]), "none stated in the papers")
    lines += ["", "## Takeaways for practitioners", ""]
    lines += _takeaways(content["takeaways"])
    lines += ["", "## Citation check", ""]
    removed = content.get("removed_citations", [])
    lines.append(
        "Every [n] above names a paper of the bundle below."
        + (
            f" Removed {len(removed)} citation(s) to papers not in the bundle: "
            + ", ".join(f"[{r['n']}] in {text(r['where'])}" for r in removed)
            + "."
            if removed
            else ""
        )
    )
    for note in content.get("notes", []):
        lines.append(f"- {text(note)}")
    dropped = content.get("removed_sentences", [])
    if dropped:
        lines += [
            "",
            f"Removed {len(dropped)} sentence(s) or name(s) the papers do not bear out:",
            "",
        ]
        lines += [
            f"- {text(d['where'])}: {text(d['sentence'])} ({text(d['reason'])})" for d in dropped
        ]
    lines += ["", "## Bundle", ""]
    lines += bullets(
        (
            _paper_ref(s, here)
            + f" ({text(s['paper_id'])}, {text(shown_date(s['date']))}"
            + (f", pages {', '.join(map(str, s['pages']))}" if s["pages"] else "")
            + ")"
            for s in sources.values()
        ),
        "empty",
    )
    return "\n".join(lines).rstrip() + "\n"


def _named_by(theme: dict[str, Any]) -> str:
    by = theme.get("named_by", "code")
    return "" if by == "code" else f" _(named by {text(by)})_"


def _member(source: dict[str, Any], paper: dict[str, Any] | None, here: str) -> str:
    said = paper["contribution"] if paper else ""
    return _paper_ref(source, here) + (f": {text(said)}" if said else "")


def _where(item: dict[str, Any]) -> str:
    page = item.get("page")
    return f"p. {page}" if page else "abstract"


def _item(item: dict[str, Any]) -> str:
    """A quoted sentence with its paper and page, or the model's sentence marked as its own."""
    if item.get("by", "the model") != "code":
        return _cited(item["text"]) + _uncited(item) + f" _(written by {text(item['by'])})_"
    cites = "".join(f"[{n}]" for n in item["papers"])
    return f"\u201c{text(item['text'])}\u201d {cites}, {_where(item)}"


def _takeaways(items: list[dict[str, Any]]) -> list[str]:
    """Takeaways under the part of the stack they change; each a typed result with its quote."""
    if not items:
        return ["_none: no paper has a typed headline result_"]
    lines: list[str] = []
    for part in dict.fromkeys(i.get("group", "") for i in items):
        chosen = [i for i in items if i.get("group", "") == part]
        lines += [
            f"**{text(part[:1].upper() + part[1:])}**" if part else "**Written by the model**",
            "",
        ]
        for item in chosen:
            if item.get("by", "the model") != "code":
                lines.append("- " + _item(item))
            else:
                quote = (
                    f" \u2014 \u201c{text(item['quote'])}\u201d"
                    if item.get("quote") and item["quote"] not in item["text"]
                    else ""
                )
                lines.append(f"- {_cited(item['text'])}{quote}")
        lines.append("")
    return lines[:-1]


def _uncited(item: dict[str, Any]) -> str:
    """The item's papers that its sentence does not already cite."""
    shown = [n for n in item["papers"] if f"[{n}]" not in item["text"]]
    return (" (" + "".join(f"[{n}]" for n in shown) + ")") if shown else ""
