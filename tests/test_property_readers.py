"""Every reader, fed generated and mutated input: each item comes back as a record that passes
every check or as one rejection line naming the file, the line or entry and the field; nothing
else escapes (no exception, no oddity stored later). frontier.toml likewise: settings, or one
ConfigError naming the file and the key."""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import corpus
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from strategies import (
    BIB_FILES,
    DATES,
    FILE_FIELDS,
    JSONL_FILES,
    abstracts_file,
    examples,
    jsonl_line,
    phrase,
    stored_text_is_clean,
    tainted,
)
from zotero_library import new_library

from frontier.config import ArxivSettings, ConfigError, load_settings
from frontier.errors import bad_character
from frontier.model import SourceRecord
from frontier.sources.abstracts import read_abstracts
from frontier.sources.arxiv_api import read_feed
from frontier.sources.local import read_bibtex, read_jsonl
from frontier.sources.records import RecordError
from frontier.sources.web import ArticleError, html_article_file, text_article_file
from frontier.sources.zotero import read_zotero_folder
from frontier.workspace import default_config_text

# a rejection: `file:line-or-entry: field: reason` (the field may be indexed: authors[2])
REJECTION = re.compile(r"^[\w.-]+:[^:]+: \S.*$")


# every example's folder, under one that is removed when the module's tests are done
# (hypothesis runs an example many times in one test: no per-test tmp_path)
_FOLDERS = Path(tempfile.mkdtemp(prefix="reader-"))


@pytest.fixture(autouse=True, scope="module")
def _remove_folders() -> Iterator[None]:
    yield
    shutil.rmtree(_FOLDERS, ignore_errors=True)


def write(data: bytes | str, name: str) -> Path:
    folder = Path(tempfile.mkdtemp(dir=_FOLDERS))
    path = folder / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass"))
    return path


def check_items(items: Iterable[SourceRecord | RecordError], name: str) -> list[SourceRecord]:
    records = []
    for item in items:
        if isinstance(item, RecordError):
            message = str(item)
            assert REJECTION.match(message) and message.startswith(name), message
            assert "\n" not in message and "Traceback" not in message
        else:
            assert isinstance(item, SourceRecord)
            stored_text_is_clean(item)
            records.append(item)
    return records


@hsettings(max_examples=examples(150))
@given(JSONL_FILES)
def test_jsonl_reader(data: bytes) -> None:
    items = list(read_jsonl(write(data, "r.jsonl")))
    assert len(items) == sum(1 for line in data.split(b"\n") if line.strip())
    check_items(items, "r.jsonl:")


@hsettings(max_examples=examples(100))
@given(st.lists(jsonl_line(), min_size=1, max_size=3))
def test_jsonl_lines_keep_their_numbers(lines: list[bytes]) -> None:
    items = list(read_jsonl(write(b"\n\n".join(lines), "r.jsonl")))
    errors = [i for i in items if isinstance(i, RecordError)]
    numbers = {int(e.ref.split(":")[1]) for e in errors}
    assert numbers <= {1 + 2 * n for n in range(len(lines))}


@hsettings(max_examples=examples(100))
@given(BIB_FILES)
def test_bibtex_reader(text: str) -> None:
    check_items(read_bibtex(write(text, "refs.bib")), "refs.bib:")


@hsettings(max_examples=examples(100))
@given(FILE_FIELDS, st.booleans())
def test_bibtex_file_fields(file_field: str, on_disk: bool) -> None:
    bib = write(
        f"@misc{{k,\n  title = {{Paged attention}},\n  file = {{{file_field}}},\n}}\n", "refs.bib"
    )
    if on_disk:
        (bib.parent / "a.pdf").write_bytes(b"%PDF-1.4")
    for record in check_items(read_bibtex(bib), "refs.bib:"):
        assert all(w and "\n" not in w and bad_character(w) is None for w in record.warnings)
        assert record.pdf_file is None or Path(record.pdf_file).is_file()


ZOTERO_VALUES = st.one_of(
    tainted(phrase()),
    DATES.map(str),
    st.sampled_from(["2023-00-00 2023", "0000-00-00 n.d.", "2023-13-45 odd", "10.48550/arXiv.x"]),
    st.integers(-5, 3000),
    st.floats(allow_nan=False),  # SQLite keeps no NaN
    st.binary(max_size=12),
    st.text(min_size=700, max_size=900),
)
ZOTERO_FIELDS = ["title", "abstractNote", "date", "url", "extra", "DOI", "archiveID"]


@st.composite
def zotero_item(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "fields": draw(st.dictionaries(st.sampled_from(ZOTERO_FIELDS), ZOTERO_VALUES, max_size=5)),
        "authors": draw(
            st.lists(st.tuples(tainted(phrase(1, 2)), tainted(phrase(1, 2))), max_size=3)
        ),
        "tags": draw(st.lists(tainted(phrase(1, 20)), max_size=3, unique=True)),
        "file": draw(st.sampled_from([None, "gone.pdf", "page.html"])),
    }


@hsettings(max_examples=examples(60))
@given(st.lists(zotero_item(), max_size=4))
def test_zotero_reader(items: list[dict[str, Any]]) -> None:
    library = new_library(Path(tempfile.mkdtemp(prefix="zotero-", dir=_FOLDERS)) / "Zotero")
    for number, item in enumerate(items):
        item_id = library.item(f"ITEM{number:04d}", authors=item["authors"], tags=item["tags"])
        for name, value in item["fields"].items():
            library.set_field(item_id, name, value)
        if item["file"]:
            library.attach(item_id, f"FILE{number:04d}", None, item["file"])
    library.conn.close()
    records = check_items(read_zotero_folder(library.folder), "zotero:ITEM")
    assert len(list(read_zotero_folder(library.folder))) == len(items)
    assert all(r.followed and r.source_ref.startswith("zotero:ITEM") for r in records)


@hsettings(max_examples=examples(100))
@given(abstracts_file())
def test_abstracts_reader(data: bytes) -> None:
    records = check_items(read_abstracts(write(data, "a.txt")), "a.txt:")
    assert all(r.title_provisional and r.content_id for r in records)


@hsettings(max_examples=examples(60))
@given(st.binary(max_size=400), st.sampled_from(["x.jsonl", "x.bib", "x.txt"]))
def test_random_bytes_under_a_record_name(data: bytes, name: str) -> None:
    read = {"x.jsonl": read_jsonl, "x.bib": read_bibtex, "x.txt": read_abstracts}[name]
    check_items(read(write(data, name)), name + ":")


HTML = (
    "<html><head><title>{title}</title><meta name='author' content='{author}'>"
    "<meta property='article:published_time' content='{date}'></head><body><article>"
    "<h1>{title}</h1><p>{body}</p></article></body></html>"
)


@st.composite
def html_page(draw: st.DrawFn) -> bytes:
    body = " ".join(draw(st.lists(phrase(8, 20), min_size=0, max_size=20)))
    page = HTML.format(
        title=draw(tainted(phrase(1, 10))),
        author=draw(tainted(phrase(1, 3))),
        date=draw(st.sampled_from(["2024-03-01", "2024-02-30", "1200-01-01", "soon", ""])),
        body=draw(tainted(st.just(body))),
    )
    data = page.encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        data = data[: draw(st.integers(0, len(data)))]
    return data


def _article(read, path: Path) -> None:  # type: ignore[no-untyped-def]
    try:
        records = list(read(path))
    except ArticleError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    (record,) = records
    stored_text_is_clean(record)


@hsettings(max_examples=examples(40))
@given(st.one_of(html_page(), st.binary(max_size=300)))
def test_html_article_reader(data: bytes) -> None:
    _article(html_article_file, write(data, "page.html"))


@st.composite
def text_article(draw: st.DrawFn) -> bytes:
    front = ""
    if draw(st.booleans()):
        title = draw(tainted(phrase(1, 8)))
        date = draw(st.sampled_from(["2024-03-01", "2024-02-30", "13/13/2024", "", "9999-01-01"]))
        front = f"---\ntitle: {title}\ndate: {date}\nauthor: {draw(tainted(phrase(1, 3)))}\n---\n"
    heading = draw(st.sampled_from(["# A heading\n", "", "#\n", "\x07\n"]))
    body = "\n".join(draw(st.lists(tainted(phrase(3, 30)), max_size=6)))
    return (front + heading + body).encode("utf-8", "surrogatepass")


@hsettings(max_examples=examples(60))
@given(st.one_of(text_article(), st.binary(max_size=300)), st.sampled_from(["a.md", "a.txt"]))
def test_text_article_reader(data: bytes, name: str) -> None:
    _article(text_article_file, write(data, name))


@pytest.fixture(scope="module")
def atom_entry() -> tuple[str, str, str]:
    """A real feed from the arXiv replay corpus, split around its first entry."""
    feed = corpus("arxiv_api", "arxiv.py_2016_xml", "id_list_1111.2011v2.xml").read_text()
    start, end = feed.index("<entry>"), feed.index("</entry>") + len("</entry>")
    return feed[:start], feed[start:end], feed[end:]


ATOM_FIELDS = ["id", "title", "summary", "published", "updated", "name", "arxiv:doi"]


@st.composite
def atom_mutation(draw: st.DrawFn) -> list[tuple[str, str | None]]:
    """Which elements of the entry to drop (None) or to give another text."""
    values = st.one_of(
        st.none(),
        tainted(phrase()),
        st.sampled_from(["", "2016-13-45T00:00:00Z", "yesterday", "http://arxiv.org/abs/x"]),
    )
    return draw(st.lists(st.tuples(st.sampled_from(ATOM_FIELDS), values), max_size=4))


def _mutate_entry(entry: str, mutations: list[tuple[str, str | None]]) -> str:
    for tag, value in mutations:
        pattern = re.compile(rf"<{tag}\b[^>]*>.*?</{tag}>", re.S)
        text = value.replace("&", "&amp;").replace("<", "&lt;") if value is not None else None
        element = "" if text is None else f"<{tag}>{text}</{tag}>"
        entry = pattern.sub(lambda _, element=element: element, entry, count=1)
    return entry


@hsettings(max_examples=examples(100))
@given(atom_mutation(), st.integers(0, 2))
def test_arxiv_atom_entries(
    atom_entry: tuple[str, str, str], mutations: list[tuple[str, str | None]], copies: int
) -> None:
    head, entry, tail = atom_entry
    feed = head + _mutate_entry(entry, mutations) * max(copies, 1) + tail
    data = feed.encode("utf-8", "surrogatepass")
    _total, items = read_feed(data, ArxivSettings(), "test")
    assert len(items) == max(copies, 1)
    for item in items:
        if isinstance(item, RecordError):
            assert item.ref.startswith("arXiv ") and ": " in str(item), str(item)
        else:
            stored_text_is_clean(item)


@hsettings(max_examples=examples(40))
@given(st.binary(max_size=500))
def test_arxiv_feed_of_random_bytes(data: bytes) -> None:
    total, items = read_feed(data, ArxivSettings(), "test")
    assert isinstance(total, int) and all(isinstance(i, SourceRecord | RecordError) for i in items)


TOML_VALUES = st.sampled_from(
    [
        *("true", '"text"', "5", "-1", "1.5", "[]", '["a", 1]', "{ a = 1 }", '"\\u0007"'),
        *(
            '"\\ud800"',
            '"unterminated',
            "",
            "nan",
            "1979-05-27",
            '"""long"""',
            '"' + "x" * 5000 + '"',
        ),
    ]
)


@st.composite
def config_text(draw: st.DrawFn) -> bytes:
    """The commented frontier.toml `init` writes, with assignments retyped, dropped or given
    twice, cut short, or holding bytes that are not UTF-8."""
    lines = default_config_text().splitlines()
    assignments = [n for n, line in enumerate(lines) if re.match(r"^[a-z_]+ = ", line)]
    for _ in range(draw(st.integers(1, 3))):
        number = draw(st.sampled_from(assignments))
        key = lines[number].split(" = ", 1)[0]
        action = draw(st.sampled_from(["retype", "retype", "drop", "twice"]))
        if action == "retype":
            lines[number] = f"{key} = {draw(TOML_VALUES)}"
        elif action == "drop":
            lines[number] = ""
        else:
            lines[number] += "\n" + lines[number]
    data = "\n".join(lines).encode()
    if draw(st.integers(0, 4)) == 0:
        data = data[: draw(st.integers(0, len(data)))]
    if draw(st.integers(0, 4)) == 0:
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=3)) + data[at:]
    return data


@hsettings(max_examples=examples(100))
@given(st.one_of(config_text(), st.binary(max_size=200)))
def test_frontier_toml(data: bytes) -> None:
    path = write(data, "frontier.toml")
    try:
        load_settings(path)
    except ConfigError as exc:
        message = str(exc)
        assert message.startswith(str(path)) and "\n" not in message.split(": ", 1)[0], message


# Shrunk failures, kept as plain tests -----------------------------------------------------------


def test_a_config_that_is_not_utf8_names_the_byte() -> None:
    path = write(b"\xff\xfe[field]\nname = 'x'\n", "frontier.toml")
    with pytest.raises(ConfigError, match=r"not UTF-8 text \(byte 0xFF at offset 0\)"):
        load_settings(path)


def test_a_config_value_of_the_wrong_type_is_named_not_coerced() -> None:
    path = write("[ingest]\nworkers = true\n", "frontier.toml")
    with pytest.raises(ConfigError, match=r"key 'ingest.workers': .*got true/false"):
        load_settings(path)
    path.write_text('[field]\nname = "a\\u0007b"\n')
    with pytest.raises(ConfigError, match=r"key 'field.name': control character U\+0007"):
        load_settings(path)


def test_an_environment_override_that_cannot_be_parsed_is_a_config_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FRONTIER_LLM__ENDPOINTS", "not json")
    with pytest.raises(ConfigError, match="FRONTIER_\\* environment"):
        load_settings(write("", "frontier.toml"))


def test_an_arxiv_abstract_with_a_c1_control_character_is_kept_without_it(
    atom_entry: tuple[str, str, str],
) -> None:
    head, entry, tail = atom_entry
    feed = head + entry.replace("Theoretical description", "Theoretical\x80 description") + tail
    _total, (record,) = read_feed(feed.encode(), ArxivSettings(), "test")
    assert isinstance(record, SourceRecord) and record.abstract
    assert record.abstract.startswith("Theoretical description")


def test_a_jsonl_number_title_names_the_line_and_the_field() -> None:
    (error,) = read_jsonl(write('{"title": 5}\n', "r.jsonl"))
    assert str(error) == "r.jsonl:1: title: expected text, got a number"
