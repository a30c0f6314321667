"""Hypothesis strategies for what users feed frontier: valid records, the same records with
fields dropped, retyped, duplicated or truncated, text with control characters and bytes that
are not UTF-8, and random bytes under any name."""

from __future__ import annotations

import json
import os
from typing import Any

from hypothesis import strategies as st

from frontier.errors import bad_character
from frontier.model import SourceRecord

# the default (CI) profile tries this many inputs per property; HYPOTHESIS_PROFILE=long, ten times
LONG_FACTOR = 10


def examples(ci: int) -> int:
    """How many inputs a property tries under the active profile."""
    return ci * LONG_FACTOR if os.environ.get("HYPOTHESIS_PROFILE") == "long" else ci


WORDS = st.sampled_from(
    ["paged", "attention", "KV", "cache", "serving", "LLM", "speculative", "décodage", "量化", "x"]
)
NASTY = st.sampled_from(
    [
        "\x00",
        "\x07",
        "\x1b",
        "\x7f",
        "\x85",
        "\ufffd",
        "\ud800",
        "\u202e",
        "\t",
        "\n",
        " ",
        "{",
        "\\",
    ]
)


def phrase(min_words: int = 1, max_words: int = 12) -> st.SearchStrategy[str]:
    return st.lists(WORDS, min_size=min_words, max_size=max_words).map(" ".join)


def tainted(base: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Text that may carry a character no source should hold, anywhere in it."""
    return st.one_of(
        base,
        st.tuples(base, NASTY, st.integers(0, 200)).map(
            lambda t: t[0][: t[2]] + t[1] + t[0][t[2] :]
        ),
        st.text(max_size=40),
    )


ARXIV_IDS = st.one_of(
    st.from_regex(r"\A2[0-4]0[1-9]\.\d{5}(v[1-9])?\Z"),
    st.sampled_from(["hep-ex/0406020v1", "2309.06180", "2309.06180v2", "not-an-id", "10.1145/1.2"]),
)
DATES = st.one_of(
    st.dates(min_value=__import__("datetime").date(1990, 1, 1)).map(str),
    st.integers(1900, 2030),
    st.sampled_from(["2023-09", "2023", "2023-09-12T10:00:00Z", "2023-02-30", "2023-13", "0000"]),
    st.sampled_from(["yesterday", "", "99999", "12/09/2023", "3000-01-01"]),
)
ODD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=True),
    st.just([]),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
    st.text(max_size=30),
    st.just(""),
    st.just("   "),
    st.text(min_size=700, max_size=900),
)


@st.composite
def valid_record(draw: st.DrawFn) -> dict[str, Any]:
    """A record as a careful user would write it."""
    record: dict[str, Any] = {"title": draw(phrase(2, 14))}
    optional = {
        "id": ARXIV_IDS,
        "authors": st.lists(phrase(2, 3), max_size=4),
        "date": DATES,
        "abstract": phrase(5, 60),
        "categories": st.lists(st.sampled_from(["cs.LG", "cs.DC", "cs.CL"]), max_size=3),
        "doi": st.sampled_from(["10.5555/3571885.3571902", "https://doi.org/10.1145/3600006"]),
        "pdf_url": st.just("https://arxiv.org/pdf/2309.06180"),
        "url": st.just("https://example.org/paper"),
    }
    for key, values in optional.items():
        if draw(st.booleans()):
            record[key] = draw(values)
    return record


@st.composite
def mutated_record(draw: st.DrawFn) -> dict[str, Any]:
    """A valid record with fields dropped, retyped or tainted."""
    record = draw(valid_record())
    fields = ["id", "title", "authors", "date", "abstract", "categories", "doi", "pdf_url", "url"]
    for _ in range(draw(st.integers(0, 3))):
        key = draw(st.sampled_from(fields))
        action = draw(st.sampled_from(["drop", "retype", "taint"]))
        if action == "drop":
            record.pop(key, None)
        elif action == "retype":
            record[key] = draw(ODD_VALUES)
        else:
            record[key] = draw(tainted(phrase()))
    return record


@st.composite
def jsonl_line(draw: st.DrawFn) -> bytes:
    """One line of a JSONL file: a record, mutated, maybe with a key given twice, cut short or
    holding bytes that are not UTF-8; or no JSON at all."""
    record = draw(st.one_of(valid_record(), mutated_record()))
    text = json.dumps(record, ensure_ascii=draw(st.booleans()))
    if draw(st.booleans()) and "title" in record:
        text = text[:-1] + (", " if len(record) else "") + '"title": "again"}'
    line = text.encode("utf-8", "surrogatepass")
    shape = draw(st.sampled_from(["whole", "whole", "whole", "cut", "bytes", "junk"]))
    if shape == "cut":
        line = line[: draw(st.integers(0, len(line)))]
    elif shape == "bytes":
        at = draw(st.integers(0, len(line)))
        line = line[:at] + draw(st.binary(min_size=1, max_size=4)) + line[at:]
    elif shape == "junk":
        line = draw(st.sampled_from([b"[1, 2]", b"null", b'"text"', b"{", b"\xff\xfe{}", b"{}"]))
    return line.replace(b"\n", b" ")


JSONL_FILES = st.lists(jsonl_line(), min_size=0, max_size=6).map(lambda lines: b"\n".join(lines))


def _bib_value(value: Any) -> str:
    if isinstance(value, list):
        return " and ".join(str(v) for v in value)
    return str(value)


@st.composite
def bib_entry(draw: st.DrawFn) -> str:
    """One BibTeX entry from a record, with fields mutated, repeated or a brace cut."""
    record = draw(st.one_of(valid_record(), mutated_record()))
    names = {"id": "eprint", "authors": "author", "date": "year", "categories": "primaryClass"}
    fields = [f"  {names.get(k, k)} = {{{_bib_value(v)}}}" for k, v in record.items()]
    if draw(st.booleans()):
        fields.append(draw(st.sampled_from(["  month = sep", "  month = {13}", "  year = {20x3}"])))
    if draw(st.booleans()) and fields:
        fields.append(fields[0])
    key = draw(st.sampled_from(["kwon2023", "orca", "a b", "x\x01"]))
    entry = f"@article{{{key},\n" + ",\n".join(fields) + "\n}\n"
    if draw(st.integers(0, 5)) == 0:
        entry = entry[: draw(st.integers(0, len(entry)))]
    return entry


BIB_FILES = st.lists(bib_entry(), max_size=4).map(lambda entries: "\n".join(entries))

# `file` fields as reference managers write them, and what their separators and escapes become
# in careless hands
FILE_FIELDS = st.one_of(
    st.lists(
        st.sampled_from(
            ["a.pdf", "Full Text PDF:files/1/a b.pdf:application/pdf", "C\\:\\\\x.pdf", ":", ";"]
        ),
        max_size=4,
    ).map(";".join),
    tainted(st.text(alphabet=st.sampled_from(list("ab./:;\\ ")), max_size=30)),
)


@st.composite
def abstracts_file(draw: st.DrawFn) -> bytes:
    heading = draw(st.sampled_from(["", "LLM inference abstracts\n\n", "Heading\x07\n\n"]))
    blocks = draw(st.lists(tainted(phrase(3, 80)), max_size=5))
    text = heading + "\n\n".join(blocks)
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=3)) + data[at:]
    return data


def stored_text_is_clean(record: SourceRecord) -> None:
    """What a stored record may hold: every text field passes the checks, titles are not empty."""
    again = SourceRecord.model_validate(record.model_dump())
    assert again == record
    for name in ("title", "abstract", "doi", "site", "collection", "url", "pdf_url"):
        value = getattr(record, name)
        assert value is None or (value.strip() and bad_character(value) is None), (name, value)
    for author in record.authors:
        assert author.strip() and bad_character(author) is None


def bad_numbers() -> st.SearchStrategy[str]:
    """Text a careless reader takes for a number: digits of other scripts, superscripts and
    fractions (`isdigit()` holds for some), signs, exponents, spaces, and far too many digits."""
    return st.one_of(
        st.sampled_from(
            ["²", "٣", "１２", "-1", "+1", "1e3", "0x10", " 1", "1.0", "1_0", "9" * 19]
        ),
        st.integers(19, 6000).map(lambda n: "9" * n),
        st.text(alphabet=st.characters(categories=["Nd", "No"]), min_size=1, max_size=8).filter(
            lambda text: not text.isascii()
        ),
    )
