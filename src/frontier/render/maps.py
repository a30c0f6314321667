"""Research map pages (`maps/<date>-<topic>.md`), rendered from the maps table."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from frontier.render.common import bullets, link, para, shown_date, source_path, text


def _cited(value: str) -> str:
    """Model prose with its [n] citations kept readable (escaped brackets read back as [n])."""
    return para(value).replace("\\[", "[").replace("\\]", "]")


def _paper_ref(source: dict[str, Any], here: str) -> str:
    return f"[{source['number']}] " + link(source["title"], here, source_path(source["paper_id"]))


def map_page(row: sqlite3.Row) -> str:
    content = json.loads(row["content"])
    sources = {s["number"]: s for s in json.loads(row["bundle"])}
    here = row["path"]
    usage = content.get("usage", {})
    title = row["topic"] or "all topics"
    lines = [
        f"# Research map: {text(title)} ({row['at'][:10]})",
        "",
        f"_{len(sources)} papers{' since ' + text(row['since']) if row['since'] else ''}; "
        f"{text(content.get('mode', ''))}; model {text(row['model'])}; prompt "
        f"{text(row['prompt_version'])}; run {row['run_id']}; tokens: "
        f"{usage.get('prompt_tokens', 0):,} prompt, {usage.get('completion_tokens', 0):,} "
        f"completion, {usage.get('reasoning_tokens', 0):,} reasoning, "
        f"{usage.get('cached_tokens', 0):,} cached._",
        "",
        "## Overview",
        "",
        _cited(content["overview"]) if content["overview"] else "_No overview was written._",
        "",
        "## Themes",
        "",
    ]
    for i, theme in enumerate(content["themes"], start=1):
        lines += [f"### {i}. {text(theme['name'])}", ""]
        if theme["summary"]:
            lines += [_cited(theme["summary"]), ""]
        lines += bullets((_paper_ref(sources[n], here) for n in theme["members"]), "no papers")
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
    lines += ["", "## Open problems", ""]
    lines += bullets(
        (_cited(item["text"]) + _uncited(item) for item in content["open_problems"]),
        "none were written",
    )
    lines += ["", "## Takeaways for practitioners", ""]
    lines += bullets(
        (_cited(item["text"]) + _uncited(item) for item in content["takeaways"]),
        "none were written",
    )
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
    for failure in content.get("failures", []):
        lines.append(f"- The model gave no usable {text(failure)}")
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


def _uncited(item: dict[str, Any]) -> str:
    """The item's papers that its sentence does not already cite."""
    shown = [n for n in item["papers"] if f"[{n}]" not in item["text"]]
    return (" (" + "".join(f"[{n}]" for n in shown) + ")") if shown else ""
