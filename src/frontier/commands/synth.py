"""The synthesis commands: `ask` (cited answers, presets, follow-ups) and `map`."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from frontier.errors import AskError
from frontier.llm.client import LLM
from frontier.llm.embeddings import Embedder, load_embedder
from frontier.llm.records import LLMFailure
from frontier.model import Paper
from frontier.render.vault import render_vault
from frontier.store.runs import RunOutcome, recorded_run
from frontier.store.synthesis import select_papers
from frontier.synthesize.ask import (
    Answer,
    answer_over,
    build_bundle,
    bundle_of_ask,
    close_answer_gate,
    open_answer_gate,
    prompt_for,
    save_answer,
    sources_budget,
)
from frontier.synthesize.bundle import Bundle
from frontier.synthesize.deep_dives import preset_leading
from frontier.synthesize.proposals import map_path, propose_gaps, save_map
from frontier.synthesize.researchmap import ResearchMap, write_map
from frontier.synthesize.retrieve import Retriever
from frontier.synthesize.topic_query import topic_query
from frontier.workspace import Workspace, open_workspace


@dataclass(frozen=True)
class AskRequest:
    """What `ask` is asked: the questions (none with a preset), where to look, and how."""

    questions: list[str]
    topic: str | None = None
    preset: str = ""
    follow_up: bool = False
    think: bool = False
    use_cache: bool = True
    compare_thinking: bool = False  # the first question with reasoning off, then on


@dataclass
class MapOutcome:
    """A written research map and what the command reports about it."""

    rmap: ResearchMap
    report: dict[str, Any]


def ask(workspace: Path | None, request: AskRequest) -> list[Answer]:
    """Answer each question from the KB; the first fixes the bundle, later ones follow up on it.
    A model failure is recorded on the run and raised as LLMFailure."""
    ws = open_workspace(workspace)
    _check_request(ws, request)
    failed: LLMFailure | None = None
    with (
        contextlib.closing(ws.connect()) as conn,
        recorded_run(conn, "ask", " | ".join(request.questions)[:200]) as run,
    ):
        try:
            answers = asyncio.run(_answer_all(ws, conn, run, request))
        except LLMFailure as failure:
            run.status, run.summary = "failed", {"error": str(failure)}
            failed = failure
        else:
            run.summary = {
                "questions": len(answers),
                "supported": sum(a.supported for a in answers),
                "removed_citations": sum(len(a.removed) for a in answers),
                "removed_sentences": sum(len(a.dropped) for a in answers),
                "deadline_passed": sum(a.deadline_passed for a in answers),
            }
    if failed is not None:
        raise failed
    return answers


def _check_request(ws: Workspace, request: AskRequest, need_question: bool = True) -> None:
    slugs = [t.slug for t in ws.settings.topics]
    if request.topic and request.topic not in slugs:
        raise AskError(f"unknown topic {request.topic!r}; topics: {', '.join(slugs)}")
    try:
        prompt_for(request.preset)
    except ValueError as exc:
        raise AskError(str(exc)) from exc
    if need_question and not request.questions and not request.preset:
        raise AskError("give a question, or a --preset to run over the KB")
    if request.follow_up and request.preset:
        raise AskError("--follow-up reuses an earlier bundle; it does not combine with --preset")
    if request.compare_thinking and (len(request.questions) != 1 or request.preset):
        raise AskError("--compare-thinking answers one question, without a --preset")


async def _answer_all(
    ws: Workspace, conn: sqlite3.Connection, run: RunOutcome, request: AskRequest
) -> list[Answer]:
    settings = ws.settings
    async with LLM(
        settings.llm, conn, run_id=run.id, command="ask", use_cache=request.use_cache
    ) as llm:
        bundle = _first_bundle(ws, conn, llm, request)
        focus = request.questions[0] if request.questions else ""
        leading = preset_leading(conn, bundle, request.preset, focus) if request.preset else None
        answers = []
        # one at a time: they share the bundle, and llama-server keeps a prefix per slot, so a
        # question sent beside another would evaluate the bundle again in a slot of its own
        mode = settings.curate.model_steps.get("answer", "auto")
        for question, think in _asked(request):
            asked = think or request.compare_thinking
            gate = (
                await open_answer_gate(conn, llm, request.preset, mode, asked)
                if bundle.sources
                else None
            )
            answer = await answer_over(
                llm,
                settings.field.name,
                question,
                bundle,
                preset=request.preset,
                think=think,
                deadline=time.monotonic() + settings.llm.answer_deadline,
                leading=leading,
                gate=gate,
            )
            save_answer(conn, answer, run.id, request.topic or "", request.preset)
            if gate:
                close_answer_gate(conn, gate, answer, run.id)
            answers.append(answer)
        return answers


def _asked(request: AskRequest) -> list[tuple[str, bool]]:
    """Each question with whether the model reasons on it: the first twice, without and with
    reasoning, when the two are compared."""
    questions = request.questions or [""]
    if request.compare_thinking:
        return [(questions[0], False), (questions[0], True)]
    return [(question, request.think) for question in questions]


def _first_bundle(ws: Workspace, conn: sqlite3.Connection, llm: LLM, request: AskRequest) -> Bundle:
    if request.follow_up:
        earlier = bundle_of_ask(conn, None)
        if earlier is None:
            raise AskError("nothing to follow up on: no earlier answer with sources")
        return earlier[1]
    topic = request.topic
    query = request.questions[0] if request.questions else topic_query(ws.settings, topic)
    return build_bundle(conn, Retriever(conn), query, sources_budget(llm), topic, request.preset)


def research_map(
    workspace: Path | None,
    *,
    topic: str | None,
    since: str | None,
    limit: int,
    think: bool,
    use_cache: bool,
) -> MapOutcome | None:
    """Write a research map of the topic's papers to the store and `kb/maps/`; None when no
    paper matches."""
    ws = open_workspace(workspace)
    _check_request(ws, AskRequest([], topic), need_question=False)
    with (
        contextlib.closing(ws.connect()) as conn,
        recorded_run(conn, "map", f"topic={topic or 'all'} since={since or ''}") as run,
    ):
        papers = select_papers(conn, topic, since, limit)
        if not papers:
            run.summary = {"papers": 0}
            return None
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
            "proposed_gaps": sum(1 for g in gaps if g["new"]),
            "notes": rmap.notes,
        }
    report = {"id": map_id, "path": str(ws.kb_dir / path), "proposed_gaps": gaps, **rmap.to_dict()}
    return MapOutcome(rmap, report)


async def _write_map(
    ws: Workspace,
    conn: sqlite3.Connection,
    run_id: int,
    papers: list[Paper],
    think: bool,
    use_cache: bool,
    embedder: Embedder,
) -> ResearchMap:
    async with LLM(ws.settings.llm, conn, run_id=run_id, command="map", use_cache=use_cache) as llm:
        mode = ws.settings.curate.model_steps.get("map", "auto")
        return await write_map(
            conn, llm, embedder, ws.settings.field.name, papers, think=think, model_mode=mode
        )
