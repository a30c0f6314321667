"""The one text toolkit: each named option of the sentence splitter, the word tokeniser and the
number reader does what its name says, the folds fold what they say, and the module imports
nothing of frontier."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import frontier.text
from frontier.text import (
    NumberShape,
    NumberStart,
    SentenceStarts,
    WordStyle,
    any_word,
    find_numbers,
    fold_acronyms,
    fold_dashes,
    fold_print,
    fold_space,
    number_matches,
    number_parts,
    number_pattern,
    prose_sentences,
    sentence_starts,
    split_clauses,
    split_sentences,
    split_words,
    word_matches,
)

# what may open the next sentence, and for each rule whether it does
OPENINGS = [
    ("Capital", {"PAGE", "CLAIM", "PROSE", "MODEL_TEXT", "ANY"}),
    ("(parenthesis", {"PAGE", "CLAIM", "PROSE", "MODEL_TEXT", "ANY"}),
    ("[bracket", {"PAGE", "ANY"}),
    ('"quote', {"PROSE", "MODEL_TEXT", "ANY"}),
    ("42 digits", {"PROSE", "MODEL_TEXT", "ANY"}),
    ("7.3 Numbered heading", {"CLAIM", "PROSE", "MODEL_TEXT", "ANY"}),
    ("**emphasis", {"MODEL_TEXT", "ANY"}),
    ("vLLM name", {"MODEL_TEXT", "ANY"}),
    ("lower case", {"ANY"}),
]


@pytest.mark.parametrize("starts", list(SentenceStarts))
@pytest.mark.parametrize(("opening", "splits_for"), OPENINGS)
def test_what_may_open_the_next_sentence(
    starts: SentenceStarts, opening: str, splits_for: set[str]
) -> None:
    text = f"It ends here. {opening} goes on."
    expected = ["It ends here.", f"{opening} goes on."] if starts.name in splits_for else [text]
    assert split_sentences(text, starts) == expected


def test_a_page_splits_at_every_stop_before_a_capital_or_bracket() -> None:
    text = "Paging helps.  It is fast!\nWhy? [12] says so. e.g. not here"
    assert split_sentences(text) == split_sentences(text, SentenceStarts.PAGE)
    assert split_sentences(text, SentenceStarts.PAGE) == [
        "Paging helps.",
        "It is fast!",
        "Why?",
        "[12] says so. e.g. not here",
    ]


def test_sentences_are_stripped_and_never_empty() -> None:
    assert split_sentences("  One. Two.  \n", SentenceStarts.PAGE) == ["One.", "Two."]
    assert split_sentences("", SentenceStarts.PAGE) == []
    assert split_sentences(" \n ", SentenceStarts.ANY) == []


def test_a_stop_needs_whitespace_after_it() -> None:
    assert split_sentences("Version 2.5 of vLLM.Next", SentenceStarts.ANY) == [
        "Version 2.5 of vLLM.Next"
    ]


def test_abbreviations_end_no_sentence_when_asked() -> None:
    text = (
        "Caches help, e.g. Paged ones. See Fig. 3 and Eq. 2, Sec. 4, Tab. 1, No. 5 too. "
        "One vs. Two, i.e. Three, cf. Four. Zhang et al. (2023) show it. Then et al. [4] do. "
        "Smith et al. 2024 agree. Shown by Li et al. Later work disagrees."
    )
    assert split_sentences(text, SentenceStarts.PROSE, abbreviations=True) == [
        "Caches help, e.g. Paged ones.",
        "See Fig. 3 and Eq. 2, Sec. 4, Tab. 1, No. 5 too.",
        "One vs. Two, i.e. Three, cf. Four.",
        "Zhang et al. (2023) show it.",
        "Then et al. [4] do.",
        "Smith et al. 2024 agree.",
        "Shown by Li et al.",
        "Later work disagrees.",
    ]
    plain = split_sentences(text, SentenceStarts.PROSE)
    assert "Caches help, e.g." in plain and "See Fig." in plain and "Zhang et al." in plain


def test_abbreviations_need_a_word_boundary() -> None:
    text = "A bigNo. Then more."
    assert split_sentences(text, SentenceStarts.PROSE, abbreviations=True) == [
        "A bigNo.",
        "Then more.",
    ]


def test_sentence_starts_are_where_the_split_cuts() -> None:
    text = "First one. Second one! [3] Third one."
    starts = sentence_starts(text)
    assert [text[i:] for i in starts] == ["Second one! [3] Third one.", "[3] Third one."]
    assert sentence_starts(text, SentenceStarts.CLAIM) == starts[:1]
    assert sentence_starts("No e.g. Split here.", SentenceStarts.PROSE, abbreviations=True) == []


def test_prose_sentences_fold_whitespace_and_keep_abbreviations() -> None:
    text = 'We use\n  paged  memory, e.g. KV blocks.\n\n"Fast" it is. 2 GPUs suffice.'
    assert prose_sentences(text) == [
        "We use paged memory, e.g. KV blocks.",
        '"Fast" it is.',
        "2 GPUs suffice.",
    ]
    assert prose_sentences(text) == split_sentences(
        fold_space(text), SentenceStarts.PROSE, abbreviations=True
    )


SAMPLE = "KV-cache's A100_80GB uses 2x less café-memory, it's 3rd-gen vLLM."
WORDS = {
    WordStyle.ALNUM: [
        "KV", "cache", "s", "A100", "80GB", "uses", "2x", "less", "café", "memory", "it", "s",
        "3rd", "gen", "vLLM",
    ],
    WordStyle.WITH_UNDERSCORE: [
        "KV", "cache", "s", "A100_80GB", "uses", "2x", "less", "café", "memory", "it", "s",
        "3rd", "gen", "vLLM",
    ],
    WordStyle.LETTERS: [
        "KV", "cache", "s", "A", "GB", "uses", "x", "less", "café", "memory", "it", "s", "rd",
        "gen", "vLLM",
    ],
    WordStyle.JOINED: [
        "KV-cache's", "A100", "80GB", "uses", "2x", "less", "café-memory", "it's", "3rd-gen",
        "vLLM",
    ],
    WordStyle.ASCII_JOINED: [
        "KV-cache's", "A100", "GB", "uses", "x", "less", "caf", "memory", "it's", "rd-gen", "vLLM",
    ],
    WordStyle.ASCII_TERM: [
        "KV-cache's", "A100", "GB", "uses", "x", "less", "caf", "memory", "it's", "rd-gen", "vLLM",
    ],
    WordStyle.ASCII_HYPHENATED: [
        "KV-cache", "s", "A100", "GB", "uses", "x", "less", "caf", "memory", "it", "s", "rd-gen",
        "vLLM",
    ],
    WordStyle.ASCII_LETTERS: [
        "KV-cache", "s", "A", "GB", "uses", "x", "less", "caf", "memory", "it", "s", "rd-gen",
        "vLLM",
    ],
    WordStyle.TOKEN: SAMPLE.split(),
}  # fmt: skip


@pytest.mark.parametrize("style", list(WordStyle))
def test_what_one_word_is(style: WordStyle) -> None:
    assert split_words(SAMPLE, style) == WORDS[style]
    assert [m.group() for m in word_matches(SAMPLE, style)] == WORDS[style]


def test_words_default_to_letters_and_digits() -> None:
    assert split_words(SAMPLE) == WORDS[WordStyle.ALNUM]


def test_joined_words_join_only_between_letters() -> None:
    text = "a--b c- 'd 2-way"
    assert split_words(text, WordStyle.JOINED) == ["a", "b", "c", "d", "2-way"]
    assert split_words(text, WordStyle.ASCII_JOINED) == ["a", "b", "c", "d", "way"]
    assert split_words(text, WordStyle.ASCII_TERM) == ["a--b", "c-", "d", "way"]


@pytest.mark.parametrize("style", list(WordStyle))
def test_min_length_leaves_out_shorter_words_only(style: WordStyle) -> None:
    longer = [word for word in WORDS[style] if len(word) >= 4]
    assert split_words(SAMPLE, style, min_length=4) == longer
    assert split_words(SAMPLE, style, min_length=1) == WORDS[style]


def test_min_length_is_the_patterns_own_minimum() -> None:
    """A word too short is left out whole: no shorter piece of it counts in its place."""
    text = "ab-c x12 abc abcd a-b-c"
    assert split_words(text, WordStyle.ASCII_LETTERS, min_length=4) == re.findall(
        r"[A-Za-z][A-Za-z-]{3,}", text
    )
    assert split_words(text, WordStyle.ASCII_TERM, min_length=2) == re.findall(
        r"[A-Za-z][A-Za-z0-9'-]+", text
    )
    assert split_words(text, WordStyle.LETTERS, min_length=3) == re.findall(r"[^\W\d_]{3,}", text)


def test_word_matches_tell_where_each_word_stands() -> None:
    text = "two  words"
    assert [m.span() for m in word_matches(text, WordStyle.TOKEN)] == [(0, 3), (5, 10)]


def test_any_word_finds_whole_words_in_any_case() -> None:
    cause = any_word(r"because|due to|leads? to")
    found = [m.group() for m in cause.finditer("Because it LEADS TO this, due to that; lead to")]
    assert found == ["Because", "LEADS TO", "due to", "lead to"]
    assert not cause.search("becauses, undue toll")
    assert cause.pattern == r"\b(?:because|due to|leads? to)\b"


NUMBER_TEXT = "Up 1,024.5 and 3,5 at 1.2.3, 12,34, A100 and .5 of Llama-2 at 1/8"
NUMBERS = {
    NumberShape.SEPARATED: ["1,024.5", "3,5", "1.2.3", "12,34", "100", "5", "2", "1", "8"],
    NumberShape.DECIMAL: ["1", "024.5", "3", "5", "1.2", "3", "12", "34", "100", "5", "2", "1", "8"],
    NumberShape.GROUPED: ["1,024.5", "3", "5", "1.2", "3", "12", "34", "100", "5", "2", "1", "8"],
    NumberShape.LISTED: ["1,024.5", "3,5", "1.2", "3,", "12,34,", "100", "5", "2", "1", "8"],
}  # fmt: skip


@pytest.mark.parametrize("shape", list(NumberShape))
def test_how_a_number_is_pointed_and_grouped(shape: NumberShape) -> None:
    assert find_numbers(NUMBER_TEXT, shape) == NUMBERS[shape]
    assert [m.group() for m in number_matches(NUMBER_TEXT, shape)] == NUMBERS[shape]


def test_numbers_default_to_any_points_and_commas() -> None:
    assert find_numbers(NUMBER_TEXT) == NUMBERS[NumberShape.SEPARATED]


@pytest.mark.parametrize(
    ("start", "expected"),
    [
        (NumberStart.ANYWHERE, ["100", "5", "2", "1", "8", "7"]),
        (NumberStart.OUTSIDE_WORDS, ["2", "1", "8", "7"]),
        (NumberStart.OUTSIDE_NAMES, ["1", "7"]),
    ],
)
def test_what_may_stand_before_a_number(start: NumberStart, expected: list[str]) -> None:
    text = "A100 .5 Llama-2 1/8 (7"
    assert find_numbers(text, NumberShape.DECIMAL, start) == expected


def test_number_pattern_composes_into_larger_patterns() -> None:
    size = re.compile(rf"({number_pattern(NumberShape.DECIMAL, NumberStart.OUTSIDE_WORDS)})([BM])")
    assert size.findall("a 7B and 1.3B model, not GPT3B or .5B") == [("7", "B"), ("1.3", "B")]
    assert number_pattern() == NumberShape.SEPARATED.value


@pytest.mark.parametrize(
    ("written", "parts"),
    [
        ("1,024", ["1024"]),
        ("12,345,678.5", ["12345678.5"]),
        ("3,5", ["3", "5"]),
        ("1234,567", ["1234", "567"]),
        ("12,", ["12", ""]),
        ("2.5", ["2.5"]),
    ],
)
def test_number_parts_read_thousands_whole_and_lists_apart(written: str, parts: list[str]) -> None:
    assert number_parts(written) == parts


def test_fold_space() -> None:
    assert fold_space("  a\n\tb \u00a0 c  ") == "a b c"
    assert fold_space("") == ""


def test_fold_dashes() -> None:
    assert fold_dashes("2–4, 3—5, −1, x‐y, a‑b") == "2-4, 3-5, -1, x-y, a-b"
    assert fold_dashes("plain - text") == "plain - text"


def test_fold_print_folds_what_extractions_vary_in() -> None:
    assert fold_print("Eﬃcient  ﬁne-\n tuning of Key-Value\u00ad Caches\n") == (
        "efficient finetuning of keyvalue caches"
    )
    assert fold_print("ＫＶ cache") == "kv cache"  # compatibility forms (NFKC)
    assert fold_print("multi-\nGPU") == fold_print("multiGPU")


def test_text_is_a_leaf() -> None:
    source = Path(frontier.text.__file__).read_text(encoding="utf-8")
    imported = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module or "")
    assert not {name for name in imported if name.split(".")[0] == "frontier"}
    assert imported <= {"__future__", "enum", "re", "unicodedata", "collections.abc"}


def test_clauses_are_the_runs_between_punctuation_marks() -> None:
    assert split_clauses('KV cache, paged (blocks); "eviction" ends.') == [
        "KV cache",
        " paged ",
        "blocks",
        "",
        " ",
        "eviction",
        " ends",
        "",
    ]


def test_an_acronym_where_the_text_defines_it_stands_for_one_name() -> None:
    text = (
        "The key-value (KV) cache of Large Language Models (LLMs) grows; vLLM (a system) pages it."
    )
    assert fold_acronyms(text) == "The KV cache of LLMs grows; vLLM (a system) pages it."
    assert fold_acronyms(text, spelled=True) == (
        "The key-value cache of Large Language Models grows; vLLM (a system) pages it."
    )
    # initials that do not spell the acronym, and a figure reference, stay as written
    assert (
        fold_acronyms("a cache (KV) and attention (Fig. 2)")
        == "a cache (KV) and attention (Fig. 2)"
    )
