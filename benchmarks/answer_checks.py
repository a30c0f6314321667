"""The answer check on labelled sentences: how many faithful ones it keeps, how many unfaithful
ones it shows, per kind, for the part written before the check was tuned and the part tuned on.

Each labelled sentence is held, cited, against one source: the page's sentences around the ones
it is judged by (its `context` and `sources`, in page order), as `ask` holds an answer sentence
against the source it cites. Kept means the sentence stays in the answer.

    python benchmarks/answer_checks.py [--show KIND] [--part tuning|heldout|heldout-2]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from frontier.synthesize.bundle import Bundle, Source
from frontier.synthesize.grounding import ground_answer

DATA = Path(__file__).parent / "data"
# the part the check was tuned on, and two parts written before any tuning on them: the first
# held-out half, and a second one written later by a labeller who did not read the check
PARTS = {
    "tuning": [DATA / "answer_checks.jsonl", DATA / "answer_checks_more.jsonl"],
    "heldout": [DATA / "answer_checks_heldout.jsonl"],
    "heldout-2": [DATA / "answer_checks_heldout2.jsonl"],
}
PDFS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "pdfs"


def load(part: str) -> list[dict]:
    return [
        json.loads(line)
        for path in PARTS[part]
        if path.exists()
        for line in path.read_text().splitlines()
        if line.strip()
    ]


def page_text(file: str, page: int) -> str:
    """The page as the labels were copied from it (pdfium text, whitespace collapsed, the soft
    hyphen of a word broken at a line end taken out); empty without the corpus."""
    path = PDFS / file
    if not path.exists():
        return ""
    import pypdfium2

    pdf = pypdfium2.PdfDocument(str(path))
    try:
        text = pdf[page - 1].get_textpage().get_text_range()
    finally:
        pdf.close()
    return " ".join(text.replace("\ufffe ", "").replace("\ufffe", "").split())


def source_text(item: dict, pages: dict[tuple[str, int], str]) -> str:
    """The item's source and context sentences in page order (as given when not found)."""
    key = (item["file"], item["page"])
    if key not in pages:
        pages[key] = page_text(*key)
    page = pages[key]
    sentences = list(dict.fromkeys([*item.get("context", []), *item["sources"]]))
    if page:
        sentences.sort(key=lambda s: page.find(s) if s in page else len(page))
    return " ".join(sentences)


def judged(item: dict, pages: dict[tuple[str, int], str]) -> str:
    """Why the check takes the sentence out of an answer, or "" when it stays."""
    source = Source(
        1, item["file"], Path(item["file"]).stem, "", (item["page"],), source_text(item, pages)
    )
    sentence = item["sentence"].rstrip()
    body, end = (sentence[:-1], sentence[-1]) if sentence[-1:] in ".!?" else (sentence, ".")
    grounded = ground_answer(f"{body} [1]{end}", Bundle([source]), item["question"])
    if grounded.dropped:
        return grounded.dropped[0].reason
    return "no citation left" if grounded.quoted else ""


def measure(
    items: list[dict], pages: dict[tuple[str, int], str], show: str = ""
) -> tuple[dict[str, list[int]], list[dict]]:
    """Per kind: [sentences, kept]; and the faithful sentences the check keeps."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    kept: list[dict] = []
    for item in items:
        reason = judged(item, pages)
        stays = not reason
        kind = f"{item['label']}:{item['kind']}"
        counts[kind][0] += 1
        counts[kind][1] += stays
        if stays and item["label"] == "faithful":
            kept.append(item)
        wrong = stays != (item["label"] == "faithful")
        if show and wrong and show in (kind, item["label"], item["kind"], "all"):
            verdict = "KEPT" if stays else f"CUT ({reason})"
            print(f"  {verdict} {item['id']} {kind}: {item['sentence']}", file=sys.stderr)
    return counts, kept


# direction words and their opposites: a faithful sentence with its first direction word turned
# round says the opposite of its source (a flip written by rule, beside the hand-written ones)
OPPOSITES = [
    ("faster", "slower"), ("higher", "lower"), ("increases", "decreases"),
    ("increased", "decreased"), ("increase", "decrease"), ("more", "less"),
    ("improves", "degrades"), ("improved", "degraded"), ("improve", "degrade"),
    ("reduces", "raises"), ("reduce", "raise"), ("reduced", "raised"),
    ("outperforms", "underperforms"), ("better", "worse"), ("larger", "smaller"),
    ("speeds up", "slows down"), ("above", "below"), ("longer", "shorter"),
    ("maximum", "minimum"), ("greater", "smaller"), ("fewer", "more"), ("lowers", "raises"),
    ("maximize", "minimize"), ("maximizes", "minimizes"), ("cheaper", "costlier"),
]  # fmt: skip
_TURNED = {**{a: b for a, b in OPPOSITES}, **{b: a for a, b in OPPOSITES}}
_DIRECTION_WORD = re.compile(
    r"\b(" + "|".join(sorted(map(re.escape, _TURNED), key=len, reverse=True)) + r")\b",
    re.IGNORECASE,
)


def turned_round(sentence: str) -> str | None:
    """The sentence with its first direction word replaced by its opposite; None without one."""
    found = _DIRECTION_WORD.search(sentence)
    if not found:
        return None
    word = found.group(1)
    opposite = _TURNED[word.lower()]
    opposite = opposite.capitalize() if word[0].isupper() else opposite
    return f"{sentence[: found.start()]}{opposite}{sentence[found.end() :]}"


def shown_by_rule(
    kept: list[dict],
    pages: dict[tuple[str, int], str],
    rewrite: Callable[[dict, dict[tuple[str, int], str]], str | None],
) -> tuple[int, int]:
    """Of the faithful sentences the check keeps, those the rule rewrites into unfaithful ones,
    and how many of the rewritten ones it still shows: (rewritten, shown)."""
    rewritten = shown = 0
    for item in kept:
        sentence = rewrite(item, pages)
        if sentence is not None:
            rewritten += 1
            shown += not judged({**item, "sentence": sentence}, pages)
    return rewritten, shown


def turned_item(item: dict, pages: dict[tuple[str, int], str]) -> str | None:
    return turned_round(item["sentence"])


# a coined name: a capital or a digit after its first letter ("vLLM", "GPTQ", "A100")
_COINED = re.compile(r"(?<![\w-])[A-Za-z][\w.-]*[A-Z0-9][\w.-]*(?![\w-])")


def name_swapped(item: dict, source: str) -> str | None:
    """The sentence with its first coined name replaced by another its source page names, the
    way a model mixes up the names it reads; None without two such names."""
    sentence = item["sentence"]
    mine = [m for m in _COINED.finditer(sentence) if not m.group()[0].isdigit()]
    others = sorted(
        {n.rstrip(".") for n in _COINED.findall(source) if not n[0].isdigit()}
        - {m.group() for m in mine}
    )
    if not mine or not others:
        return None
    first = mine[0]
    other = next((o for o in others if o.lower() != first.group().lower()), None)
    return None if other is None else f"{sentence[: first.start()]}{other}{sentence[first.end() :]}"


def swapped_item(item: dict, pages: dict[tuple[str, int], str]) -> str | None:
    return name_swapped(item, source_text(item, pages))


RULES = [
    ("turned round by rule", turned_item),
    ("a name swapped for another of the page", swapped_item),
]


def report(part: str, counts: dict[str, list[int]]) -> None:
    faithful = [v for k, v in counts.items() if k.startswith("faithful:")]
    unfaithful = [v for k, v in counts.items() if k.startswith("unfaithful:")]
    total_f = sum(n for n, _ in faithful)
    kept_f = sum(k for _, k in faithful)
    total_u = sum(n for n, _ in unfaithful)
    shown_u = sum(k for _, k in unfaithful)
    print(f"\n{part}: {sum(n for n, _ in counts.values())} sentences")
    print(f"  faithful kept    {kept_f:>4} / {total_f:<4} {kept_f / max(total_f, 1):6.1%}")
    print(f"  unfaithful shown {shown_u:>4} / {total_u:<4} {shown_u / max(total_u, 1):6.1%}")
    for kind in sorted(counts):
        n, k = counts[kind]
        verb = "kept" if kind.startswith("faithful:") else "shown"
        print(f"    {kind:<34} {verb:>5} {k:>3} / {n:<3} {k / n:6.1%}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", default="", help="print the misjudged sentences of this kind")
    parser.add_argument("--part", choices=sorted(PARTS), help="one part only")
    args = parser.parse_args()
    if not PDFS.is_dir():
        print(f"note: {PDFS} is missing; sources are judged in the order the labels give")
    for part in [args.part] if args.part else list(PARTS):
        items = load(part)
        if items:
            pages: dict[tuple[str, int], str] = {}
            counts, kept = measure(items, pages, args.show)
            report(part, counts)
            for name, rewrite in RULES:
                rewritten, shown = shown_by_rule(kept, pages, rewrite)
                print(
                    f"  faithful sentences kept, {name}: shown {shown} / {rewritten}"
                    f" {shown / max(rewritten, 1):6.1%} (apart from the totals above)"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
