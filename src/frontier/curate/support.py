"""Whether a written sentence is borne out by its source, sentence by sentence: one source
sentence, or two adjacent ones, must carry most of its content words, all of its names and all
of its numbers. The bag of all the source's words is not enough: fluent text assembled from
words scattered over a page says what no sentence of it says."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from frontier.text import WordStyle, find_numbers, prose_sentences, split_words

MIN_WORD_SHARE = 0.6
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "from",
        "by",
        "with",
        "without",
        "into",
        "onto",
        "over",
        "under",
        "than",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "their",
        "there",
        "which",
        "who",
        "whom",
        "whose",
        "what",
        "when",
        "where",
        "while",
        "how",
        "why",
        "not",
        "no",
        "can",
        "could",
        "may",
        "might",
        "will",
        "would",
        "shall",
        "should",
        "has",
        "have",
        "had",
        "do",
        "does",
        "did",
        "we",
        "our",
        "us",
        "they",
        "them",
        "he",
        "she",
        "his",
        "her",
        "also",
        "such",
        "both",
        "each",
        "other",
        "more",
        "most",
        "less",
        "many",
        "much",
        "very",
        "so",
        "then",
        "thus",
        "using",
        "use",
        "used",
        "based",
        "via",
        "per",
        "any",
        "all",
        "some",
        "only",
        "just",
        "about",
        "across",
        "after",
        "before",
        "between",
        "through",
        "during",
        "within",
        "new",
        "paper",
        "work",
    ]
)


# a sentence about cited work: a bracketed or author-year citation, "et al."
CITES_OTHERS = re.compile(r"\[\d+(?:[,–-]\s*\d+)*\]|\(\w[\w\s.&]*,? \d{4}\w?\)|\bet al\.", re.I)


def _words(text: str) -> list[str]:
    """Words as support counts them: an ASCII letter, then letters, digits, hyphens or
    apostrophes, two characters at least."""
    return split_words(text, WordStyle.ASCII_TERM, min_length=2)


def _stem(word: str) -> str:
    return word.lower()[:6]


def content_stems(text: str) -> set[str]:
    return {_stem(w) for w in _words(text) if is_content_word(w)}


def plain_stems(text: str) -> set[str]:
    """`content_stems` with a plural the same word as its singular ("GPUs" is "gpu")."""
    return {stem[:-1] if stem.endswith("s") else stem for stem in content_stems(text)}


def is_content_word(word: str) -> bool:
    """A word that says what a sentence is about: three letters or more, not a function word."""
    return len(word) > 2 and word.lower() not in _STOP


def names_in(sentence: str) -> set[str]:
    """Coined or proper names: a capital after the first letter (vLLM, PagedAttention) or a
    capitalised word not at the start of the sentence."""
    words = _words(sentence)
    names = {w for w in words if re.search(r"[A-Z]", w[1:])}
    names |= {w for w in words[1:] if w[0].isupper() and w.lower() not in _STOP}
    return names


def numbers_in(text: str) -> set[str]:
    return {n.replace(",", "") for n in find_numbers(text)}


@dataclass(frozen=True)
class Support:
    supported: bool
    source: str  # the source sentence(s) that bear it out best
    share: float  # of the sentence's content words found there


def support(sentence: str, source_text: str) -> Support:
    """The best window of one or two adjacent source sentences for this sentence."""
    wanted = content_stems(sentence)
    names = {n.lower() for n in names_in(sentence)}
    numbers = numbers_in(sentence)
    parts = prose_sentences(source_text)
    windows = parts + [f"{a} {b}" for a, b in itertools.pairwise(parts)]
    best = Support(False, "", 0.0)
    for window in windows:
        stems = content_stems(window)
        share = len(wanted & stems) / len(wanted) if wanted else 0.0
        lowered = window.lower()
        ok = (
            share >= MIN_WORD_SHARE
            and all(name in lowered for name in names)
            and numbers <= numbers_in(window)
        )
        if (ok, share) > (best.supported, best.share):
            best = Support(ok, window, share)
    return best


MIN_PROSE_CHARS = 40
# a title and its authors' names read as one sentence by the PDF text: capitalised words in a row
_NAME_RUN = re.compile(r"(?:\b[A-Z][a-z]+\d?,?\s+){5}[A-Z]")
# the marks of a bibliography entry run into the text
_REFERENCE = re.compile(
    r"\barXiv (?:preprint|e-prints)\b|\barXiv:\d{4}\.\d{4,5}|\bIn Proceedings of\b|"
    r"\bpp\. \d+|\b(?:URL|doi:)\s|\[\d+\] [A-Z][a-z]+ [A-Z][a-z]+,"
)


def is_prose(sentence: str) -> bool:
    """A sentence a reader can take as evidence: words, not a figure's labels, a header or a
    reference line."""
    if not MIN_PROSE_CHARS <= len(sentence) <= 600 or re.search(r"https?://|www\.|@", sentence):
        return False
    if _REFERENCE.search(sentence) or _NAME_RUN.search(sentence):
        return False
    tokens = sentence.split()
    words = [t for t in tokens if re.fullmatch(r"[A-Za-z][a-z'-]*[,.;:]?", t)]
    return len(tokens) >= 6 and len(words) / len(tokens) >= 0.7 and sentence[0].isupper()


# inline TeX of abstracts as arXiv gives them ("$2.72\times$", "$\sim$20\%"): the symbols a
# reader sees, so that the number and its unit are read as one
_TEX_SYMBOLS = {
    r"\times": "×", r"\sim": "∼", r"\approx": "≈", r"\leq": "≤", r"\geq": "≥", r"\le": "≤",
    r"\ge": "≥", r"\pm": "±", r"\%": "%", r"\mu": "μ", r"\cdot": "·", r"\rightarrow": "→",
    r"\to": "→", r"\,": " ", r"\ ": " ", r"\!": "", r"\textbf": "", r"\textit": "",
    r"\text": "", r"\mathrm": "", r"\mathbf": "",
}  # fmt: skip
_INLINE_TEX = re.compile(r"\$([^$\n]{1,40})\$")


def plain_math(text: str) -> str:
    """Inline TeX turned into the characters it prints; TeX it cannot read stays as written."""
    if "\\" not in text and "$" not in text:
        return text

    def inline(match: re.Match[str]) -> str:
        body = _tex_symbols(match.group(1)).replace("{", "").replace("}", "").strip()
        return match.group(0) if "\\" in body else body

    return _tex_symbols(_INLINE_TEX.sub(inline, text))


def _tex_symbols(text: str) -> str:
    for command in sorted(_TEX_SYMBOLS, key=len, reverse=True):
        text = text.replace(command, _TEX_SYMBOLS[command])
    return text
