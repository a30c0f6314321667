"""Everything the command line prints: tables, summaries, JSON and the one-line errors.

A terminal gets rich tables at its width. Anything else (a log file, cron, CI, a pipe) gets
whole lines: nothing is wrapped, so each item stays on one line with its full name.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from frontier.synthesize.measurement import family_label

if TYPE_CHECKING:  # imported where used: a command pays only for what it prints
    from frontier.intake.report import Report
    from frontier.llm.records import ChatResult, Usage
    from frontier.synthesize.ask import Answer
    from frontier.synthesize.grounding import Dropped
    from frontier.synthesize.researchmap import ResearchMap

UNWRAPPED_WIDTH = 10_000  # wider than any line a command prints: a log keeps lines whole
PLAIN_RULE_WIDTH = 80
_STYLE = {
    "stored": "green",
    "warning": "yellow",
    "updated": "cyan",
    "duplicate": "dim",
    "rejected": "red",
    "failed": "red",
}


def stdout_console() -> Console:
    """The console for results: the terminal as it is, anything else without wrapping."""
    console = Console()
    if console.is_terminal:
        return console
    return Console(width=UNWRAPPED_WIDTH, soft_wrap=True)


def progress_console() -> Console:
    """Where progress bars go: the terminal; nowhere when nobody watches (a log, a pipe)."""
    console = Console()
    return console if console.is_terminal else Console(quiet=True)


def stderr_console() -> Console:
    return Console(stderr=True, soft_wrap=True)


def error(message: str) -> None:
    """The one line on stderr that a failed command ends with."""
    stderr_console().print(f"[red]error:[/] {escape(message)}")


def internal_error(exc: BaseException) -> None:
    stderr_console().print(
        f"[red]internal error:[/] {escape(f'{type(exc).__name__}: {exc}')} "
        "(set FRONTIER_DEBUG=1 for details)"
    )


def out_of_space(exc: BaseException) -> None:
    error(
        f"no space left where the KB lives ({exc}); what was stored before is intact. "
        "Free some space and run the command again to resume."
    )


def interrupted() -> None:
    """What Ctrl-C leaves behind, said once on stderr."""
    stderr_console().print(
        "[yellow]interrupted[/] — everything finished so far is stored; "
        "run the same command again to resume"
    )


def warning(message: str) -> None:
    stderr_console().print(f"[yellow]warning:[/] {message}")


def note(message: str) -> None:
    """A line on stderr that is not a result (so stdout stays clean for the data)."""
    stderr_console().print(message, markup=False, highlight=False)


def rule(console: Console, title: str) -> None:
    """A titled separator: across the terminal, or a short line in a log."""
    if console.is_terminal:
        console.rule(title)
    else:
        console.print(f"── {title} ".ljust(PLAIN_RULE_WIDTH, "─"), markup=False, highlight=False)


def plain(console: Console, text: str) -> None:
    """Text exactly as given: no markup, no highlighting."""
    console.print(text, markup=False, highlight=False)


def print_json(console: Console, data: Any) -> None:
    console.print_json(json.dumps(data, default=str))


def print_data(
    console: Console, data: Any, json_out: bool, as_text: Callable[[Console, Any], None]
) -> None:
    """A command's result as JSON, or as text the way `as_text` prints it."""
    if json_out:
        print_json(console, data)
    else:
        as_text(console, data)


def print_table(console: Console, columns: str, rows: list[list[str]], footer: str) -> None:
    """A table of plain text cells (escaped here) and a one-line footer."""
    table = Table()
    for column in columns.split():
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*(escape(cell) for cell in row))
    console.print(table)
    console.print(footer)


# --- intake ----------------------------------------------------------------------------------


def print_report(console: Console, report: Report, *, verbose_limit: int = 200) -> None:
    """Each item with its outcome, then one summary line."""
    table = Table(title=None, show_lines=False, expand=False)
    table.add_column("outcome")
    table.add_column("item", overflow="fold")
    table.add_column("detail", overflow="fold")
    shown = [e for e in report.entries if e.outcome != "duplicate"] or report.entries
    for entry in shown[:verbose_limit]:
        style = _STYLE.get(entry.outcome, "")
        table.add_row(f"[{style}]{entry.outcome}[/]", escape(entry.item), escape(entry.message))
    if report.entries:
        console.print(table)
    if len(shown) > verbose_limit:
        console.print(f"... and {len(shown) - verbose_limit} more")
    console.print(summary_line(report))


def show_report(console: Console, report: Report, json_out: bool) -> int:
    if json_out:
        print_json(console, report.to_dict())
    else:
        print_report(console, report)
    return report.exit_code()


def summary_line(report: Report) -> str:
    counts = report.counts()
    if not report.entries:
        return "Nothing to do."
    parts = [f"{counts[name]} {name}" for name in _STYLE if counts.get(name)]
    tail = "" if report.new_or_changed else " Nothing new was stored."
    return f"Summary: {', '.join(parts)}.{tail}"


def print_hits(console: Console, hits: list[dict[str, Any]]) -> None:
    if not hits:
        console.print("No matches.")
        return
    table = Table()
    for column in ("#", "id", "title", "page", "snippet"):
        table.add_column(column, overflow="fold")
    for rank, hit in enumerate(hits, start=1):
        page = "" if hit["page"] is None else str(hit["page"])
        table.add_row(
            str(rank), escape(hit["id"]), escape(hit["title"]), page, escape(hit["snippet"])
        )
    console.print(table)


def print_status(console: Console, status: dict[str, Any]) -> None:
    counts = status["counts"]
    console.print(f"[bold]{status['field']}[/] — workspace {status['workspace']}")
    console.print(
        f"papers {counts['papers']} ({counts['with_full_text']} with full text), pages {counts['pages']}, "
        f"chunks {counts['chunks']}, with warnings {counts['with_warnings']}, "
        f"rejected files {counts['rejected_files']}"
    )
    console.print(
        f"curated: {counts['in_field']} in the field, {counts['out_of_field']} out; "
        f"claims {counts['claims_verified']} verified, {counts['claims_unverified']} unverified; "
        f"entries {counts['entries']}"
    )
    if status["rejected"]:
        table = Table(title="Rejected")
        table.add_column("item", overflow="fold")
        table.add_column("reason", overflow="fold")
        for row in status["rejected"]:
            table.add_row(row["item"], row["reason"])
        console.print(table)
    if status["warnings"]:
        table = Table(title="Stored with warnings")
        table.add_column("paper")
        table.add_column("warnings", overflow="fold")
        for row in status["warnings"]:
            table.add_row(row["id"], "; ".join(row["warnings"]))
        console.print(table)
    if status.get("model_checks"):
        checks = Table(title="Model replies checked, per step")
        for column in ("step", "model", "prompt", "passed / checked", "asks the model"):
            checks.add_column(column, overflow="fold")
        for row in status["model_checks"]:
            checks.add_row(
                row["step"],
                row["model"],
                row["prompt_version"],
                f"{row['passed']} / {row['checked']}",
                row["asks"] if row["mode"] == "auto" else row["mode"],
            )
        console.print(checks)
    runs = Table(title="Last runs")
    for column in ("id", "command", "started", "status", "summary"):
        runs.add_column(column, overflow="fold")
    for run in status["runs"]:
        summary = ", ".join(f"{k} {v}" for k, v in run["summary"].get("counts", {}).items())
        runs.add_row(str(run["id"]), run["command"], run["started_at"], run["status"], summary)
    console.print(runs)


def print_paper(console: Console, paper: dict[str, Any]) -> None:
    flag = " (provisional title)" if paper["title_provisional"] else ""
    console.print(f"[bold]{paper['title']}[/]{flag}")
    facts = [
        ("id", paper["id"]),
        ("arXiv", paper["arxiv_id"]),
        ("version", paper["arxiv_version"]),
        ("versions seen", ", ".join(f"v{v}" for v in paper["versions"])),
        ("DOI", paper["doi"]),
        ("authors", ", ".join(paper["authors"])),
        ("published", paper["published"]),
        ("categories", ", ".join(paper["categories"])),
        ("kind", paper["kind"]),
        ("status", paper["status"]),
        ("pages", paper["n_pages"]),
        ("chunks", paper["chunks"]),
        ("site", paper["site"]),
        ("url", paper["url"]),
        ("collection", paper["collection"]),
    ]
    for label, value in facts:
        if value not in (None, "", 0):
            console.print(f"  {label:<14} {value}")
    for warning_text in paper["warnings"]:
        console.print(f"  [yellow]warning[/] {warning_text}")
    if paper["sections"]:
        names = [
            f"{s['number']} {s['title']} (p{s['page_start']})".strip() for s in paper["sections"]
        ]
        console.print("  sections       " + " · ".join(names))
    if paper["abstract"]:
        console.print(f"\n{paper['abstract']}")


# --- curation and the pipeline ---------------------------------------------------------------


def curation_lines(result: dict[str, Any]) -> list[str]:
    """What a curation did, as lines of console markup: counts, then up to 20 failures."""
    counts = result["counts"]
    parts = [f"{key} {value}" for key, value in sorted(counts.items())]
    lines = ["Curation: " + (", ".join(parts) if parts else "nothing to do")]
    if seconds := result.get("seconds"):
        lines.append("Time: " + seconds_line(seconds))
    lines += [escape(note) for note in result.get("notes", [])]
    for failure in result["failures"][:20]:
        lines.append(f"[red]failed[/] {failure['paper']} ({failure['step']}): {failure['error']}")
    if len(result["failures"]) > 20:
        lines.append(f"... and {len(result['failures']) - 20} more failures")
    return lines


def seconds_line(seconds: dict[str, float]) -> str:
    """'triage 12.3 s, claims 4.1 s': wall time by stage, in the order the stages ran."""
    return ", ".join(f"{stage} {took:.1f} s" for stage, took in seconds.items())


def print_curation(console: Console, result: dict[str, Any]) -> None:
    for line in curation_lines(result):
        console.print(line)


def print_conflicts_found(console: Console, counts: dict[str, int]) -> None:
    console.print(
        f"{counts['pairs']} disagreeing claim pairs, {counts['new']} newly flagged "
        f"({counts['label failures']} without a label from the model)"
        + (
            f"; {counts['withdrawn']} withdrawn, their claims no longer disagreeing."
            if counts.get("withdrawn")
            else "."
        )
    )


def rendered_line(counts: dict[str, Any]) -> str:
    """What a render changed, in words."""
    return (
        f"{counts['written']} written, {counts['unchanged']} unchanged, {counts['removed']} removed"
    )


def update_lines(step: str, data: Any) -> list[str]:
    """What `frontier update` says after each step (the same lines go to its log)."""
    if step == "start":
        return [f"frontier update {dt.datetime.now().isoformat(timespec='seconds')} on {data.root}"]
    if step == "discover":
        lines = []
        if any(e.code == "arxiv" for e in data.entries):
            lines.append("arXiv is unreachable or refused the query; going on with local sources.")
        return [*lines, "discover: " + summary_line(data)]
    if step == "ingest":
        return ["ingest: " + summary_line(data)]
    if step == "curate":
        return curation_lines(data)
    if step == "render":
        return [f"render: {rendered_line(data)} -> {data['kb']}"]
    if step == "digest":
        return digest_lines(data)
    raise ValueError(f"no such step: {step}")


def digest_lines(result: Any) -> list[str]:
    """Where a written digest went and its five-line summary; one line when nothing changed."""
    if result.digest is None:
        return [escape(f"digest: {result.nothing_new()}")]
    return [
        f"digest: {escape(str(result.path))}",
        *(f"  {escape(line)}" for line in result.digest.summary()),
    ]


def print_digest(console: Console, result: Any) -> None:
    """The digest's markdown, then where it was written; one line when nothing changed."""
    if result.digest is None:
        plain(console, result.nothing_new())
        return
    plain(console, result.page.rstrip("\n"))
    if result.path:
        plain(console, f"\nWritten to {result.path}")


# --- the KB ----------------------------------------------------------------------------------


def print_papers(console: Console, data: list[dict[str, Any]]) -> None:
    rows = []
    for paper in data:
        where = ", ".join(paper["topics"]) or ("out of field" if paper["out_of_field"] else "—")
        stages = ", ".join(sorted({r["stage"] for r in paper["triage"]}))
        reasons = "; ".join(r["reason"] for r in paper["triage"])
        rows.append([paper["id"], paper["date"], paper["title"], where, stages, reasons])
    print_table(console, "id date title topics stage reason", rows, f"{len(data)} papers.")


def print_claims(console: Console, rows: list[dict[str, Any]]) -> None:
    cells = []
    for r in rows:
        value = f"{r['value_text']} {r['unit']}".strip()
        page = "" if r["page"] is None else str(r["page"])
        status = "verified" if r["verified"] else "UNVERIFIED"
        cells.append([r["paper"], r["metric"], value, r["baseline"], r["model"], r["hardware"]])
        cells[-1] += [page, status, r["quote"]]
    unverified = sum(1 for r in rows if not r["verified"])
    tail = f" ({unverified} unverified: not facts)" if unverified else ""
    columns = "paper metric value baseline model hardware page status quote"
    print_table(console, columns, cells, f"{len(rows)} claims{tail}.")


def print_claims_csv(rows: list[dict[str, Any]]) -> None:
    from frontier.render.export import claims_csv

    write_stdout(claims_csv(rows))


def print_results_csv(rows: list[dict[str, Any]]) -> None:
    from frontier.render.export import results_csv

    write_stdout(results_csv(rows))


def _parsed(row: dict[str, Any]) -> str:
    """The parsed value as the table shows it: `2–4 ×`, `≤ 3.5 ×`, `180 → 6 s`, `?`."""
    low, high, unit = row["value_low"], row["value_high"], row["value_unit"] or ""
    if row["value_form"] is None:
        return "?"
    if row["value_form"] == "from-to":
        text = f"{row['value_from']:g} → {row['value_to']:g}"
    elif low is None:
        text = f"≤ {high:g}"
    elif high is None:
        text = f"≥ {low:g}"
    else:
        text = f"{low:g}" if low == high else f"{low:g}–{high:g}"
    return f"{text} {unit}".strip()


def _result_group(row: dict[str, Any]) -> str:
    family = family_label(row["family"]) or "metric family unknown"
    baseline = row["baseline_canonical"] or "baseline unknown"
    return f"{family} — vs {baseline}"


def print_results(console: Console, rows: list[dict[str, Any]]) -> None:
    """One table per metric family and baseline, rows in the order given (sorted by value)."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(_result_group(row), []).append(row)
    columns = "paper title value parsed direction baseline model hardware page status quote"
    for heading, members in groups.items():
        rule(console, heading)
        cells = [_result_cells(r) for r in members]
        print_table(console, columns, cells, f"{_results(len(members))}.")
    unverified = sum(1 for r in rows if not r["verified"])
    tail = f" ({unverified} unverified: not facts)" if unverified else ""
    groups_text = "1 group" if len(groups) == 1 else f"{len(groups)} groups"
    console.print(f"{_results(len(rows))} in {groups_text}{tail}.")


def print_results_graph(console: Console, graph: dict[str, Any]) -> None:
    """One line per comparison (system over baseline on a metric) with its claims' values."""
    for edge in graph["edges"]:
        values = ", ".join(_graph_claim(claim) for claim in edge["claims"])
        plain(
            console,
            f"{edge['system']} over {edge['baseline']} on {family_label(edge['family'])}: {values}",
        )
    nodes, edges = len(graph["nodes"]), len(graph["edges"])
    console.print(f"{nodes} systems, {edges} comparisons.")


def _graph_claim(claim: dict[str, Any]) -> str:
    page = "" if claim["page"] is None else f" p. {claim['page']}"
    value, unit = claim["value_text"], claim["unit"] or ""
    if value[-1:].isdigit() and unit:  # printed without its unit: "2-4" of "2-4×"
        value += unit if unit in ("×", "%") else f" {unit}"
    return f"{value} ({claim['paper']}{page})"


def _result_cells(row: dict[str, Any]) -> list[str]:
    page = "" if row["page"] is None else str(row["page"])
    status = "verified" if row["verified"] else "UNVERIFIED"
    shown = [row["paper"], row["title"], row["value_text"], _parsed(row), row["direction"]]
    return [*shown, row["baseline"], row["model"], row["hardware"], page, status, row["quote"]]


def _results(count: int) -> str:
    return "1 result" if count == 1 else f"{count} results"


def _ident(value: int | None) -> str:
    return "—" if value is None else str(value)


def print_items(console: Console, noun: str, rows: list[dict[str, Any]]) -> None:
    cells = [
        [_ident(r["id"]), r["topic"], r["status"], r["source"], str(len(r["papers"])), r["text"]]
        for r in rows
    ]
    print_table(console, "id topic status source papers text", cells, f"{len(rows)} {noun}.")


def print_gaps(console: Console, rows: list[dict[str, Any]]) -> None:
    print_items(console, "gaps", rows)


def print_conflicts(console: Console, rows: list[dict[str, Any]]) -> None:
    print_items(console, "conflicts", rows)


def print_added(console: Console, item: Any) -> None:
    if not item.new:
        console.print(
            f"{item.noun.capitalize()} {item.id} in {item.topic} already says this "
            f"({item.status}); nothing added."
        )
    else:
        console.print(f"Added {item.noun} {item.id} to {item.topic}: {escape(item.text)}")


def print_moved(console: Console, noun: str, moved: Any) -> None:
    if moved.changed:
        console.print(f"{noun} {moved.id}: {moved.before} → {moved.after}.")
    else:
        console.print(f"{noun} {moved.id} is already {moved.after}; nothing changed.")


def print_entities(console: Console, rows: list[dict[str, Any]]) -> None:
    cells = [
        [r["slug"], r["name"], r["kind"], str(r["papers"]), ", ".join(r["aliases"])] for r in rows
    ]
    print_table(console, "slug name kind papers aliases", cells, f"{len(rows)} entities.")


def print_relations(console: Console, rows: list[dict[str, Any]]) -> None:
    cells = [
        [
            r["paper"],
            r["kind"],
            r["target"],
            r["evidence"],
            "abstract" if r["page"] is None else str(r["page"]),
            r["how"],
            r["stage"],
        ]
        for r in rows
    ]
    print_table(
        console, "paper kind target evidence page how stage", cells, f"{len(rows)} relations."
    )


def print_rendered(console: Console, counts: dict[str, Any]) -> None:
    console.print(f"Rendered {escape(counts['kb'])}: {rendered_line(counts)}.")


# --- the model -------------------------------------------------------------------------------


def print_llm_status(console: Console, data: dict[str, Any]) -> None:
    mark = "[green]answers[/]" if data["answers"] else f"[red]does not answer[/]: {data['error']}"
    console.print(
        f"backend  {data['backend']}\nmodel    {data['model']}\nendpoint {data['endpoint']}\n"
        f"status   {mark}"
    )


def print_failure(console: Console, failure: Exception) -> None:
    """A model call that failed, on the command's own output."""
    console.print(f"[red]{failure}[/]")


def print_reply(console: Console, result: ChatResult, tag: str, think: bool) -> None:
    if think and result.reasoning:
        rule(console, "reasoning")
        plain(console, result.reasoning)
        rule(console, "answer")
    plain(console, result.content)
    print_token_summary(console, result, tag)


def print_token_summary(console: Console, result: ChatResult, tag: str) -> None:
    usage = result.usage
    answer_words = len(result.content.split())
    reasoning_words = len(result.reasoning.split())
    console.print("\nTOKEN SUMMARY" + (" (from cache: no request made)" if result.cached else ""))
    console.print(f"  model / prompt         : {result.model} / {tag}")
    console.print(
        f"  prompt tokens          : {usage.prompt_tokens:>8,}  (cached {usage.cached_tokens:,})"
    )
    console.print(f"  completion tokens      : {usage.completion_tokens:>8,}")
    console.print(
        f"  ├─ reasoning tokens    : {usage.reasoning_tokens:>8,}  (~{reasoning_words:,} words)"
    )
    console.print(f"  └─ answer (~words)     : {answer_words:>8,}")


def print_usage(console: Console, data: dict[str, list[dict[str, Any]]], priced: bool) -> None:
    for title, rows, keys in (
        ("Per run", data["by_run"], ("run_id", "command")),
        ("Per purpose", data["by_purpose"], ("purpose",)),
    ):
        table = Table(title=title)
        columns = [
            *keys,
            "calls",
            "cache_hits",
            "failures",
            "prompt_tokens",
            "completion_tokens",
            "reasoning_tokens",
            "cached_tokens",
        ] + (["cost_usd"] if priced else [])
        for column in columns:
            table.add_column(column.replace("_", " "))
        for row in rows:
            table.add_row(*[str(row[c]) for c in columns])
        console.print(table)


# --- answers and maps ------------------------------------------------------------------------


def print_answer(console: Console, answer: Answer, think: bool, many: bool) -> None:
    if many:
        rule(console, answer.question or "preset")
    result = answer.result
    if think and result and result.reasoning:
        rule(console, "reasoning")
        plain(console, result.reasoning)
        rule(console, "answer")
    plain(console, answer.text)
    if not answer.supported:
        return
    if answer.not_asked:
        console.print(f"[yellow]{escape(answer.not_asked)}[/]")
    if answer.deadline_passed:
        console.print(
            "[yellow]the model did not finish within llm.answer_deadline: shown are the "
            "sentences of the sources that answer, found without it[/]"
        )
    console.print("\nSources:")
    for source in answer.bundle.sources:
        mark = "*" if source.number in answer.cited else " "
        plain(console, f" {mark}[{source.number}] {source.label()}")
    if answer.removed:
        numbers = ", ".join(f"[{n}]" for n in answer.removed)
        console.print(f"[yellow]removed citations to sources not in the bundle: {numbers}[/]")
    print_removed_sentences(console, answer.dropped)
    if result:
        print_token_summary(console, result, answer.prompt_tag)


def print_thinking_compared(console: Console, answers: list[Answer]) -> None:
    """The same question answered without and with reasoning, then what each cost."""
    for answer in answers:
        rule(console, "with reasoning" if answer.thinking else "without reasoning")
        if answer.thinking and answer.result and answer.result.reasoning:
            console.print("[dim]reasoning:[/]")
            plain(console, answer.result.reasoning)
            console.print("[dim]answer:[/]")
        plain(console, answer.text)
        print_removed_sentences(console, answer.dropped)
    table = Table(title="Reasoning off against on")
    for column in ("", "off", "on"):
        table.add_column(column, justify="right" if column else "left")
    off, on = answers[0], answers[-1]
    measures: tuple[tuple[str, Callable[[Answer], str]], ...] = (
        ("prompt tokens", lambda a: f"{_usage(a).prompt_tokens:,}"),
        ("completion tokens", lambda a: f"{_usage(a).completion_tokens:,}"),
        ("reasoning tokens", lambda a: f"{_usage(a).reasoning_tokens:,}"),
        ("seconds", lambda a: f"{a.seconds:.1f}"),
        ("cost (USD)", lambda a: f"{a.cost_usd:.4f}"),
        ("sentences removed", lambda a: str(len(a.dropped))),
    )
    for label, value in measures:
        table.add_row(label, value(off), value(on))
    console.print(table)
    extra = _usage(on).completion_tokens - _usage(off).completion_tokens
    console.print(f"extra completion tokens spent reasoning: {extra:+,}")


def _usage(answer: Answer) -> Usage:
    from frontier.llm.records import Usage

    return answer.result.usage if answer.result else Usage()


def print_removed_sentences(console: Console, dropped: list[Dropped]) -> None:
    """Each removed sentence with its reason; repeats only as a count (they are noise)."""
    from frontier.synthesize.grounding import REPEAT

    repeats = sum(d.reason == REPEAT for d in dropped)
    if repeats:
        console.print(f"[yellow]removed {repeats} sentence(s) repeating an earlier one[/]")
    for item in dropped:
        if item.reason != REPEAT:
            console.print(f"[yellow]removed ({item.reason}):[/]", end=" ")
            plain(console, item.sentence)


def print_map_summary(
    console: Console, rmap: ResearchMap, report: dict[str, Any], think: bool
) -> None:
    if think:
        for reasoning in rmap.reasoning:
            rule(console, "reasoning")
            plain(console, reasoning)
    usage = rmap.usage
    console.print(
        f"Research map of {len(rmap.bundle.sources)} papers ({rmap.mode}), "
        f"{len(rmap.themes)} themes ({len(rmap.apart)} papers apart), "
        f"{len(rmap.problems)} open problems, "
        f"{len(rmap.takeaways)} takeaways."
    )
    cited = rmap.cited()
    console.print(
        f"Citations: {len(cited)} papers cited, all in the bundle; "
        f"{len(rmap.removed)} citation(s) to papers outside it removed."
    )
    if rmap.dropped:
        console.print(
            f"{len(rmap.dropped)} sentence(s) or theme name(s) the papers do not bear out removed: "
            "see the map's citation check."
        )
    for note in rmap.notes:
        console.print(f"[yellow]{escape(note)}[/]", highlight=False)
    new = [g for g in report["proposed_gaps"] if g["new"]]
    if new:
        console.print(f"{len(new)} open problems proposed as gaps: see `frontier gaps proposed`.")
    console.print(
        f"Tokens: {usage.prompt_tokens:,} prompt ({usage.cached_tokens:,} cached), "
        f"{usage.completion_tokens:,} completion, {usage.reasoning_tokens:,} reasoning; "
        f"model {rmap.model or 'none'}, prompt {rmap.prompt_tag}."
    )
    console.print(f"Wrote {report['path']}")


def write_stdout(text: str) -> None:
    """Text as it is (an export, a CSV), straight to stdout."""
    sys.stdout.write(text)
    sys.stdout.flush()


def markup_to_text(lines: list[str]) -> str:
    """Lines of console markup as the plain text a log file keeps."""
    return "".join(Text.from_markup(line).plain + "\n" for line in lines)
