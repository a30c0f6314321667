"""A Zotero data folder made by the tests: `zotero.sqlite` with the tables and columns of Zotero's
published schema that frontier reads (names and types as Zotero declares them), and files under
`storage/<attachment key>/` the way Zotero keeps them."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

SCHEMA = """
CREATE TABLE itemTypes (
    itemTypeID INTEGER PRIMARY KEY,
    typeName TEXT,
    templateItemTypeID INT,
    display INT DEFAULT 1
);
CREATE TABLE fields (
    fieldID INTEGER PRIMARY KEY,
    fieldName TEXT,
    fieldFormatID INT
);
CREATE TABLE creatorTypes (
    creatorTypeID INTEGER PRIMARY KEY,
    creatorType TEXT
);
CREATE TABLE libraries (
    libraryID INTEGER PRIMARY KEY,
    type TEXT NOT NULL,
    editable INT NOT NULL,
    filesEditable INT NOT NULL,
    version INT NOT NULL DEFAULT 0,
    storageVersion INT NOT NULL DEFAULT 0,
    lastSync INT NOT NULL DEFAULT 0,
    archived INT NOT NULL DEFAULT 0
);
CREATE TABLE items (
    itemID INTEGER PRIMARY KEY,
    itemTypeID INT NOT NULL,
    dateAdded TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    dateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    clientDateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    libraryID INT NOT NULL,
    key TEXT NOT NULL,
    version INT NOT NULL DEFAULT 0,
    synced INT NOT NULL DEFAULT 0,
    UNIQUE (libraryID, key),
    FOREIGN KEY (libraryID) REFERENCES libraries(libraryID) ON DELETE CASCADE
);
CREATE TABLE itemDataValues (
    valueID INTEGER PRIMARY KEY,
    value UNIQUE
);
CREATE TABLE itemData (
    itemID INT,
    fieldID INT,
    valueID,
    PRIMARY KEY (itemID, fieldID),
    FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE,
    FOREIGN KEY (fieldID) REFERENCES fields(fieldID),
    FOREIGN KEY (valueID) REFERENCES itemDataValues(valueID)
);
CREATE TABLE itemNotes (
    itemID INTEGER PRIMARY KEY,
    parentItemID INT,
    note TEXT,
    title TEXT,
    FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE,
    FOREIGN KEY (parentItemID) REFERENCES items(itemID) ON DELETE CASCADE
);
CREATE TABLE itemAttachments (
    itemID INTEGER PRIMARY KEY,
    parentItemID INT,
    linkMode INT,
    contentType TEXT,
    charsetID INT,
    path TEXT,
    syncState INT DEFAULT 0,
    storageModTime INT,
    storageHash TEXT,
    lastProcessedModificationTime INT,
    FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE,
    FOREIGN KEY (parentItemID) REFERENCES items(itemID) ON DELETE CASCADE
);
CREATE TABLE tags (
    tagID INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE itemTags (
    itemID INT NOT NULL,
    tagID INT NOT NULL,
    type INT NOT NULL,
    PRIMARY KEY (itemID, tagID),
    FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE,
    FOREIGN KEY (tagID) REFERENCES tags(tagID) ON DELETE CASCADE
);
CREATE TABLE creators (
    creatorID INTEGER PRIMARY KEY,
    firstName TEXT,
    lastName TEXT,
    fieldMode INT,
    UNIQUE (lastName, firstName, fieldMode)
);
CREATE TABLE itemCreators (
    itemID INT NOT NULL,
    creatorID INT NOT NULL,
    creatorTypeID INT NOT NULL DEFAULT 1,
    orderIndex INT NOT NULL DEFAULT 0,
    PRIMARY KEY (itemID, creatorID, creatorTypeID, orderIndex),
    UNIQUE (itemID, orderIndex),
    FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE,
    FOREIGN KEY (creatorID) REFERENCES creators(creatorID) ON DELETE CASCADE,
    FOREIGN KEY (creatorTypeID) REFERENCES creatorTypes(creatorTypeID)
);
CREATE TABLE collections (
    collectionID INTEGER PRIMARY KEY,
    collectionName TEXT NOT NULL,
    parentCollectionID INT DEFAULT NULL,
    clientDateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    libraryID INT NOT NULL,
    key TEXT NOT NULL,
    version INT NOT NULL DEFAULT 0,
    synced INT NOT NULL DEFAULT 0,
    UNIQUE (libraryID, key),
    FOREIGN KEY (libraryID) REFERENCES libraries(libraryID) ON DELETE CASCADE,
    FOREIGN KEY (parentCollectionID) REFERENCES collections(collectionID) ON DELETE CASCADE
);
CREATE TABLE collectionItems (
    collectionID INT NOT NULL,
    itemID INT NOT NULL,
    orderIndex INT NOT NULL DEFAULT 0,
    PRIMARY KEY (collectionID, itemID),
    FOREIGN KEY (collectionID) REFERENCES collections(collectionID) ON DELETE CASCADE,
    FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE
);
CREATE TABLE deletedItems (
    itemID INTEGER PRIMARY KEY,
    dateDeleted DEFAULT CURRENT_TIMESTAMP NOT NULL,
    FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE
);
"""

# a few rows of Zotero's global tables, with the ids Zotero gives them
ITEM_TYPES = {"annotation": 1, "attachment": 3, "journalArticle": 22, "note": 28, "preprint": 31}
FIELDS = {
    "title": 1,
    "abstractNote": 2,
    "date": 6,
    "url": 13,
    "extra": 16,
    "DOI": 59,
    "archiveID": 116,
}
CREATOR_TYPES = {"author": 8, "editor": 10}
IMPORTED_FILE, IMPORTED_URL, LINKED_FILE, LINKED_URL = 0, 1, 2, 3


@dataclass
class ZoteroLibrary:
    """A data folder being filled; `conn` is open on its zotero.sqlite."""

    folder: Path
    conn: sqlite3.Connection
    keys: dict[int, str] = field(default_factory=dict)

    def item(
        self,
        key: str,
        item_type: str = "journalArticle",
        fields: dict[str, str] | None = None,
        authors: Sequence[tuple[str, str]] = (),
        tags: Sequence[str] = (),
        library_id: int = 1,
    ) -> int:
        cursor = self.conn.execute(
            "INSERT INTO items (itemTypeID, libraryID, key) VALUES (?, ?, ?)",
            (ITEM_TYPES[item_type], library_id, key),
        )
        item_id = int(cursor.lastrowid or 0)
        self.keys[item_id] = key
        for name, value in (fields or {}).items():
            self.set_field(item_id, name, value)
        for order, (first, last) in enumerate(authors):
            creator = self._row_of("creators", "creatorID", "firstName", first, "lastName", last)
            self.conn.execute(
                "INSERT INTO itemCreators VALUES (?, ?, ?, ?)",
                (item_id, creator, CREATOR_TYPES["author"], order),
            )
        for tag in tags:
            tag_id = self._row_of("tags", "tagID", "name", tag)
            self.conn.execute("INSERT INTO itemTags VALUES (?, ?, 0)", (item_id, tag_id))
        self.conn.commit()
        return item_id

    def _row_of(self, table: str, key: str, *columns_and_values: object) -> int:
        """The row holding these values, added when there is none (Zotero shares values,
        creators and tags between items). Text that is not valid UTF-8 is stored as Zotero
        could hold it: as TEXT made from the bytes."""
        columns = [str(c) for c in columns_and_values[::2]]
        values = [_param(v) for v in columns_and_values[1::2]]
        marks = ["CAST(? AS TEXT)" if isinstance(v, bytes) else "?" for v in values]
        where = " AND ".join(f"{c} IS {m}" for c, m in zip(columns, marks, strict=True))
        row = self.conn.execute(f"SELECT {key} FROM {table} WHERE {where}", values).fetchone()
        if row is not None:
            return int(row[0])
        cursor = self.conn.execute(
            f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join(marks)})", values
        )
        return int(cursor.lastrowid or 0)

    def set_field(self, item_id: int, name: str, value: object) -> None:
        """What Zotero does when a field is edited: the value is shared, the item points at it."""
        value_id = self._row_of("itemDataValues", "valueID", "value", value)
        self.conn.execute(
            "INSERT OR REPLACE INTO itemData (itemID, fieldID, valueID) VALUES (?, ?, ?)",
            (item_id, FIELDS[name], value_id),
        )
        self.conn.commit()

    def attach(
        self,
        parent: int | None,
        key: str,
        source: Path | None,
        name: str,
        content_type: str = "application/pdf",
    ) -> int:
        """An imported file: `source` copied to storage/KEY/NAME (None: the file is missing, as
        when Zotero has not downloaded it yet)."""
        item_id = self.item(key, "attachment", {"title": name})
        if source is not None:
            (self.folder / "storage" / key).mkdir(parents=True)
            shutil.copy(source, self.folder / "storage" / key / name)
        self.conn.execute(
            "INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path) "
            "VALUES (?, ?, ?, ?, ?)",
            (item_id, parent, IMPORTED_FILE, content_type, f"storage:{name}"),
        )
        self.conn.commit()
        return item_id

    def note(self, parent: int, key: str, text: str) -> int:
        item_id = self.item(key, "note")
        self.conn.execute(
            "INSERT INTO itemNotes (itemID, parentItemID, note, title) VALUES (?, ?, ?, ?)",
            (item_id, parent, f"<p>{text}</p>", text),
        )
        self.conn.commit()
        return item_id

    def collection(self, name: str, key: str, parent: int | None = None) -> int:
        cursor = self.conn.execute(
            "INSERT INTO collections (collectionName, parentCollectionID, libraryID, key) "
            "VALUES (?, ?, 1, ?)",
            (name, parent, key),
        )
        self.conn.commit()
        return int(cursor.lastrowid or 0)

    def file_in(self, collection: int, *items: int) -> None:
        self.conn.executemany(
            "INSERT INTO collectionItems (collectionID, itemID) VALUES (?, ?)",
            [(collection, item) for item in items],
        )
        self.conn.commit()

    def trash(self, item_id: int) -> None:
        self.conn.execute("INSERT INTO deletedItems (itemID) VALUES (?)", (item_id,))
        self.conn.commit()


def _param(value: object) -> object:
    """A value as SQLite is given it; text with lone surrogates as the bytes they stand for."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "surrogatepass")
    return value


def new_library(folder: Path) -> ZoteroLibrary:
    """An empty Zotero data folder: a user library and Zotero's global rows frontier reads."""
    (folder / "storage").mkdir(parents=True)
    conn = sqlite3.connect(folder / "zotero.sqlite")
    conn.execute("PRAGMA synchronous = OFF")  # a test's file: no need to wait for the disk
    conn.executescript(SCHEMA)
    conn.executemany(
        "INSERT INTO itemTypes (itemTypeID, typeName) VALUES (?, ?)", _swap(ITEM_TYPES)
    )
    conn.executemany("INSERT INTO fields (fieldID, fieldName) VALUES (?, ?)", _swap(FIELDS))
    conn.executemany(
        "INSERT INTO creatorTypes (creatorTypeID, creatorType) VALUES (?, ?)",
        _swap(CREATOR_TYPES),
    )
    conn.execute(
        "INSERT INTO libraries (libraryID, type, editable, filesEditable) VALUES (1, 'user', 1, 1)"
    )
    conn.commit()
    return ZoteroLibrary(folder, conn)


def _swap(table: dict[str, int]) -> list[tuple[int, str]]:
    return [(number, name) for name, number in table.items()]
