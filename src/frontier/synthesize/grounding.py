"""What a model-written answer may keep, decided by code sentence by sentence.

A sentence stays when one sentence of a source it cites, or two adjacent ones, bears it out:
most of its content words, all its names and all its numbers (the rule of
`frontier.curate.support`; here a rounded number counts as given, a paper's title names the
subject of all its sentences, and a compound sentence may have each clause borne out by its own
source sentence). The bag of all the sources' words is not enough: a small model writes fluent
text out of words scattered over the pages. A sentence that cites nothing, or whose cited
sources do not bear it out, is cited to a source that does (those cited beside it first). The
rest goes with its reason, as do repeats and a lead-in ("Specifically:") whose continuation
went. An answer left without a single citation gets the source sentences that best answer the
question, each cited, so every fact shown can be traced. A map's prose, which sums up many
papers, may go uncited and join what up to three sources say, but not with a name no source
holds, a number no source gives, or words their best sentences do not bear out; it drops a
sentence that says an earlier one again, or says one thing twice over (a model in a loop)."""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from frontier.curate.support import MIN_WORD_SHARE, names_in, plain_stems
from frontier.synthesize.answering import lacks_asked_kind
from frontier.synthesize.bundle import Bundle
from frontier.synthesize.citations import cited_numbers, strip_citations
from frontier.synthesize.meaning import (
    NOT_GIVEN,
    PARAPHRASE_WORD_SHARE,
    REPORTING_STEMS,
    Alignment,
    Similarity,
    aligned,
    carries,
    fact_fault,
    says_nothing,
    shipped_alignment,
    shipped_similarity,
)
from frontier.synthesize.retrieve import content_words
from frontier.text import (
    NumberShape,
    NumberStart,
    SentenceStarts,
    find_numbers,
    number_parts,
    prose_sentences,
    split_sentences,
    split_words,
)

REFUSAL = "sources do not answer"  # the answer prompt asks for "The sources do not answer this."
REPEAT = "repeats an earlier sentence"
DANGLING = "leads in to sentences that were removed"
TOGETHER_SOURCES = 3  # sources whose best sentences may bear out one sentence between them
SHORT_SENTENCE_WORDS = 3  # fewer content words than this: a transition, not a claim
NEAR_DUPLICATE = 0.85  # word-set overlap at which a sentence counts as a repeat
REPEAT_MIN_WORDS = 8  # distinct words a sentence needs before it is judged a repeat by its share
LOOPS = "repeats itself"
MISSES_KIND = "does not hold what the question asks for"
MISQUOTES = "quotes words no source has as written"
_QUOTED = re.compile(r"[\"“](?P<text>[^\"“”]{12,})[\"”][.,;]?")
LOOP_WORDS = 6  # a run of this many words said twice in one sentence is a loop
QUOTED_SENTENCES = 3
PARAPHRASE_WINDOWS = 6  # windows, best by shared words, held against a sentence by meaning
CLAUSE_GAP = 1  # sentences that may stand between the places holding one sentence's clauses
BORROWED_WORDS = 2  # words a sentence takes from other source sentences before it is assembled
BORROWED_SHARE = 0.5  # of the words its closest window lacks
SHARE_WEIGHT = 0.5  # what shared words add to closeness in meaning when choosing the carrier
RANK_PENALTY = 0.05  # score a quote loses per place its source ranks below the first
ANSWER_KIND_BONUS = 0.3  # score a quote gains when it holds the kind of answer asked for
MIN_QUOTED_CHARS = 40  # shorter pieces are headings and table cells
MAX_QUOTED_CHARS = 400  # longer ones are tables and figures read as one sentence
TABULAR_SHARE = 0.3  # share of a quote's words holding digits past which it is a table row

_CITATION_AFTER_END = re.compile(r"([.!?])((?:\s*\[[\d\s,;\-–]+\])+)")
_LIST_MARKER = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+")
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twice": 2, "double": 2, "half": 0.5,
    "hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000,
}  # fmt: skip
_UNIT = re.compile(r"[KMGT]i?B|[KMGT]B/s|[GM]bps|[GM]Hz|T?FLOPS?|FLOPs|ms|GPU-hours?")
# words that join clauses, not content, stemmed as `_stems` stems
_CONNECTIVES = frozenset(
    plain_stems(
        "because since due whereas once until instead already plus like must even still yet "
        "hence therefore however rather despite"
    )
)
# where a compound sentence splits into clauses, each of which a source sentence may hold
_CLAUSE = re.compile(r"\s*[;:,]\s+|\s+[—–]\s+|\s*[()]\s*")
_BROKEN_HYPHEN = re.compile(r"(?<=\w)- (?=\d)")  # "A100- 80GB": a name broken at a line end
# (what a question asks for, what a sentence answering it holds)
_ANSWER_KINDS = [
    (
        re.compile(
            r"\b(?:which|what)\W+(?:\w+\W+){0,2}?(?:gpus?|hardware|accelerators?|devices?|tpus?)\b"
            r"|\bhardware\b|\b(?:evaluated|run|ran|deployed|tested) on\b",
            re.IGNORECASE,
        ),
        re.compile(
            r"\b(?:A100|A10G?|A30|A40|A6000|A5000|H100|H200|H800|H20|L4|L40S?|T4|V100|P100|K80"
            r"|GH200|B200|MI\d{3}X?|TPU(?:s|\s?v\d+)?|RTX\s?\d{4}|Gaudi\d?)(?![a-z])"
        ),
    ),
    (
        re.compile(
            r"\bhow (?:much|many|large|big|long|fast|small|far)\b"
            r"|\bwhat (?:size|fraction|share|percentage|ratio|speedup)\b",
            re.IGNORECASE,
        ),
        re.compile(
            r"\d[\d,.]*\s?(?:%|×|x\b|[KMGT]i?B\b|bytes?\b|tokens?\b|ms\b|s\b|seconds?\b"
            r"|GPUs?\b|times\b|bits?\b|B\b|FLOPs?\b|requests?\b)",
        ),
    ),
    (
        re.compile(r"\b(?:which|what)\W+(?:\w+\W+){0,2}?(?:llms?|models?)\b", re.IGNORECASE),
        re.compile(
            r"\b(?:OPT|LLaMA|Llama|GPT|Mistral|Mixtral|Falcon|BLOOM|Vicuna|Qwen|Gemma|PaLM|Phi"
            r"|Alpaca|Pythia|MPT|T5|Chinchilla|DeepSeek)\b|\b\d+(?:\.\d+)?[BM]\b"
        ),
    ),
]


@dataclass(frozen=True)
class Dropped:
    sentence: str
    reason: str


@dataclass
class Grounded:
    text: str
    dropped: list[Dropped] = field(default_factory=list)
    quoted: bool = False  # the source sentences closest to the question were added


def ground_answer(text: str, bundle: Bundle, question: str, quotes: bool = False) -> Grounded:
    """Keep the sentences the sources bear out; report the rest with the reason. Without a
    citation left (and no `quotes` of the answering sentences shown above it), the source
    sentences closest to the question are added."""
    grounded = check_sentences(text, bundle, question, strict=True)
    if quotes:
        return grounded
    if not cited_numbers(grounded.text) and REFUSAL not in grounded.text.lower():
        closest = closest_sentences(bundle, question)
        if closest:
            grounded.text = "\n\n".join(filter(None, [grounded.text, closest]))
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
    bundle's by default). Not `strict` (a map's prose, which sums up many papers): a sentence
    citing a paper keeps its own words, an uncited one may sum up in words mostly the sources'."""
    valid = bundle.numbers() if valid is None else valid
    check = _SentenceCheck(
        bundle,
        valid,
        question,
        strict,
        refused=REFUSAL in text.lower(),
        similarity=shipped_similarity(),
        alignment=shipped_alignment(),
    )
    lines = [
        check.judged(split_sentences(line, SentenceStarts.MODEL_TEXT))
        for line in _CITATION_AFTER_END.sub(r"\2\1", text).split("\n")
    ]
    check.dropped.extend(_drop_dangling(lines))
    paragraphs = [" ".join(sentence for sentence in line if sentence) for line in lines]
    joined = re.sub(r"\n{3,}", "\n\n", "\n".join(paragraphs)).strip()
    return Grounded(joined, check.dropped)


def _drop_dangling(lines: list[list[str | None]]) -> list[Dropped]:
    """Blank out each kept lead-in ("Specifically:", "The GPUs are:") none of whose continuation
    is kept: the rest of its paragraph, else the list (or paragraph) after it."""
    dropped = []
    for index, line in enumerate(lines):
        for place, sentence in enumerate(line):
            if sentence is None or not strip_citations(sentence).rstrip().endswith(":"):
                continue
            if place + 1 < len(line):
                continuation = line[place + 1 : place + 2]
            else:
                continuation = _following(lines, index)
            if not any(continuation):
                line[place] = None
                dropped.append(Dropped(sentence.strip(), DANGLING))
    return dropped


def _following(lines: list[list[str | None]], index: int) -> list[str | None]:
    """The judged sentences of the list after line `index`, or of its next paragraph."""
    after = [line for line in lines[index + 1 :] if line]
    if not after:
        return []
    if not _is_item(after[0]):
        return after[0]
    items = list(itertools.takewhile(_is_item, after))
    return [sentence for line in items for sentence in line]


def _is_item(line: Sequence[str | None]) -> bool:
    first = next((sentence for sentence in line if sentence is not None), None)
    return first is None or bool(_LIST_MARKER.match(first))


@dataclass(frozen=True)
class _Window:
    """One source sentence, or two adjacent ones, as a sentence is held against it."""

    stems: frozenset[str]
    text: str  # lowered, with the paper's title: a paper seldom names itself in its sentences
    numbers: frozenset[Decimal]
    span: str = ""  # the source sentence(s) as written
    title: str = ""
    at: tuple[int, int, int] = (0, 0, 0)  # the source's number, its first and last sentences


@dataclass
class _SentenceCheck:
    bundle: Bundle
    valid: set[int]
    question: str
    strict: bool
    refused: bool  # after the plain refusal the model says what the sources cover, in its words
    seen: list[set[str]] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)
    similarity: Similarity | None = None
    alignment: Alignment | None = None
    last_fault: str = ""  # what the closest source sentence holds otherwise than a sentence states
    last_places: set[tuple[int, int, int]] = field(default_factory=set)  # where a text was held
    _source_numbers: dict[int, set[Decimal]] = field(default_factory=dict)
    _windows: dict[int, list[_Window]] = field(default_factory=dict)

    def judged(self, sentences: list[str]) -> list[str | None]:
        """The sentences of one paragraph as they stay, None for those that go. For an uncited
        sentence the sources cited beside it (by the next cited sentence of its paragraph, else
        the one before) come first: many writers cite once, after the sentences a source bears
        out."""
        cites = [[n for n in cited_numbers(s) if n in self.valid] for s in sentences]
        judged: list[str | None] = []
        for index, sentence in enumerate(sentences):
            beside = next((c for c in cites[index + 1 :] if c), None)
            beside = beside or next((c for c in reversed(cites[:index]) if c), [])
            kept, reason = self.judge(sentence, beside)
            if reason:
                self.dropped.append(Dropped(sentence.strip(), reason))
            judged.append(None if reason else kept)
        return judged

    def judge(self, sentence: str, beside: list[int]) -> tuple[str, str]:
        """The sentence as it stays, or why it cannot: borne out by its sources and, in an
        answer to a question asking for an accelerator, a number or a model, holding one."""
        if self.misquotes(sentence):
            return "", MISQUOTES
        kept, reason = self.judge_support(sentence, beside)
        if kept and not reason and self.strict and not self.refused:
            wanted = lacks_asked_kind(self.question, strip_citations(kept))
            if wanted:
                return "", f"{MISSES_KIND}: {wanted}"
        return kept, reason

    def misquotes(self, sentence: str) -> bool:
        """The sentence is written as a quotation of a source ("..." [2]) whose words no
        source has as written: a quote must be the paper's own words."""
        body = _LIST_MARKER.sub("", strip_citations(sentence)).strip()
        quoted = _QUOTED.fullmatch(body)
        if not quoted:
            return False
        words = _flat_words(quoted.group("text"))
        return bool(words) and not any(words in flat for flat in self._flat_sources)

    def judge_support(self, sentence: str, beside: list[int]) -> tuple[str, str]:
        """The sentence as it stays, or why it cannot. One whose cited sources do not bear it out,
        or that cites none, is cited to the first source that does (a source cited beside it
        first): the citation it leans on may itself go, and every claim shown names its source."""
        self.last_fault = ""
        words = _word_set(sentence)
        if words and any(_repeats(sentence, words, earlier) for earlier in self.seen):
            return "", REPEAT
        self.seen.append(words)
        if _loops(sentence):
            return "", LOOPS
        empty = says_nothing(sentence, self.question)
        if empty and not (self.refused and REFUSAL in sentence.lower()):
            return "", empty
        written = cited_numbers(sentence)
        cited = [n for n in written if n in self.valid]
        if written and not cited:
            return "", f"cites only {''.join(f'[{n}]' for n in written)}, not among its sources"
        if not self.strict:  # a summary: its own words, but numbers its papers give
            if not cited:
                return sentence, self.summary_fault(sentence)
            numbers = missing_numbers(sentence, self.given(cited))
            return sentence, self.fault(sentence, cited, []) if numbers else ""
        if cited and self.borne_out(sentence, cited, together=True):
            return sentence, ""
        if not cited and not _stated_numbers(sentence) and (self.refused or _is_short(sentence)):
            return sentence, ""
        order = [*beside, *(n for n in sorted(self.valid) if n not in beside and n not in cited)]
        bearer = next((n for n in order if self.borne_out(sentence, [n])), None)
        if bearer is not None:
            return _cite(sentence, bearer), ""
        return "", self.fault(sentence, cited, beside)

    def fault(self, sentence: str, cited: list[int], beside: list[int]) -> str:
        """Why no source bears the sentence out."""
        if cited:
            numbers = missing_numbers(sentence, self.given(cited))
            if numbers:
                return f"states {', '.join(numbers)}, which the sources it cites do not give"
            return self.last_fault or "no sentence of the sources it cites bears it out"
        numbers = missing_numbers(sentence, self.given(beside))
        if numbers and beside:
            return f"states {', '.join(numbers)}, which the sources cited beside it do not give"
        if numbers and missing_numbers(sentence, self.given(sorted(self.valid))):
            return f"states {', '.join(numbers)} without citing a source"
        return self.last_fault or "cites no source, and no source sentence bears it out"

    def borne_out(self, sentence: str, numbers: list[int], together: bool = False) -> bool:
        """Whether one window of one of these sources holds most of the sentence's content
        words, all its names and all its numbers; or, for a compound sentence, each clause its
        own window (the clauses so held carrying most of its content words); or, `together`, the
        best windows of several sources between them (a sentence comparing papers)."""
        claim = _LIST_MARKER.sub("", strip_citations(sentence))
        windows = [window for n in numbers for window in self.windows(n)]
        if self.held(claim, windows):
            return True
        clauses = _frames_joined([c for c in _CLAUSE.split(claim) if c and c.strip()])
        if len(clauses) > 1 and self._clauses_held_together(clauses, windows):
            wanted = _stems(claim)
            claims = [c for c in clauses if _stated_numbers(c) or not _is_short(c)]
            covered = wanted & set().union(*(_stems(c) for c in claims))
            if wanted and len(covered) >= MIN_WORD_SHARE * len(wanted):
                return True
        if not together or len(numbers) < 2:
            return False
        wanted = _stems(claim)
        best = _most_covering(
            [max(self.windows(n), key=lambda w: len(wanted & w.stems)) for n in numbers], wanted
        )
        union = _Window(
            frozenset().union(*(w.stems for w in best)),
            " ".join(w.text for w in best),
            frozenset().union(*(w.numbers for w in best)),
            " ".join(w.span for w in best),
            best[0].title,
        )
        return self.held(claim, [union])

    def _clauses_held_together(self, clauses: list[str], windows: list[_Window]) -> bool:
        """Each clause is held, and those that name something are held with at most CLAUSE_GAP
        sentences between them, in one source: a name and what is said of it come from one
        place, not a clause from each end of the page ("FP8-E4 is the best" from one sentence,
        "for the Gaussian" from another)."""
        held_at: list[set[tuple[int, int, int]]] = []
        for clause in clauses:
            if not self.held(clause, windows):
                return False
            if _names(clause) - self._question_names:
                held_at.append(self.last_places)
        anchors = set().union(*held_at) if held_at else set()
        return not held_at or any(
            all(any(_near(anchor, place) for place in places) for places in held_at)
            for anchor in anchors
        )

    def held(self, text: str, windows: list[_Window]) -> bool:
        """The window that carries the text best (most of its content words, or fewer in words
        that mean the same) bears it out, its names and its facts as stated (numbers with what
        they count, direction, negation, cause). A short text without a number (a transition,
        a list's head) needs only its names somewhere."""
        names = _names(text) - self._question_names
        naming = [w for w in windows if all(_names_in_text(n, w.text) for n in names)]
        self.last_places = {w.at for w in naming}
        if not _stated_numbers(text) and _is_short(text):
            return all(any(_names_in_text(name, w.text) for w in windows) for name in names)
        carrier = self.carrier(text, naming)
        if carrier is None:
            return False
        share, closeness, window = carrier
        self.last_places = {window.at}
        if not carries(share, closeness, len(_stems(text)), len(_stated_numbers(text))) and not (
            aligned(self.alignment, text, window.span)
            and _named_where_said(names, text, window)
            and not self._nearer_the_question(text, window)
        ):
            return False
        if self._borrows(text, window, windows, share >= MIN_WORD_SHARE):
            self.last_fault = "joins words of other source sentences to its closest one"
            return False
        self.last_fault = fact_fault(
            text, window.span, window.title, self.question, self.similarity
        )
        if self.last_fault.endswith(NOT_GIVEN):
            # the sentence's closest source sentence with the one before or after it: a number
            # the sentence joins to it may stand beside it ("… a bubble of ≈ 950 ms.")
            for wider in _widening(window, naming):
                if not fact_fault(text, wider.span, wider.title, self.question, self.similarity):
                    self.last_fault, self.last_places = "", {wider.at}
                    break
        return not self.last_fault

    def _nearer_the_question(self, text: str, window: _Window) -> bool:
        """The text is closer in meaning to the question than to the source sentence said to
        carry it: it restates what was asked in the source's words, and answers nothing."""
        if self.similarity is None or not self.question:
            return False
        to_question, to_window = self.similarity(
            text, [self.question, f"{window.title}: {window.span}"]
        )
        return to_question >= to_window

    def _borrows(
        self, text: str, carrier: _Window, windows: list[_Window], most: bool = False
    ) -> bool:
        """Most words the closest window lacks stand in other sentences of the same sources: a
        sentence assembled from a page's words, not one saying the window's fact in its own."""
        missing = _stems(text) - carrier.stems - REPORTING_STEMS
        elsewhere = set().union(*(w.stems for w in windows)) if windows else set()
        borrowed = missing & elsewhere
        least = BORROWED_WORDS + most  # a window holding most of the words may lack a few more
        return len(borrowed) >= least and len(borrowed) >= BORROWED_SHARE * len(missing)

    def carrier(
        self, text: str, windows: list[_Window]
    ) -> tuple[float, float | None, _Window] | None:
        """The window closest to the text: by meaning among those holding enough of its
        words, by shared words without the embeddings."""
        wanted = _stems(text)
        shares = [(len(wanted & w.stems) / len(wanted) if wanted else 1.0, w) for w in windows]
        fitting = sorted(
            (item for item in shares if item[0] >= PARAPHRASE_WORD_SHARE), key=lambda x: -x[0]
        )[:PARAPHRASE_WINDOWS]
        if not fitting:
            return None
        if self.similarity is None:
            return fitting[0][0], None, fitting[0][1]
        scores = self.similarity(text, [w.span for _, w in fitting])
        ranked = [
            (share, float(score), w) for (share, w), score in zip(fitting, scores, strict=True)
        ]
        return max(ranked, key=lambda item: item[1] + SHARE_WEIGHT * item[0])

    def windows(self, number: int) -> list[_Window]:
        if number not in self._windows:
            source = self.bundle.by_number(number)
            head = f"{source.title} {source.date[:4]}"
            parts = prose_sentences(_BROKEN_HYPHEN.sub("-", strip_citations(source.text))) or [""]
            singles = [(place, place, span) for place, span in enumerate(parts)]
            pairs = [(i, i + 1, f"{a} {b}") for i, (a, b) in enumerate(itertools.pairwise(parts))]
            self._windows[number] = [
                _Window(
                    frozenset(_stems(span)),
                    f"{span} {head}".lower(),
                    frozenset(_numbers_in(span) | _numbers_in(head)),
                    span,
                    head,
                    (number, first, last),
                )
                for first, last, span in [*singles, *pairs]
            ]
        return self._windows[number]

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
    def _question_names(self) -> set[str]:
        """The names the question gives: the asker's subject, which an answer may repeat."""
        return _names(self.question) if self.strict else set()

    @functools.cached_property
    def _question_numbers(self) -> set[Decimal]:
        return _numbers_in(self.question)

    @functools.cached_property
    def _flat_sources(self) -> list[str]:
        """Each source's words as `_flat_words` gives them, read once for every quotation."""
        return [_flat_words(self.evidence(n)) for n in sorted(self.valid)]

    @functools.cached_property
    def _all_text(self) -> str:
        return "\n".join(self.evidence(n) for n in sorted(self.valid)).lower()

    def summary_fault(self, sentence: str) -> str:
        """An uncited summary may join what several sources say, but no name that no source
        holds, no number that no source gives, and nothing the best sentences of at most
        TOGETHER_SOURCES sources do not bear out between them (a small model strings the field's
        words into sentences no paper says)."""
        numbers = missing_numbers(sentence, self.given(sorted(self.valid)))
        if numbers:
            return f"states {', '.join(numbers)}, which no source gives"
        claim = _LIST_MARKER.sub("", strip_citations(sentence))
        foreign = sorted(
            name
            for name in names_in(claim)
            if any(part not in self._all_text for part in _name_parts(name))
        )
        if foreign:
            return f"cites no source, and no source names {', '.join(foreign)}"
        if _is_short(sentence) or self.borne_out(claim, sorted(self.valid), together=True):
            return ""
        return "cites no source, and no sentences of the sources bear it out"


def _frames_joined(clauses: list[str]) -> list[str]:
    """The clauses with a short one that names something and states no number ("For QMoE")
    joined to the clause after it: a frame says nothing of its own, so what it names must stand
    where what it frames is held."""
    joined: list[str] = []
    frame = ""
    for index, clause in enumerate(clauses):
        clause = f"{frame}, {clause}" if frame else clause
        last = index == len(clauses) - 1
        is_frame = _names(clause) and not _stated_numbers(clause) and _is_short(clause)
        frame = clause if is_frame and not last else ""
        if not frame:
            joined.append(clause)
    return joined


def _widening(window: _Window, windows: list[_Window]) -> list[_Window]:
    """The windows that are this one sentence and the one before or after it."""
    number, first, last = window.at
    if first != last:
        return []
    return [
        w
        for w in windows
        if w.at[0] == number and w.at[2] - w.at[1] == 1 and w.at[1] <= first <= w.at[2]
    ]


def _near(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    """Two windows of one source with at most CLAUSE_GAP sentences between them."""
    between = max(a[1], b[1]) - min(a[2], b[2]) - 1
    return a[0] == b[0] and between <= CLAUSE_GAP


def _flat_words(text: str) -> str:
    """The text's words in order, lowered, without punctuation or reference marks: a quote and
    its source compared as a reader compares them."""
    return " ".join(re.findall(r"\w+", strip_citations(text).lower()))


def _most_covering(windows: list[_Window], wanted: set[str]) -> list[_Window]:
    """At most TOGETHER_SOURCES windows, each chosen for the most wanted words not yet held: the
    best sentences of every paper of a large bundle would hold any sentence of the field's words."""
    chosen: list[_Window] = []
    held: set[str] = set()
    for _ in range(min(TOGETHER_SOURCES, len(windows))):
        best = max(windows, key=lambda w: len((wanted & w.stems) - held))
        if not (wanted & best.stems) - held:
            break
        chosen.append(best)
        held |= best.stems
    return chosen or windows[:1]


def _named_where_said(names: set[str], text: str, window: _Window) -> bool:
    """The window's sentence that holds most of the text's words names them all (the paper's
    title counts for each): a name from the sentence beside it is said of something else."""
    wanted = _stems(text)
    sentences = prose_sentences(window.span) or [""]
    said = max(sentences, key=lambda sentence: len(wanted & _stems(sentence)))
    return all(_names_in_text(name, f"{window.title} {said}".lower()) for name in names)


def _names(text: str) -> set[str]:
    named = {part for name in names_in(text) for part in _name_parts(name)}
    return (named | {w.lower() for w in _LOWER_NAME.findall(text)}) - GENERIC_NAMES


# a lower-case name with a number in it: a format or a model ("bfloat16", "int8", "llama2")
_LOWER_NAME = re.compile(r"(?<![\w-])[a-z]{2,}\d+[a-z\d]*(?![\w-])")


# capitalised words of the field that name no particular thing
GENERIC_NAMES = frozenset(
    [
        "gpu",
        "gpus",
        "cpu",
        "cpus",
        "tpu",
        "tpus",
        "llm",
        "llms",
        "kv",
        "api",
        "apis",
        "slo",
        "slos",
        "hbm",
        "dram",
        "sram",
        "ssd",
        "nvme",
        "ai",
        "ml",
        "nlp",
        "flops",
        "gflops",
        "tflops",
    ]
)


def _names_in_text(name: str, text: str) -> bool:
    """The name stands in the (lowered) text as a word or a part of a hyphenated one, not
    inside another word ("float16" is not in "bfloat16")."""
    return re.search(rf"(?<![^\W_]){re.escape(name)}(?![^\W_])", text) is not None


def _name_parts(name: str) -> set[str]:
    """A compound name by its named parts ("Llama-2-7B-architecture": llama, 7b), without a
    possessive or a count ("8xA800"); a unit ("32GB") names nothing."""
    parts = [re.sub(r"^x(?=[A-Z])", "", part) for part in re.sub(r"['’]s?$", "", name).split("-")]
    named = {
        part.lower()
        for part in parts
        if len(part) > 1 and re.search(r"[A-Z]", part) and not _UNIT.fullmatch(part)
    }
    variants = {
        f"{before}-{part}".lower()
        for before, part in itertools.pairwise(parts)
        if part.lower() in _SIZE_WORDS and before.lower() in named
    }
    return named | variants


# the size of a model family's member, which a name holds after a hyphen ("mT5-large")
_SIZE_WORDS = frozenset(["tiny", "mini", "small", "base", "medium", "large", "xl", "xxl"])


def _stems(text: str) -> set[str]:
    """`plain_stems` without connectives."""
    return plain_stems(text) - _CONNECTIVES


def _is_short(sentence: str) -> bool:
    return len(content_words(strip_citations(sentence))) < SHORT_SENTENCE_WORDS


def _cite(sentence: str, number: int) -> str:
    """The sentence citing source `number` in place of what it cited, before its full stop."""
    body = re.sub(r"\s+([.,;:!?])", r"\1", " ".join(strip_citations(sentence).split()))
    end = re.search(r"[.!?:]*$", body)
    cut = end.start() if end else len(body)
    return f"{body[:cut]} [{number}]{body[cut:]}"


def unsupported_numbers(sentence: str, sources: str) -> list[str]:
    """The numbers of `sentence` that `sources` do not give (a rounded value counts as given)."""
    return missing_numbers(sentence, _numbers_in(sources))


def missing_numbers(sentence: str, given: set[Decimal]) -> list[str]:
    return [token for token, values in _stated_numbers(sentence) if not _all_given(values, given)]


def _stated_numbers(sentence: str) -> list[tuple[str, list[Decimal]]]:
    """The numbers a sentence states, as written and as values (not those inside names,
    citations or list marks)."""
    body = _LIST_MARKER.sub("", strip_citations(sentence))
    stated = []
    for token in find_numbers(body, NumberShape.LISTED, NumberStart.OUTSIDE_NAMES):
        values = _values(token.rstrip(","))
        if values:
            stated.append((token.rstrip(","), values))
    return stated


def _all_given(values: Iterable[Decimal], given: set[Decimal] | frozenset[Decimal]) -> bool:
    return all(_is_given(value, given) for value in values)


def _numbers_in(text: str) -> set[Decimal]:
    numbers = {
        value for token in find_numbers(text, NumberShape.LISTED) for value in _values(token)
    }
    words = set(split_words(text.lower()))
    numbers.update(Decimal(str(v)) for word, v in _NUMBER_WORDS.items() if word in words)
    return numbers


def _values(token: str) -> list[Decimal]:
    """'1,024' is one number; '3,5' lists two."""
    values = []
    for part in number_parts(token):
        try:
            values.append(Decimal(part))
        except InvalidOperation:
            continue
    return values


def _is_given(value: Decimal, given: set[Decimal] | frozenset[Decimal]) -> bool:
    if value in given:
        return True
    exponent = value.as_tuple().exponent  # an int: the values are read from digits
    places = max(0, -exponent) if isinstance(exponent, int) else 0
    return any(round(number, places) == value for number in given)


def _word_set(sentence: str) -> set[str]:
    return set(split_words(strip_citations(sentence).lower()))


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def _repeats(sentence: str, words: set[str], earlier: set[str]) -> bool:
    """The same sentence again, or (when it is long enough to judge) one whose words are nearly
    all an earlier sentence's and whose few others are no number or name: a small model
    restates with a word added ('also'); 'vAttention does the same' is another claim."""
    if _jaccard(words, earlier) >= NEAR_DUPLICATE:
        return True
    if len(words) < REPEAT_MIN_WORDS or len(words & earlier) < NEAR_DUPLICATE * len(words):
        return False
    tokens = split_words(strip_citations(sentence))
    return not any(
        _names_or_counts(token, first=i == 0)
        for i, token in enumerate(tokens)
        if token.lower() not in earlier
    )


def _names_or_counts(token: str, first: bool) -> bool:
    """A number, or a name (a capital past a sentence's first letter)."""
    return bool(re.search(r"\d", token)) or bool(re.search(r"[A-Z]", token[1:] if first else token))


def _loops(sentence: str) -> bool:
    """A run of words said twice within one sentence: a model stuck in a loop, not a claim."""
    words = split_words(strip_citations(sentence).lower())
    runs = [tuple(words[i : i + LOOP_WORDS]) for i in range(len(words) - LOOP_WORDS + 1)]
    return len(set(runs)) < len(runs)


def closest_sentences(bundle: Bundle, question: str, count: int = QUOTED_SENTENCES) -> str:
    """The best sentence of each of the best sources, each cited.

    A sentence scores by the question words it holds, each weighted by how few of the bundle's
    sentences hold it, plus a bonus when it holds the kind of answer asked for (an accelerator
    for "which GPUs", a number with its unit for "how much", model names for "which models"),
    less a little for every place its source ranks below the first. A lead-in ending in ':' is
    no answer. (Figures on the retrieval questions are in BENCHMARKS.md.)"""
    wanted = {word[:5] for word in content_words(question)}
    kinds = [answer for asked, answer in _ANSWER_KINDS if asked.search(question)]
    candidates = [
        (source.number, sentence, {word[:5] for word in split_words(sentence.lower())} & wanted)
        for source in bundle.sources
        for sentence in _quotable(source.text)
        if not sentence.rstrip().endswith(":")
    ]
    counts = Counter(word for _, _, words in candidates for word in words)
    weight = {word: math.log(1 + len(candidates) / (1 + counts[word])) for word in wanted}
    total = sum(weight.values()) or 1.0
    best: dict[int, tuple[float, str]] = {}
    for number, sentence, words in candidates:
        score = sum(weight[word] for word in words) / total - RANK_PENALTY * (number - 1)
        score += ANSWER_KIND_BONUS * any(kind.search(sentence) for kind in kinds)
        if words and score > best.get(number, (-math.inf, ""))[0]:
            best[number] = (score, sentence)
    ranked = sorted(best.items(), key=lambda item: (-item[1][0], item[0]))[:count]
    if not ranked:
        return ""
    lines = [f'- "{sentence}" [{number}]' for number, (_, sentence) in ranked]
    return "The sources' own sentences closest to the question:\n" + "\n".join(lines)


def _quotable(text: str) -> list[str]:
    """A source's sentences long enough to quote, short enough and wordy enough to be prose (a
    table flattened into one "sentence" is not), without the paper's own reference marks ("[52]"), which would
    read as citations of the bundle."""
    flat = re.sub(r"\s+([.,;:])", r"\1", " ".join(strip_citations(text).split()))
    flat = _BROKEN_HYPHEN.sub("-", flat)
    return [
        sentence
        for sentence in split_sentences(flat, SentenceStarts.MODEL_TEXT)
        if MIN_QUOTED_CHARS <= len(sentence) <= MAX_QUOTED_CHARS and not _tabular(sentence)
    ]


def _tabular(sentence: str) -> bool:
    """Mostly figures: a table's rows or a plot's axis read as a sentence."""
    tokens = sentence.split()
    return sum(any(c.isdigit() for c in token) for token in tokens) > TABULAR_SHARE * len(tokens)
