"""What a research map says by code, from the papers themselves: each paper's contribution
sentence, its typed headline results (or, uncurated, the abstract's result sentences) and the
sentences of its closing sections that state what is left open. The map's themes, overview,
open problems and takeaways are built from these; the model's prose only goes on top."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

from frontier.curate.claims import system_names
from frontier.curate.entry import contribution_sentences
from frontier.curate.spans import propose
from frontier.curate.support import is_prose, plain_math
from frontier.model import Chunk, Claim
from frontier.store.claims import headline_claims
from frontier.store.synthesis import full_text_chunks
from frontier.synthesize.bundle import Bundle, Source
from frontier.text import any_word, prose_sentences


@dataclass(frozen=True)
class Quote:
    """A sentence of a paper as printed, where it stands (page None: the abstract)."""

    text: str
    number: int
    page: int | None


@dataclass(frozen=True)
class PaperFacts:
    number: int
    title: str
    date: str
    system: str  # the name the paper gives its work, or its title
    contribution: str  # the abstract's statement of what the paper contributes
    abstract: str
    headlines: tuple[Claim, ...]
    results: tuple[Quote, ...]  # the abstract's result sentences, when no claim is typed
    problems: tuple[Quote, ...]


# the sections where a paper says what it leaves open
_CLOSING = re.compile(
    r"limitation|discussion|future|conclu|open (?:problem|question)|outlook", re.I
)
_BACKGROUND = re.compile(r"related|background|prior|motivation|preliminar", re.I)
# a paper saying what is left open, in its own closing words ...
_OPEN_STRONG = re.compile(
    r"\b(?:future (?:work|research|direction|version)s?|(?:leave|left|defer)\w*\b[^.]{0,80}\b"
    r"(?:future|further|open)|open (?:question|problem|challenge)s?|remains? (?:an? )?"
    r"(?:open|unexplored|unsolved|unclear|challenging)|(?:we|to) (?:plan|hope|intend) to|"
    r"(?:is|are) (?:an? )?(?:interesting|promising|important) (?:direction|avenue)s?)",
    re.I,
)
# ... or naming a limitation of its own work (read only in the closing sections)
_OPEN_LIMIT = re.compile(
    r"\b(?:limitations?|(?:does|do|did|can) not (?:yet )?(?:support|handle|consider|address|"
    r"apply|scale|work)|cannot (?:yet )?(?:support|handle|be applied)|not (?:yet )?"
    r"(?:supported|explored|addressed|studied)|(?:is|are) limited to|beyond the scope)",
    re.I,
)
_OWN = any_word(r"we|our|this (?:paper|work|study)|us")
_LIST_OPENS = re.compile(r":\s*(?:\(?\d\)?\.?)?$|\?$")  # "... future work: 1." opens a list
_CITES = re.compile(r"\[\d+(?:[,–-]\s*\d+)*\]|\bet al\.")
_MAX_PROBLEMS = 3  # per paper: the closing section's few statements, not every sentence


def paper_facts(
    conn: sqlite3.Connection, bundle: Bundle, abstracts: dict[str, str]
) -> list[PaperFacts]:
    """The facts of every paper of the bundle, in its order."""
    claims = headline_claims(conn, [s.paper_id for s in bundle.sources])
    return [
        _facts(conn, s, abstracts.get(s.paper_id, ""), claims.get(s.paper_id, []))
        for s in bundle.sources
    ]


def _facts(
    conn: sqlite3.Connection, source: Source, abstract: str, claims: list[Claim]
) -> PaperFacts:
    names = system_names(source.title, abstract)
    return PaperFacts(
        number=source.number,
        title=source.title,
        date=source.date,
        system=names[0] if names else source.title,
        contribution=contribution_sentences(source.title, abstract),
        abstract=" ".join(plain_math(abstract).split()),
        headlines=tuple(claims),
        results=() if claims else tuple(_result_sentences(source.number, abstract, names)),
        problems=tuple(open_problems(source.number, full_text_chunks(conn, source.paper_id))),
    )


def _result_sentences(number: int, abstract: str, names: list[str]) -> list[Quote]:
    """The abstract's sentences that state a result of the paper's own work with a number."""
    found = []
    for sentence in prose_sentences(plain_math(abstract)):
        own = _OWN.search(sentence) or any(n in sentence for n in names)
        if own and is_prose(sentence) and propose(sentence):
            found.append(Quote(sentence, number, None))
    return found[:2]


def open_problems(number: int, chunks: list[Chunk]) -> list[Quote]:
    """Sentences where the paper says what it leaves open: in its closing sections (limitations,
    discussion, future work, conclusion) a stated limitation or future work, elsewhere only a
    plain 'left to future work' of its own; never a sentence about others' work. A short
    sentence that points back ('we leave this to future work') is quoted with the sentence
    before it, which says what 'this' is."""
    found: list[Quote] = []
    seen: set[str] = set()
    for chunk in chunks:
        section = chunk.section or ""
        if _BACKGROUND.search(section):
            continue
        closing = bool(_CLOSING.search(section))
        sentences = prose_sentences(plain_math(chunk.text))
        for i, sentence in enumerate(sentences):
            if sentence.lower() in seen or not _states_open(sentence, closing):
                continue
            text = sentence
            if _POINTS_BACK.search(sentence) and len(sentence.split()) < _SHORT:
                if i == 0 or not is_prose(sentences[i - 1]) or _CITES.search(sentences[i - 1]):
                    continue  # what 'this' is stands outside the chunk, or is others' work
                text = f"{sentences[i - 1]} {sentence}"
            seen.add(sentence.lower())
            found.append(Quote(text, number, chunk.page))
    return found[:_MAX_PROBLEMS]


# a sentence whose subject is in the one before it: "We leave this to future work."
_POINTS_BACK = re.compile(r"\b(?:this|these|those|it|them|such)\b(?! (?:paper|work|study)\b)", re.I)
_SHORT = 16  # words: a longer sentence usually says itself what it leaves open


def _states_open(sentence: str, closing: bool) -> bool:
    if not is_prose(sentence) or _CITES.search(sentence) or _LIST_OPENS.search(sentence):
        return False
    if _OPEN_STRONG.search(sentence):
        return closing or bool(_OWN.search(sentence))
    return closing and bool(_OPEN_LIMIT.search(sentence)) and bool(_OWN.search(sentence))


# what a practitioner would change, read off the paper's title and contribution sentence
LEVERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("the decoding algorithm", re.compile(r"speculat|draft|early[- ]exit|decoder|\bverif", re.I)),
    ("weight and activation precision", re.compile(r"quanti|\bint\d|\bfp\d|\d-bit|low-bit|outlier|precision", re.I)),
    ("the KV-cache memory manager", re.compile(r"kv[- ]?cache|key-value|paged|virtual memory|fragment", re.I)),
    ("the attention kernel", re.compile(r"attention (?:kernel|algorithm)|io-aware|kernel|tiling|sparse attention", re.I)),
    ("the request scheduler", re.compile(r"schedul|batch|disaggregat|prefill|preempt|migrat|\bslo\b|goodput", re.I)),
    ("adapters served together", re.compile(r"\blora\b|adapter", re.I)),
    ("where the weights live", re.compile(r"offload|flash memory|dram|partition|parallel|expert", re.I)),
)  # fmt: skip
OTHER_LEVER = "other parts of the stack"


def lever(facts: PaperFacts) -> str:
    """The part of a serving stack the paper's work changes, by the most cues of its title and
    contribution sentence (ties go to the first in LEVERS)."""
    text = f"{facts.title}. {facts.contribution}"
    counts = [(len(pattern.findall(text)), -i, name) for i, (name, pattern) in enumerate(LEVERS)]
    best = max(counts)
    return best[2] if best[0] else OTHER_LEVER
