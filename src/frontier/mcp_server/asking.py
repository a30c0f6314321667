"""The ask tool: a question answered from the KB as `frontier ask` answers it, recorded the
same way (the run, the model call in the usage ledger and the cache, the answer in `asks`)
through a connection of its own; the KB is unchanged."""

from __future__ import annotations

import contextlib
import time
from typing import Annotated

import anyio.to_thread
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from frontier.llm.client import LLM
from frontier.llm.records import LLMFailure
from frontier.mcp_server import records
from frontier.mcp_server.reading import KBReader
from frontier.store.browse import read_only
from frontier.store.runs import recorded_run
from frontier.synthesize.ask import (
    Answer,
    answer_over,
    build_bundle,
    close_answer_gate,
    open_answer_gate,
    save_answer,
    sources_budget,
)
from frontier.synthesize.bundle import Bundle
from frontier.synthesize.retrieve import Retriever


class Asker:
    """Answers questions over one workspace; the model is reached through `llm/` alone."""

    def __init__(self, reader: KBReader) -> None:
        self.reader = reader

    async def ask(
        self,
        question: Annotated[str, Field(description="A question about the field.", min_length=1)],
        topic: Annotated[str | None, Field(description="Only this topic's papers.")] = None,
    ) -> records.Answer:
        """Answer a question from the KB's full text. Returns the checked answer, whose every
        [n] cites a numbered source (paper and pages), led by the answering sentences: the
        sources' own sentences that answer it, each with its paper and page. Sentences of the
        model that the sources do not bear out are removed and listed with the reason. When
        nothing in the KB bears on the question, supported is false and no model is asked."""
        if not question.strip():
            raise ToolError("the question is empty")
        self.reader.check_topic(topic)
        ws = self.reader.ws
        # the model call runs on the event loop's thread: the embedded model server it may
        # start dies with the thread that started it, and worker threads come and go
        with (
            contextlib.closing(ws.connect()) as conn,
            recorded_run(conn, "ask", f"mcp: {question}"[:200]) as run,
        ):
            async with LLM(ws.settings.llm, conn, run_id=run.id, command="ask") as llm:
                budget = sources_budget(llm)
                deadline = time.monotonic() + ws.settings.llm.answer_deadline
                bundle = await anyio.to_thread.run_sync(self._bundle, question, topic, budget)
                mode = ws.settings.curate.model_steps.get("answer", "auto")
                gate = await open_answer_gate(conn, llm, "", mode) if bundle.sources else None
                try:
                    answer = await answer_over(
                        llm, ws.settings.field.name, question, bundle, deadline=deadline, gate=gate
                    )
                except LLMFailure as failure:
                    run.status, run.summary = "failed", {"error": str(failure)}
                    raise ToolError(f"the model gave no answer: {failure}") from None
            save_answer(conn, answer, run.id, topic or "", "")
            if gate:
                close_answer_gate(conn, gate, answer, run.id)
            run.summary = {
                "questions": 1,
                "supported": int(answer.supported),
                "removed_citations": len(answer.removed),
                "removed_sentences": len(answer.dropped),
            }
        return answer_record(answer)

    def _bundle(self, question: str, topic: str | None, budget: int) -> Bundle:
        with contextlib.closing(read_only(self.reader.ws.db_path)) as conn:
            retriever = Retriever(conn, self.reader.embedder.get())
            return build_bundle(conn, retriever, question, budget, topic)


def answer_record(answer: Answer) -> records.Answer:
    data = answer.to_dict()
    # validated from the dict: the sentences and sources are dicts the nested records read
    return records.Answer.model_validate(
        {
            "ask_id": answer.ask_id,
            "question": answer.question,
            "answer": answer.text,
            "supported": answer.supported,
            "answering_sentences": data["answering_sentences"],
            "sources": data["sources"],
            "removed_citations": answer.removed,
            "dropped_sentences": data["dropped_sentences"],
            "model": str(data["model"]),
            "model_not_asked": answer.not_asked,
        }
    )
