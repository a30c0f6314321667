"""The ask page: a question answered from the KB, streamed as chunked HTML while the model
writes, then the checked answer. The only page that writes: the call's ledger row, its cache
entry, its run and the answer (`asks`), through a connection of its own; the KB is unchanged.
An answer needs a place in the server's admission (else a 503 saying the server is busy) and
ends by its deadline, with the answering sentences alone when the model has not finished."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import AsyncIterator
from urllib.parse import parse_qs

from markupsafe import escape
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from frontier.llm.admission import Busy, Ticket
from frontier.llm.client import LLM
from frontier.llm.records import LLMFailure
from frontier.store.browse import read_only
from frontier.store.runs import RunOutcome, recorded_run
from frontier.synthesize.answering import Answering
from frontier.synthesize.ask import (
    Answer,
    build_bundle,
    close_answer_gate,
    open_answer_gate,
    save_answer,
    sources_budget,
    stream_answer,
)
from frontier.synthesize.bundle import Bundle
from frontier.synthesize.deep_dives import preset_leading
from frontier.synthesize.presets import PRESETS
from frontier.synthesize.retrieve import Retriever
from frontier.synthesize.topic_query import topic_query
from frontier.web.links import Links
from frontier.web.server_state import ServerState
from frontier.web.synthesis_views import answer_data, ask_view
from frontier.web.templating import environment

# where the streamed answer goes in the rendered page
ANSWER_SLOT = "<!--answer-->"


async def ask_page(server: ServerState, request: Request) -> Response:
    return await AskPage(server).ask(request)


class AskPage:
    """GET shows the form; POST (with the page's token) streams the answer."""

    def __init__(self, state: ServerState) -> None:
        self.state = state

    async def ask(self, request: Request) -> Response:
        if request.method == "GET":
            return self._form({}, "")
        body = (await request.body()).decode("utf-8", "replace")
        form = {k: v[0].strip() for k, v in parse_qs(body).items()}
        if not self.state.token_matches(form.get("csrf", "")):
            raise HTTPException(403, "The form is stale: reload the page and try again.")
        error = self._invalid(form)
        if error:
            return self._form(form, error, 400)
        head, tail = self._render(form, asking=True).split(ANSWER_SLOT)
        try:
            ticket = self.state.admission.enter()
        except Busy as busy:
            return self._busy(form, busy)
        stream = self._answer(ticket, form["q"], form.get("topic", ""), form.get("preset", ""))
        return AdmittedAnswer(ticket, _framed(head, stream, tail), media_type="text/html")

    def _render(self, form: dict[str, str], error: str = "", asking: bool = False) -> str:
        with self.state.reading() as (_conn, ctx):
            return self.state.html(ask_view(ctx, form, error, asking), ctx)

    def _form(
        self,
        form: dict[str, str],
        error: str,
        status: int = 200,
        headers: dict[str, str] | None = None,
    ) -> Response:
        headers = {"cache-control": "no-store", **(headers or {})}  # the page holds a form token
        return HTMLResponse(self._render(form, error), status_code=status, headers=headers)

    def _busy(self, form: dict[str, str], busy: Busy) -> Response:
        """503: the form again, saying the server is busy and when to try again."""
        message = (
            f"The server is busy: it is writing {busy.working} answer(s), as many as it takes at "
            f"once. Try again in {busy.retry_after} s."
        )
        return self._form(form, message, 503, {"retry-after": str(busy.retry_after)})

    def _invalid(self, form: dict[str, str]) -> str:
        slugs = [t.slug for t in self.state.ws.settings.topics]
        if form.get("topic", "") not in ["", *slugs]:
            return f"No topic '{form['topic']}'."
        if form.get("preset", "") not in ["", *PRESETS]:
            return f"No preset '{form['preset']}'."
        if not form.get("q") and not form.get("preset"):
            return "Ask a question, or choose a preset."
        return ""

    async def _answer(
        self, ticket: Ticket, question: str, topic: str, preset: str
    ) -> AsyncIterator[str]:
        """The draft as the model writes it, then the checked answer; stored like the CLI's.
        A queued answer waits for its place first, no longer than its deadline."""
        if not await ticket.wait():
            yield self._fragment(
                {"failure": "the server stayed busy for as long as an answer may take"}
            )
            return
        ws = self.state.ws
        with (
            contextlib.closing(ws.connect()) as conn,
            recorded_run(conn, "ask", f"web: {question or preset}"[:200]) as run,
        ):
            async with LLM(ws.settings.llm, conn, run_id=run.id, command="ask") as llm:
                query = question or topic_query(ws.settings, topic or None)
                bundle, leading = await run_in_threadpool(
                    self._bundle, query, topic, preset, question, llm
                )
                mode = ws.settings.curate.model_steps.get("answer", "auto")
                gate = await open_answer_gate(conn, llm, preset, mode) if bundle.sources else None
                yield '<p class="draft" id="draft">'
                outcome: Answer | LLMFailure | None = None
                try:
                    async for item in stream_answer(
                        llm,
                        ws.settings.field.name,
                        question,
                        bundle,
                        preset=preset,
                        deadline=ticket.deadline,
                        leading=leading,
                        gate=gate,
                    ):
                        if isinstance(item, Answer):
                            outcome = item
                        else:
                            yield str(escape(item))
                except LLMFailure as failure:
                    outcome = failure
                yield "</p>"
            yield self._finish(conn, run, outcome, topic, preset)
            if gate and isinstance(outcome, Answer):
                close_answer_gate(conn, gate, outcome, run.id)

    def _finish(
        self,
        conn: sqlite3.Connection,
        run: RunOutcome,
        outcome: Answer | LLMFailure | None,
        topic: str,
        preset: str,
    ) -> str:
        """Store the answer (or the run's failure); the HTML that ends the page's answer."""
        if not isinstance(outcome, Answer):
            run.status, run.summary = "failed", {"error": str(outcome)}
            return self._fragment({"failure": str(outcome)})
        save_answer(conn, outcome, run.id, topic, preset)
        run.summary = {"questions": 1, "supported": int(outcome.supported)}
        run.summary["removed_citations"] = len(outcome.removed)
        run.summary["removed_sentences"] = len(outcome.dropped)
        run.summary["deadline_passed"] = int(outcome.deadline_passed)
        deadline = self.state.ws.settings.llm.answer_deadline
        return self._fragment(answer_data(outcome) | {"failure": "", "deadline": deadline})

    def _bundle(
        self, query: str, topic: str, preset: str, focus: str, llm: LLM
    ) -> tuple[Bundle, list[Answering] | None]:
        """The sources, and for a preset the sentences code leads its answer with."""
        with contextlib.closing(read_only(self.state.ws.db_path)) as conn:
            retriever = Retriever(conn, self.state.embedder.get())
            bundle = build_bundle(
                conn, retriever, query, sources_budget(llm), topic or None, preset
            )
            return bundle, preset_leading(conn, bundle, preset, focus) if preset else None

    def _fragment(self, data: dict[str, object]) -> str:
        template = environment().get_template("answer.html")
        return template.render({"url": Links().url, **data})


class AdmittedAnswer(StreamingResponse):
    """The streamed answer, its place in the admission released however the response ends (it
    may never start streaming when the client leaves at once)."""

    def __init__(self, ticket: Ticket, content: AsyncIterator[str], media_type: str) -> None:
        super().__init__(content, media_type=media_type)
        self.ticket = ticket

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.ticket.release()


async def _framed(head: str, body: AsyncIterator[str], tail: str) -> AsyncIterator[str]:
    yield head
    async for part in body:
        yield part
    yield tail
