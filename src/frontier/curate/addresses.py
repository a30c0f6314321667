"""Whether a paper addresses a gap, a conflict or a thesis, decided by code over what the paper
itself contributes.

An item is read as its parts: the phrases between its prepositions and conjunctions
("speculative decoding speed-ups" | "large batch sizes"), each the content words it holds
without the field's own words (which every paper of the KB shares). A paper addresses the item
when each part is held by one of its own-work sentences: a sentence of the title, the abstract,
the introduction or the conclusion that speaks of the paper's own work (we / our / this paper /
the system it names / its experiments), not of background or of cited work. A part is held by a
sentence that has its words (all of up to three, three of four), or by the own-work sentences
together when they have all of its words and one of them half; a plural and its singular are
one word. A participle inside a longer
part ("the KV cache *dominating* memory") is the asker's phrasing, not a word the paper must
use; the expansion of the field's own acronyms ("large language models" for LLM) is the field
again, not a part. The evidence shown is the own-work sentence that holds the most parts."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from frontier.curate.claims import system_names
from frontier.curate.support import content_stems, is_prose, plain_math
from frontier.text import any_word, prose_sentences

WHOLE_PART = 3  # a part of up to this many words is held only with all of them
PART_SHARE = 0.75  # of a longer part's words
MIN_STEM = 4  # shorter word pieces ("ups" of "speed-ups") name nothing on their own
_PLURAL = re.compile(r"(?<=[a-z]{3})(?<!s)s\b")
OWN_KINDS = frozenset({"abstract", "introduction", "conclusion"})
_SPLIT = any_word(
    r"at|in|on|of|for|with|without|from|to|under|over|by|via|when|while|whose|which|that"
    r"|who|whoever|beyond|across|between|against|than|into|not|and|but|instead|versus|vs"
)
_OWN = re.compile(
    r"\b(?:we|our|ours|us)\b|\bthis (?:paper|work|study|article|report)\b"
    r"|\b(?:experiments?|evaluations?|results?|benchmarks?)\b[^.;]{0,80}?"
    r"\b(?:show|shows|showed|demonstrate|demonstrates|indicate|indicates|reveal|reveals|confirm)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ItemPart:
    text: str
    stems: frozenset[str]

    def needed(self) -> int:
        count = len(self.stems)
        return count if count <= WHOLE_PART else math.ceil(PART_SHARE * count)


@dataclass(frozen=True)
class Coverage:
    """How an item's parts are held by a paper's own-work sentences."""

    parts: tuple[ItemPart, ...]
    held: tuple[bool, ...]
    evidence: str
    page: int | None

    def complete(self) -> bool:
        return bool(self.parts) and all(self.held)

    def missing(self) -> list[ItemPart]:
        return [p for p, h in zip(self.parts, self.held, strict=True) if not h]


def stems_of(text: str) -> set[str]:
    """Content stems with hyphenated words read as their pieces ("long-context") and plurals
    as their singular."""
    words = _PLURAL.sub("", text.replace("-", " "))
    return {s for s in content_stems(words) if len(s) >= MIN_STEM}


def item_parts(item: str, field_words: set[str]) -> tuple[ItemPart, ...]:
    """The phrases of an item that a paper must each speak of."""
    parts = []
    for phrase in _SPLIT.split(item):
        words = phrase.split()
        kept = [w for i, w in enumerate(words) if not _inner_participle(w, i, len(words))]
        stems = frozenset(stems_of(" ".join(kept)) - field_words)
        if stems:
            parts.append(ItemPart(" ".join(words), stems))
    return tuple(parts)


def _inner_participle(word: str, index: int, count: int) -> bool:
    """An -ing word that is neither the last word of a part of three or more (a noun there:
    "speculative decoding") nor the whole part."""
    return count >= 3 and index < count - 1 and word.lower().endswith("ing")


def acronym_expansions(field: str) -> re.Pattern[str] | None:
    """The spelled-out forms of the field name's acronyms ("large language models" for LLM)."""
    forms = [
        r"\s+".join(rf"{letter}[a-z]*" for letter in acronym.lower()) + "s?"
        for acronym in re.findall(r"\b[A-Z]{2,6}\b", field)
    ]
    return any_word("|".join(forms)) if forms else None


def holds(part: ItemPart, stems: set[str]) -> bool:
    """A sentence with these stems holds the part: most of its words, a longer form of a word
    counting for it ("speedups" for "speed") when the word is not a short one."""
    return _count(part, stems) >= part.needed()


def is_own_work(sentence: str, names: list[str]) -> bool:
    """The sentence speaks of the paper's own work: we / our / this paper / its experiments, or
    one of the names it gives its system (`claims.system_names`)."""
    return bool(_OWN.search(sentence)) or any(name in sentence for name in names)


def own_pages(
    pages: list[tuple[int, str]], kinds_by_page: dict[int, set[str]]
) -> list[tuple[int, str]]:
    """The pages of the introduction and the conclusion (a page shared with another section
    counts: its own-work sentences are still the paper's)."""
    return [(n, text) for n, text in pages if kinds_by_page.get(n, set()) & OWN_KINDS]


def own_work_sentences(
    title: str, abstract: str, pages: list[tuple[int, str]], provisional: bool = False
) -> list[tuple[str, int | None]]:
    """The abstract's and these pages' sentences that speak of the paper's own work, then the
    title (page None for the abstract and the title), unless it is a `provisional` stand-in
    made of the abstract's opening words: background, not the paper's own work."""
    names = system_names(title, abstract)
    units: list[tuple[str, int | None]] = [(s, None) for s in prose_sentences(plain_math(abstract))]
    units += [(s, n) for n, text in pages for s in prose_sentences(plain_math(text))]
    found = [(s, p) for s, p in units if is_prose(s) and is_own_work(s, names)]
    # the title last: a sentence of the paper is the better evidence when it holds as much
    return found if provisional or not title else [*found, (title, None)]


def coverage(
    parts: tuple[ItemPart, ...],
    units: list[tuple[str, int | None]],
    field: re.Pattern[str] | None = None,
) -> Coverage | None:
    """Which parts the own-work sentences hold, and the sentence holding the most of them."""
    if not parts or not units:
        return None
    stems = [stems_of(field.sub(" ", s) if field else s) for s, _ in units]
    everywhere = set().union(*stems)
    held = [_held(part, stems, everywhere) for part in parts]
    counts = [sum(2 * holds(p, here) or _half(p, here) for p in parts) for here in stems]
    best = max(range(len(units)), key=lambda i: counts[i])
    if not counts[best]:
        return None
    return Coverage(parts, tuple(held), units[best][0], units[best][1])


def _held(part: ItemPart, stems: list[set[str]], everywhere: set[str]) -> bool:
    if any(holds(part, here) for here in stems):
        return True
    return _all(part, everywhere) and any(_half(part, here) for here in stems)


def _count(part: ItemPart, stems: set[str]) -> int:
    return sum(
        any(s == want or (len(want) >= 5 and s.startswith(want)) for s in stems)
        for want in part.stems
    )


def _all(part: ItemPart, stems: set[str]) -> bool:
    return _count(part, stems) == len(part.stems)


def _half(part: ItemPart, stems: set[str]) -> bool:
    return _count(part, stems) >= max(1, math.ceil(len(part.stems) / 2))
