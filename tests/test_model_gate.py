"""The model earns its calls: once a step's replies from a model keep failing their check, the
step takes code's answer without asking (a small sample still goes each run); a model whose
replies pass keeps being asked."""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path

from fake_openai import FakeOpenAI, Reply
from helpers import db, run_cli

from frontier.curate.earned import SAMPLE, WINDOW, ModelGate, ShippedRecord, shipped_records
from frontier.llm.prompts import load_prompt
from frontier.store.model_checks import record_checks
from frontier.synthesize.ask import SAMPLE_EVERY, AnswerGate

SYSTEMS = [
    "Quill", "Heron", "Marten", "Lynx", "Osprey", "Kestrel", "Wren", "Finch", "Puffin", "Egret",
    "Stoat", "Vole", "Otter", "Badger", "Plover", "Tern", "Swift", "Dunlin", "Shrike", "Merlin",
    "Ibis", "Crane", "Robin", "Siskin", "Linnet", "Godwit", "Avocet", "Curlew", "Gannet", "Petrel",
]  # fmt: skip


def papers(names: list[str], start: int) -> list[dict[str, object]]:
    """Serving papers written for this test: each a request scheduler with a distinct name."""
    return [
        {
            "id": f"2501.{start + i:05d}",
            "title": f"{name}Sched: Request Scheduling for Continuous Batching",
            "abstract": (
                f"We present {name}Sched, a request scheduler for continuous batching in LLM "
                "serving engines. It admits requests into the running batch by their expected "
                "decode length and preempts long requests when the KV cache fills, so short "
                "requests are not stuck behind long ones."
            ),
            "date": "2025-01-15",
        }
        for i, name in enumerate(names)
    ]


def ingest(ws: Path, rows: list[dict[str, object]], name: str) -> None:
    path = ws.parent / name
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert run_cli("-w", str(ws), "ingest", str(path)).code == 0


def entry_replies(what_it_is: str) -> FakeOpenAI:
    """A model that answers every entry request with `what_it_is` (and triage with serving);
    "{system}" in it is the name of the system the request's paper presents."""

    def respond(request: dict[str, object]) -> Reply:
        text = json.dumps(request.get("messages", []))
        if "entries for a knowledge base" in text:
            system = re.search(r"We present (\w+Sched)", text)
            named = what_it_is.replace("{system}", system.group(1) if system else "")
            return Reply(content=json.dumps({"what_it_is": named}))
        return Reply(content=json.dumps({"topic": "serving", "reason": "a serving scheduler"}))

    return FakeOpenAI(respond)


def kb_of(tmp_path: Path, names: list[str], name: str) -> Path:
    """A new KB holding the papers of these systems."""
    ws = tmp_path / "kb"
    assert run_cli("init", str(ws)).code == 0
    ingest(ws, papers(names, 1), name)
    return ws


def entry_calls(server: FakeOpenAI) -> int:
    return sum("entries for a knowledge base" in json.dumps(r["messages"]) for r in server.requests)


def curate(ws: Path, server: FakeOpenAI) -> dict[str, object]:
    env = {"FRONTIER_LLM__BASE_URL": server.url, "FRONTIER_LLM__BACKEND": "vllm"}
    result = run_cli("-w", str(ws), "--no-cache", "curate", "--json", env=env)
    assert result.code == 0, result.err
    return result.json()


def test_a_failing_model_is_asked_only_for_a_sample_once_it_has_failed(tmp_path: Path) -> None:
    ws = kb_of(tmp_path, SYSTEMS[:22], "first.jsonl")
    # the title again: the check refuses it, the entry quotes the abstract
    failing = "Request Scheduling for Continuous Batching, a scheduler for continuous batching."
    with entry_replies(failing) as server:
        curate(ws, server)
        # a run learns from its own replies: once WINDOW have failed, the rest go without a call,
        # and none is sent while the calls in flight could still make up the WINDOW
        first_calls = entry_calls(server)
        assert first_calls == WINDOW
    ingest(ws, papers(SYSTEMS[22:], 101), "second.jsonl")
    with entry_replies(failing) as server:
        second = curate(ws, server)
        assert entry_calls(server) == SAMPLE  # the sample: a better model would be noticed
    (note,) = second["notes"]
    assert note.startswith(f"entry: the model's replies failed the check in {WINDOW} of the last")
    assert "quoting the abstract without asking it for 6" in note
    entries = db(ws).execute("SELECT model, what FROM entries").fetchall()
    assert len(entries) == 30 and {e["model"] for e in entries} == {"abstract"}
    assert all(e["what"].startswith("We present") for e in entries)
    status = run_cli("-w", str(ws), "status", "--json").json()
    (row,) = [r for r in status["model_checks"] if r["step"] == "entry"]
    assert (row["checked"], row["passed"], row["asks"]) == (first_calls + SAMPLE, 0, "sample only")


def test_a_model_whose_replies_pass_is_asked_every_time(tmp_path: Path) -> None:
    ws = kb_of(tmp_path, SYSTEMS[:22], "first.jsonl")
    # an entry's sentence names the work it is about (the check refuses one that names nothing)
    passing = (
        "{system} is a request scheduler that admits requests into the running batch by expected "
        "decode length and preempts long requests when the KV cache fills."
    )
    with entry_replies(passing) as server:
        curate(ws, server)
    ingest(ws, papers(SYSTEMS[22:], 101), "second.jsonl")
    with entry_replies(passing) as server:
        second = curate(ws, server)
        assert entry_calls(server) == 8 and not second["notes"]
    models = {r["model"] for r in db(ws).execute("SELECT model FROM entries")}
    assert models == {"fake-model"}


def test_a_step_set_to_never_takes_codes_answer_without_a_call(tmp_path: Path) -> None:
    ws = tmp_path / "kb"
    assert run_cli("init", str(ws)).code == 0
    config = ws / "frontier.toml"
    config.write_text(
        config.read_text().replace("model_steps = {}", 'model_steps = { entry = "never" }')
    )
    ingest(ws, papers(SYSTEMS[:3], 1), "first.jsonl")
    with entry_replies("unused") as server:
        result = curate(ws, server)
        assert entry_calls(server) == 0
    assert result["notes"] == ["entry: set to never ask the model; quoting the abstract for 3"]


def test_an_entry_whose_model_call_fails_quotes_the_abstract_until_a_rerun_asks_again(
    tmp_path: Path,
) -> None:
    ws = kb_of(tmp_path, SYSTEMS[:2], "first.jsonl")

    def broken(request: dict[str, object]) -> Reply:
        if "entries for a knowledge base" in json.dumps(request.get("messages", [])):
            return Reply(status=500, body=b'{"error": {"message": "internal error"}}')
        return Reply(content=json.dumps({"topic": "serving", "reason": "a serving scheduler"}))

    env = {"FRONTIER_LLM__BACKEND": "vllm", "FRONTIER_LLM__MAX_RETRIES": "0"}
    with FakeOpenAI(broken) as server:
        failed = run_cli(
            "-w", str(ws), "--no-cache", "curate", "--json",
            env={**env, "FRONTIER_LLM__BASE_URL": server.url},
        )  # fmt: skip
    assert failed.code != 0 and {f["step"] for f in failed.json()["failures"]} == {"entry"}
    entries = db(ws).execute("SELECT model, what FROM entries").fetchall()
    assert len(entries) == 2 and all(e["what"].startswith("We present") for e in entries)
    assert {e["model"] for e in entries} == {"abstract"}
    passing = "{system} is a request scheduler that admits requests by expected decode length."
    with entry_replies(passing) as server:
        again = curate(ws, server)
        assert entry_calls(server) == 2 and not again.get("failures")
    models = {r["model"] for r in db(ws).execute("SELECT model FROM entries")}
    assert models == {"fake-model"}


def test_a_shipped_record_that_the_model_fails_spares_a_new_kb_the_learning() -> None:
    record = ShippedRecord(checked=40, passed=2, measured_on="a curated KB")
    fresh = ModelGate("entry", "m", "entry@2", "auto", [], "quoting the abstract")
    fresh.shipped = record.outcomes(WINDOW)
    assert [fresh.asks() for _ in range(SAMPLE + 3)] == [True] * SAMPLE + [False] * 3
    assert "19 of the last 20 calls (20 of them in the record shipped for it)" in fresh.note()
    # the KB's own replies take the record's place as they come: a model that now passes is
    # trusted again once the KB holds a window of its own
    own = ModelGate("entry", "m", "entry@2", "auto", [True] * WINDOW, "", record.outcomes(WINDOW))
    assert not own.distrusted()
    passing = ShippedRecord(checked=40, passed=30, measured_on="a curated KB")
    assert not ModelGate("entry", "m", "v", "auto", [], "", passing.outcomes(WINDOW)).distrusted()


def test_the_shipped_record_holds_whole_windows_for_current_prompt_versions() -> None:
    records = shipped_records()
    assert records, "frontier/data/model_record.jsonl is empty: run scripts/model_record.py"
    for (step, _, version), record in records.items():
        assert record.checked >= WINDOW and 0 <= record.passed <= record.checked
        assert record.measured_on and version == load_prompt(step).tag, (
            f"the shipped record of {step} is for {version}: rerun scripts/model_record.py"
        )


def ask(ws: Path, server: FakeOpenAI, question: str) -> dict[str, object]:
    env = {"FRONTIER_LLM__BASE_URL": server.url, "FRONTIER_LLM__BACKEND": "vllm"}
    result = run_cli("-w", str(ws), "--no-cache", "ask", question, "--json", env=env)
    assert result.code == 0, result.err
    (answer,) = result.json()
    return answer


def test_answers_whose_written_sentences_keep_failing_are_the_sources_sentences_and_a_sample(
    tmp_path: Path,
) -> None:
    ws = kb_of(tmp_path, SYSTEMS[:3], "papers.jsonl")
    tag = load_prompt("answer").tag
    with contextlib.closing(db(ws)) as conn:
        record_checks(conn, "answer", "fake-model", tag, [False] * (WINDOW - 1), None)
    question = "How does QuillSched admit requests into the running batch?"
    # a number no source states: the check takes the sentence out, nothing the model wrote shows
    failing = Reply(content="QuillSched admits 913 requests a second into each batch [1].")
    with FakeOpenAI([failing]) as server:
        learned = ask(ws, server, question)  # the twentieth failed reply
        assert len(server.requests) == 1 and not learned["model_not_asked"], learned
        alone = ask(ws, server, question)
        assert len(server.requests) == 1  # no call: the sources' answering sentences alone
        assert (
            f"failed the check in {WINDOW} of the last {WINDOW} calls" in alone["model_not_asked"]
        )
        assert alone["answering_sentences"] and alone["answer"].startswith('- "')
        assert alone["model"] == "" and alone["supported"]
        for _ in range(SAMPLE_EVERY - 2):
            ask(ws, server, question)
        assert len(server.requests) == 1
        sample = ask(ws, server, question)  # one answer in SAMPLE_EVERY still asks the model
        assert len(server.requests) == 2 and not sample["model_not_asked"]
        env = {"FRONTIER_LLM__BASE_URL": server.url, "FRONTIER_LLM__BACKEND": "vllm"}
        printed = run_cli("-w", str(ws), "--no-cache", "ask", question, env=env)
        assert len(server.requests) == 2
    assert "the model was not asked: its answers failed the check" in printed.out


def test_a_model_whose_answers_pass_keeps_writing_them_whatever_the_record() -> None:
    failing = ShippedRecord(checked=40, passed=1, measured_on="a curated KB").outcomes(WINDOW)
    passing = ModelGate("answer", "m", "answer@1", "auto", [True] * WINDOW, "", failing)
    assert not passing.distrusted() and AnswerGate(passing, True).note() == ""
    fresh = ModelGate("answer", "m", "answer@1", "auto", [], "", failing)
    assert fresh.distrusted()  # a new KB starts from the record shipped for the model
    note = AnswerGate(fresh, False).note()
    assert "(20 of them in the record shipped for it)" in note
    never = ModelGate("answer", "m", "answer@1", "never", [True] * WINDOW, "", [])
    assert "model_steps sets answer to never" in AnswerGate(never, False).note()
