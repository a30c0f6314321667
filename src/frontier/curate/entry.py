"""The entry: what the work is, its headline numbers and why it matters here. The model may
phrase what the work is; its sentences are kept only when the abstract bears them out and they
do not restate the title. Otherwise code quotes the abstract's contribution sentence. Numbers
and relations are written by code from typed claims and gated relations."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel, Field

from frontier.curate.addresses import is_own_work
from frontier.curate.claims import best_statements, system_names
from frontier.curate.relations import ROLE_ORDER, entity_as_named, entity_role
from frontier.curate.spans import propose
from frontier.curate.support import content_stems, plain_math, support
from frontier.llm.client import LLM
from frontier.llm.prompts import Prompt
from frontier.llm.records import LLMFailure
from frontier.model import Claim, Paper, Relation
from frontier.store.claim_text import phrase_claim
from frontier.text import any_word, prose_sentences

_DIGIT = re.compile(r"\d")
_WHO = (
    r"\b(?:we|this (?:paper|work)|our (?:work|paper|approach|system|method))\s+"
    r"(?:\w+ly\s+|(?:[\w,]+\s+){1,5}and\s+)?"
)
_CONTRIBUTION = re.compile(
    _WHO + r"(?:propose|present|introduce|build|design|develop|describe|devise|offer)s?\b",
    re.IGNORECASE,
)
_STUDY = re.compile(
    _WHO
    + r"(?:study|studie|explore|investigate|formulate|identify|implement|show|demonstrate)s?\b",
    re.IGNORECASE,
)
_LEAD_IN = re.compile(
    r"^(?:(?:in|with) this (?:paper|work),?\s*|to (?:address|tackle|solve|overcome|bridge|fill)"
    r"[^,]{0,80},\s*|to this end,\s*|here,?\s*|therefore,?\s*|thus,?\s*|hence,?\s*|"
    r"motivated by [^,]{0,80},\s*|inspired by [^,]{0,80},\s*|accordingly,\s*|"
    r"for th(?:is|ese) reasons?,\s*|in response,\s*|as a result,\s*|instead,\s*)+",
    re.IGNORECASE,
)
QUOTED = "abstract"  # an entry's model when code quoted the abstract's contribution sentence
TITLE_OVERLAP = 0.7  # share of a sentence's content words that the title holds: a restatement


class EntryText(BaseModel):
    what_it_is: str = Field(min_length=20, max_length=420)


@dataclass(frozen=True)
class WhatItIs:
    text: str
    by: str  # the model that phrased it, or QUOTED when code quoted the abstract


def restates_title(sentence: str, title: str) -> bool:
    """The title again, or a sentence made mostly of its words."""
    fold = re.compile(r"[\W_]+")
    if fold.sub(" ", sentence.lower()).strip().startswith(fold.sub(" ", title.lower()).strip()):
        return True
    words = content_stems(sentence)
    return bool(words) and len(words & content_stems(title)) / len(words) >= TITLE_OVERLAP


# part of every entry's key: a change in how code checks entries redoes them
CHECK_VERSION = "entry-check-24"
# a contribution naming what it is about by pointing back: "to alleviate this bottleneck", "an
# overview of this promising decoding paradigm", "to this end"; not the paper pointing at itself,
# nor "such" before anything but a problem ("such heterogeneous requests" describes them)
_SELF = (
    r"paper|work|study|article|survey|review|report|manuscript|thesis|chapter|section|tutorial"
    r"|whitepaper|note"
)
_POINTS_BACK = re.compile(
    rf"\b(?:this|these)\s+(?!(?:{_SELF})\b)[a-z][\w-]*"
    r"|\b(?:such|that|those)\s+(?:\w+\s+)?(?:bottlenecks?|problems?|issues?|challenges?"
    r"|limitations?|gaps?|overheads?|inefficienc(?:y|ies)|costs?|needs?|trade-?offs?|obstacles?"
    r"|difficult(?:y|ies)|shortcomings?|drawbacks?)\b",
    re.IGNORECASE,
)
REFERENT_CHARS = 560  # a contribution and the sentence naming its problem, together at most
_POINTER = re.compile(r"^(?:This|It|These|They|Its|Their|Such|The (?:method|approach|system))\b")
_THE_WORK = any_word(r"we|our|this (?:paper|work)")


def checked_model_text(text: str, title: str, abstract: str) -> str:
    """The model's sentences that the abstract bears out, at most two: each borne out by the
    title and abstract through a sentence about the work itself (not the field's background,
    whatever sentence stands next to it), a whole sentence
    (ending as one), none with a number (numbers come from typed claims), none restating the
    title, and the first not pointing back at something unnamed ('This allows …') and naming
    the work (its system, or the method its title names)."""
    names = system_names(title, abstract)
    about = [s for s in prose_sentences(abstract) if _about_the_work(s, names)]
    source = f"{title.rstrip('.')}. {abstract}"
    kept: list[str] = []
    for sentence in prose_sentences(text):
        if _DIGIT.search(sentence) or restates_title(sentence, title) or sentence[-1] not in ".!?":
            continue
        if not kept and (_POINTER.match(sentence) or not _names_the_work(sentence, names, title)):
            continue
        found = support(sentence, source)
        if found.supported and any(a in found.source for a in about):
            kept.append(sentence)
    return " ".join(kept[:2])


# "... via Speculative Decoding", "... with Offloading": the method a title names after its goal
_TITLE_METHOD = re.compile(r"\s(?:via|with|using|through|by)\s+(?P<method>[^:]+)$", re.IGNORECASE)
_META_OPENING = re.compile(
    r"^(?:The|This) (?:work|paper|study|article) (?:is about|discusses|talks about|deals with)\b",
    re.IGNORECASE,
)


def _names_the_work(sentence: str, names: list[str], title: str) -> bool:
    """An entry's first sentence names what the paper contributes: its system's name, or the
    method its title names ("... via Speculative Decoding"); "The work is about a new way to
    make faster inference" names nothing a reader could look up."""
    if _META_OPENING.match(sentence):
        return False
    method = _TITLE_METHOD.search(title.rstrip(". "))
    named = [*names, method.group("method")] if method else names
    return not named or any(n.lower() in sentence.lower() for n in named)


def _about_the_work(sentence: str, names: list[str]) -> bool:
    return bool(_THE_WORK.search(sentence)) or any(n in sentence for n in names)


def contribution_sentences(title: str, abstract: str) -> str:
    """The abstract's own statement of what the paper contributes ('we propose …'), trimmed
    of its lead-in; then a sentence that says what its named system does, or what the paper
    studies, or any sentence of its own work (we / our / this paper); never the title, never a
    sentence of background."""
    sentences = prose_sentences(plain_math(abstract))
    names = system_names(title)
    tiers = (
        lambda s: _CONTRIBUTION.search(s),
        lambda s: any(re.match(rf"(?:[A-Z]\w+,\s*)?{re.escape(n)}\b", s, re.I) for n in names),
        lambda s: _STUDY.search(s),
        lambda s: is_own_work(s, []),  # "We cast ... as ...": the paper's own, said plainly
    )
    for says_what in tiers:
        for i, sentence in enumerate(sentences):
            if (
                says_what(sentence)
                and not restates_title(sentence, title)
                and not propose(sentence)
            ):
                stated = _with_explanation(_stated(sentence, sentences, i, title), sentences, i)
                return without_footnote_marks(stated, names)
    return ""


def without_footnote_marks(text: str, names: list[str]) -> str:
    """The system's name without the footnote mark a PDF's text runs onto it ("We present
    POD-Attention1 —" for "POD-Attention¹"): a digit the name never has in the title."""
    for name in names:
        if name and not name[-1].isdigit():
            text = re.sub(rf"(?<![\w-]){re.escape(name)}\d(?![\w.])", name, text)
    return text


def _stated(sentence: str, sentences: list[str], i: int, title: str) -> str:
    """The contribution without its lead-in; or, when it points back at what it names ("to
    alleviate this bottleneck, we ..."), the sentence before and the contribution as written:
    read alone, "this bottleneck" would name nothing. When that sentence points back in turn
    ("this memory"), the one before it too, if the three are short enough; the first is shown
    without a connective that turns from what came before it ("However, ..."). Not when a
    sentence before is the title again (an abstract without one opens with what stands for it)."""
    if not (i and _POINTS_BACK.search(sentence)):
        return _capitalised(_LEAD_IN.sub("", sentence))
    quoted = [sentence]
    for before in reversed(sentences[max(0, i - 2) : i]):
        room = sum(map(len, quoted)) + len(before) <= REFERENT_CHARS
        if not room or restates_title(before, title):
            break
        quoted.insert(0, before)
        if not _refers_back(before):
            break
    opens_the_abstract = i + 1 == len(quoted)
    if len(quoted) == 1 or (_refers_back(quoted[0]) and not opens_the_abstract):
        return _alone(sentence)
    quoted[0] = _capitalised(_TURN.sub("", quoted[0]))
    return " ".join(quoted)


def _alone(sentence: str) -> str:
    """The contribution as the abstract words it, from its subject on: without a lead-in, nor
    one that points back at a problem the entry does not show ("To alleviate this bottleneck,
    we ..."). What follows stays the abstract's words, so the entry can be quoted."""
    return _capitalised(_LEAD_IN.sub("", _POINTED_LEAD_IN.sub("", sentence)))


# "To alleviate this bottleneck, ...": a lead-in naming nothing once its referent is not shown
_POINTED_LEAD_IN = re.compile(
    r"^(?:(?:in|with) this (?:paper|work),?\s*)?to \w+ (?:this|these|such|that|those)\b[^,]{0,60},\s*",
    re.IGNORECASE,
)


# "However, …", "For example, …": a turn from a sentence the quote does not show
_TURN = re.compile(
    r"^(?:however|but|yet|still|nevertheless|nonetheless|for (?:example|instance)|moreover|"
    r"furthermore|in addition|additionally|meanwhile|in contrast|on the other hand),?\s+",
    re.IGNORECASE,
)


def _refers_back(sentence: str) -> bool:
    """The sentence leans on the one before it: it opens with a pointer ("This …") or points
    back at what it names ("this memory")."""
    return bool(_POINTER.match(sentence) or _POINTS_BACK.search(sentence))


def _with_explanation(text: str, sentences: list[str], i: int) -> str:
    """The next sentence too when it explains the first ('It …', 'The key idea …')."""
    follow = sentences[i + 1] if i + 1 < len(sentences) else ""
    opens = re.match(r"(?:It|This|Our|The (?:key|core|main) idea)\b", follow)
    explains = opens is not None and not propose(follow)
    return f"{text} {follow}" if explains and len(text) + len(follow) <= 420 else text


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def headline_numbers(claims: list[Claim]) -> str:
    headlines = best_statements([c for c in claims if c.headline and c.verified and c.metric])
    if not headlines:
        return ""
    return "Headline numbers: " + "; ".join(phrase_claim(c) for c in headlines) + "."


def why_it_matters(
    relations: list[Relation], names: dict[str, str], kinds: dict[str, str] | None = None
) -> str:
    """Relations to the KB in one sentence, most specific first."""
    order = {"conflict": 0, "gap": 1, "thesis": 2, "first": 3, "coverage": 4, "entity": 5}
    bits = []
    for relation in sorted(relations, key=lambda r: (order.get(r.kind, 9), r.target)):
        label = names.get(f"{relation.kind}:{relation.target}", relation.target)
        if relation.kind == "gap":
            bits.append(f'addresses the open gap "{label}"')
        elif relation.kind == "conflict":
            bits.append(f'bears on the flagged conflict "{label}"')
        elif relation.kind == "thesis":
            bits.append(f'bears on the thesis "{label}"')
        elif relation.kind in ("first", "coverage"):
            bits.append(relation.detail)
    named_first = {r.target.removeprefix("entity:") for r in relations if r.kind == "first"}
    entities = [r for r in relations if r.kind == "entity"]
    bits.extend(entity_bits(entities, names, named_first, kinds or {}))
    if not bits:
        return ""
    text = "; ".join(bits[:4])
    return "Why it matters here: " + text[0].lower() + text[1:] + "."


def entity_bits(
    relations: list[Relation], names: dict[str, str], named_first: set[str], kinds: dict[str, str]
) -> list[str]:
    """The tracked entities the paper names, each once, by what its sentence does with them:
    "builds on vLLM", "compared against Orca", "measured on Llama 2 and A100" (a model or a
    piece of hardware only: no one measures on an organisation)."""
    by_role: dict[str, list[str]] = {}
    for relation in sorted(relations, key=lambda r: r.target):
        if relation.target in named_first:
            continue
        shown = entity_as_named(
            relation.detail, names.get(f"entity:{relation.target}", relation.target)
        )
        role = entity_role(shown, relation.evidence)
        if role == "measured on" and kinds.get(f"entity:{relation.target}") not in MEASURED_ON:
            role = "concerns"
        by_role.setdefault(role, [])
        if shown not in by_role[role]:
            by_role[role].append(shown)
    shown_all = [name for names_ in by_role.values() for name in names_]
    for role, listed in by_role.items():  # "NVIDIA A100 and NVIDIA": the vendor says nothing more
        by_role[role] = [n for n in listed if not any(o.startswith(f"{n} ") for o in shown_all)]
    return [f"{role} {_listed(by_role[role][:4])}" for role in ROLE_ORDER if by_role.get(role)]


MEASURED_ON = frozenset({"model", "hardware"})


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


# an entry's two sentences as JSON: the longest reply that passed on the embedded model held 101
# tokens, most hold 30-40; a reply running past this is a loop the check would cut anyway
ENTRY_TOKENS = 160


async def what_it_is(llm: LLM, prompt: Prompt, field: str, topic: str, paper: Paper) -> WhatItIs:
    """The model's sentences when they pass the check, else the abstract's contribution."""
    title, abstract = paper.title, paper.abstract or ""
    if abstract:
        messages = prompt.messages(field=field, topic=topic, title=title, abstract=abstract[:3000])
        try:
            answer = await llm.structured(
                EntryText,
                messages,
                purpose="entry",
                prompt_version=prompt.tag,
                max_tokens=ENTRY_TOKENS,
            )
        except LLMFailure as failure:
            if failure.kind != "invalid":
                raise
            # the model answered with nothing usable (cut off, or twice not the schema): the
            # ledger keeps the reply, the entry quotes the abstract
            return WhatItIs(contribution_sentences(title, abstract), QUOTED)
        kept = checked_model_text(answer.value.what_it_is, title, abstract)
        if kept:
            return WhatItIs(kept, answer.result.model)
    return WhatItIs(contribution_sentences(title, abstract), QUOTED)


def entry_text(
    what: WhatItIs,
    claims: list[Claim],
    relations: list[Relation],
    names: dict[str, str],
    kinds: dict[str, str] | None = None,
) -> str:
    parts = [what.text, headline_numbers(claims), why_it_matters(relations, names, kinds)]
    return " ".join(p for p in parts if p)
