"""Whether a written sentence says something, and whether one or two source sentences carry it:
by its facts (numbers with their units and what they count, names, the direction of a change, a
negation, a stated cause) and by its meaning (the shipped sentence embeddings), not by the bag of
a page's words.

`says_nothing` names what makes a sentence empty: a bare list of numbers or citations, a
tautology, a restatement of the question, a fragment, a heading, an author or affiliation line,
a reference entry. `fact_fault` names the fact a source sentence does not hold the way the
sentence states it. `carries` says whether a source window bears the sentence out: most of its
content words, or fewer of them in words that mean the same (a paraphrase: "linked by NVLink"
for "connected with NVLINK"), with every fact in place."""

from __future__ import annotations

import functools
import itertools
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from frontier.curate.support import content_stems, is_content_word, plain_stems
from frontier.llm.embeddings import EmbeddingError, load_embedder
from frontier.synthesize.citations import strip_citations
from frontier.text import (
    HARDWARE_NAME,
    MODEL_NAME,
    NumberShape,
    NumberStart,
    WordStyle,
    any_word,
    find_numbers,
    number_matches,
    number_parts,
    prose_sentences,
    split_clauses,
    split_words,
    word_matches,
)

# how close in meaning a text is to each of several others (cosines of sentence embeddings)
Similarity = Callable[[str, list[str]], Sequence[float]]
# how closely a text's words, each read in its sentence, are matched by another text's words
Alignment = Callable[[str, str], float]

# share of a sentence's content words one window must hold, and the lower share that is enough
# when the window is close in meaning (set on the tuning half of the check set; BENCHMARKS.md)
MIN_WORD_SHARE = 0.6
PARAPHRASE_WORD_SHARE = 0.3
PARAPHRASE_SIMILARITY = 0.7
FACTS_ENOUGH = 2  # numbers a sentence states, all checked, that say more than its embedding
SHORT_WORDS = 6  # content words up to which a sentence is held by its words and facts alone
MIN_SIMILARITY = 0.7  # what a window holding most of the words needs of closeness in meaning
# a paraphrase in other words: the mean, over its content words, of each one's closeness in
# context to the nearest word of the window (a word the window has, or one meaning the same),
# and that mean over the words the window lacks alone ("merged into one batch" where the page
# "places on different GPUs" shares the topic's words and adds two the page does not mean)
ALIGNED_WORDS = 0.6
NEW_WORDS_ALIGNED = 0.4
NEARNUMBER_WORDS = 5  # words either side of a number that say what it counts

BARE_LIST = "a bare list of numbers or citations"
TAUTOLOGY = "says the same thing twice (a tautology)"
ECHO = "restates the question without answering it"
FRAGMENT = "a fragment, not a sentence"
HEADING = "a heading"
AUTHORS = "an author or affiliation line"
REFERENCE = "a reference-list entry"
FILLER = "says nothing of its own (the question, the answer, the sources)"
SELF_COMPARED = "sets a number or a name against itself"
A_QUESTION = "asks a question instead of answering one"
NOTATION = "defines notation"
NOT_GIVEN = "which its source does not give"

_UNIT_AFTER = re.compile(
    r"\s?(%|×|x\b|[KMGT]i?B(?:/s)?\b|[GM]bps\b|ms\b|s\b|seconds?\b|minutes?\b|hours?\b|"
    r"tokens?\b|bits?\b|bytes?\b|GPUs?\b|nodes?\b|layers?\b|heads?\b|steps?\b|epochs?\b|"
    r"threads?\b|[BMK]\b)",
)
_UNIT_CLASS = {
    "%": "percent", "×": "times", "x": "times", "ms": "time", "s": "time", "second": "time",
    "seconds": "time", "minute": "time", "minutes": "time", "hour": "time", "hours": "time",
}  # fmt: skip
_STOPWORDS_START = frozenset(
    [
        "and",
        "or",
        "but",
        "of",
        "to",
        "than",
        "with",
        "when",
        "which",
        "that",
        "because",
        "compared",
        "while",
        "whereas",
        "for",
        "by",
        "as",
        "in",
        "on",
        "at",
        "from",
        "into",
        "its",
        "their",
        "whose",
    ]
)
# words that end no sentence, and that say nothing of what a number counts
_FUNCTION_WORDS = frozenset(
    "the a an of to and or with than by for in on at as from is are was were be".split()  # noqa: SIM905
)
# what a repeated phrase may have between its words and still be the same phrase
_PLAIN_WORDS = (
    _FUNCTION_WORDS
    | _STOPWORDS_START
    | frozenset(
        "this these it its that which who we our they there here also then so".split()  # noqa: SIM905
    )
)
# a negation; "not only", "no more than", "none of" (a quantity) and the like deny nothing
_NEGATORS = re.compile(
    r"\b(?:not(?! only\b| just\b)|no(?! (?:more|less|fewer|later|sooner) than\b)|never|cannot|"
    r"neither|nor|without|fails? to|unable|lacks?|lacking)\b|n't\b",
    re.IGNORECASE,
)
_CAUSE_STATED = any_word(
    r"because|since|due to|so that|therefore|thus|hence|as a result|thanks to|in order to|"
    r"(?:which|this|that) (?:allows|enables|lets|means|makes|causes)|lets?|allows?|enables?|"
    r"leads? to|results? in|causes?|caused by|arises? from|comes? from|by (?=\w+ing\b)"
)
CAUSE_MIN_WORDS = 3  # content words a stated reason needs before it is held on its own
CAUSE_WORD_SHARE = 0.5  # of them a window holding the reason has, or fewer but close in meaning
CAUSE_SIMILARITY = 0.6
# change words by their base ("increases", "increased", "increasing": increas): which way they
# go (up or down a quantity) or what they are (a gain or a loss); and which are opposites
_UP = frozenset(
    [
        "higher",
        "more",
        "greater",
        "larger",
        "increas",
        "rais",
        "grow",
        "boost",
        "exceed",
        "above",
        "longer",
        "bigger",
        "add",
        "high",
        "large",
        "maximum",
        "extra",
        "additional",
        "lengthen",
        "prolong",
        "widen",
        "doubl",
        "rise",
        "rose",
        "most",
        "majority",
        "maximiz",
        "maximis",
    ]
)
_DOWN = frozenset(
    [
        "lower",
        "less",
        "fewer",
        "smaller",
        "decreas",
        "reduc",
        "cut",
        "drop",
        "shrink",
        "below",
        "shorter",
        "sav",
        "low",
        "small",
        "minimum",
        "shorten",
        "narrow",
        "halv",
        "fall",
        "fell",
        "declin",
        "minority",
        "minimiz",
        "minimis",
    ]
)
_GOOD = frozenset(
    [
        "faster",
        "speedup",
        "accelerat",
        "quicker",
        "better",
        "improv",
        "outperform",
        "gain",
        "efficient",
        "cheaper",
        "best",
        "easier",
        "help",
    ]
)
_BAD = frozenset(
    [
        "slower",
        "slowdown",
        "worse",
        "degrad",
        "hurt",
        "inefficient",
        "penalty",
        "costlier",
        "expensive",
        "worst",
        "underperform",
        "loss",
        "harder",
        "harm",
        "slow",
        "lag",
        "trail",
    ]
)
# how much, said without a number: a negligible overhead is a gain, a significant one a loss;
# opposites of each other only ("significantly" is no such word: it says how, not how much)
_MUCH = frozenset(["significant", "substantial", "considerabl", "dramatic", "major", "huge"])
_LITTLE = frozenset(["negligibl", "marginal", "slight", "minor", "tiny", "modest"])
_ALIASES = {
    "reduction": "reduc", "reductions": "reduc", "speed-up": "speedup", "speed-ups": "speedup",
    "improvement": "improv", "improvements": "improv", "degradation": "degrad",
    "grew": "grow", "cheap": "cheaper", "lowest": "lower", "highest": "higher",
    "largest": "larger", "smallest": "smaller", "longest": "longer", "shortest": "shorter",
    "fewest": "fewer", "least": "less", "fastest": "faster", "slowest": "slower",
    "cheapest": "cheaper", "greatest": "greater", "biggest": "bigger", "slows": "slow",
    "slowed": "slow", "slowing": "slow", "falls": "fall", "falling": "fall", "rises": "rise",
    "rising": "rise", "risen": "rise", "lags": "lag", "lagging": "lag", "trails": "trail",
    "trailing": "trail", "helps": "help", "helped": "help", "harms": "harm", "halves": "halv",
}  # fmt: skip
_PAIRS = [
    ("higher", "lower"), ("more", "less"), ("more", "fewer"), ("greater", "smaller"),
    ("larger", "smaller"), ("increas", "decreas"), ("increas", "reduc"), ("faster", "slower"),
    ("better", "worse"), ("best", "worst"), ("improv", "degrad"), ("add", "sav"),
    ("add", "reduc"), ("longer", "shorter"), ("above", "below"), ("rais", "lower"),
    ("outperform", "underperform"), ("gain", "loss"), ("speedup", "slowdown"),
    ("grow", "shrink"), ("maximum", "minimum"),
    ("cheaper", "expensive"), ("cheaper", "costlier"), ("efficient", "inefficient"),
]  # fmt: skip
_OPPOSITE: dict[str, set[str]] = {
    **{base: set(_DOWN) for base in _UP},
    **{base: set(_UP) for base in _DOWN},
    **{base: set(_BAD) for base in _GOOD},
    **{base: set(_GOOD) for base in _BAD},
    **{base: set(_LITTLE) for base in _MUCH},
    **{base: set(_MUCH) for base in _LITTLE},
}
for _a, _b in _PAIRS:
    _OPPOSITE.setdefault(_a, set()).add(_b)
    _OPPOSITE.setdefault(_b, set()).add(_a)
_CHANGE_BASES = _UP | _DOWN | _GOOD | _BAD | _MUCH | _LITTLE
_SUFFIXES = ("ing", "ed", "es", "s", "e", "d")
_TURNING = frozenset({"less", "not", "no", "never"})  # before a gain word, make it a loss
NEGATED_WORDS = 3  # content words after a negation that it denies
METRIC_REACH = 4  # words either side of a change word in which what it changes is named
NEGATION_REACH = 6  # words before a word in which a negation denies it
BOUND_WORDS = 2  # neighbours a number shares with another quantity to count as moved there
_SCOPE_SKIP = frozenset(
    [
        "be",
        "is",
        "are",
        "was",
        "were",
        "been",
        "do",
        "does",
        "did",
        "have",
        "has",
        "had",
        "the",
        "a",
        "an",
        "any",
        "of",
        "to",
        "for",
        "in",
        "on",
        "at",
        "it",
        "its",
        "their",
        "this",
        "that",
        "these",
        "those",
        "all",
        "more",
        "much",
        "only",
        "even",
        "always",
        "yet",
        "really",
        "necessarily",
        "while",
        "when",
        "because",
        "since",
        "if",
        "as",
        "with",
        "by",
    ]
)
TAUTOLOGY_ELSE = 6  # words said once beside a repeated run, past which it is no tautology
FRAGMENT_WORDS = 2  # fewer words than this are no sentence
UNENDED_WORDS = 5  # fewer words than this, without a full stop, are no sentence either
ECHO_WORDS = 2  # the question's content words a sentence must repeat to be an echo of it
NUMBER_WORDS = {
    "two": 2.0, "three": 3.0, "four": 4.0, "five": 5.0, "six": 6.0, "seven": 7.0,
    "eight": 8.0, "nine": 9.0, "ten": 10.0, "eleven": 11.0, "twelve": 12.0, "twice": 2.0,
    "double": 2.0, "half": 0.5, "dozen": 12.0,
}  # fmt: skip
_SPELLED = {**NUMBER_WORDS, "one": 1.0}
# a spelled number; "four and a half" read whole ("one" counts only there), "both" and "pair"
# count two in a source, not in a sentence
_SPELLED_NUMBER = re.compile(
    r"\b(?:(?P<half>" + "|".join(_SPELLED) + r") and a half"
    r"|(?P<word>" + "|".join([*NUMBER_WORDS, "both", "pair"]) + r"))\b",
    re.IGNORECASE,
)
# "half precision", "the first half", "the self-decoder half": a format or a part, no count
_NOT_A_COUNT = re.compile(
    r"\b(?:half|double)[- ](?:precision|floats?|width)\b"
    r"|\b(?:first|second|other|lower|upper|latter|former)\s+half\b"
    r"|\b(?:the|its|their|this|that|each|one)\s+[\w-]+\s+half\b(?!\s+(?:of|the|as|a|an|its)\b)"
    # "mixing the two can leave a gap": both of what was just named, no count of its own
    r"|\b(?:the|these|those) two\b(?=\s*(?:[,.;:)]|$)|\s+(?:can|could|may|might|will|would|is|are"
    r"|was|were|do|does|did|have|has|had|in|of|on|at|to|into|with|by|for|and|or|but|as)\b)",
    re.IGNORECASE,
)
_ANSWER_WORD = re.compile(r"^\s*(?:no|yes)\b[,;:.]?\s*", re.IGNORECASE)
_LOWER_IS_BETTER = re.compile(
    r"^(?:latenc|cost|time|memor|overhead|error|perplex|energ|bubble|footprint|fragment|"
    r"slowdown|runtime|delay|stall|loss|bits?$|usage|consum|traffic|downtime|expens|costly|ms$|"
    r"seconds?$|hours?$|minutes?$|gap|differences?$|milli)",
)
_AUTHOR_MARKS = re.compile(r"[∗*†‡§¶]|\b\d\s*,\s*\d\b|@|\b(?:Univ|Inc|Lab|Research)\b")
_NAME_PAIR = re.compile(r"\b[A-Z][a-z]+(?:\s[A-Z]\.)?\s[A-Z][a-z]+")
_REFERENCE = re.compile(
    r"^\s*\[\d+\]|\bet al\.|\bIn Proceedings\b|\bProceedings of\b|\barXiv(?: preprint|:\d)|"
    r"\b(?:NeurIPS|ICML|ICLR|OSDI|SOSP|ASPLOS|MLSys|EuroSys|ISCA|MICRO|ACL|EMNLP|NAACL|CVPR|SC|"
    r"ATC|NSDI)\s?'?\d{2,4}\b|\bpp\.\s?\d|\bvol\.\s?\d|\bdoi\b",
)
_HEADING_NUMBER = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|[A-Z]\.\d*|[IVX]+\.)\s+\S")
# a caption, or a figure panel's ("Right: speedup over ...")
_CAPTION = re.compile(
    r"^\s*(?:(?:Table|Figure|Fig\.|Tab\.)\s*\d+\s*[:.]|(?:Left|Right|Top|Bottom|Middle)\s*:)",
    re.IGNORECASE,
)
_GENERIC = frozenset(
    content_stems(
        "use uses used value values reason reasons chosen choose choice particular specific "
        "certain approach method system paper authors author study work way ways question "
        "answer several various different some default result results amount number aspect "
        "important key main design given also indeed case provided document documents "
        "source sources based following follows"
    )
)
# words that praise or frame without saying what: "a more efficient and scalable policy, a key
# aspect of the new architecture" tells a reader nothing the question did not
_VAGUE = frozenset(
    content_stems(
        "efficient efficiency scalable scalability effective effectively better improve improved "
        "improves improvement performance new novel significant significantly overall "
        "architecture framework policy technique techniques allows allow enables enable provides "
        "provide introduces introduce offers offer crucial essential role benefit benefits "
        "advantage advantages ensures ensure"
    )
)
# words that report rather than state: a sentence may bring them from anywhere on the page
REPORTING_STEMS = frozenset(
    content_stems(
        "evaluation evaluated results show shows demonstrate demonstrates experiments experiment "
        "observe finds found overall paper authors"
    )
)


@dataclass(frozen=True)
class Fact:
    """A number as a sentence states it: its value, its unit's class, the words around it."""

    value: float
    unit: str
    near: frozenset[str]
    in_name: bool = False  # part of a name ("A100-80GB"): a fact only with its unit


def _words(text: str) -> list[str]:
    """Words with their hyphens and apostrophes ("KV-cache", "model's")."""
    return split_words(text, WordStyle.JOINED)


def _numbers(text: str) -> list[str]:
    """Numbers that stand on their own, not the digits of a name ("A100")."""
    return find_numbers(text, NumberShape.SEPARATED, NumberStart.OUTSIDE_WORDS)


def says_nothing(sentence: str, question: str = "") -> str:
    """Why the sentence says nothing a reader can use, or ""."""
    body = strip_citations(sentence).strip()
    words = _words(body)
    if words and not content_stems(body) - _GENERIC and not _numbers(body):
        return FILLER
    if body.endswith(":"):
        return ""  # a lead-in: it stands or goes with what it leads in to
    for test, reason in (
        (_is_reference, REFERENCE),
        (_is_author_line, AUTHORS),
        (_is_heading, HEADING),
        (_is_bare_list, BARE_LIST),
        (_is_fragment, FRAGMENT),
    ):
        if test(body, words):
            return reason
    if _is_tautology(words):
        return TAUTOLOGY
    if _compares_a_thing_with_itself(body):
        return SELF_COMPARED
    if _QUESTION_LABEL.match(body) or body.rstrip(" .").endswith("?"):
        return A_QUESTION
    if _defines_notation(body):
        return NOTATION
    if question and _echoes(body, question):
        return ECHO
    return ""


def _defines_notation(body: str) -> bool:
    """A sentence that only names the symbols of what follows ("We use x ∈ V to denote a
    token", "Let M_p be the target model"), with no number of its own (a setting "let b be
    32" is a fact); a sentence saying something of a symbol it then defines ("latency grows
    with L, where L denotes the length") says something."""
    return (
        bool(_NOTATION_OPENING.match(body))
        and bool(_SYMBOL.search(body))
        and not _numbers(_SYMBOL.sub(" ", body))
    )


# "We use … to denote", "We write", "Let … be", "x denotes", "Here, V denotes …", "N is the
# target bit number", "where d represents …"
_NOTATION_OPENING = re.compile(
    r"^(?:(?:here|formally|throughout|similarly|where),?\s+)?"
    r"(?:we (?:use|write|denote)\b|let\b[^.;]{1,40}\bbe\b"
    r"|[A-Za-z](?:_\{?\w+\}?|\d)?\s+(?:denotes|is denoted|represents|stands for"
    r"|(?:is|are) (?:the|a|an)\b))",
    re.IGNORECASE,
)
# a one-letter symbol ("x", "V", "M_p", "x_t"), or a sign of set or sum
_SYMBOL = re.compile(r"(?<![\w-])(?![aAI]\b)[A-Za-z](?:_\{?\w+\}?|\d)?(?![\w-])|[∈∉⊂⊆∑∏θ]")


def _is_reference(body: str, words: list[str]) -> bool:
    return bool(_REFERENCE.search(body)) and not _has_claim_verb(words)


def _is_author_line(body: str, words: list[str]) -> bool:
    pairs = len(_NAME_PAIR.findall(body))
    marks = len(_AUTHOR_MARKS.findall(body))
    lowercase = sum(w.islower() and len(w) > 3 for w in words)
    return (pairs >= 2 and marks >= 1 and lowercase <= 3) or (pairs >= 3 and lowercase <= 1)


def _is_heading(body: str, words: list[str]) -> bool:
    if body.endswith((".", "!", "?")) and not _HEADING_NUMBER.match(body):
        return False
    if len(words) > 10:
        return False
    if _HEADING_NUMBER.match(body) and not _has_claim_verb(words[1:]):
        return True
    capitals = sum(w[0].isupper() for w in words if len(w) > 3)
    long_words = sum(len(w) > 3 for w in words)
    return long_words > 0 and capitals == long_words and not _has_claim_verb(words)


def _is_bare_list(body: str, words: list[str]) -> bool:
    tokens = body.replace(",", " ").replace(";", " ").split()
    if not tokens:
        return True
    plain = [
        w
        for w in words
        if not any(c.isdigit() for c in w)
        and w.lower() not in {"and", "or", "the", "of"}
        and not _UNIT_AFTER.fullmatch(w)
        and w.lower() not in _UNIT_CLASS
    ]
    numeric = sum(any(c.isdigit() for c in t) for t in tokens)
    return numeric >= 2 and (len(plain) <= 1 or (numeric >= 0.6 * len(tokens) and len(plain) < 4))


_QUESTION_LABEL = re.compile(r"^\s*(?:Q|Question)\s*\d*\s*:", re.IGNORECASE)
_CUT_SUBJECT = re.compile(r"^\s*(?:\(\s*\d{4}[a-z]?\s*\)|\)|,|et al\b)")  # "(2023) suggests …"


def _is_fragment(body: str, words: list[str]) -> bool:
    if len(words) < FRAGMENT_WORDS or _CAPTION.match(body) or _CUT_SUBJECT.match(body):
        return True
    if body.count('"') % 2 or body.count("“") != body.count("”"):
        return True  # a quotation opened and never closed: a piece cut out of a passage
    if len(words) < UNENDED_WORDS and not body.endswith((".", "!", "?", ")")):
        return True  # the cut-off end of a reply, or a label
    first = words[0]
    if first.lower() in _STOPWORDS_START and first[0].islower():
        return True
    if first[0].islower() and not re.search(r"[A-Z0-9]", first[1:]):
        return True
    return words[-1].lower() in _FUNCTION_WORDS


_VERB = re.compile(
    r"^(?:is|are|was|were|be|been|has|have|had|do|does|did|can|could|may|might|must|will|would|"
    r"should|shall|uses?|used|needs?|takes?|gives?|keeps?|makes?|stores?|sets?|runs?|ran|leads?|"
    r"lets?|shows?|achieves?|reaches?|reduces?|cuts?|saves?|adds?|incurs?|requires?|costs?|"
    r"accounts?|remains?|becomes?|gets?|puts?|splits?|holds?|moves?|maps?|passes?|sends?|"
    r"returns?|relies|rely|depends?|allows?|enables?|means?|yields?|goes|go|comes?|works?|"
    r"avoids?|hides?|fails?|helps?|outperforms?|beats?|matches?|exceeds?|lowers?|raises?|"
    r"stays?|says?|finds?|found|see|sees|seen|chooses?|chose|picks?|applies|apply|copies|"
    r"reads?|writes?|wrote|evicts?|preempts?|grows?|scales?|drops?|falls?|plateaus?|stops?|"
    r"begins?|starts?|ends?|breaks?|slows?|speeds?|serves?|trains?|predicts?|decides?)$|"
    r"\w+(?:ed|es|izes|ises)$",
    re.IGNORECASE,
)


def _has_claim_verb(words: list[str]) -> bool:
    return any(_VERB.match(w) for w in words)


def _is_tautology(words: list[str]) -> bool:
    """One run of content words said twice, or a word said three times, with little else and
    at most one number: a long sentence that names a thing again around new facts says
    something."""
    stems = [
        _stem(w) or w.lower() for w in words if w.lower() not in _PLAIN_WORDS and not w[0].isdigit()
    ]
    if len(stems) < 4:
        return False
    numbers = Counter(w for w in words if w[0].isdigit())
    if len(numbers) >= 2:
        return False  # "about 183% more area, versus about 53% more area": two facts, one frame
    counts = Counter(stems)
    pairs = Counter(itertools.pairwise(stems))
    repeated_pair = any(n >= 2 for n in pairs.values())
    thrice = any(n >= 3 for n in counts.values())
    said_once = sum(n == 1 for n in counts.values()) + sum(n == 1 for n in numbers.values())
    distinct_share = len(counts) / len(stems)
    return said_once <= TAUTOLOGY_ELSE and (
        (repeated_pair and distinct_share < 0.75) or (thrice and distinct_share < 0.7)
    )


_COMPARED = r"(?:than|compared\s+(?:to|with)|versus|vs\.?|over|against)"
_SELF_COMPARED = re.compile(
    # a value or a name (a word holding a capital or a digit: "3B", "183%", "T5-XXL"), a few
    # words, a comparison, and the same value or name again
    r"(?<![\w.-])(\d+(?:\.\d+)?\s?(?:%|×|x\b|[KMGT]?B\b|ms\b)?|[\w-]*[A-Z0-9][\w-]*)"
    rf"(?:\s+[a-z]+){{0,3}}\s+{_COMPARED}\s+(?:[a-z]+\s+){{0,2}}\1(?![\w.-])"
    r"|(?<![\w.-])(\d+(?:\.\d+)?\s?(?:%|×|x\b|[KMGT]?B\b|ms\b)?)\s+and\s+\2,?\s+respectively",
)


def _compares_a_thing_with_itself(body: str) -> bool:
    """The same value or name on both sides of a comparison, or twice in a pair read
    "respectively" ("183% more expensive than 183% less efficient", "the speedup of T5-XXL
    compared to T5-XXL", "were 3B and 3B, respectively")."""
    return bool(_SELF_COMPARED.search(body))


def _stem(word: str) -> str:
    found = content_stems(word)
    return next(iter(found)) if found else ""


def _echoes(body: str, question: str) -> bool:
    """Nothing but the question's words (and words that add no fact) in another order."""
    stems = content_stems(body)
    asked = content_stems(question)
    new = stems - asked - _GENERIC - _VAGUE
    numbers = set(_numbers(body)) - set(_numbers(question))
    return len(stems & asked) >= ECHO_WORDS and len(new) <= 1 and not numbers


_ARROW = re.compile(r"\s*(?:->|→|⇒)\s*")


def facts_in(text: str, in_names: bool = False) -> list[Fact]:
    """The numbers of a text with their unit's class and the content words around them; a
    number inside a name ("Mixtral-8x7B", "Llama-2", "A100") is the name's, not a fact, unless
    `in_names` (what a source gives: "A100-80GB" gives 80 GB)."""
    text = _ARROW.sub(" to ", text)  # "FP8-E4->16-bit": the number after an arrow is no name's
    tokens = list(word_matches(text, WordStyle.TOKEN))
    found = []
    for match in number_matches(text, NumberShape.SEPARATED, NumberStart.OUTSIDE_WORDS):
        token = next((t for t in tokens if t.start() <= match.start() < t.end()), None)
        if token is not None and token.group()[0].isalpha() and not in_names:
            continue
        value = _value(match.group())
        if value is None:
            continue
        unit_match = _UNIT_AFTER.match(text, match.end())
        unit = _unit_word(unit_match.group(1)) if unit_match else ""
        place = next((i for i, t in enumerate(tokens) if t.start() >= match.start()), len(tokens))
        around = tokens[max(0, place - NEARNUMBER_WORDS) : place + NEARNUMBER_WORDS + 1]
        near = frozenset(
            _plain_stem(part)
            for t in around
            for part in t.group().split("-")
            if part and not any(c.isdigit() for c in part) and part.lower() not in _FUNCTION_WORDS
        )
        found.append(
            Fact(value, unit, near - {""}, in_name=token is not None and token.group()[0].isalpha())
        )
    parts = [m.span() for m in _NOT_A_COUNT.finditer(text)]
    for match in _SPELLED_NUMBER.finditer(text):
        word = (match["half"] or match["word"]).lower()
        if word not in NUMBER_WORDS and not match["half"] and not in_names:
            continue  # "both", "pair": two in a source, not in a sentence
        if any(start <= match.start() < end for start, end in parts):
            continue
        place = next((i for i, t in enumerate(tokens) if t.start() >= match.start()), len(tokens))
        around = tokens[max(0, place - NEARNUMBER_WORDS) : place + NEARNUMBER_WORDS + 1]
        near = frozenset(_plain_stem(t.group()) for t in around if t.group().isalpha())
        value = _SPELLED.get(word, 2.0) + (0.5 if match["half"] else 0.0)
        unit_match = _UNIT_AFTER.match(text, match.end())
        unit = _unit_word(unit_match.group(1)) if unit_match else ""
        found.append(Fact(value, unit, near - {"", _plain_stem(word), "half"}))
    return found


def _value(raw: str) -> float | None:
    try:
        return float(number_parts(raw)[0])
    except ValueError:
        return None


_MARKS = ".,;:!?()[]{}\"'“”‘’"


def _plain_stem(word: str) -> str:
    """A word as numbers' neighbours are compared: lowered, a plural as its singular, its
    first six letters ("tokens" and "token", "nodes" and "node" alike), without the marks
    around it ("(about", "model,")."""
    lowered = word.lower().strip(_MARKS)
    if len(lowered) > 4 and lowered.endswith(_SIBILANT_PLURALS):
        lowered = lowered[:-2]  # "batches" and "batch", "boxes" and "box"
    elif len(lowered) > 3 and lowered.endswith("s"):
        lowered = lowered[:-1]
    return lowered[:6] if len(lowered) > 2 else ""


_SIBILANT_PLURALS = ("ches", "shes", "sses", "xes", "zes")


def _manner_stem(word: str) -> str:
    """A word as a negation's scope is matched: an adverb as its adjective ("do not fully
    use" denies what "makes full use" states), but not "apply" or "family"."""
    lowered = word.lower().strip(_MARKS)
    if lowered.endswith("ly") and len(lowered) >= 5 and lowered[-3] not in "aeioup":
        lowered = lowered[:-2] + ("l" if lowered.endswith("ully") else "")
    return _plain_stem(lowered)


def _unit_word(unit: str) -> str:
    """The class of a unit: "time" for ms and hours alike, "times" for × and x, "percent"."""
    lowered = unit.lower()
    if lowered in _UNIT_CLASS:
        return _UNIT_CLASS[lowered]
    if lowered.rstrip("s") in _UNIT_CLASS:
        return _UNIT_CLASS[lowered.rstrip("s")]
    if lowered.endswith(("b", "b/s")) and len(lowered) <= 4:
        return unit.upper()
    return lowered.rstrip("s")


def fact_fault(
    sentence: str,
    window: str,
    title: str = "",
    question: str = "",
    similarity: Similarity | None = None,
) -> str:
    """The fact of the sentence the window does not hold as stated, or "". The question's own
    numbers are the asker's, not the sentence's claim."""
    body = _ANSWER_WORD.sub("", strip_citations(sentence))
    fault = _number_fault(body, f"{window} {title}", question)
    if fault:
        return fault
    if (
        _flipped(body, window)
        or _roles_swapped(body, window)
        or _winner_of_two_swapped(body, window)
        or _sense_turned(body, window)
        or _change_reversed(body, window)
    ):
        return "states the opposite direction of its source"
    if _times_contradict(body, window):
        return "says faster or slower where its source's times say the opposite"
    if _attachments_swapped(body, window):
        return "says of one item what its source says of another"
    moved = _name_off_its_numbers(body, window, f"{title} {question}")
    if moved:
        return f"gives {moved} a number its source gives of something else"
    negation = _negation_fault(body, window)
    if negation:
        return negation
    if _cause_unborne(body, window, similarity):
        return "states a cause or mechanism its source does not"
    return _kind_fault(body, window)


# "X runs faster than Y": which of two things takes less time, said in words
_TIME_COMPARATIVE = re.compile(
    r"\b(?P<word>faster|quicker|sooner|slower|longer|shorter|less time|more time)\b"
    r"(?:\s+[\w-]+){0,3}?\s+than\b",
    re.IGNORECASE,
)
_LESS_TIME = frozenset({"faster", "quicker", "sooner", "shorter", "less time"})
_TIME_VALUE = re.compile(
    r"(?P<value>\d+(?:\.\d+)?)\s?(?:(?P<us>µs|us)|(?P<ms>ms)|(?P<s>s|sec|seconds?)"
    r"|(?P<min>minutes?|mins?)|(?P<h>hours?))\b"
)
_SECONDS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}  # per unit group
# where a source sets one measured thing against another: "X takes 1150 ms compared to Y, 200 ms"
_SET_AGAINST = re.compile(r"\b(?:compared (?:to|with)|than|versus|vs\.?|while|whereas)\b", re.I)


def _seconds(match: re.Match[str]) -> float:
    return float(match["value"]) * next(scale for unit, scale in _SECONDS.items() if match[unit])


def _content(text: str) -> set[str]:
    return {
        _plain_stem(w)
        for w in _words(text)
        if w.lower() not in _PLAIN_WORDS and not any(c.isdigit() for c in w)
    } - {""}


def _times_contradict(body: str, window: str) -> bool:
    """The sentence says one thing takes less (or more) time than another, where a source
    sentence gives both their times and they say the opposite ("a 4k-token prompt executes
    faster than a decode iteration" against "a 4k-token prompt takes 1150 ms to execute
    compared to a decode iteration which would take 200 ms")."""
    said = _TIME_COMPARATIVE.search(body)
    if said is None:
        return False
    mine = (_content(body[: said.start()]), _content(body[said.end() :]))
    less = said["word"].lower() in _LESS_TIME
    for sentence in prose_sentences(window):
        parts = _SET_AGAINST.split(sentence, maxsplit=1)
        times = [list(_TIME_VALUE.finditer(part)) for part in parts]
        if len(parts) != 2 or any(len(found) != 1 for found in times):
            continue
        first, second = (_content(part) for part in parts)
        kept = len(mine[0] & first) + len(mine[1] & second)
        turned = len(mine[0] & second) + len(mine[1] & first)
        if kept == turned:
            continue
        own, other = (_seconds(times[0][0]), _seconds(times[1][0]))
        if turned > kept:
            own, other = other, own
        if (less and own > other) or (not less and own < other):
            return True
    return False


_HARDWARE_NOUN = r"(?:GPUs?|accelerators?|chips?|graphics cards?|processors?|hardware|devices?)"
_MODEL_NOUN = r"(?:models?|LLMs?|language models?|networks?)"
# what follows a name to say what kind of thing it is: "X, which is a GPU", "the X GPU"
_CALLED = (
    r"(?:,?\s+(?:which|that)\s+(?:is|are|was|were)|\s+(?:is|are|was|were))\s+(?:an?\s+|the\s+)?"
)
# "the OPT-13B GPU memory", "A100 network bandwidth": the noun qualifies another one
_NOT_A_HEAD = (
    r"(?!\s+(?:memory|hours?|time|budget|utili[sz]ation|count|kernels?|bandwidth|size|weights?"
    r"|serving|clusters?|nodes?|servers?|parallelism|throughput|latency|cards?))"
)
_KIND_CALLS = (
    (
        MODEL_NAME,
        "the model",
        re.compile(
            rf"(?:{_CALLED}(?:[\w-]+\s+){{0,2}}|\s+)(?P<noun>{_HARDWARE_NOUN})\b{_NOT_A_HEAD}"
        ),
    ),
    (
        HARDWARE_NAME,
        "the hardware",
        re.compile(rf"(?:{_CALLED}(?:[\w-]+\s+){{0,2}}|\s+)(?P<noun>{_MODEL_NOUN})\b{_NOT_A_HEAD}"),
    ),
)
KIND_SPAN = 60  # characters after a name in which the sentence says what kind of thing it is


def _kind_fault(body: str, window: str) -> str:
    """The sentence calls a name by another kind's noun ("Falcon-180B, which is a GPU", "the
    A100 model") and its source does not: a small model mixes up what the names it copies are."""
    for pattern, kind, called in _KIND_CALLS:
        for name in pattern.finditer(body):
            said = called.match(body[name.end() : name.end() + KIND_SPAN])
            if said and f"{name.group()}{said.group()}".lower() not in window.lower():
                return f"calls {kind} {name.group()} a {said.group('noun')}"
    return ""


def _cause_unborne(body: str, window: str, similarity: Similarity | None) -> bool:
    """The sentence gives a cause or a means ("because ...", "which lets ...") whose own words
    the window does not hold: a small model joins true facts with a reason it made up."""
    match = _CAUSE_STATED.search(body)
    if not match:
        return False
    reason = body[match.end() :]
    wanted = content_stems(reason)
    if len(wanted) < CAUSE_MIN_WORDS:
        return False
    share = len(wanted & content_stems(window)) / len(wanted)
    if share >= CAUSE_WORD_SHARE:
        return False
    closeness = float(similarity(reason, [window])[0]) if similarity is not None else 0.0
    return not (share >= PARAPHRASE_WORD_SHARE and closeness >= CAUSE_SIMILARITY)


def _number_fault(body: str, source: str, question: str) -> str:
    held = facts_in(source, in_names=True)
    asked = {fact.value for fact in facts_in(question, in_names=True)}
    stated = facts_in(body)
    written = facts_in(body, in_names=True)  # "batch-32" writes the source's 32 too
    for fact in stated:
        if fact.value in asked:
            continue
        same = [h for h in held if _same_value(fact.value, h.value)]
        if not same:
            return f"states {_show(fact.value)}, {NOT_GIVEN}"
        fitting = [
            h
            for h in same
            if (not fact.unit or not h.unit or h.unit == fact.unit)
            and (not h.in_name or (fact.unit and h.unit == fact.unit))
        ]
        if not fitting:
            return f"states {_show(fact.value)} in another unit than its source"
        others = [h for h in held if not any(_same_value(f.value, h.value) for f in written)]
        if _bound_elsewhere(fact, fitting, others):
            return f"states {_show(fact.value)} of something else than its source does"
    return ""


_FIGURE = r"(\d+(?:\.\d+)?)"
# a value changed from one figure to another: (before, after) by the order the words give
_CHANGES = (
    (re.compile(rf"\bfrom\s+{_FIGURE}\s+(?:[a-z]+\s+){{0,2}}?to\s+{_FIGURE}", re.I), (1, 2)),
    (re.compile(rf"{_FIGURE}\s*(?:->|→)\s*{_FIGURE}"), (1, 2)),
    (
        re.compile(rf"{_FIGURE}\s+(?:instead of|rather than|in place of)\s+(?:the\s+)?{_FIGURE}"),
        (2, 1),
    ),
)


def _changes(text: str) -> set[tuple[float, float]]:
    return {
        (float(match.group(before)), float(match.group(after)))
        for pattern, (before, after) in _CHANGES
        for match in pattern.finditer(text)
    }


def _change_reversed(body: str, window: str) -> bool:
    """The sentence changes a value from what its source changes it to ("from 128 down to 80"
    where the source set it "to 128 instead of 80")."""
    given = _changes(window)
    return any((after, before) in given for before, after in _changes(body) if before != after)


def _bound_elsewhere(fact: Fact, same: list[Fact], others: list[Fact]) -> bool:
    """The words around the sentence's number are those around another number of the source
    that the sentence does not state, not around this one: a value moved onto another quantity
    ("k=4 for 12GB GPUs")."""
    if any(fact.near & h.near for h in same):
        return False
    return any(len(fact.near & other.near) >= BOUND_WORDS for other in others)


def _show(value: float) -> str:
    return f"{value:g}"


def _same_value(stated: float, given: float) -> bool:
    if stated == given:
        return True
    text = f"{stated:g}"
    places = len(text.split(".")[1]) if "." in text else 0
    return round(given, places) == stated


def _change_base(word: str) -> str:
    """The base of a change word ("reduced": reduc), or "" for any other word."""
    lowered = word.lower()
    if lowered in _ALIASES:
        return _ALIASES[lowered]
    if lowered in _CHANGE_BASES:
        return lowered
    for suffix in _SUFFIXES:
        stem = lowered[: -len(suffix)]
        if lowered.endswith(suffix) and len(stem) >= 3 and stem in _CHANGE_BASES:
            return stem
    return ""


def _direction(text: str) -> set[int]:
    """The senses of the changes a text states: +1 for a gain (faster, lower latency), -1 for
    a loss (slower, higher latency)."""
    words = [w.lower() for w in _words(text)]
    return {_sense(words, i) for i, w in enumerate(words) if _change_base(w)}


# what a source denies or does away with: "eliminating the need for a Block-Table" is said as
# "needs no Block-Table", "avoids such overheads" as "has no such overheads"
_DENYING = re.compile(
    _NEGATORS.pattern + r"|\b(?:eliminat\w*|avoid\w*|remov\w*|obviat\w*|skip\w*|free (?:of|from)"
    r"|no longer|unnecessary|dispens\w*|instead of|rather than)\b",
    re.IGNORECASE,
)


# what a source says when it limits or denies something, in words other than a plain negation
_NEGATIVE_SENSE = re.compile(
    _DENYING.pattern + r"|\b(?:only|unlike|instead|rather|prevents?"
    r"|impossible|infeasible|hard|difficult|fails?|failed|none|nothing|little"
    r"|rarely|hardly|beyond|unsupported|inefficient|insufficient|limit(?:s|ed|ation)?|free)\b",
    re.IGNORECASE,
)


# a negation, or a word that keeps what follows short of it: "has not yet reached the limit"
# is said as "is still below the limit"
_LIMITED = re.compile(
    _NEGATORS.pattern + r"|\b(?:below|under|within|short of|yet to|less than|fewer than|at most)\b",
    re.IGNORECASE,
)


def _negation_fault(body: str, window: str) -> str:
    """The sentence denies what the window states plainly ("does not evict" where the source
    evicts), or states plainly what the window denies; a word both deny, or only one holds, is
    no fault."""
    body, window = body.replace("’", "'"), window.replace("’", "'")  # "isn’t" as typeset
    if not _NEGATORS.search(body) and not _NEGATORS.search(window):
        return ""
    if _NEGATORS.search(body) and not _NEGATIVE_SENSE.search(window):
        return "denies something its source does not deny"
    if _denied_plainly(body, window, _DENYING):
        return "denies what its source states"
    if _denied_plainly(window, body, _LIMITED):
        return "drops the negation of its source"
    return ""


def _denied_plainly(denier: str, other: str, negation: re.Pattern[str] = _NEGATORS) -> bool:
    """Most of what one negation of `denier` denies is in `other`, nowhere under a `negation`."""
    words = _words(other)
    stems = [_manner_stem(w) for w in words]
    for governed in _governed(denier):
        places = {g: [i for i, s in enumerate(stems) if s == g] for g in governed}
        held = [g for g in governed if places[g]]
        if len(held) * 2 < len(governed) or not held:
            continue
        if not any(_negated_at(words, i, negation) for g in held for i in places[g]):
            return True
    return False


def _governed(text: str) -> list[list[str]]:
    """For each negation, the content words of the clause after it that it denies."""
    found = []
    for match in _NEGATORS.finditer(text):
        clause = split_clauses(text[match.end() : match.end() + 80])[0]
        words = [w for w in _words(clause) if w.lower() not in _SCOPE_SKIP]
        stems = [_manner_stem(w) for w in words[:NEGATED_WORDS]]
        if any(stems):
            found.append([s for s in stems if s])
    return found


def _negated_at(words: list[str], index: int, negation: re.Pattern[str] = _NEGATORS) -> bool:
    before = " ".join(words[max(0, index - NEGATION_REACH) : index])
    return bool(negation.search(before))


def _flipped(body: str, window: str) -> bool:
    """A change word of the sentence whose opposite the window uses instead of it on the same
    thing (the words around both share one), with the opposite sense once what it changes is
    read (lower latency is a gain, lower throughput a loss)."""
    words = _clause_words(body)
    source = _clause_words(window)
    bases = [_kin(_change_base(w)) for w in source]
    present = set(bases)
    said_of = [_changed(source, i) if base else set() for i, base in enumerate(bases)]
    for index, word in enumerate(words):
        base = _kin(_change_base(word))
        opposites = {_kin(o) for o in _OPPOSITE.get(base, set())}
        if not base or base in present or not opposites & present:
            continue
        around = _changed(words, index)
        sense = _sense(words, index)
        kin = [
            len(around & said_of[i])
            for i, b in enumerate(bases)
            if b and _family(b) == _family(base)
        ]
        flipped = [
            len(around & said_of[i])
            for i, b in enumerate(bases)
            if b in opposites and around & said_of[i] and sense != _sense(source, i)
        ]
        # the window may say the same in a word of the same kind ("shrinks" for "narrows") on
        # what the sentence changes, and the opposite on something else beside it
        if flipped and max(flipped) > max(kin, default=0):
            return True
    return False


_FAMILIES = (_UP, _DOWN, _GOOD, _BAD, _MUCH, _LITTLE)
SAME_THING = 2  # content words two change words must share around them to be said of one thing


def _sense_turned(body: str, window: str) -> bool:
    """A gain word of the sentence where the window states a loss of the same thing, and no gain
    of it, or the other way round, where one of the two words says a gain or a loss itself
    ("14% faster" against "14% higher latency", "a less efficient" against "a more efficient").
    The same thing: words or numbers the two share around them (one will do for the same word);
    a word a negation turns is left to the negation check."""
    words, source = _clause_words(body), _clause_words(window)
    changes = [
        (_change_base(w), _what_changes(source, i), _sense(source, i))
        for i, w in enumerate(source)
        if _change_base(w) and not _turned(source, i)
    ]
    for index, word in enumerate(words):
        base = _change_base(word)
        if not base or base in _MUCH or base in _LITTLE or _turned(words, index):
            continue
        around, sense = _what_changes(words, index), _sense(words, index)
        if any(around & said for _, said, theirs in changes if theirs == sense):
            continue
        for theirs_base, said, theirs in changes:
            shared = len(around & said)
            opposed = theirs != sense and (_valued(base) or _valued(theirs_base))
            if opposed and shared >= (1 if theirs_base == base else SAME_THING):
                return True
    return False


_NEGATING = _TURNING - {"less"}  # "less efficient" is a loss, not a denial


def _turned(words: list[str], index: int) -> bool:
    """The word right after a negation ("not", "no", "never")."""
    return bool(index) and words[index - 1] in _NEGATING


def _what_changes(words: list[str], index: int) -> set[str]:
    """What the change word at `index` is said of, with the numbers beside it ("14%")."""
    near = words[max(0, index - METRIC_REACH) : index + 1 + METRIC_REACH]
    numbers = {w.rstrip("%×x") for w in near if w[:1].isdigit()}
    return (_changed(words, index) - _MODALS) | numbers


_MODALS = frozenset({"can", "could", "may", "might", "would", "will", "should", "must", "shall"})


def _valued(base: str) -> bool:
    """A word that says a gain or a loss itself ("faster", "worse"), not a way a quantity goes
    ("higher", "reduced") whose sense depends on the quantity."""
    return base in _GOOD or base in _BAD


_THAN = frozenset({"than", "over", "versus", "vs", "vs.", "against"})
_RATIO_WORD = re.compile(r"^[\d.,]+(?:x|×|%|-fold)?$", re.IGNORECASE)
COMPARE_REACH = 8  # words from a comparative to its "than", and to the items it compares


def _is_item(word: str) -> bool:
    """A word naming what is compared: a system, a model, a format ("vLLM", "A100", "4-bit")."""
    if _RATIO_WORD.match(word):
        return False  # "2x", "50%": how much, not what
    return any(c.isdigit() for c in word) or any(c.isupper() for c in word[1:])


def _compared(words: list[str]) -> list[tuple[int, str, str]]:
    """Each comparison a text states ("3-bit scales better than 4-bit"): where its change word
    stands, the item before it and the item after its "than"."""
    found = []
    lowered = [w.lower() for w in words]
    for index, word in enumerate(lowered):
        if not _change_base(word):
            continue
        ahead = lowered[index + 1 : index + 1 + COMPARE_REACH]
        than = next((i for i, w in enumerate(ahead) if w in _THAN), None)
        before = [w for w in words[max(0, index - COMPARE_REACH) : index] if _is_item(w)]
        if than is None or not before:
            continue
        after = [w for w in words[index + 2 + than : index + 2 + than + 4] if _is_item(w)]
        if after and after[0].lower() != before[-1].lower():
            found.append((index, before[-1].lower(), after[0].lower()))
    return found


def _roles_swapped(body: str, window: str) -> bool:
    """The sentence says A goes further than B where a window sentence says it of B, in a
    word of the same kind on the same thing ("4-bit still scales better" against "3-bit scales
    better than 4-bit"): what is compared is turned round."""
    words = _words(body)
    lowered = [w.lower() for w in words]
    for index, first, second in _compared(words):
        family = _family(_kin(_change_base(lowered[index])))
        around = _changed(lowered, index) - {_plain_stem(first), _plain_stem(second)}
        for sentence in split_clauses(window):
            theirs = _words(sentence)
            low = [w.lower() for w in theirs]
            for at, word in enumerate(low):
                base = _kin(_change_base(word))
                if not base or _family(base) != family or not around & _changed(low, at):
                    continue
                items = [w.lower() for w in theirs[max(0, at - COMPARE_REACH) : at] if _is_item(w)]
                if items and items[-1] == second and first not in items:
                    return True
    return False


# "Gloo is generally the faster of the two": which of two things goes further, without "than"
_OF_THE_TWO = re.compile(
    r"(?P<item>[\w.-]+)\s+(?:is|are|was|were|remains?|runs?|stays?)\s+(?:\w+\s+)?the\s+"
    r"(?P<word>\w+)\s+(?:one\s+)?of\s+the\s+two\b",
    re.IGNORECASE,
)


def _winner_of_two_swapped(body: str, window: str) -> bool:
    """The sentence names one of two things the one that goes further ("Gloo is the faster of
    the two") where a window sentence says the other goes further than it, in a word of the
    same kind ("NCCL is faster than Gloo")."""
    for found in _OF_THE_TWO.finditer(body):
        base = _kin(_change_base(found["word"].lower()))
        if not base or not found["item"][:1].isupper():
            continue
        beaten = re.compile(rf"\b(\w+)\s+than\s+(?:the\s+)?{re.escape(found['item'])}\b", re.I)
        for said in beaten.finditer(window):
            theirs = _kin(_change_base(said.group(1).lower()))
            if theirs and _family(theirs) == _family(base):
                return True
    return False


# where what is said of one item ends and what is said of another begins
_SEGMENT_END = re.compile(
    r"[,;:()]|(?<=[.!?])\s+|\b(?:than|while|whereas|but|versus|vs\.?|unlike|instead|compared)\b",
    re.IGNORECASE,
)
SWAP_MARGIN = 2  # content words by which the swapped reading must beat the sentence's own


def _segments(text: str) -> list[list[str]]:
    """The text's words in the stretches between clause marks and contrast words."""
    return [found for part in _SEGMENT_END.split(text) if (found := _words(part))]


def _compared_items(words: list[str]) -> set[str]:
    """The words of a stretch that name a compared item: a system, a format, a setting
    ("FP8-E4", "16-bit", "low-frequency")."""
    return {w.lower() for w in words if _is_item(w) or ("-" in w.strip("-") and w[0].isalpha())}


def _said_of(segments: list[list[str]], item: str) -> set[str]:
    """The content words said with `item`: those of each stretch that names it, other items
    aside."""
    found: set[str] = set()
    for words in segments:
        if item in {w.lower() for w in words}:
            items = _compared_items(words)
            found |= {
                _plain_stem(w)
                for w in words
                if w.lower() not in items
                and w.lower() not in _PLAIN_WORDS
                and w.lower() not in _SCOPE_SKIP
                and not any(c.isdigit() for c in w)
            }
    return found - {""}


def _attachments_swapped(body: str, window: str) -> bool:
    """Two items both texts name, in stretches of their own, and what the sentence says of
    each is what the window says of the other ("weights of high-frequency sines are more
    sensitive than the low-frequency ones" where the source says it of the low-frequency)."""
    mine, theirs = _segments(body), _segments(window)
    shared = set().union(*map(_compared_items, mine)) & set().union(*map(_compared_items, theirs))
    for first, second in itertools.combinations(sorted(shared), 2):
        if not (_apart(mine, first, second) and _apart(theirs, first, second)):
            continue
        said = {item: (_said_of(mine, item), _said_of(theirs, item)) for item in (first, second)}
        own = len(said[first][0] & said[first][1]) + len(said[second][0] & said[second][1])
        cross = len(said[first][0] & said[second][1]) + len(said[second][0] & said[first][1])
        if cross >= own + SWAP_MARGIN:
            return True
    return False


# a system's coined name, in mixed case ("vLLM", "SpQR", "DistServe"); an acronym ("LRU", "GPTQ")
# is as often a technique a sentence beside it defines
_SYSTEM = re.compile(r"(?<![\w-])(?=[\w-]*[a-z])[A-Za-z][a-z]*[A-Z][\w-]*(?![\w-])")
# mixed-case words of the field that name no system
_NOT_SYSTEMS = frozenset(
    {"GPUs", "CPUs", "LLMs", "APIs", "SLOs", "FLOPs", "NVLink", "PCIe", "MoE", "LoRA", "IDs"}
)
_PRONOUN_OPENING = re.compile(r"^\W*(?:it|its|this|they|their|these|the system)\b", re.IGNORECASE)


def _name_off_its_numbers(body: str, window: str, given: str) -> str:
    """A system the sentence names, not the question's nor the paper's, where the window's
    sentences that give the sentence's numbers name no such system ("with GPTQ takes 4.5 hours"
    where the source says "our implementation takes 4.5 hours" and names GPTQ elsewhere): the
    name is moved onto a fact of another's. "" when every such name stands with its numbers."""
    values = {fact.value for fact in facts_in(body)}
    if not values:
        return ""
    sentences = prose_sentences(window) or [window]
    holding = []
    for index, sentence in enumerate(sentences):
        if values & {fact.value for fact in facts_in(sentence, in_names=True)}:
            holding.append(sentence.lower())
            if index and _PRONOUN_OPENING.match(sentence):  # "It serves 7.4 times more …"
                holding.append(sentences[index - 1].lower())
    if not holding:
        return ""
    given, window = given.lower(), window.lower()
    names: list[str] = list(dict.fromkeys(_SYSTEM.findall(body)))
    for name in names:
        low = name.lower()
        if name in _NOT_SYSTEMS or low in given:
            continue
        if low in window and not any(low in held for held in holding):
            return name
    return ""


def _apart(segments: list[list[str]], first: str, second: str) -> bool:
    """The first item stands in a stretch, and never in one with the second."""
    holding = [{w.lower() for w in words} for words in segments]
    return any(first in h for h in holding) and not any(first in h and second in h for h in holding)


_BREAK = "."  # stands between two clauses' words: what a change word is said of ends there
_ALTERNATIVE = re.compile(r"\s(?:or|while|whereas|but)\s", re.IGNORECASE)


# "a lower-level language", "higher-order terms": a comparative written onto its noun
_COMPARATIVE_COMPOUND = re.compile(
    r"\b(higher|lower|larger|smaller|faster|slower|longer|shorter|better|worse)-(?=[a-z])",
    re.IGNORECASE,
)


def _clause_words(text: str) -> list[str]:
    """The text's words, lowered, with the end of each clause kept as a break that the words
    around a change word do not reach past ("could be reduced ... or amortized over larger
    models": what is larger is not what is reduced)."""
    words: list[str] = []
    for clause in split_clauses(_ALTERNATIVE.sub(", ", _COMPARATIVE_COMPOUND.sub(r"\1 ", text))):
        found = [w.lower() for w in _words(clause)]
        if found:
            words.extend([*found, *[_BREAK] * METRIC_REACH])
    return words


def _family(base: str) -> int:
    """Which of the change-word kinds a base is of (going up, going down, a gain, ...)."""
    return next((i for i, family in enumerate(_FAMILIES) if base in family), -1)


# a change word and its comparative are one word for whether a window uses it
_KIN = {"small": "smaller", "large": "larger", "high": "higher", "low": "lower", "best": "better"}


def _kin(base: str) -> str:
    return _KIN.get(base, base)


def _changed(words: list[str], index: int) -> set[str]:
    """What the change word at `index` is said of: the content words near it."""
    near = words[max(0, index - METRIC_REACH) : index] + words[index + 1 : index + 1 + METRIC_REACH]
    return {
        _plain_stem(w)
        for w in near
        if w not in _PLAIN_WORDS and w not in _SCOPE_SKIP and not _change_base(w)
    } - {""}


def _sense(words: list[str], index: int) -> int:
    """+1 when the change word at `index` is a gain, -1 when a loss: a quantity going down is a
    gain when lower is better for it (latency, memory, cost), a gain word after "less" a loss."""
    base = _change_base(words[index])
    if base in _GOOD or base in _BAD:
        sign = 1 if base in _GOOD else -1
        return -sign if index and words[index - 1] in _TURNING else sign
    sign = 1 if base in _UP or base in _MUCH else -1
    around = (
        words[max(0, index - METRIC_REACH) : index] + words[index + 1 : index + 1 + METRIC_REACH]
    )
    if any(_LOWER_IS_BETTER.match(w) for w in around):
        sign = -sign
    return sign


def carries(share: float, similarity: float | None, words: int = 0, numbers: int = 0) -> bool:
    """Whether a window with this share of the sentence's `words` content words, this close in
    meaning, bears it out (its facts, `numbers` of them, checked apart). A short sentence, or
    one made of numbers, is judged by its words and facts: embeddings say little of either."""
    by_words = words <= SHORT_WORDS or numbers >= FACTS_ENOUGH
    if similarity is None or (by_words and share >= MIN_WORD_SHARE):
        return share >= MIN_WORD_SHARE
    if share >= MIN_WORD_SHARE and similarity >= MIN_SIMILARITY:
        return True
    return share >= PARAPHRASE_WORD_SHARE and similarity >= PARAPHRASE_SIMILARITY


def aligned(alignment: Alignment | None, text: str, window: str) -> bool:
    """The window says the text in words of its own: each content word of the text has a word
    of the window close to it in context, on the whole and among the words the window lacks
    (never without the embeddings)."""
    return alignment is not None and alignment(text, window) >= ALIGNED_WORDS


VECTOR_CACHE = 4096  # sentence vectors kept: a bundle's windows are held against many sentences


@functools.cache
def shipped_similarity() -> Similarity | None:
    """Cosines by the shipped sentence embeddings, each text embedded once (None when the
    model is not installed: sentences are then held by their words and facts alone)."""
    try:
        embedder = load_embedder()
    except EmbeddingError:
        return None
    vectors: dict[str, np.ndarray] = {}

    def similarity(text: str, others: list[str]) -> Sequence[float]:
        missing = [t for t in dict.fromkeys([text, *others]) if t not in vectors]
        if len(vectors) + len(missing) > VECTOR_CACHE:
            vectors.clear()
            missing = list(dict.fromkeys([text, *others]))
        if missing:
            vectors.update(zip(missing, embedder.embed(missing), strict=True))
        base = vectors[text]
        return [float(vectors[other] @ base) for other in others]

    return similarity


@functools.cache
def shipped_alignment() -> Alignment | None:
    """Word-by-word closeness by the shipped model's word vectors in context (None when the
    model is not installed)."""
    try:
        embedder = load_embedder()
    except EmbeddingError:
        return None
    words_of = functools.lru_cache(maxsize=VECTOR_CACHE)(embedder.embed_words)

    def alignment(text: str, window: str) -> float:
        words, vectors = words_of(text)
        given, others = words_of(window)
        stems = plain_stems(" ".join(given))
        content = [
            i for i, word in enumerate(words) if word[:1].isalpha() and is_content_word(word)
        ]
        if not content or not len(others):
            return 0.0
        closest = (vectors[content] @ others.T).max(axis=1)
        new = [k for k, i in enumerate(content) if not plain_stems(words[i]) <= stems]
        if new and float(closest[new].mean()) < NEW_WORDS_ALIGNED:
            return 0.0
        return float(closest.mean())

    return alignment
