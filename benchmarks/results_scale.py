"""`/results` filtered to one baseline on a large synthetic KB (`synthetic_kb.py`'s bulk build,
its claims' baselines, models and hardware then spread over well-known names, a fifth of them
against vLLM): the table read through the stored result keys (what `frontier serve`, `curate` and `results` keep current) against each
claim's keys read when the KB is loaded (the baseline, measured in the same run on the same
KB), and the static file served by the same app (the floor of the stack).

    python benchmarks/results_scale.py [--papers 100000] [--repeat 10] [--keep DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import tempfile
import time
from pathlib import Path

from starlette.testclient import TestClient
from synthetic_kb import build_kb
from web import timed

from frontier.store.db import connect, transaction
from frontier.synthesize.results import refresh_result_keys
from frontier.web.app import create_app
from frontier.workspace import Workspace, open_workspace

PATH = "/results?baseline=vLLM"


BASELINES = ("vLLM", "Orca", "FasterTransformer", "HF Transformers", "a baseline")
MODELS = ("Llama-2-7B", "OPT-13B", "")
HARDWARE = ("A100", "H100", "")


def built(folder: Path, papers: int) -> Workspace:
    """The synthetic KB in `folder`, built there once (one chunk a paper: chunks are not read)."""
    if (folder / "frontier.toml").exists():
        return open_workspace(folder)
    begin = time.perf_counter()
    ws = build_kb(folder, papers, papers, quiet=True)
    with contextlib.closing(connect(ws.db_path)) as conn, transaction(conn):
        conn.execute(
            f"UPDATE claims SET baseline = {_spread('id', BASELINES)}, "
            f"model_name = {_spread('id / 5', MODELS)}, hardware = {_spread('id / 15', HARDWARE)}"
        )
    print(f"(synthetic KB of {papers} papers built in {time.perf_counter() - begin:.0f} s)")
    return ws


def _spread(over: str, names: tuple[str, ...]) -> str:
    """An SQL expression giving each row one of `names` in turn."""
    cases = " ".join(f"WHEN {i} THEN '{name}'" for i, name in enumerate(names))
    return f"CASE ({over}) % {len(names)} {cases} END"


def first_and_warm(ws: Workspace, repeat: int) -> tuple[float, list[float], int]:
    """The first request of a new server (it loads the KB), then `repeat` more."""
    client = TestClient(create_app(ws), base_url="http://127.0.0.1")
    begin = time.perf_counter()
    response = client.get(PATH)
    first = (time.perf_counter() - begin) * 1000
    assert response.status_code == 200
    return first, timed(lambda: client.get(PATH), repeat), len(response.content)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--keep", type=Path, help="build the KB here (or reuse it) instead")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ws = built(args.keep or Path(tmp) / "kb", args.papers)
        with contextlib.closing(connect(ws.db_path)) as conn:
            with transaction(conn):
                conn.execute("DELETE FROM result_keys")
            claims = conn.execute("SELECT count(*) FROM claims").fetchone()[0]
            loaded = first_and_warm(ws, max(2, args.repeat // 5))
            begin = time.perf_counter()
            keyed = refresh_result_keys(conn, ws.settings)
            storing = time.perf_counter() - begin
        stored = first_and_warm(ws, args.repeat)
        client = TestClient(create_app(ws), base_url="http://127.0.0.1")
        static = timed(lambda: client.get("/static/style.css"), args.repeat)
    floor = statistics.median(static)
    print(f"{args.papers} papers, {claims} claims; {PATH}")
    print(f"storing every claim's keys (once; then only new or changed claims): {storing:.1f} s")
    print(f"  ({keyed} claims, {keyed / storing:.0f} a second)")
    print(f"{'':<34} {'first ms':>9} {'p50 ms':>9} {'max ms':>9} {'KB':>6} {'x static':>9}")
    for name, (first, warm, size) in (
        ("keys read when the KB loads", loaded),
        ("stored keys", stored),
    ):
        p50 = statistics.median(warm)
        print(
            f"{name:<34} {first:9.0f} {p50:9.0f} {max(warm):9.0f} {size / 1024:6.0f} "
            f"{p50 / floor:9.0f}"
        )
    print(f"{'static file (baseline)':<34} {'':>9} {floor:9.1f}")
    print(
        f"stored against read when loaded, p50: {statistics.median(loaded[1]) / statistics.median(stored[1]):.1f}x faster; first request {loaded[0] / stored[0]:.1f}x"
    )


if __name__ == "__main__":
    main()
