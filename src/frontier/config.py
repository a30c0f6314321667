"""Settings: `frontier.toml` plus environment overrides, validated by pydantic-settings."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Literal, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
    TomlConfigSettingsSource,
)

from frontier.errors import ConfigError as ConfigError  # re-exported for callers of this module
from frontier.errors import bad_character, kind_of

CONFIG_NAME = "frontier.toml"
_ROUTE_RE = re.compile(r"\s*(?:→|->)\s*([a-z0-9][a-z0-9-]*)\s*$")
_SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")


def _check_slug(value: str) -> str:
    if not _SLUG_RE.match(value):
        raise ValueError("must be lowercase letters, digits and dashes")
    return value


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @field_validator("*")
    @classmethod
    def _printable(cls, value: object) -> object:
        """No control character, lone surrogate or replacement character in any text."""
        for text in _strings(value):
            if problem := bad_character(text):
                raise ValueError(problem)
        return value


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple):
        return [text for item in value for text in _strings(item)]
    if isinstance(value, dict):
        return [text for item in value for text in _strings(item)]
    return []


class OutOfScopeLine(BaseModel):
    """One out-of-scope line; `route_to` names the sibling topic that owns it, if any."""

    text: str = Field(description="What is out of scope")
    route_to: str | None = Field(default=None, description="The sibling topic that owns it, if any")

    @classmethod
    def parse(cls, line: str) -> OutOfScopeLine:
        match = _ROUTE_RE.search(line)
        if not match:
            return cls(text=line.strip())
        return cls(text=line[: match.start()].strip(), route_to=match.group(1))


class Topic(_Section):
    slug: str = Field(description="Short id used in file names and commands")
    title: str = Field(description="Human-readable topic name")
    summary: str = Field(description="One line: what the topic is about")
    in_scope: list[str] = Field(default_factory=list, description="Lines: what belongs here")
    out_of_scope: list[str] = Field(
        default_factory=list, description="Lines; 'text -> sibling-slug' routes to a sibling topic"
    )
    arxiv_query: str = Field(default="", description='arXiv search terms, e.g. ti:"KV cache"')
    arxiv_categories: list[str] = Field(
        default_factory=list, description="arXiv categories the query is limited to, e.g. cs.LG"
    )
    window_days: int = Field(default=30, ge=1, description="Discovery window in days")
    gaps: list[str] = Field(default_factory=list, description="Open questions this topic tracks")
    theses: list[str] = Field(default_factory=list, description="Claims about the field it tests")

    _slug_shape = field_validator("slug")(_check_slug)

    def out_of_scope_lines(self) -> list[OutOfScopeLine]:
        return [OutOfScopeLine.parse(line) for line in self.out_of_scope]


class Entity(_Section):
    """Something the KB tracks across papers: an organisation, model, hardware or method."""

    slug: str = Field(description="Short id used in file names and links")
    name: str = Field(description="Name as shown in the KB")
    kind: Literal["organisation", "model", "hardware", "method"] = Field(
        description="What kind of thing it is"
    )
    aliases: list[str] = Field(default_factory=list, description="Other spellings matched in text")

    _slug_shape = field_validator("slug")(_check_slug)


class CurateSettings(_Section):
    triage_floor: float = Field(
        default=0.30, ge=-1, le=1, description="Below this similarity a paper is out of field"
    )
    triage_margin: float = Field(
        default=0.04, ge=0, le=2, description="Lead over the runner-up that decides without the LLM"
    )
    triage_accept: float = Field(
        default=0.40, ge=-1, le=1, description="Similarity above which a clear lead is trusted"
    )
    gap_similarity: float = Field(
        default=0.50,
        ge=-1,
        le=1,
        description="Similarity (+0.1) to an open gap that takes a paper outside the intake window",
    )
    # the model's choices past a paper's two likeliest headlines changed no labelled metric or
    # baseline (BENCHMARKS.md, "Cold curation"), and each costs a call
    max_claims_per_paper: int = Field(
        default=2,
        ge=0,
        le=50,
        description="Claims a paper for which the LLM chooses among code's spans "
        "(code types every claim; this caps model calls only)",
    )
    model_steps: dict[str, Literal["auto", "always", "never"]] = Field(
        default_factory=dict,
        description="Per step (entry, relate, map, answer): auto stops asking a model whose replies "
        "keep failing the check (a sample still goes each run; for ask, one answer in 10), always "
        "asks, never takes code's answer",
    )


class FieldSettings(_Section):
    """The research field the KB covers (`[field]`)."""

    name: str = Field(
        default="Efficient LLM inference and serving", description="The field, as prompts name it"
    )
    description: str = Field(default="", description="A few words on what the field covers")


class ArxivSettings(_Section):
    api_url: str = Field(
        default="https://export.arxiv.org/api/query", description="arXiv export API endpoint"
    )
    pdf_url_template: str = Field(
        default="https://arxiv.org/pdf/{id}", description="Where a PDF is fetched for an arXiv id"
    )
    delay_seconds: float = Field(default=3.0, ge=0, description="Politeness delay between calls")
    num_retries: int = Field(default=3, ge=0, description="Retries of a failed API call")
    page_size: int = Field(default=100, ge=1, le=2000, description="Results per API page")
    max_results: int = Field(default=200, ge=1, description="Cap per topic and run")


class IngestSettings(_Section):
    workers: int = Field(default=0, ge=0, description="Extraction processes; 0 = one per core")
    max_pdf_mb: float = Field(default=60.0, gt=0, description="Larger downloads are refused")
    download_timeout: float = Field(default=60.0, gt=0, description="Seconds per download")
    download_retries: int = Field(default=3, ge=0, description="Retries of a failed download")
    chunk_tokens: int = Field(
        default=400, ge=50, le=2000, description="Approximate size of a search chunk in tokens"
    )
    watch: list[str] = Field(
        default_factory=list, description="Local folders and files `update` ingests"
    )
    zotero_collections: list[str] = Field(
        default_factory=list,
        description="Zotero collections read from a Zotero data folder (a name or a path such "
        "as Serving/KV cache; sub-collections included); empty = the whole library",
    )
    embed: Literal["auto", "ingest", "curate"] = Field(
        default="auto",
        description="Where chunks and papers are embedded: on the ingest workers, or by curate "
        "(papers in the field only); auto = at ingest on a cluster, by curate locally",
    )


Engine = Literal["local", "ray"]


class ClusterSettings(_Section):
    """Where the CPU work of ingest (and of curate's chunk vectors) runs: this machine or a Ray
    cluster."""

    engine: Engine = Field(default="local", description="local = process pool; ray = Ray cluster")
    address: str = Field(
        default="",
        description='Ray cluster: "auto", host:port or ray://host:port; empty = a local Ray '
        "frontier starts and stops",
    )
    cpus: int = Field(default=0, ge=0, description="CPUs of a Ray frontier starts; 0 = all")
    cpus_per_task: float = Field(default=1.0, gt=0, description="CPUs one paper's task reserves")
    memory_per_task_mb: int = Field(
        default=0, ge=0, description="Memory one paper's task reserves; 0 = none"
    )
    max_in_flight: int = Field(
        default=64, ge=1, description="Papers being read or held for the writer at once"
    )
    retries: int = Field(default=3, ge=0, description="Retries of a paper whose worker died")


class SiteSettings(_Section):
    base_url: str = Field(
        default="",
        description="Where `frontier site` output is published; feed links start with it",
    )

    @field_validator("base_url")
    @classmethod
    def _ends_with_slash(cls, value: str) -> str:
        return value if not value or value.endswith("/") else value + "/"


class ServeSettings(_Section):
    """How much `frontier serve` takes on at once, and how long it waits for a client (`[serve]`)."""

    max_answers: int = Field(
        default=0,
        ge=0,
        description="Answers the server writes at once, across all clients; 0 = llm.max_in_flight",
    )
    queue: int = Field(
        default=0,
        ge=0,
        description="Answers that may wait for a place; beyond them a 503 with Retry-After",
    )
    header_timeout: float = Field(
        default=10.0, gt=0, description="Seconds a client has to send a request's headers"
    )
    body_timeout: float = Field(
        default=30.0, gt=0, description="Seconds a client has to send a request's body"
    )
    max_connections: int = Field(
        default=64, ge=2, description="Open connections at most; a request beyond them gets a 503"
    )

    def answers(self, llm: LLMSettings) -> int:
        """The admission limit: the configured one, else one per request the model takes."""
        return self.max_answers or llm.max_in_flight


class ResultsSettings(_Section):
    """How `frontier results` names systems, models and hardware (`[results]`)."""

    aliases: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Canonical name -> other spellings; added to (and overriding) the built-in "
        "names of the field's systems and accelerators",
    )


class ModelThinking(_Section):
    """How one model switches its reasoning on: the chat-template key it reads, if any."""

    template_key: str = Field(
        default="enable_thinking",
        description="chat_template_kwargs key on SGLang/vLLM: enable_thinking (Qwen3), thinking (DeepSeek)",
    )
    effort: str = Field(default="high", description="reasoning_effort sent to OpenAI when thinking")


Backend = Literal["auto", "embedded", "llamacpp", "sglang", "vllm", "ollama", "openai"]


class LLMSettings(_Section):
    base_url: str = Field(
        default="", description="OpenAI-compatible endpoint; empty = OPENAI_BASE_URL, else embedded"
    )
    endpoints: list[str] = Field(
        default_factory=list, description="More endpoints serving the same model (load-balanced)"
    )
    backend: Backend = Field(default="auto", description="Server kind; auto = guess from the URL")
    model: str = Field(default="", description="Model name; empty = what the server serves")
    api_key_env: str = Field(
        default="OPENAI_API_KEY", description="Environment variable that holds the API key"
    )
    max_in_flight: int = Field(
        default=4,
        ge=1,
        description="Concurrent requests per endpoint; the embedded server has a slot for each",
    )
    timeout: float = Field(default=120.0, gt=0, description="Seconds to wait for one reply")
    answer_deadline: float = Field(
        default=120.0,
        gt=0,
        description="Seconds one answer of `ask` may take; then it ends with the sentences of "
        "the sources that answer, found by code",
    )
    max_retries: int = Field(default=4, ge=0, description="Retries on 429, 5xx, timeouts")
    context_size: int = Field(
        default=8192, ge=512, description="The model's context window in tokens"
    )
    max_output_tokens: int = Field(default=1024, ge=16, description="Cap on a reply's tokens")
    price_prompt_per_m: float = Field(
        default=0.0, ge=0, description="Price per million prompt tokens, for `usage`"
    )
    price_completion_per_m: float = Field(
        default=0.0, ge=0, description="Price per million completion tokens, for `usage`"
    )
    gguf: str = Field(default="", description="Local GGUF for the embedded server; empty = SmolLM2")
    embedded_threads: int = Field(default=0, ge=0, description="0 = every core but one")
    embedded_batch_threads: int = Field(
        default=0, ge=0, description="threads for prompts and batched decoding; 0 = every core"
    )
    embedded_server: str = Field(
        default="",
        description="llama-server binary for the embedded model; empty = the one `make` installs "
        "beside frontier (.venv/bin), else PATH",
    )
    thinking: dict[str, ModelThinking] = Field(
        default_factory=dict, description="Per-model thinking switch, keyed by model name"
    )


class Settings(BaseSettings):
    """Everything a workspace is configured with."""

    model_config = SettingsConfigDict(
        env_prefix="FRONTIER_", env_nested_delimiter="__", extra="forbid"
    )

    field: FieldSettings = Field(default_factory=FieldSettings, description="The research field")
    topics: list[Topic] = Field(default_factory=list, description="The topics the KB tracks")
    arxiv: ArxivSettings = Field(default_factory=ArxivSettings, description="arXiv API access")
    ingest: IngestSettings = Field(
        default_factory=IngestSettings, description="Reading and downloading sources"
    )
    llm: LLMSettings = Field(default_factory=LLMSettings, description="The language model")
    curate: CurateSettings = Field(
        default_factory=CurateSettings, description="Triage thresholds and claim limits"
    )
    entities: list[Entity] = Field(
        default_factory=list, description="Organisations, models, hardware and methods tracked"
    )
    site: SiteSettings = Field(
        default_factory=SiteSettings, description="The published static site and feed"
    )
    cluster: ClusterSettings = Field(
        default_factory=ClusterSettings, description="Where ingest's CPU work runs"
    )
    results: ResultsSettings = Field(
        default_factory=ResultsSettings, description="Names the results table groups by"
    )
    serve: ServeSettings = Field(
        default_factory=ServeSettings, description="Limits of the web server"
    )

    @model_validator(mode="after")
    def _routes_point_at_siblings(self) -> Settings:
        slugs = [topic.slug for topic in self.topics]
        if len(set(slugs)) != len(slugs):
            raise ValueError(f"topic slugs repeat: {', '.join(slugs)}")
        for topic in self.topics:
            for line in topic.out_of_scope_lines():
                if line.route_to and line.route_to not in slugs:
                    raise ValueError(
                        f"topic '{topic.slug}' routes '{line.text}' to unknown topic "
                        f"'{line.route_to}' (known: {', '.join(slugs)})"
                    )
        return self

    def topic(self, slug: str) -> Topic:
        for topic in self.topics:
            if topic.slug == slug:
                return topic
        raise ConfigError(f"no topic '{slug}' (known: {', '.join(t.slug for t in self.topics)})")


def _file_models() -> tuple[dict[str, type[BaseModel]], dict[str, type[BaseModel]]]:
    """The models the values of each part of the file must fit as written, from the fields of
    Settings: its sections (`[llm]`) and its lists of tables (`[[topics]]`)."""
    sections: dict[str, type[BaseModel]] = {}
    lists: dict[str, type[BaseModel]] = {}
    for name, info in Settings.model_fields.items():
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            sections[name] = annotation
        elif get_origin(annotation) is list:
            (item,) = get_args(annotation)
            if isinstance(item, type) and issubclass(item, BaseModel):
                lists[name] = item
    return sections, lists


_FILE_SECTIONS, _FILE_LISTS = _file_models()


def read_config_file(config_path: Path) -> dict[str, object]:
    """The file's TOML as UTF-8 text, each known section checked strictly as written (no
    `true` for a number, no "2" for 2; an integer is accepted where a decimal is expected)."""
    try:
        text = config_path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise ConfigError(f"{config_path}: cannot read: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{config_path}: not UTF-8 text (byte 0x{exc.object[exc.start]:02X} at offset "
            f"{exc.start}); save it as UTF-8"
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{config_path}: not valid TOML: {exc}") from exc
    for key, value in data.items():
        _check_section(config_path, key, value)
    return data


def _check_section(config_path: Path, key: str, value: object) -> None:
    model = _FILE_SECTIONS.get(key) or _FILE_LISTS.get(key)
    if model is None:
        return  # an unknown section is reported, with the others, by the settings themselves
    items = value if key in _FILE_LISTS and isinstance(value, list) else [value]
    for number, item in enumerate(items):
        try:
            model.model_validate(item, strict=True)
        except ValidationError as exc:
            where = (key, number) if key in _FILE_LISTS else (key,)
            raise ConfigError(_describe_validation_error(config_path, exc, where)) from None


def load_settings(config_path: Path) -> Settings:
    """Read a workspace's TOML, let FRONTIER_* environment variables override it, validate."""
    read_config_file(config_path)

    class _FileSettings(Settings):
        @classmethod
        def settings_customise_sources(
            cls,
            settings_cls: type[BaseSettings],
            init_settings: PydanticBaseSettingsSource,
            env_settings: PydanticBaseSettingsSource,
            dotenv_settings: PydanticBaseSettingsSource,
            file_secret_settings: PydanticBaseSettingsSource,
        ) -> tuple[PydanticBaseSettingsSource, ...]:
            return (
                init_settings,
                env_settings,
                TomlConfigSettingsSource(settings_cls, config_path),
            )

    try:
        loaded = _FileSettings()
    except ValidationError as exc:
        raise ConfigError(_describe_validation_error(config_path, exc)) from exc
    except SettingsError as exc:  # an environment override that cannot be parsed
        raise ConfigError(f"FRONTIER_* environment: {exc}") from None
    return Settings.model_validate(loaded.model_dump())


def _describe_validation_error(
    path: Path, exc: ValidationError, where: tuple[str | int, ...] = ()
) -> str:
    problems = []
    for error in exc.errors(include_url=False):
        key = ".".join(str(part) for part in (*where, *error["loc"])) or "(top level)"
        message = str(error["msg"]).removeprefix("Value error, ")
        if str(error["type"]).endswith("_type"):
            message += f", got {kind_of(error['input'])}"
        problems.append(f"key '{key}': {message}")
    return f"{path}: " + "; ".join(problems)
