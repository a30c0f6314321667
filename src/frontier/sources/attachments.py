"""Files a reference manager attaches to an item: the `file` field of a BibTeX entry (Better
BibTeX's `path1;path2`, Zotero's and JabRef's `Title:path:type;...`), and the choice of the PDF
among them that holds the item's full text."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from frontier.sources.records import printable

PDF_TYPE = "application/pdf"
_ESCAPED = ":;\\"
_ESCAPE = re.compile(r"\\([:;\\])")


@dataclass(frozen=True)
class Attachment:
    """One file an item names: its path as written and its type when the entry gives one."""

    path: str
    content_type: str = ""

    @property
    def is_pdf(self) -> bool:
        if self.content_type:
            return self.content_type.lower() == PDF_TYPE
        return self.path.lower().endswith(".pdf")


@dataclass
class Found:
    """The PDF that holds the item's full text, if one is on disk, and what was missing."""

    pdf: Path | None = None
    warnings: list[str] = field(default_factory=list)


def split_unescaped(text: str, separator: str) -> list[str]:
    """`text` cut at each `separator` no backslash escapes; the escapes are kept as written."""
    parts, current, position = [], [], 0
    while position < len(text):
        pair = text[position : position + 2]
        if len(pair) == 2 and pair[0] == "\\" and pair[1] in _ESCAPED:
            current.append(pair)
            position += 2
            continue
        if text[position] == separator:
            parts.append("".join(current))
            current = []
        else:
            current.append(text[position])
        position += 1
    parts.append("".join(current))
    return parts


def unescape(text: str) -> str:
    """`\\:`, `\\;` and `\\\\` undone; any other backslash is kept (a Windows path as is)."""
    return _ESCAPE.sub(lambda match: match.group(1), text)


def _attachment(entry: str) -> Attachment | None:
    """One `;`-separated part: a bare path (Better BibTeX) or `Title:path:type` (Zotero,
    JabRef, Mendeley); a drive letter left unescaped (`C:\\...`) stays part of the path."""
    fields = split_unescaped(entry, ":")
    if len(fields) >= 3:
        path, content_type = ":".join(fields[1:-1]), fields[-1].strip()
    elif len(fields) == 2 and len(fields[0]) == 1 and fields[0].isalpha():
        path, content_type = ":".join(fields), ""
    elif len(fields) == 2:
        path, content_type = fields[1], ""
    else:
        path, content_type = fields[0], ""
    path = unescape(path).strip()
    if "/" not in content_type:  # JabRef writes `PDF` where Zotero writes the MIME type
        content_type = PDF_TYPE if content_type.lower() == "pdf" else ""
    return Attachment(path, content_type) if path else None


def parse_file_field(value: str) -> list[Attachment]:
    """Every file a BibTeX `file` field names, in the order it names them."""
    found = (_attachment(entry) for entry in split_unescaped(value.strip(), ";"))
    return [attachment for attachment in found if attachment is not None]


def resolve(path: str, base: Path) -> Path:
    """A path as an export writes it, relative to the folder of the file that names it."""
    return base / os.path.expanduser(path)


def first_pdf(attachments: list[tuple[Attachment, Path | None]]) -> Found:
    """The first PDF among the item's files that is on disk; each PDF named before it (or
    instead of it) that is not on disk, or cannot be located (None), becomes a warning naming
    its path."""
    found = Found()
    for attachment, path in attachments:
        if not attachment.is_pdf:
            continue
        if path is not None and path.is_file():
            found.pdf = path
            return found
        found.warnings.append(f"attached file not found: {printable(attachment.path)}")
    return found
