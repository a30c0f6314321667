"""Docs that cannot drift: every command, nested ones included, has help text and a row in the
README's command list, that list is exactly the command tree `--help` shows, and every config
section is documented."""

from __future__ import annotations

import re
import tomllib
from typing import Any

import pytest
import typer
from helpers import REPO, run_cli
from typer.testing import CliRunner

from frontier.cli import app
from frontier.errors import EXIT_CODES
from frontier.workspace import default_config_text

README = (REPO / "README.md").read_text()
ROOT = typer.main.get_command(app)


def command_tree(group: Any, prefix: tuple[str, ...] = ()) -> dict[str, Any]:
    """Every command and group under `group`, by its path (`gaps add`)."""
    found: dict[str, Any] = {}
    for name, command in getattr(group, "commands", {}).items():
        path = (*prefix, name)
        found[" ".join(path)] = command
        found.update(command_tree(command, path))
    return found


TREE = command_tree(ROOT)


def readme_commands() -> list[str]:
    """The commands the README's command list names, in its order."""
    section = README.split("\n## Commands\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `frontier ([a-z][a-z -]*)` \|", section, flags=re.MULTILINE)


def listed_in_help(path: str) -> list[str]:
    """The subcommands `frontier PATH --help` lists."""
    result = CliRunner().invoke(app, [*path.split(), "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    commands = result.output.split("Commands", 1)[1] if "Commands" in result.output else ""
    return re.findall(r"^│ ([a-z][a-z-]*) {2,}", commands, flags=re.MULTILINE)


def test_readme_opens_with_exactly_the_two_commands() -> None:
    block = README.split("```")[1].strip().splitlines()
    assert [line.split("#")[0].strip() for line in block] == ["make demo", "make test"]


def test_the_tree_holds_the_nested_groups() -> None:
    assert {"gaps add", "gaps proposed", "conflicts detect", "llm ask", "cache clear"} <= set(TREE)


@pytest.mark.parametrize("path", sorted(TREE))
def test_every_command_has_help_and_is_documented(path: str) -> None:
    command = TREE[path]
    assert (command.help or "").strip(), f"`frontier {path}` has no help text"
    result = CliRunner().invoke(app, [*path.split(), "--help"])
    assert result.exit_code == 0 and "Usage" in result.output, path
    assert path in readme_commands(), f"`frontier {path}` is missing from the README's command list"


def test_readme_command_list_matches_help() -> None:
    documented = readme_commands()
    assert len(documented) == len(set(documented)), "a command is listed twice"
    assert set(documented) == set(TREE)
    for group in ["", *(path for path, c in TREE.items() if hasattr(c, "commands"))]:
        listed = listed_in_help(group)
        below = {p for p in TREE if p.rsplit(" ", 1)[0] == group and p != group}
        if not group:
            below = {p for p in TREE if " " not in p}
        assert {" ".join(filter(None, [group, name])) for name in listed} == below, group


def test_the_installed_entry_point_lists_every_top_level_command() -> None:
    result = run_cli("--help")
    assert result.code == 0
    for path in TREE:
        if " " not in path:
            assert re.search(rf"^│ {path} ", result.out, flags=re.MULTILINE), path


def test_expected_commands_exist() -> None:
    assert {"init", "discover", "add", "ingest", "search", "show", "status", "demo"} <= set(TREE)


def test_every_config_section_is_documented() -> None:
    config = tomllib.loads(default_config_text())
    for section, body in config.items():
        assert f"[{section}]" in README, section
        keys = body[0].keys() if isinstance(body, list) else body.keys()
        for key in keys:
            assert f"`{key}`" in README, f"{section}.{key}"


def test_exit_codes_are_one_table_in_the_readme_and_in_help() -> None:
    section = README.split("Exit codes, the same for every command", 1)[1].split("\n\n", 2)[1]
    rows = re.findall(r"^\| (\d+) \| (.+) \|$", section, flags=re.MULTILINE)
    assert [(int(code), meaning) for code, meaning in rows] == list(EXIT_CODES.items())
    shown = " ".join(CliRunner().invoke(app, ["--help"], env={"COLUMNS": "300"}).output.split())
    for code, meaning in EXIT_CODES.items():
        assert f"{code} {meaning}" in shown, code
