"""Numbered sources handed to the model: [n] in its answer must name one of them."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace

from frontier.extract.chunk import estimate_tokens
from frontier.synthesize.retrieve import Passage

# what the instructions, the question and the chat template take besides the bundle
PROMPT_OVERHEAD_TOKENS = 400


@dataclass(frozen=True)
class Source:
    number: int
    paper_id: str
    title: str
    date: str
    pages: tuple[int, ...]
    text: str
    chunk_ids: tuple[int, ...] = ()

    def label(self) -> str:
        where = f", p. {', '.join(map(str, self.pages))}" if self.pages else ""
        return f"{self.title} ({self.paper_id}{where})"

    def render(self) -> str:
        when = f", {self.date[:7]}" if self.date else ""
        page = f", page {self.pages[0]}" if len(self.pages) == 1 else ""
        return f"[{self.number}] {self.title}{when}{page}\n{self.text.strip()}"


@dataclass
class Bundle:
    sources: list[Source] = field(default_factory=list)
    # the whole text of each source's page, where the sentences answering a question are sought
    pages: dict[tuple[str, int], str] = field(default_factory=dict)
    # the systems the question names that no source of the KB names (then there are no sources)
    unnamed: list[str] = field(default_factory=list)
    # each source paper's abstract: what the paper says its own work is
    abstracts: dict[str, str] = field(default_factory=dict)
    # each source paper's byline: who wrote it and where
    bylines: dict[str, str] = field(default_factory=dict)

    def render(self) -> str:
        return "\n\n".join(source.render() for source in self.sources)

    def numbers(self) -> set[int]:
        return {source.number for source in self.sources}

    def tokens(self) -> int:
        return estimate_tokens(self.render())

    def by_number(self, number: int) -> Source:
        return next(source for source in self.sources if source.number == number)

    def within(self, budget: int) -> Bundle:
        """The first sources that fit in `budget` tokens (at least one), numbered as here: what
        a model that reads slowly is sent, while code seeks answers in every source's page."""
        kept: list[Source] = []
        used = 0
        for source in self.sources:
            cost = estimate_tokens(source.render()) + 2
            if kept and used + cost > budget:
                break
            kept.append(source)
            used += cost
        return replace(self, sources=kept)

    def to_list(self, with_text: bool = False) -> list[dict[str, object]]:
        """The sources as stored; `with_text` keeps the text sent (it may reach past a chunk)."""
        return [asdict(source) | ({} if with_text else {"text": None}) for source in self.sources]


def token_budget(context_size: int, max_output_tokens: int) -> int:
    """Tokens left for the bundle once the answer and the instructions have their room."""
    return max(256, context_size - max_output_tokens - PROMPT_OVERHEAD_TOKENS)


def passage_bundle(passages: list[Passage], dates: dict[str, str], budget: int) -> Bundle:
    """One source per passage, best first, as many as fit in `budget` tokens."""
    bundle = Bundle()
    used = 0
    for passage in passages:
        source = Source(
            len(bundle.sources) + 1,
            passage.paper_id,
            passage.title,
            dates.get(passage.paper_id, ""),
            (passage.page,) if passage.page else (),
            passage.text,
            (passage.chunk_id,),
        )
        cost = estimate_tokens(source.render()) + 2
        if bundle.sources and used + cost > budget:
            break
        bundle.sources.append(source)
        used += cost
    return bundle
