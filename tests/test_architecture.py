"""The README's Architecture section against the code: the rows of every table an addition is a
row of, and the records each stage takes and gives; and the tables against the settings."""

from __future__ import annotations

import importlib
import inspect
import re
from importlib import resources
from pathlib import Path
from typing import get_args

import pytest

from frontier.config import Backend, LLMSettings, Settings
from frontier.curate.steps import STEPS
from frontier.intake.discover import DISCOVERERS
from frontier.llm.backends import BACKENDS
from frontier.web.pages import PAGES, resolve

README = Path(__file__).resolve().parents[1] / "README.md"
REGISTRIES = {
    "PAGES": [page.name for page in PAGES],
    "DISCOVERERS": [discoverer.name for discoverer in DISCOVERERS],
    "STEPS": [step.name for step in STEPS],
    "BACKENDS": list(BACKENDS),
}


def architecture() -> str:
    text = README.read_text(encoding="utf-8")
    return text[text.index("## Architecture") : text.index("## Development")]


def listed(table: str) -> list[str]:
    """The names the README's item for `table` lists, in its order."""
    found = re.search(rf"^- `{table}` \(`[^`]+`\): (.*?)(?=^- |\n\n)", architecture(), re.M | re.S)
    assert found, f"the Architecture section lists no rows of {table}"
    return re.findall(r"`([^`]+)`", found.group(1))


@pytest.mark.parametrize("table", list(REGISTRIES))
def test_the_readme_names_every_row_of_every_table(table: str) -> None:
    assert listed(table) == REGISTRIES[table]


def test_the_records_of_the_stages_table_are_where_it_says() -> None:
    rows = [line for line in architecture().splitlines() if line.startswith("| `")]
    assert len(rows) == 9
    for row in rows:
        paths = re.findall(r"`([\w/]+)\.py`", row)
        modules = [importlib.import_module("frontier." + p.replace("/", ".")) for p in paths]
        records = re.findall(r"`([A-Z]\w*)`", row)
        assert records, row
        for name in records:
            assert any(hasattr(m, name) for m in modules), f"{name} is in none of {paths}"


def test_every_backend_is_a_setting_and_reads_settings_that_exist() -> None:
    assert set(get_args(Backend)) == {"auto", *BACKENDS}
    for kind in BACKENDS.values():
        assert set(kind.settings) <= set(LLMSettings.model_fields), kind.name


def test_every_discoverer_has_its_section_of_the_settings() -> None:
    settings = Settings()
    for discoverer in DISCOVERERS:
        assert Settings.model_fields[discoverer.name].annotation is discoverer.settings
        assert isinstance(discoverer.section(settings), discoverer.settings)


def test_every_page_template_is_packaged() -> None:
    templates = resources.files("frontier.web").joinpath("templates")
    for page in PAGES:
        assert page.template is None or templates.joinpath(page.template).is_file(), page.name
        assert (page.route is None) == (page.view is None), page.name


def test_every_page_names_a_view_and_a_site_writer_that_exist() -> None:
    for page in PAGES:
        if page.view is not None:
            assert len(inspect.signature(resolve(page.view)).parameters) == 2, page.name
        if page.site is not None:
            assert len(inspect.signature(resolve(page.site)).parameters) == 1, page.name
