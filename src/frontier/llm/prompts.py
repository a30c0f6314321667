"""Prompt templates are files in `frontier/prompts/`, each with a name and a version. The shared
part (system, then any bundle) comes first and the varying part last, so a prefix-caching
server can reuse it across calls."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import jinja2

_FRONT = re.compile(r"^---\n(.*?)\n---\n", re.DOTALL)
_PART = re.compile(r"^## (system|user)\s*$", re.MULTILINE)
_ENV = jinja2.Environment(
    undefined=jinja2.StrictUndefined, keep_trailing_newline=False, autoescape=False
)


class PromptError(Exception):
    """A prompt file that is missing or malformed."""


@dataclass(frozen=True)
class Prompt:
    name: str
    version: str
    system: str
    user: str

    @property
    def tag(self) -> str:
        """What the ledger and every stored sentence record: name@version."""
        return f"{self.name}@{self.version}"

    def messages(self, **values: Any) -> list[dict[str, str]]:
        try:
            return [
                {
                    "role": "system",
                    "content": _ENV.from_string(self.system).render(**values).strip(),
                },
                {"role": "user", "content": _ENV.from_string(self.user).render(**values).strip()},
            ]
        except jinja2.UndefinedError as exc:
            raise PromptError(f"prompt {self.tag}: {exc.message}") from exc


@cache
def load_prompt(name: str) -> Prompt:
    try:
        text = (
            resources.files("frontier.prompts").joinpath(f"{name}.md").read_text(encoding="utf-8")
        )
    except FileNotFoundError as exc:
        raise PromptError(f"no prompt file named {name}.md") from exc
    front = _FRONT.match(text)
    if not front:
        raise PromptError(f"{name}.md: missing the --- front matter with name and version")
    meta = dict(line.split(":", 1) for line in front.group(1).splitlines() if ":" in line)
    parts = _PART.split(text[front.end() :])
    sections = {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}
    if "version" not in meta or set(sections) != {"system", "user"}:
        raise PromptError(f"{name}.md: needs a version and both '## system' and '## user' parts")
    return Prompt(
        meta.get("name", name).strip(),
        meta["version"].strip(),
        sections["system"],
        sections["user"],
    )
