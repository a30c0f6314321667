"""The one reading of text every stage shares: where sentences end, what a word is, what a
number is, and how printed text is folded before it is compared.

Stages read text for different ends, and where they differ on purpose the difference is a named
option here (what may open the next sentence, what a word may hold, what may stand before a
number), not a copy of the pattern. A leaf: it imports nothing of frontier."""

from __future__ import annotations

import enum
import re
import unicodedata
from collections.abc import Iterator


class SentenceStarts(enum.Enum):
    """What may open the next sentence after a full stop (`.`, `!` or `?`) and whitespace."""

    PAGE = r"[A-Z(\[]"  # a page's text: a capital or an opening bracket
    # claim candidates: a capital or a parenthesis ("[12] reports" reads on), or a numbered
    # heading ("7.3 Cluster deployment") that a page's text runs into
    CLAIM = r"[A-Z(]|\d+(?:\.\d+)+\s+[A-Z][a-z]"
    PROSE = r"[A-Z(\"\d]"  # prose checked for support: also a quote or a digit
    # a model's answer: also emphasis ("**"), or a name that opens in lower case (vLLM)
    MODEL_TEXT = r"[A-Z(\"*\d]|[a-z]+[A-Z]"
    ANY = ""  # anything: every full stop before whitespace ends a sentence


_ABBREVIATIONS = ("e.g.", "i.e.", "Fig.", "Eq.", "vs.", "Sec.", "cf.", "Tab.", "No.")
_NOT_AFTER_ABBREVIATION = "".join(rf"(?<!\b{re.escape(short)})" for short in _ABBREVIATIONS)
# "et al." before the year or the number of its citation ends no sentence
_NOT_AFTER_ET_AL = r"(?<!\bal\.\s(?=[(\[\d]))"


def _sentence_end(starts: SentenceStarts, abbreviations: bool) -> re.Pattern[str]:
    guard = _NOT_AFTER_ABBREVIATION if abbreviations else ""
    opening = f"(?={starts.value})" if starts.value else ""
    after = _NOT_AFTER_ET_AL if abbreviations else ""
    return re.compile(rf"(?<=[.!?]){guard}\s+{opening}{after}")


_SENTENCE_ENDS = {
    (starts, abbreviations): _sentence_end(starts, abbreviations)
    for starts in SentenceStarts
    for abbreviations in (False, True)
}


def split_sentences(
    text: str, starts: SentenceStarts = SentenceStarts.PAGE, *, abbreviations: bool = False
) -> list[str]:
    """The sentences of `text`, each stripped, none empty. With `abbreviations`, a full stop
    after "e.g.", "Fig.", "vs." and the like, or "et al." before its citation, ends none."""
    split = _SENTENCE_ENDS[starts, abbreviations].split(text)
    return [part.strip() for part in split if part and not part.isspace()]


def sentence_starts(
    text: str, starts: SentenceStarts = SentenceStarts.PAGE, *, abbreviations: bool = False
) -> list[int]:
    """Where each sentence of `text` after the first begins."""
    return [match.end() for match in _SENTENCE_ENDS[starts, abbreviations].finditer(text)]


def prose_sentences(text: str) -> list[str]:
    """The sentences of prose as a reader takes them: whitespace folded, a sentence may open
    with a quote or a digit, and an abbreviation ends none."""
    return split_sentences(fold_space(text), SentenceStarts.PROSE, abbreviations=True)


_CLAUSE_MARKS = re.compile(r"[.,;:!?()\[\]\"]")
_DEFINED = re.compile(r"\s*\((?P<acronym>[A-Z][A-Za-z]{1,7}?)s?\)")


def fold_acronyms(text: str, spelled: bool = False) -> str:
    """Where the text defines an acronym, one name in place of both: the acronym ("the key-value
    (KV) cache" reads "the KV cache", "Large Language Models (LLMs)" reads "LLMs"), or with
    `spelled` the words it stands for ("the key-value cache")."""
    out, last = [], 0
    for match in _DEFINED.finditer(text):
        acronym = match["acronym"]
        letters = [c.lower() for c in acronym if c.isupper()] or [acronym[0].lower()]
        words = list(re.finditer(r"[A-Za-z][A-Za-z0-9]*", text[last : match.start()]))
        named = words[-len(letters) :] if len(words) >= len(letters) else []
        if named and [w[0][0].lower() for w in named] == letters:
            words_at = named[0].start()
            plural = match[0].rstrip(")").endswith("s") and not acronym.endswith("s")
            short = acronym + ("s" if plural else "")
            out.append(
                text[last : match.start()] if spelled else text[last : last + words_at] + short
            )
        else:
            out.append(text[last : match.end()])
        last = match.end()
    return "".join(out) + text[last:]


def split_clauses(text: str) -> list[str]:
    """The runs of `text` between punctuation marks: the clauses a phrase or a negation's scope
    stays within."""
    return _CLAUSE_MARKS.split(text)


class WordStyle(enum.Enum):
    """What one word is."""

    ALNUM = r"[^\W_]+"  # letters and digits, as the full-text index splits (underscore splits)
    WITH_UNDERSCORE = r"\w+"  # letters, digits and underscores: snake_case stays one word
    LETTERS = r"[^\W\d_]+"  # letters only: a digit splits a word
    JOINED = r"[^\W_]+(?:[-'][^\W_]+)*"  # hyphenated and apostrophe'd words whole: KV-cache, it's
    ASCII_JOINED = r"[A-Za-z][A-Za-z0-9]*(?:['-][A-Za-z0-9]+)*"  # as JOINED, ASCII, a letter first
    # an ASCII letter, then ASCII letters, digits, hyphens and apostrophes: A100, multi-GPU
    ASCII_TERM = r"[A-Za-z][A-Za-z0-9'-]*"
    ASCII_HYPHENATED = r"[A-Za-z][A-Za-z0-9-]*"  # as ASCII_TERM without apostrophes
    ASCII_LETTERS = r"[A-Za-z][A-Za-z-]*"  # ASCII letters and hyphens: a digit splits a word
    TOKEN = r"\S+"  # what whitespace separates, punctuation and all


_WORD_PATTERNS = {style: re.compile(style.value) for style in WordStyle}


def split_words(text: str, style: WordStyle = WordStyle.ALNUM, *, min_length: int = 1) -> list[str]:
    """The words of `text` in order, as written, those shorter than `min_length` left out."""
    found: list[str] = _WORD_PATTERNS[style].findall(text)
    return found if min_length <= 1 else [word for word in found if len(word) >= min_length]


def word_matches(text: str, style: WordStyle = WordStyle.ALNUM) -> Iterator[re.Match[str]]:
    """The words of `text` with where each stands."""
    return _WORD_PATTERNS[style].finditer(text)


def any_word(alternatives: str) -> re.Pattern[str]:
    r"""`\b(?:alternatives)\b` in any case: any of the `|`-separated alternatives (each a
    pattern itself) as a whole word."""
    return re.compile(rf"\b(?:{alternatives})\b", re.IGNORECASE)


class NumberShape(enum.Enum):
    """How the digits of one number may be pointed and grouped."""

    SEPARATED = r"\d+(?:[.,]\d+)*"  # points or commas between digits: 1.5, 1,024, 3,5, 1.2.3
    DECIMAL = r"\d+(?:\.\d+)?"  # 12 or 1.5: a comma ends the number
    GROUPED = r"\d+(?:,\d{3})*(?:\.\d+)?"  # commas only before groups of three: 1,024.5
    # commas anywhere, a trailing one too: 1,024 or the list 3,5 (see `number_parts`)
    LISTED = r"\d[\d,]*(?:\.\d+)?"


class NumberStart(enum.Enum):
    """What may stand right before a number's first digit."""

    ANYWHERE = ""  # anything: the 100 of "A100" is a number
    OUTSIDE_WORDS = r"(?<![\w.])"  # no letter, digit or point: not "A100", not the 5 of ".5"
    OUTSIDE_NAMES = r"(?<![\w.\-/])"  # nor a hyphen or slash: not "Llama-2", not the 8 of "1/8"


def number_pattern(
    shape: NumberShape = NumberShape.SEPARATED, start: NumberStart = NumberStart.ANYWHERE
) -> str:
    """The pattern of one number, for patterns that read a number with what surrounds it."""
    return start.value + shape.value


_NUMBER_PATTERNS = {
    (shape, start): re.compile(number_pattern(shape, start))
    for shape in NumberShape
    for start in NumberStart
}


def find_numbers(
    text: str,
    shape: NumberShape = NumberShape.SEPARATED,
    start: NumberStart = NumberStart.ANYWHERE,
) -> list[str]:
    """The numbers of `text` in order, as written."""
    found: list[str] = _NUMBER_PATTERNS[shape, start].findall(text)
    return found


def number_matches(
    text: str,
    shape: NumberShape = NumberShape.SEPARATED,
    start: NumberStart = NumberStart.ANYWHERE,
) -> Iterator[re.Match[str]]:
    """The numbers of `text` with where each stands."""
    return _NUMBER_PATTERNS[shape, start].finditer(text)


_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")


def number_parts(written: str) -> list[str]:
    """A number as written, read apart: '1,024' is one number ('1024'), '3,5' lists two."""
    if _THOUSANDS.fullmatch(written):
        return [written.replace(",", "")]
    return written.split(",")


# the bullets of a list whose items a PDF runs into one line ("… FlashInfer • We demonstrate …")
LIST_BULLET = re.compile(r"\s+[•●▪◦]\s+")


def fold_space(text: str) -> str:
    """Every run of whitespace (line breaks too) as one space, none at the ends."""
    return " ".join(text.split())


_DASHES = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"))


def fold_dashes(text: str) -> str:
    """Unicode hyphens, en and em dashes and the minus sign as an ASCII hyphen."""
    return text.translate(_DASHES)


_LIGATURES = {"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"}
_BREAK_HYPHEN = re.compile(r"(\w)[-\u00ad\ufffe]\s+(\w)")


def fold_print(text: str) -> str:
    """Text as two extractions of one page agree on it: compatibility forms (NFKC) and
    ligatures as their letters, soft hyphens dropped, a word broken at a line end joined, every
    hyphen dropped (extractions keep or drop them inconsistently), whitespace folded, lower
    case."""
    text = unicodedata.normalize("NFKC", text)
    for ligature, letters in _LIGATURES.items():
        text = text.replace(ligature, letters)
    text = text.replace("\u00ad", "").replace("\ufffe", "")
    text = _BREAK_HYPHEN.sub(r"\1\2", text)
    return fold_space(text.replace("-", "")).lower()


# a model by its family's name, with its size and variant: "Llama-2 70B", "T5-XXL", "Yi-34B"
MODEL_NAME = re.compile(
    r"\b(?:(?:Code)?Llama|LLaMA|OPT|GPT|Mistral|Mixtral|Falcon|Qwen|Vicuna|BLOOM|Gemma|Phi|"
    r"DeepSeek|Yi|PaLM|T5|BERT|Chinchilla|MPT|Pythia|StarCoder|Grok|Claude|Gopher|LaMDA|"
    r"Megatron|Baichuan|ChatGLM|InternLM)(?:[- ]?\d+[x×]\d+B|[- ]?\d+(?:\.\d+)?[BMK]?)?(?:[- ](?:\d+(?:\.\d+)?[BMK]|"
    r"\d+x\d+B|[Cc]hat|[Ii]nstruct|[Ll]arge|XL|XXL))*(?:[- ]\d+(?:\.\d+)?[BMK])?\b"
)
# an accelerator or processor by its product name: "NVIDIA A100-80GB", "MI250X", "TPU v4"
HARDWARE_NAME = re.compile(
    r"\b(?:(?:NVIDIA\s+)?(?:A100|H100|H200|H800|A800|B100|B200|GH200|A10G?|A30|A40|A6000|L4|L40S?|"
    r"V100|T4|P100|RTX\s?\d{4}(?:\s?Ti)?|GTX\s?\d{4}|Jetson\s\w+)(?:[- ]?(?:SXM\d?|PCIe))?"
    r"(?:[- ]?\d+\s?GB)?|(?:AMD\s+)?MI\d{3}X?|TPU\s?v\d\w*|Gaudi\s?\d?|Trainium\d?|Inferentia\d?|"
    r"Apple M\d(?: \w+)?|Xeon[\w -]*?\d{4}\w*)\b"
)
