"""What a model-written answer may keep, decided by code sentence by sentence.

A sentence goes when it repeats an earlier one, when it states a number that none of the
sources it cites gives, when it states a number and cites nothing, or when it cites nothing
and its words are not the sources' words. An answer left without a single citation gets the
source sentences closest to the question, each cited, so every fact shown can be traced. A
map's prose gets the same check, save that it may sum up without citing."""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from frontier.synthesize.bundle import Bundle
from frontier.synthesize.citations import cited_numbers, strip_citations
from frontier.synthesize.retrieve import (
    content_words,
    prefix_overlap,
    word_prefixes,
)

REFUSAL = "sources do not answer"  # the answer prompt asks for "The sources do not answer this."
REPEAT = "repeats an earlier sentence"
UNCITED_MIN_OVERLAP = 0.5  # share of an uncited sentence's content words the sources must hold
SHORT_SENTENCE_WORDS = 3  # fewer content words than this: a transition, not a claim
NEAR_DUPLICATE = 0.85  # word-set overlap at which a sentence counts as a repeat
QUOTED_SENTENCES = 3
RANK_PENALTY = 0.05  # score a quote loses per place its source ranks below the first
MIN_QUOTED_CHARS = 40  # shorter pieces are headings and table cells

_CITATION_AFTER_END = re.compile(r"([.!?])((?:\s*\[[\d\s,;\-–]+\])+)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"*\d])")
_LIST_MARKER = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+")
_ANSWER_NUMBER = re.compile(r"(?<![\w.\-/])\d[\d,]*(?:\.\d+)?")
_SOURCE_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twice": 2, "double": 2, "half": 0.5,
    "hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000,
}  # fmt: skip
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Dropped:
    sentence: str
    reason: str


@dataclass
class Grounded:
    text: str
    dropped: list[Dropped] = field(default_factory=list)
    quoted: bool = False  # the source sentences closest to the question were added


def ground_answer(text: str, bundle: Bundle, question: str) -> Grounded:
    """Keep the sentences the sources bear out; report the rest with the reason."""
    grounded = check_sentences(text, bundle, question, strict=True)
    if not cited_numbers(grounded.text) and REFUSAL not in grounded.text.lower():
        quotes = closest_sentences(bundle, question)
        if quotes:
            grounded.text = "\n\n".join(filter(None, [grounded.text, quotes]))
            grounded.quoted = True
    return grounded


def check_sentences(
    text: str,
    bundle: Bundle,
    question: str = "",
    strict: bool = False,
    valid: set[int] | None = None,
) -> Grounded:
    """Each sentence held against the sources; a sentence may cite only numbers in `valid` (the
    bundle's by default). Not `strict` (a map's prose, which sums up many papers): an uncited
    sentence may use words of its own and numbers any source gives."""
    valid = bundle.numbers() if valid is None else valid
    check = _SentenceCheck(bundle, valid, question, strict, refused=REFUSAL in text.lower())
    paragraphs = [
        " ".join(check.kept(split_sentences(paragraph)))
        for paragraph in _CITATION_AFTER_END.sub(r"\2\1", text).split("\n")
    ]
    joined = re.sub(r"\n{3,}", "\n\n", "\n".join(paragraphs)).strip()
    return Grounded(joined, check.dropped)


def split_sentences(paragraph: str) -> list[str]:
    return [sentence for sentence in _SENTENCE_END.split(paragraph.strip()) if sentence]


@dataclass
class _SentenceCheck:
    bundle: Bundle
    valid: set[int]
    question: str
    strict: bool
    refused: bool  # after the plain refusal the model says what the sources cover, in its words
    seen: list[set[str]] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)
    _source_numbers: dict[int, set[Decimal]] = field(default_factory=dict)

    def kept(self, sentences: list[str]) -> list[str]:
        """The sentences of one paragraph that stay. An uncited sentence borrows the sources of
        the next cited one in its paragraph (else the one before): many writers cite once, at
        the end of the sentences a source supports."""
        cites = [[n for n in cited_numbers(s) if n in self.valid] for s in sentences]
        kept = []
        for index, sentence in enumerate(sentences):
            beside = next((c for c in cites[index + 1 :] if c), None)
            beside = beside or next((c for c in reversed(cites[:index]) if c), [])
            reason = self.fault(sentence, beside)
            if reason:
                self.dropped.append(Dropped(sentence.strip(), reason))
            else:
                kept.append(sentence)
        return kept

    def fault(self, sentence: str, beside: list[int]) -> str:
        """Why the sentence cannot stay, or '' when it can."""
        words = _word_set(sentence)
        if words and any(_jaccard(words, earlier) >= NEAR_DUPLICATE for earlier in self.seen):
            return REPEAT
        self.seen.append(words)
        written = cited_numbers(sentence)
        cited = [n for n in written if n in self.valid]
        if written and not cited:
            return f"cites only {''.join(f'[{n}]' for n in written)}, not among its sources"
        if not cited:
            return self.uncited_fault(sentence, beside)
        unsupported = missing_numbers(sentence, self.given(cited))
        if unsupported:
            return f"states {', '.join(unsupported)}, which the sources it cites do not give"
        return ""

    def given(self, numbers: Iterable[int]) -> set[Decimal]:
        """The numbers the sources give, and the question's (each source read once)."""
        found = set(self._question_numbers)
        for number in numbers:
            if number not in self._source_numbers:
                self._source_numbers[number] = _numbers_in(self.evidence(number))
            found |= self._source_numbers[number]
        return found

    def evidence(self, number: int) -> str:
        """What a source says: title, year and text (a month or a page number is no fact)."""
        if number not in self.bundle.numbers():
            return ""
        source = self.bundle.by_number(number)
        return f"{source.title} {source.date[:4]}\n{source.text}"

    @functools.cached_property
    def _question_numbers(self) -> set[Decimal]:
        return _numbers_in(self.question)

    @functools.cached_property
    def _all_words(self) -> set[str]:
        return word_prefixes("\n".join(self.evidence(n) for n in sorted(self.valid)))

    def uncited_fault(self, sentence: str, beside: list[int]) -> str:
        """A number must be traceable to a source; other words must at least be the sources'."""
        if not self.strict:
            unsupported = missing_numbers(sentence, self.given(sorted(self.valid)))
            return f"states {', '.join(unsupported)}, which no source gives" if unsupported else ""
        numbers = missing_numbers(sentence, self.given(beside))
        if numbers and beside:
            return f"states {', '.join(numbers)}, which the sources cited beside it do not give"
        if numbers:
            return f"states {', '.join(numbers)} without citing a source"
        claim = strip_citations(sentence)
        if self.refused or len(content_words(claim)) < SHORT_SENTENCE_WORDS:
            return ""
        if prefix_overlap(claim, self._all_words) < UNCITED_MIN_OVERLAP:
            return "cites no source, and the sources do not use its words"
        return ""


def unsupported_numbers(sentence: str, sources: str) -> list[str]:
    """The numbers of `sentence` that `sources` do not give (a rounded value counts as given)."""
    return missing_numbers(sentence, _numbers_in(sources))


def missing_numbers(sentence: str, given: set[Decimal]) -> list[str]:
    body = _LIST_MARKER.sub("", strip_citations(sentence))
    missing = []
    for token in _ANSWER_NUMBER.findall(body):
        values = _values(token.rstrip(","))
        if values and not all(_is_given(value, given) for value in values):
            missing.append(token.rstrip(","))
    return missing


def _numbers_in(text: str) -> set[Decimal]:
    numbers = {value for token in _SOURCE_NUMBER.findall(text) for value in _values(token)}
    words = set(_WORD.findall(text.lower()))
    numbers.update(Decimal(str(v)) for word, v in _NUMBER_WORDS.items() if word in words)
    return numbers


def _values(token: str) -> list[Decimal]:
    """'1,024' is one number; '3,5' lists two."""
    parts = [token.replace(",", "")] if _THOUSANDS.fullmatch(token) else token.split(",")
    values = []
    for part in parts:
        try:
            values.append(Decimal(part))
        except InvalidOperation:
            continue
    return values


def _is_given(value: Decimal, given: set[Decimal]) -> bool:
    if value in given:
        return True
    places = max(0, -value.as_tuple().exponent)  # type: ignore[operator]
    return any(round(number, places) == value for number in given)


def _word_set(sentence: str) -> set[str]:
    return set(_WORD.findall(strip_citations(sentence).lower()))


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def closest_sentences(bundle: Bundle, question: str, count: int = QUOTED_SENTENCES) -> str:
    """The best sentence of each of the best sources, each cited.

    A sentence scores by the question words it holds, each weighted by how few of the bundle's
    sentences hold it, less a little for every place its source ranks below the first. On the
    74 retrieval questions a quote lands on an answer page for 54 (plain word share: 37)."""
    wanted = {word[:5] for word in content_words(question)}
    candidates = [
        (source.number, sentence, {word[:5] for word in _WORD.findall(sentence.lower())} & wanted)
        for source in bundle.sources
        for sentence in _quotable(source.text)
    ]
    counts = Counter(word for _, _, words in candidates for word in words)
    weight = {word: math.log(1 + len(candidates) / (1 + counts[word])) for word in wanted}
    total = sum(weight.values()) or 1.0
    best: dict[int, tuple[float, str]] = {}
    for number, sentence, words in candidates:
        score = sum(weight[word] for word in words) / total - RANK_PENALTY * (number - 1)
        if words and score > best.get(number, (-math.inf, ""))[0]:
            best[number] = (score, sentence)
    ranked = sorted(best.items(), key=lambda item: (-item[1][0], item[0]))[:count]
    if not ranked:
        return ""
    lines = [f'- "{sentence}" [{number}]' for number, (_, sentence) in ranked]
    return "The sources' own sentences closest to the question:\n" + "\n".join(lines)


def _quotable(text: str) -> list[str]:
    """A source's sentences long enough to quote, without the paper's own reference marks
    ("[52]"), which would read as citations of the bundle."""
    flat = re.sub(r"\s+([.,;:])", r"\1", " ".join(strip_citations(text).split()))
    return [sentence for sentence in _SENTENCE_END.split(flat) if len(sentence) >= MIN_QUOTED_CHARS]
