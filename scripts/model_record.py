"""Write the model record frontier ships: per step, model and prompt version, how many of the
replies checked in the given curated KBs passed their step's check.

A step whose shipped record says the model fails starts a new KB distrusting it (a sample is
still asked each run, and the KB's own checked replies replace the record as they come); see
`frontier.curate.earned`. Measure on KBs other than the demo's, and say which in `--on`.

    python scripts/model_record.py --on "the 38 shared PDFs" KB_DIR [KB_DIR ...]
"""

from __future__ import annotations

import argparse
import contextlib
import json
from collections import Counter
from pathlib import Path

from frontier.curate.earned import RECORD_FILE, WINDOW
from frontier.llm.prompts import load_prompt
from frontier.store.model_checks import checks_by_step
from frontier.workspace import open_workspace

RECORD = Path(__file__).resolve().parents[1] / "src" / "frontier" / "data" / RECORD_FILE


def measured(
    workspaces: list[Path],
) -> tuple[Counter[tuple[str, str, str]], Counter[tuple[str, str, str]]]:
    """Replies checked and passed, summed over the KBs, by (step, model, prompt version)."""
    checked: Counter[tuple[str, str, str]] = Counter()
    passed: Counter[tuple[str, str, str]] = Counter()
    for path in workspaces:
        with contextlib.closing(open_workspace(path).connect()) as conn:
            for row in checks_by_step(conn):
                key = (str(row["step"]), str(row["model"]), str(row["prompt_version"]))
                checked[key] += int(str(row["checked"]))
                passed[key] += int(str(row["passed"] or 0))
    return checked, passed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workspaces", type=Path, nargs="+", help="curated KBs to read")
    parser.add_argument("--on", required=True, help="what the KBs hold, for the record")
    args = parser.parse_args()
    checked, passed = measured(args.workspaces)
    for step, model, version in sorted(checked):
        if checked[step, model, version] < WINDOW or version != load_prompt(step).tag:
            print(
                f"left out {step} {version} of {model}: {checked[step, model, version]} checked "
                f"(a record needs {WINDOW}, of the current prompt {load_prompt(step).tag})"
            )
            del checked[step, model, version]
    lines = [
        json.dumps(
            {
                "step": step,
                "model": model,
                "prompt_version": version,
                "checked": checked[step, model, version],
                "passed": passed[step, model, version],
                "measured_on": args.on,
            }
        )
        for step, model, version in sorted(checked)
    ]
    RECORD.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    for line in lines:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
