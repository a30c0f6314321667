"""The synthesis commands: `ask` (cited answers, presets, follow-ups) and `map`."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import sqlite3
from pathlib import Path

from rich.console import Console

from frontier import render_cli
from frontier.commands import RunOutcome, recorded_run
from frontier.commands_llm import print_token_summary
from frontier.llm.client import LLM
from frontier.llm.embeddings import Embedder, load_embedder
from frontier.llm.records import LLMFailure
from frontier.render.vault import render_vault
from frontier.store.synthesis import select_papers
from frontier.synthesize.ask import (
    Answer,
    answer_over,
    budget_for,
    build_bundle,
    bundle_of_ask,
    prompt_for,
    save_answer,
)
from frontier.synthesize.bundle import Bundle
from frontier.synthesize.grounding import REPEAT, Dropped
from frontier.synthesize.proposals import map_path, propose_gaps, save_map
from frontier.synthesize.researchmap import ResearchMap, write_map
from frontier.synthesize.retrieve import Retriever
from frontier.workspace import Workspace, open_workspace


class AskError(Exception):
    """A request `ask` or `map` cannot serve (unknown topic or preset, nothing to follow up on)."""


def ask(
    workspace: Path | None,
    questions: list[str],
    *,
    topic: str | None,
    preset: str,
    follow_up: bool,
    think: bool,
    use_cache: bool,
    json_out: bool,
    console: Console,
) -> int:
    """Answer each question from the KB; the first fixes the bundle, later ones follow up on it."""
    ws = open_workspace(workspace)
    _check_request(ws, questions, topic, preset, follow_up)
    with (
        contextlib.closing(ws.connect()) as conn,
        recorded_run(conn, "ask", " | ".join(questions)[:200]) as run,
    ):
        try:
            answers = asyncio.run(
                _answer_all(ws, conn, run, questions, topic, preset, follow_up, think, use_cache)
            )
        except LLMFailure as failure:
            run.status, run.summary = "failed", {"error": str(failure)}
            console.print(f"[red]{failure}[/]")
            return 1
        run.summary = {
            "questions": len(answers),
            "supported": sum(a.supported for a in answers),
            "removed_citations": sum(len(a.removed) for a in answers),
            "removed_sentences": sum(len(a.dropped) for a in answers),
        }
    if json_out:
        render_cli.print_json(console, [a.to_dict() for a in answers])
    else:
        for answer in answers:
            print_answer(console, answer, think, many=len(answers) > 1)
    return 0


def _check_request(
    ws: Workspace,
    questions: list[str],
    topic: str | None,
    preset: str,
    follow_up: bool,
    need_question: bool = True,
) -> None:
    slugs = [t.slug for t in ws.settings.topics]
    if topic and topic not in slugs:
        raise AskError(f"unknown topic {topic!r}; topics: {', '.join(slugs)}")
    try:
        prompt_for(preset)
    except ValueError as exc:
        raise AskError(str(exc)) from exc
    if need_question and not questions and not preset:
        raise AskError("give a question, or a --preset to run over the KB")
    if follow_up and preset:
        raise AskError("--follow-up reuses an earlier bundle; it does not combine with --preset")


async def _answer_all(
    ws: Workspace,
    conn: sqlite3.Connection,
    run: RunOutcome,
    questions: list[str],
    topic: str | None,
    preset: str,
    follow_up: bool,
    think: bool,
    use_cache: bool,
) -> list[Answer]:
    llm = LLM(ws.settings.llm, conn, run_id=run.id, command="ask", use_cache=use_cache)
    try:
        bundle = _first_bundle(ws, conn, llm, questions, topic, preset, follow_up)
        answers = []
        for question in questions or [""]:
            answer = await answer_over(
                llm, ws.settings.field.name, question, bundle, preset=preset, think=think
            )
            save_answer(conn, answer, run.id, topic or "", preset)
            answers.append(answer)
        return answers
    finally:
        await llm.aclose()


def _first_bundle(
    ws: Workspace,
    conn: sqlite3.Connection,
    llm: LLM,
    questions: list[str],
    topic: str | None,
    preset: str,
    follow_up: bool,
) -> Bundle:
    if follow_up:
        earlier = bundle_of_ask(conn, None)
        if earlier is None:
            raise AskError("nothing to follow up on: no earlier answer with sources")
        return earlier[1]
    query = questions[0] if questions else topic_query(ws, topic)
    return build_bundle(conn, Retriever(conn), query, budget_for(llm), topic, preset)


def topic_query(ws: Workspace, topic: str | None) -> str:
    """What a preset without a question retrieves for: the topic's scope (or every topic's)."""
    chosen = [t for t in ws.settings.topics if not topic or t.slug == topic]
    return " ".join(f"{t.title} {t.summary} {' '.join(t.in_scope)}" for t in chosen)


def print_answer(console: Console, answer: Answer, think: bool, many: bool) -> None:
    if many:
        console.rule(answer.question or "preset")
    result = answer.result
    if think and result and result.reasoning:
        console.rule("reasoning")
        console.print(result.reasoning, markup=False, highlight=False)
        console.rule("answer")
    console.print(answer.text, markup=False, highlight=False)
    if not answer.supported:
        return
    console.print("\nSources:")
    for source in answer.bundle.sources:
        mark = "*" if source.number in answer.cited else " "
        console.print(f" {mark}[{source.number}] {source.label()}", markup=False, highlight=False)
    if answer.removed:
        numbers = ", ".join(f"[{n}]" for n in answer.removed)
        console.print(f"[yellow]removed citations to sources not in the bundle: {numbers}[/]")
    print_removed_sentences(console, answer.dropped)
    if result:
        print_token_summary(console, result, answer.prompt_tag)


def print_removed_sentences(console: Console, dropped: list[Dropped]) -> None:
    """Each removed sentence with its reason; repeats only as a count (they are noise)."""
    repeats = sum(d.reason == REPEAT for d in dropped)
    if repeats:
        console.print(f"[yellow]removed {repeats} sentence(s) repeating an earlier one[/]")
    for item in dropped:
        if item.reason != REPEAT:
            console.print(f"[yellow]removed ({item.reason}):[/]", end=" ")
            console.print(item.sentence, markup=False, highlight=False)


def research_map(
    workspace: Path | None,
    *,
    topic: str | None,
    since: str | None,
    limit: int,
    think: bool,
    use_cache: bool,
    json_out: bool,
    console: Console,
) -> int:
    """Write a research map of the topic's papers to the store and `kb/maps/`."""
    ws = open_workspace(workspace)
    _check_request(ws, [], topic, "", False, need_question=False)
    with (
        contextlib.closing(ws.connect()) as conn,
        recorded_run(conn, "map", f"topic={topic or 'all'} since={since or ''}") as run,
    ):
        papers = select_papers(conn, topic, since, limit)
        if not papers:
            run.summary = {"papers": 0}
            console.print("No papers to map (check --topic and --since, or run `frontier curate`).")
            return 1
        embedder = load_embedder()
        rmap = asyncio.run(_write_map(ws, conn, run.id, papers, think, use_cache, embedder))
        path = map_path(dt.date.today().isoformat(), topic)
        map_id = save_map(conn, rmap, run.id, topic, since, path)
        gaps = propose_gaps(
            conn,
            embedder,
            rmap,
            map_id,
            topic,
            ws.settings.topics[0].slug,
            {t.slug: list(t.gaps) for t in ws.settings.topics},
        )
        render_vault(conn, ws.settings, ws.kb_dir)
        run.summary = {
            "papers": len(papers),
            "removed_citations": len(rmap.removed),
            "removed_sentences": len(rmap.dropped),
            "failures": len(rmap.failures),
            "proposed_gaps": sum(1 for g in gaps if g["new"]),
        }
        if rmap.failures:
            run.status = "partial"
    report = {"id": map_id, "path": str(ws.kb_dir / path), "proposed_gaps": gaps, **rmap.to_dict()}
    if json_out:
        render_cli.print_json(console, report)
    else:
        print_map_summary(console, rmap, report, think)
    return 1 if rmap.failures else 0


async def _write_map(
    ws: Workspace,
    conn: sqlite3.Connection,
    run_id: int,
    papers: list[sqlite3.Row],
    think: bool,
    use_cache: bool,
    embedder: Embedder,
) -> ResearchMap:
    llm = LLM(ws.settings.llm, conn, run_id=run_id, command="map", use_cache=use_cache)
    try:
        return await write_map(conn, llm, embedder, ws.settings.field.name, papers, think=think)
    finally:
        await llm.aclose()


def print_map_summary(
    console: Console, rmap: ResearchMap, report: dict[str, object], think: bool
) -> None:
    if think:
        for reasoning in rmap.reasoning:
            console.rule("reasoning")
            console.print(reasoning, markup=False, highlight=False)
    usage = rmap.usage
    console.print(
        f"Research map of {len(rmap.bundle.sources)} papers ({rmap.mode}), "
        f"{len(rmap.themes)} themes, {len(rmap.problems)} open problems, "
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
    for failure in rmap.failures:
        console.print(f"[yellow]the model gave no usable {failure}[/]", highlight=False)
    new = [g for g in report["proposed_gaps"] if g["new"]]  # type: ignore[union-attr]
    if new:
        console.print(f"{len(new)} open problems proposed as gaps: see `frontier gaps proposed`.")
    console.print(
        f"Tokens: {usage.prompt_tokens:,} prompt ({usage.cached_tokens:,} cached), "
        f"{usage.completion_tokens:,} completion, {usage.reasoning_tokens:,} reasoning; "
        f"model {rmap.model}, prompt {rmap.prompt_tag}."
    )
    console.print(f"Wrote {report['path']}")
