"""A Zotero data folder (`zotero.sqlite` and `storage/`): each regular item of the library
becomes a record followed by its Zotero key, with its title, creators, date, DOI, arXiv id,
abstract and URL, its collections and tags as hints, and its first PDF on disk attached so it is
read in full. Notes, annotations, other attachments and items in the trash are skipped; a PDF
that is an item of its own (no parent) is read as one with a provisional title.

Zotero's database is only ever read, and without a lock: opened with `immutable=1` a running
Zotero (which holds the file locked) is neither blocked nor disturbed. When a write-ahead log
lies beside it, its changes are not in the file yet: a copy of both is read instead."""

from __future__ import annotations

import contextlib
import re
import shutil
import sqlite3
import tempfile
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from frontier.errors import bad_character
from frontier.model import MAX_CATEGORIES, MAX_CATEGORY, MAX_NAME, SourceRecord
from frontier.sources.attachments import PDF_TYPE, Attachment, first_pdf
from frontier.sources.ids import find_arxiv_id
from frontier.sources.local import record_from_fields
from frontier.sources.records import RecordError, describe_invalid, printable

DATABASE = "zotero.sqlite"
USER_LIBRARY = 1  # Zotero's own library; group libraries come after it
LINKED_URL = 3  # an attachment's linkMode when it is a web link, no file
_STORED = "storage:"  # an imported file: storage/<attachment key>/<name>
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.IGNORECASE)
_SQL_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:\s|$)")  # Zotero's "2023-09-00 Sept. 2023"

# Zotero's own tables, read as a source. SQL lives in `store/` for frontier's database; these
# queries are this reader's business, each small and named after what it reads.
_ITEMS = """
    SELECT items.itemID, items.key, items.libraryID, itemTypes.typeName
    FROM items JOIN itemTypes ON itemTypes.itemTypeID = items.itemTypeID
    LEFT JOIN itemAttachments ON itemAttachments.itemID = items.itemID
    WHERE items.itemID NOT IN (SELECT itemID FROM deletedItems)
      AND (itemTypes.typeName NOT IN ('note', 'attachment', 'annotation')
           OR (itemTypes.typeName = 'attachment' AND itemAttachments.parentItemID IS NULL
               AND itemAttachments.contentType = ?))
    ORDER BY items.itemID"""
_FIELD_VALUES = """
    SELECT itemData.itemID, fields.fieldName, itemDataValues.value
    FROM itemData JOIN fields ON fields.fieldID = itemData.fieldID
    JOIN itemDataValues ON itemDataValues.valueID = itemData.valueID"""
_CREATORS = """
    SELECT itemCreators.itemID, creators.firstName, creators.lastName, creatorTypes.creatorType
    FROM itemCreators JOIN creators ON creators.creatorID = itemCreators.creatorID
    JOIN creatorTypes ON creatorTypes.creatorTypeID = itemCreators.creatorTypeID
    ORDER BY itemCreators.itemID, itemCreators.orderIndex"""
# a standalone PDF is its own attachment, so it is listed under its own id
_FILES = """
    SELECT COALESCE(itemAttachments.parentItemID, itemAttachments.itemID), items.key,
           itemAttachments.linkMode, itemAttachments.contentType, itemAttachments.path
    FROM itemAttachments JOIN items ON items.itemID = itemAttachments.itemID
    WHERE itemAttachments.itemID NOT IN (SELECT itemID FROM deletedItems)
    ORDER BY itemAttachments.itemID"""
_COLLECTIONS = "SELECT collectionID, collectionName, parentCollectionID FROM collections"
_COLLECTION_ITEMS = "SELECT collectionID, itemID FROM collectionItems"
_TAGS = """
    SELECT itemTags.itemID, tags.name FROM itemTags JOIN tags ON tags.tagID = itemTags.tagID
    ORDER BY tags.name"""


@dataclass(frozen=True)
class StoredFile:
    """One attachment's file as Zotero records it."""

    key: str
    link_mode: int
    content_type: str
    path: str


@dataclass
class LibraryItem:
    item_id: int
    key: str
    library_id: int
    type_name: str
    fields: dict[str, str] = field(default_factory=dict)
    creators: list[tuple[str, str]] = field(default_factory=list)  # (name, creator type)
    files: list[StoredFile] = field(default_factory=list)
    collections: list[str] = field(default_factory=list)  # paths such as "Serving/KV cache"
    tags: list[str] = field(default_factory=list)

    @property
    def ref(self) -> str:
        """How messages and the store name the item: its key, in its library."""
        if self.library_id == USER_LIBRARY:
            return f"zotero:{self.key}"
        return f"zotero:{self.library_id}/{self.key}"


@dataclass
class Library:
    items: list[LibraryItem]
    collection_paths: dict[int, str]
    collection_parent: dict[int, int | None]
    collection_items: dict[int, set[int]]

    def chosen(self, wanted: Sequence[str]) -> tuple[list[LibraryItem], list[str]]:
        """The items in the collections named (by name or path, sub-collections included; all
        items when none is named), and the names that match no collection."""
        if not wanted:
            return self.items, []
        matched = {want: self._matching(want) for want in wanted}
        roots = {cid for ids in matched.values() for cid in ids}
        kept = {cid for cid in self.collection_paths if self._under(cid, roots)}
        members = {item for cid in kept for item in self.collection_items.get(cid, set())}
        unknown = [want for want, ids in matched.items() if not ids]
        return [item for item in self.items if item.item_id in members], unknown

    def _matching(self, wanted: str) -> set[int]:
        folded = wanted.strip().strip("/").casefold()
        return {
            cid
            for cid, path in self.collection_paths.items()
            if folded in (path.casefold(), path.rsplit("/", 1)[-1].casefold())
        }

    def _under(self, collection_id: int, roots: set[int]) -> bool:
        seen: set[int] = set()
        current: int | None = collection_id
        while current is not None and current not in seen:
            if current in roots:
                return True
            seen.add(current)
            current = self.collection_parent.get(current)
        return False


@contextlib.contextmanager
def opened(database: Path) -> Iterator[sqlite3.Connection]:
    """Zotero's database, read-only and without a lock (a copy when a write-ahead log holds
    changes the file does not have yet)."""
    wal = database.with_name(database.name + "-wal")
    with contextlib.ExitStack() as stack:
        if wal.is_file() and wal.stat().st_size > 0:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="zotero-")))
            shutil.copyfile(database, folder / database.name)
            shutil.copyfile(wal, folder / wal.name)
            conn = sqlite3.connect(folder / database.name)
            conn.execute("PRAGMA query_only = 1")
        else:
            uri = f"{database.resolve().as_uri()}?mode=ro&immutable=1"
            conn = sqlite3.connect(uri, uri=True)
        stack.callback(conn.close)
        # text that is not UTF-8 fails the item's checks, not the reading of the whole library
        conn.text_factory = lambda data: data.decode("utf-8", errors="surrogateescape")
        yield conn


def load_library(database: Path) -> Library:
    """Every item the reader may read, with what each holds, in one pass over the database."""
    with opened(database) as conn:
        items = {
            row[0]: LibraryItem(row[0], row[1], row[2], row[3])
            for row in conn.execute(_ITEMS, (PDF_TYPE,))
        }
        _add_details(conn, items)
        names, parents = {}, {}
        for cid, name, parent in conn.execute(_COLLECTIONS):
            names[cid], parents[cid] = _text_of(name), parent
        members: dict[int, set[int]] = defaultdict(set)
        for cid, item_id in conn.execute(_COLLECTION_ITEMS):
            members[cid].add(item_id)
    paths = {cid: _collection_path(cid, names, parents) for cid in names}
    for cid, item_ids in members.items():
        for item_id in item_ids & items.keys():
            items[item_id].collections.append(paths.get(cid, ""))
    return Library(list(items.values()), paths, parents, dict(members))


def _add_details(conn: sqlite3.Connection, items: dict[int, LibraryItem]) -> None:
    """Each item's field values, creators, files and tags (rows of other items are passed by)."""
    for item_id, name, value in conn.execute(_FIELD_VALUES):
        if item_id in items and value is not None:
            items[item_id].fields[name] = _text_of(value)
    for item_id, first, last, kind in conn.execute(_CREATORS):
        if item_id in items:
            name = _creator_name(_text_of(first or ""), _text_of(last or ""))
            items[item_id].creators.append((name, kind))
    for item_id, key, link_mode, content_type, path in conn.execute(_FILES):
        if item_id in items:
            stored = StoredFile(key, link_mode or 0, content_type or "", _text_of(path or ""))
            items[item_id].files.append(stored)
    for item_id, name in conn.execute(_TAGS):
        if item_id in items:
            items[item_id].tags.append(_text_of(name))


def _text_of(value: object) -> str:
    """A value as text: SQLite keeps what it was given, a number or bytes as well as text
    (bytes that are not UTF-8 stay marked, and fail the checks of the field holding them)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="surrogateescape")
    return str(value)


def _creator_name(first: str, last: str) -> str:
    return " ".join(part.strip() for part in (first, last) if part.strip())


def _collection_path(cid: int, names: dict[int, str], parents: dict[int, int | None]) -> str:
    parts: list[str] = []
    current: int | None = cid
    while current is not None and current in names and len(parts) <= len(names):
        parts.append(names[current])
        current = parents.get(current)
    return "/".join(reversed(parts))


def read_zotero_folder(
    folder: Path, collections: Sequence[str] = ()
) -> Iterator[SourceRecord | RecordError]:
    """Every item of the Zotero data folder (of the named collections, when some are named)."""
    name = f"{printable(folder.name)}/{DATABASE}"
    try:
        library = load_library(folder / DATABASE)
    except sqlite3.DatabaseError as exc:
        yield RecordError(name, f"cannot read Zotero's database: {exc}")
        return
    items, unknown = library.chosen(collections)
    for wanted in unknown:
        yield RecordError(
            name, f"[ingest] zotero_collections: no collection named {printable(wanted)!r}"
        )
    for item in items:
        try:
            yield item_record(item, folder)
        except RecordError as exc:
            yield exc


def item_record(item: LibraryItem, folder: Path) -> SourceRecord:
    """The record of one Zotero item; RecordError names the item and the field that fails."""
    fields = item.fields
    found = first_pdf([(_attachment(f), _file_path(f, folder)) for f in item.files])
    title, provisional = _title(item, found.pdf)
    mapping: dict[str, Any] = {
        "id": _arxiv_id(fields),
        "doi": fields.get("DOI") or None,
        "title": title,
        "authors": _authors(item.creators),
        "date": _date(fields.get("date", "")),
        "abstract": fields.get("abstractNote") or None,
        "url": fields.get("url") if re.match(r"https?://", fields.get("url", "")) else None,
    }
    record = record_from_fields(mapping, "zotero", item.ref)
    extra = {
        "followed": True,
        "title_provisional": record.title_provisional or provisional,
        "pdf_file": str(found.pdf) if found.pdf else None,
        "categories": _hints(item.tags),
        "collection": _joined(sorted(set(item.collections))),
        "warnings": [*record.warnings, *found.warnings],
    }
    try:
        return SourceRecord.model_validate({**record.model_dump(), **extra})
    except ValidationError as exc:
        raise RecordError(item.ref, describe_invalid(exc, {"categories": "tags"})) from None


def _title(item: LibraryItem, pdf: Path | None) -> tuple[str | None, bool]:
    """The item's title, and whether it is provisional: a standalone PDF's title (most often its
    file name) and an untitled item's are, and the PDF's first page replaces them."""
    given = item.fields.get("title", "").strip()
    if given and item.type_name != "attachment":
        return given, False
    if given or pdf is not None:
        return given or (pdf.stem if pdf else ""), True
    return None, False


def _attachment(stored: StoredFile) -> Attachment:
    """The attachment as a message names it: an imported file by its place under storage/."""
    shown = stored.path
    if stored.path.startswith(_STORED):
        shown = f"storage/{stored.key}/{stored.path.removeprefix(_STORED)}"
    return Attachment(shown, stored.content_type)


def _file_path(stored: StoredFile, folder: Path) -> Path | None:
    """Where the attachment's file is: an imported one under storage/, a linked one where it
    was linked from. A path relative to Zotero's base folder for linked files (a setting of
    the Zotero profile, not of the data folder) cannot be located."""
    if stored.link_mode == LINKED_URL or not stored.path:
        return None
    if stored.path.startswith(_STORED):
        return folder / "storage" / stored.key / stored.path.removeprefix(_STORED)
    path = Path(stored.path)
    return path if path.is_absolute() else None


def _arxiv_id(fields: dict[str, str]) -> str | None:
    """The arXiv id an item gives in its archive id, URL, DOI (10.48550/arXiv.*) or extra."""
    if doi := _ARXIV_DOI.match(fields.get("DOI", "").strip()):
        return doi.group(1)
    for name in ("archiveID", "url", "extra"):
        if found := find_arxiv_id(fields.get(name, "")):
            return found[0] + (f"v{found[1]}" if found[1] else "")
    return None


def _authors(creators: list[tuple[str, str]]) -> list[str]:
    """The item's authors in order; its other creators (editors, ...) when it names none."""
    authors = [name for name, kind in creators if kind == "author" and name]
    return authors or [name for name, _ in creators if name]


def _date(value: str) -> str | None:
    """Zotero keeps a date as `YYYY-MM-DD` (00 for what is unknown) before the text typed."""
    match = _SQL_DATE.match(value.strip())
    if not match:
        return value.strip() or None
    year, month, day = match.groups()
    if year == "0000":
        return None
    if month == "00":
        return year
    return f"{year}-{month}" if day == "00" else f"{year}-{month}-{day}"


def _hints(tags: list[str]) -> list[str]:
    """The tags a category may hold (a short line of text), at most as many as it may list."""
    kept = [" ".join(tag.split()) for tag in tags if not bad_character(tag)]
    return [tag for tag in kept if 0 < len(tag) <= MAX_CATEGORY][:MAX_CATEGORIES]


def _joined(paths: list[str]) -> str | None:
    """The item's collections as one line, as many as fit in a collection's name."""
    line = ""
    for path in paths:
        longer = f"{line}; {path}" if line else path
        if len(longer) > MAX_NAME:
            break
        line = longer
    return line or None
