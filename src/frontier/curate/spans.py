"""A claim's fields as spans of its sentence, proposed by code: the value as printed, its unit,
the direction its verb or comparative gives, the metric it measures, the baseline it is compared
with, and the model and hardware named. A field that is not a span of the sentence is never
proposed, so a model choosing among these proposals cannot type a claim with words the paper
did not print."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from frontier.text import (
    HARDWARE_NAME,
    MODEL_NAME,
    NumberShape,
    WordStyle,
    any_word,
    number_pattern,
    word_matches,
)

_QUALIFIER = (
    r"(?:up to|more than|over|at least|at most|nearly|almost|about|around|approximately|roughly|"
    r"as much as|as high as|an average of|on average|less than|under|mean|average|avg\.?|"
    r"geomean|~|≈|>|<|≥)"
)
_NUM = number_pattern(NumberShape.GROUPED)
_UNIT = (
    r"(?:×|(?<=\d)[xX](?![a-z])|-fold(?![a-z])|%|percent|times(?= (?:higher|lower|more|less|faster|"
    r"slower|better|fewer|larger|smaller|longer|shorter|cheaper|speed-?ups?|acceleration|over|than|"
    r"the|as)\b|[,.;)]|$)|tokens?/s|tok/s|tokens per second|req(?:uests)?/s|"
    r"QPS|[KMGT]B/s|[KMGT]i?B(?![a-z])|ms|µs|us(?![a-z])|s(?![a-z])|seconds?|minutes?|hours?|"
    r"-?bits?(?![a-z])|TFLOPS|GFLOPS|W(?![a-z])|J(?![a-z])|USD)"
)
_VALUE = re.compile(
    rf"(?:(?P<from>from)\s+(?P<fnum>{_NUM})\s?(?P<funit>{_UNIT})\s+(?:down\s+|up\s+)?to\s+)?"
    rf"(?P<qual>{_QUALIFIER}\s*)?(?P<dollar>\$)?(?P<num>{_NUM})\s?(?P<unit>{_UNIT})?"
    rf"(?:\s*(?:[-–—−∼~]|to)\s*(?:up to\s*)?(?P<num2>{_NUM})\s?(?P<unit2>{_UNIT})?)?"
    rf"(?P<tail>\s+on average)?",
)
# a change of a score told without a unit: "0.7 better perplexity", "a 0.61 higher BLEU score",
# "loses only 0.03 perplexity", "drops 2.2 points"
SCORE_AFTER = re.compile(
    r"\s*(?:(?:higher|lower|better|worse|more|less)\s+)?"
    r"(?:BLEU|ROUGE(?:-\w+)?|perplexity|PPL|accuracy|F1|exact match|points?)(?![\w-])",
    re.IGNORECASE,
)
_SCORE_CHANGED = re.compile(
    r"\b(?:drops?|dropped|loses?|lost|gains?|gained|improves?|improved|degrades?|degraded|by)"
    r"\s+(?:only\s+|about\s+|up to\s+)?$",
    re.IGNORECASE,
)


def is_score_change(sentence: str, start: int, end: int) -> bool:
    """The number from `start` to `end` is a score told without a unit: a quality metric after
    it ("0.7 better perplexity"), or "points" after a word of change ("drops 2.2 points")."""
    after = SCORE_AFTER.match(sentence, end)
    if not after:
        return False
    if not after.group().strip().lower().startswith("point"):
        return True
    return bool(_SCORE_CHANGED.search(sentence, 0, start))


# a number inside a name (GPT-2, A100, LLaMA-2-70B, Mixtral 8×7B) or a citation is no claim
_NAME_BEFORE = re.compile(r"[A-Za-z][\w.]*-?$")
_PARAMS_AFTER = re.compile(r"^\s?(?:[BMK](?![a-z])|billion|million)")
_EXPERTS_AFTER = re.compile(rf"^{number_pattern(NumberShape.DECIMAL)}[BM]\b")

_LOWER = re.compile(
    r"\bmore (?:stringent|strict)\b|\b(?:reduc\w*|lower\w*|cuts?|cutting|decreas\w*|less|fewer|sav(?:e|es|ed|ings?)|shrink\w*|"
    r"smaller|drops?|dropped|tighter|stricter|shorter|lessen\w*|minimi[sz]\w*)\b",
    re.IGNORECASE,
)
_HIGHER = any_word(
    r"improv\w*|increas\w*|higher|faster|speed[- ]?ups?|speeds? up|boost\w*|more|"
    r"outperform\w*|accelerat(?!ors?\b)\w*|better|gains?|larger|greater|raises?|lifts?|doubl\w*"
)
_METRIC_HEAD = (
    r"(?:throughput|goodput|latenc(?:y|ies)|time[- ]to[- ]first[- ]token|TTFT|TPOT|TBT|"
    r"time per output token|time between tokens|speed[- ]?ups?|speed|memory(?: usage| footprint|"
    r" overhead| consumption| traffic)?|KV[- ]cache(?: size| memory| usage)?|perplexity|"
    r"accuracy (?:loss(?:es)?|drops?|degradation)|accuracy|(?:BLEU|ROUGE(?:-\w+)?|F1) scores?|"
    r"BLEU|ROUGE(?:-\w+)?|"
    r"cost|energy|power|bandwidth|utili[sz]ation|MFU|FLOPs|requests|request rate|SLOs?|"
    r"SLO attainment|capacity|batch size|context length|sequence length|hit rate|acceptance rate|"
    r"quantization error|error|area|efficiency|wall-clock time|runtime|execution time|"
    r"completion time|inference time|response time|waiting time|queuing delay|storage|"
    r"I/O|data transfers?|transfers|compression(?: ratio)?|fragmentation|waste|faster|slower|"
    r"acceleration|(?:attention )?computation|inference|decoding|generation|prefill|training)s?"
    r"(?![\w-])"
)
_MODIFIER = r"(?:(?:[\w-]+|P\d\d)\s+){0,3}"
# words that may stand before a metric's head: nouns and adjectives of the field, hyphenated
# compounds and acronyms; anything else (a verb, an adverb, a system's name) ends the phrase
_MODIFIER_WORDS = {
    "serving", "decoding", "decode", "inference", "prefill", "prefilling", "attention",
    "request", "requests", "online", "offline", "effective", "peak", "average", "tail", "mean",
    "median", "model", "token", "tokens", "generation", "input", "output", "job", "memory",
    "cache", "system", "normalized", "zero-shot", "question", "answering", "query", "compute",
    "network", "data", "device", "energy", "training", "search", "kernel", "gpu", "cpu",
    "batch", "sequence", "context", "storage", "bandwidth", "total", "overall", "wall-clock",
    "computation", "execution", "response", "first", "per", "speculative", "end-to-end",
    "hardware", "area", "quantization", "weight", "activation", "tensor", "matrix", "i/o",
    "p50", "p90", "p95", "p99", "99th", "95th", "percentile", "normalised",
}  # fmt: skip
_METRIC = re.compile(rf"\b{_MODIFIER}{_METRIC_HEAD}\b", re.IGNORECASE)
_NOT_MODIFIER = {
    "the", "a", "an", "its", "their", "our", "this", "that", "by", "of", "in", "on", "to", "and",
    "or", "with", "for", "is", "are", "was", "were", "be", "has", "have", "up", "than", "as",
    "improves", "improve", "improved", "reduces", "reduce", "reduced", "achieves", "achieve",
    "achieving", "increases", "increase", "lower", "higher", "more", "less", "while", "at", "x",
    "can", "which", "also", "both", "it", "we", "us", "from", "into", "over", "same", "such",
    "further", "significantly", "substantially", "overall", "average", "mean", "times",
    "tighter", "better", "faster", "fewer", "smaller", "larger", "greater", "significant",
    "substantial", "impressive", "notable", "remarkable", "considerable", "total", "only", "all",
    "when", "then", "these", "those", "each", "per", "not", "no", "without", "between", "after",
    "speeds", "yields", "brings", "enables",
    "cuts", "lowers", "boosts", "accelerates", "delivers", "offers", "provides", "shows", "gives",
    "attains", "reaches", "serves", "sustains", "supports", "outperforms", "saves", "shrinks",
    "decreases", "speed", "down",
}  # fmt: skip
_WEAK_HEAD = re.compile(
    r"(?:computation|inference|decoding|generation|prefill|training)$", re.IGNORECASE
)
_COMPARED_TO = r"compar(?:ed|ing) (?:to|with|against)|in comparison (?:to|with)|relative to"
_COMPARE = re.compile(
    rf"\b(?:{_COMPARED_TO}|versus|vs\.?|against|than|over|instead of|on top of|"
    r"outperform(?:s|ed|ing)?|beats?|exceed(?:s|ed|ing)?|surpass(?:es|ed|ing)?)\s+",
    re.IGNORECASE,
)
_LIST_INTRO = re.compile(r",?\s*(?:such as|e\.g\.,?|including|like|namely)\s+", re.IGNORECASE)
_BASELINE_STOP = re.compile(
    r"[,;:()\[\]•◦▪]|\.(?:\s|$)|\s(?:while|with|at|on|in|for|when|under|across|using|without|by|"
    r"which|that|respectively|thus|making|and achieves|and reduces|and improves|and increases|"
    r"where|whereas|if|because|so|to|through|such as|e\.g\.,?|including|namely|achieving|"
    r"reaching|resulting|leading|yielding|showing|making|enabling|providing|delivering|"
    r"maintaining|staying|keeping|in terms of|can|could|may|might|will|would|should|does|do|"
    r"did|has|had)\s|\s(?:and|or)\s+(?=(?:up to |about |~|≈)?\d)|\s(?:and|or)\s(?:is|are|was|were|can|has|have|"
    r"achieves?|reduces?|improves?|increases?|yields?|outperforms?|provides?|enables?|shows?|"
    r"runs?|uses?|scales?|supports?)\b"
    # an author citation after the name it cites: "Draft & Verify Zhang et al. (2023)"
    r"|\s(?=[A-Z][\w-]+(?:\s(?:and|&)\s[A-Z][\w-]+)?\set\sal\.)",
    re.IGNORECASE,
)
# "higher than that of the local cache", "faster than those achieved using the TCP protocol":
# the pronoun stands for the measure; the baseline is what follows it
_STANDS_FOR = re.compile(
    r"(?:that|those)\s+(?:of|(?:achieved|obtained|reported|measured|attained|seen|delivered)\s+"
    r"(?:by|with|using|in|on|from))\s+",
    re.IGNORECASE,
)
_NOT_BASELINE = re.compile(
    r"^(?:time|the (?:years|past|course)|a range|all|prior years|\d)|^(?:that|this|those)\b",
    re.IGNORECASE,
)


def names_hardware_from(sentence: str, start: int, end: int) -> bool:
    """The name at sentence[start:end] is the vendor's word of a hardware name ("NVIDIA A800")."""
    found = HARDWARE_NAME.match(sentence, start)
    return found is not None and found.end() > end


@dataclass(frozen=True)
class Span:
    """A piece of the sentence, by its offsets: what a typed field must be."""

    text: str
    start: int
    end: int


@dataclass
class Proposal:
    """Code's proposal for one number of a sentence: the value and the candidate spans for
    every other field, best first."""

    value: Span  # as printed, with its qualifier: "up to 1.23×", "2-4×", "1.88×–5.04×"
    numbers: tuple[str, ...]
    unit: str
    direction: str  # higher | lower | ""
    direction_cue: str
    metrics: list[Span] = field(default_factory=list)
    baselines: list[Span] = field(default_factory=list)
    models: list[Span] = field(default_factory=list)
    hardware: list[Span] = field(default_factory=list)
    tasks: list[Span] = field(default_factory=list)  # what it was measured on: "on coding"
    open_metrics: int = 0  # leading metrics the sentence ties to the value equally well
    open_baselines: int = 0  # leading baselines equally plausible (a listed name is not)


def propose(sentence: str, aliases: dict[str, list[str]] | None = None) -> list[Proposal]:
    """One proposal for every measured number of the sentence, in reading order."""
    aliases = aliases or {}
    models = _names(sentence, MODEL_NAME, aliases.get("model", []))
    hardware = _names(sentence, HARDWARE_NAME, aliases.get("hardware", []))
    values = _values(sentence)
    clauses = [_clause(sentence, value, [v for v, _, _ in values]) for value, _, _ in values]
    proposals = []
    for (value, numbers, unit), clause in zip(values, clauses, strict=True):
        direction, cue = _direction(sentence, value, clause)
        metrics, baselines, open_metrics, open_baselines = _metrics_and_baselines(
            sentence, value, clause
        )
        share = _share_of(sentence, value, unit)
        if share is not None:  # '1% of salient weights': a share of something, not a change
            metrics = [m for m in metrics if _overlaps(m, share)]
            direction, cue, open_metrics = "", "", min(open_metrics, len(metrics))
            if REFERENCE_POINT.search(share.text):  # '68.5% of the optimal throughput'
                baselines, open_baselines = [share], 1
        proposals.append(
            Proposal(
                value,
                numbers,
                unit,
                direction,
                cue,
                metrics,
                baselines,
                _nearest_first(models, value, clause),
                _nearest_first(hardware, value, clause),
                open_metrics=open_metrics,
                open_baselines=open_baselines,
            )
        )
    _baselines_of_ellipsis(sentence, proposals)
    _inherit_from_parallel(sentence, proposals)
    _inherit_consequence(sentence, proposals)
    _inherit_lead_in(sentence, proposals)
    _inherit_kept_output(sentence, proposals)
    _pair_respectively(sentence, proposals)
    _pair_listed_baselines(sentence, proposals)
    for proposal in proposals:
        _orient(proposal)
        proposal.tasks = _task(sentence, proposal)
    for proposal, clause in zip(proposals, clauses, strict=True):
        if proposal.tasks:  # "2.4× on long-range arena": its setting is its own
            others = [
                (p.value, c) for p, c in zip(proposals, clauses, strict=True) if p is not proposal
            ]
            proposal.models = _not_others(proposal.models, clause, others)
            proposal.hardware = _not_others(proposal.hardware, clause, others)
    return proposals


# "speedups of up to 2.16× on summarization, 1.82× on coding", "a 14.1× acceleration in
# attention operations": the task or part a gain was measured on, right after its value (and
# the metric that follows it)
_TASK_CUE = re.compile(
    r"\s+(on|in|for)\s+(?!average\b|top of\b|terms of\b|addition\b|"
    r"contrast\b|comparison\b|practice\b|particular\b|total\b|turn\b|theory\b|general\b"
    r"|the other hand\b|the order of\b|(?:up to |about |~|≈)?\d)",
    re.IGNORECASE,
)
TASK_WORDS = 8
_ONE_WORD_OR_NONE = re.compile(r"\s*(?:[\w-]+\s+)?")


def _clause_end(sentence: str, proposal: Proposal) -> int:
    """Where the value's words end: at the next number with a unit, if any."""
    later = [start for _, start in _value_starts(sentence) if start > proposal.value.end]
    return min(later, default=len(sentence))


def _value_starts(sentence: str) -> list[tuple[Span, int]]:
    return [(value, value.start) for value, _, _ in _values(sentence)]


def _task(sentence: str, proposal: Proposal) -> list[Span]:
    """The task after the value ("on coding"), when it is none of the claim's other fields."""
    start = proposal.value.end
    metric = proposal.metrics[0] if proposal.metrics else None
    if (
        metric is not None
        and metric.start >= start
        and _ONE_WORD_OR_NONE.fullmatch(sentence, start, metric.start)
    ):
        start = metric.end  # "12.6× tighter SLO for chatbots": the task follows the metric
    cue = _TASK_CUE.match(sentence, start)
    if cue is None:
        return []
    phrase = _phrase(sentence[: _clause_end(sentence, proposal)], cue.end(1) + 1, TASK_WORDS)
    if phrase is None:
        return []
    taken = [*proposal.metrics[:1], *proposal.baselines[:1], *proposal.models, *proposal.hardware]
    if any(_overlaps(phrase, other) for other in taken) or _TASK_NOT.search(phrase.text):
        return []
    words = _TRAILING_JOINERS.sub("", phrase.text)
    if not words:
        return []
    text = f"{cue.group(1).lower()} {words}"
    return [Span(text, cue.start(1), phrase.start + len(words))]


# a setting or a name rather than a task: "on GPUs", "on a single A100", "for LLMs"
_TASK_NOT = re.compile(
    r"^(?:(?:a|an|the|one|two|\w+ )?(?:single |consumer |commodity )?(?:GPUs?|CPUs?|devices?"
    r"|machines?|nodes?|clusters?|servers?|hardware|LLMs?|models?|(?:large )?language models?"
    r"|transformers?|settings?|scenarios?|cases?|benchmarks?|datasets?|tasks?|workloads?)$"
    r"|^(?:the|a|an) (?:same|other|one)\b|^(?:which|that|this|these|those|it|them)\b)",
    re.IGNORECASE,
)
_TRAILING_JOINERS = re.compile(r"(?:\s+(?:and|or|a|an|the|with|of|,))+\s*$", re.IGNORECASE)


def _pair_respectively(sentence: str, proposals: list[Proposal]) -> None:
    """'115% and 107% more requests on A800 and H800 clusters, respectively': as many names as
    values, paired in order."""
    if not re.search(r"\brespectively\b", sentence) or len(proposals) < 2:
        return
    for kind in ("models", "hardware"):
        names = sorted({n for p in proposals for n in getattr(p, kind)}, key=lambda n: n.start)
        if len(names) == len(proposals):
            for proposal, name in zip(proposals, names, strict=True):
                setattr(proposal, kind, [name])


_JOINED = re.compile(r"\s*(?:,|and|,\s*and)\s*")
_CONJUNCT_BREAK = re.compile(r",\s*(?:and\s+)?|\s+and\s+")


def _pair_listed_baselines(sentence: str, proposals: list[Proposal]) -> None:
    """'by up to 1.18× and 1.23× over the kernels of FlashAttention-2 and FlashInfer': values
    joined in a list that share one baseline listing as many systems are paired with them in
    order, as "respectively" would say."""
    for run in _joined_runs(sentence, proposals):
        shared = run[0].baselines
        if not shared or any(p.baselines != shared for p in run):
            continue
        parts = [part for span in _listed(sentence, shared) for part in _conjuncts(span)]
        if len(parts) == len(run) and not _shares_a_head(parts):
            for proposal, part in zip(run, parts, strict=True):
                proposal.baselines, proposal.open_baselines = [part], 1


def _joined_runs(sentence: str, proposals: list[Proposal]) -> list[list[Proposal]]:
    """The runs of two or more values of one unit that the sentence lists together."""
    runs: list[list[Proposal]] = []
    for before, proposal in zip([None, *proposals], proposals, strict=False):
        between = sentence[before.value.end : proposal.value.start] if before else ""
        if before and before.unit == proposal.unit and _JOINED.fullmatch(between):
            runs[-1].append(proposal)
        else:
            runs.append([proposal])
    return [run for run in runs if len(run) >= 2]


def _listed(sentence: str, baselines: list[Span]) -> list[Span]:
    """The first baseline with those the sentence lists beside it ('Helix, Quill and Orca' may
    come as 'Helix' and 'Quill and Orca'), in reading order."""
    spans = sorted(baselines, key=lambda b: b.start)
    chain = [spans[0]]
    for span in spans[1:]:
        if _JOINED.fullmatch(sentence[chain[-1].end : span.start]):
            chain.append(span)
        else:
            break
    return chain if baselines[0] in chain else [baselines[0]]


def _shares_a_head(parts: list[Span]) -> bool:
    """'vLLM's TP-only and hybrid-parallel configurations': modifiers of one noun that only the
    last part says; no part alone names its baseline."""
    words = [_POSSESSIVE.sub("", part.text).split() for part in parts]
    return len(words[-1]) > 1 and all(len(w) == 1 for w in words[:-1])


_POSSESSIVE = re.compile(r"^\S+['’]s\s+")


def _conjuncts(span: Span) -> list[Span]:
    """The parts of a listed phrase ('A, B and C'), each by its own offsets."""
    parts, start = [], 0
    for match in _CONJUNCT_BREAK.finditer(span.text):
        parts.append((start, match.start()))
        start = match.end()
    parts.append((start, len(span.text)))
    return [
        Span(span.text[a:b], span.start + a, span.start + b) for a, b in parts if span.text[a:b]
    ]


_SHARE_OF = re.compile(r"\s+of\s+")


def _share_of(sentence: str, value: Span, unit: str) -> Span | None:
    """The phrase after a percentage followed by 'of' ('59% to 72% of optimal throughput')."""
    found = _SHARE_OF.match(sentence, value.end)
    return _phrase(sentence, found.end(), limit=6) if unit == "%" and found else None


def _metrics_and_baselines(
    sentence: str, value: Span, clause: Span
) -> tuple[list[Span], list[Span], int, int]:
    """The candidates for both fields, and how many of each are equally plausible: metrics tied
    to the value in the same way, baselines unless the first is a list of names."""
    baselines = _baselines(sentence, value, clause)
    metrics = [
        m for m in _metrics(sentence, value, clause) if not any(_overlaps(m, b) for b in baselines)
    ]
    tiers = [_metric_rank(sentence, value, m)[0] for m in metrics]
    open_metrics = tiers.count(tiers[0]) if tiers else 0
    listed = bool(baselines) and _NAMED_BEFORE.search(sentence, 0, baselines[0].start)
    open_baselines = 1 if listed else len(baselines)
    return metrics, baselines, open_metrics, open_baselines


_NAMED_BEFORE = re.compile(r"(?:such as|e\.g\.,?|including|like|namely|,)\s*$", re.IGNORECASE)


def _inherit_from_parallel(sentence: str, proposals: list[Proposal]) -> None:
    """'speedups of up to 2.16× on summarization, 1.82× on coding': a value whose clause names
    no metric shares the metric, direction and baseline of the value before it in that unit;
    '115% and 107% more requests': a value joined to the next by 'and' shares the next one's."""
    for i, proposal in enumerate(proposals[:-1]):
        after = proposals[i + 1]
        joined = re.fullmatch(
            r"\s*(?:,|and|or|,\s*and)\s*", sentence[proposal.value.end : after.value.start]
        )
        if joined and after.unit == proposal.unit and _bare(after) and proposal.baselines:
            # "outperforms FA2_Paged by 1.24×, 1.26× and 1.24×": one cue for the whole list
            _share(proposal, after)
        elif not proposal.metrics and joined and after.unit == proposal.unit:
            _share(after, proposal)
        elif joined and after.unit == proposal.unit and _loosely_tied(sentence, proposal, after):
            after.metrics, after.open_metrics = list(proposal.metrics), proposal.open_metrics
    for i, proposal in enumerate(proposals):
        before = [p for p in proposals[:i] if p.unit == proposal.unit and p.metrics]
        # the other side of a contrast is what the value before it is set against, not a value
        # against the same baseline
        against = bool(before) and _contrasted(sentence, before[-1].value, proposal.value)
        if before and not proposal.metrics:
            _share(before[-1], proposal, baseline=not against)
        elif (
            before and not proposal.baselines and _same_metric(before[-1], proposal) and not against
        ):
            proposal.baselines = list(before[-1].baselines)
            proposal.open_baselines = before[-1].open_baselines


# "outperforms FA2_Paged by 1.18× …, and FI_Paged by 1.19×": the verb said once, the second
# system right before its own "by"
_BEATS_BY = re.compile(
    r"\b(?:outperform(?:s|ed|ing)?|beats?|exceed(?:s|ed|ing)?|surpass(?:es|ed|ing)?)\s+"
    r"(?:the\s+)?[\w.-]+(?:\s[\w.-]+){0,3}?\s+by\b",
    re.IGNORECASE,
)
_AND_NAME_BY = re.compile(
    r"(?:,\s*|\s)(?:and|or)\s+(?P<name>(?:the\s+)?[A-Z][\w.-]*(?:\s[\w.-]+){0,2}?)\s+by\s+$"
)


def _baselines_of_ellipsis(sentence: str, proposals: list[Proposal]) -> None:
    """'X outperforms A by 1.2× and B by 1.5×': a value after "and <system> by", in a sentence
    whose verb set an earlier value against a system the same way, is set against that one."""
    beaten = _BEATS_BY.search(sentence)
    if not beaten:
        return
    for proposal in proposals:
        if proposal.baselines or proposal.value.start <= beaten.end():
            continue
        before = sentence[: proposal.value.start]
        found = _AND_NAME_BY.search(before.removesuffix("up to ").removesuffix("about "))
        if found:
            name = Span(found["name"], found.start("name"), found.end("name"))
            proposal.baselines, proposal.open_baselines = [name], 1


def _bare(proposal: Proposal) -> bool:
    """A value its own words give neither a metric nor a baseline."""
    return not proposal.metrics and not proposal.baselines


def _loosely_tied(sentence: str, before: Proposal, after: Proposal) -> bool:
    """'increases the serving capacity by 4.3× and 3.6× … under strict SLOs': the value listed
    after one whose metric the sentence ties to it measures that metric, not a noun that
    merely follows it."""
    if not before.metrics or not after.metrics:
        return False
    tied = _metric_rank(sentence, before.value, before.metrics[0])[0] <= 1
    return tied and _metric_rank(sentence, after.value, after.metrics[0])[0] >= 2


# "2.36× higher than that of the local cache, resulting in up to 48% savings": what follows
# from a comparison is measured against the same system
_CONSEQUENCE = re.compile(
    r"\b(?:resulting in|leading to|which (?:results in|leads to|translates (?:in)?to)"
    r"|translating (?:in)?to)\b",
    re.IGNORECASE,
)
# what a share is taken of when it is a bound to reach, not a part of something
REFERENCE_POINT = re.compile(
    r"\b(?:optimal|optimum|peak|theoretical(?:ly)?|maximum|ideal|roofline|upper bound)\b",
    re.IGNORECASE,
)


# "12x higher throughput compared to X while only adding 2ms latency per token": what the aside
# adds, saves or uses is against X as well
_ASIDE_CHANGE = re.compile(
    r"\b(?:while|whilst)\s+(?:only\s+|also\s+|still\s+)?(?:adding|incurring|introducing|"
    r"reducing|saving|cutting|lowering|using|consuming|requiring)\b",
    re.IGNORECASE,
)


def _inherit_consequence(sentence: str, proposals: list[Proposal]) -> None:
    """A value said to follow from the comparison before it, or what an aside after it adds or
    saves, shares that comparison's baseline."""
    for before, after in itertools.pairwise(proposals):
        between = sentence[before.value.end : after.value.start]
        if after.baselines or not before.baselines or ";" in between:
            continue
        if _CONSEQUENCE.search(between) or _ASIDE_CHANGE.search(between):
            after.baselines, after.open_baselines = list(before.baselines), before.open_baselines


# "generate identical results as greedy decoding but achieve over 2× speed-up": a speed-up that
# keeps another method's output is measured against that method
_SAME_OUTPUT_AS = re.compile(
    r"\b(?:identical|the same|same)\s+(?:[\w-]+\s+)?(?:results?|outputs?|generations?|text)"
    r"\s+(?:as|to)\s+",
    re.IGNORECASE,
)


_TURN = re.compile(r"\s(?:but|yet)\s")


def _inherit_kept_output(sentence: str, proposals: list[Proposal]) -> None:
    """A speed-up with no baseline of its own in a sentence saying whose output it keeps is
    against that method."""
    kept = _SAME_OUTPUT_AS.search(sentence)
    span = _phrase(sentence, kept.end()) if kept else None
    turn = _TURN.search(span.text) if span else None
    if span is not None and turn is not None:  # "as greedy decoding but achieve ..."
        span = Span(span.text[: turn.start()], span.start, span.start + turn.start())
    if span is None or not _names_a_baseline(span.text):
        return
    for proposal in proposals:
        speedup = _unit_name(proposal.unit) == "×" or any(
            "speed" in m.text.lower() for m in proposal.metrics
        )
        if speedup and not proposal.baselines:
            proposal.baselines, proposal.open_baselines = [span], 1


def _inherit_lead_in(sentence: str, proposals: list[Proposal]) -> None:
    """'FlashAttention trains Transformers faster than existing baselines: 15% …, 3× speedup on
    GPT-2, …': the values listed after a colon are compared with the system its lead-in names,
    unless their own words name another."""
    colon = sentence.find(": ")
    if colon < 0 or any(p.value.start < colon for p in proposals):
        return
    lead_in = [
        b for cue in _COMPARE.finditer(sentence, 0, colon) for b in _cue_phrase(sentence, cue)
    ]
    if not lead_in:
        return
    for proposal in proposals:
        if not proposal.baselines:
            proposal.baselines, proposal.open_baselines = [lead_in[0]], 1


def _cue_phrase(sentence: str, cue: re.Match[str]) -> list[Span]:
    span = _phrase(sentence, cue.end())
    return [span] if span is not None and _names_a_baseline(span.text) else []


def _same_metric(one: Proposal, other: Proposal) -> bool:
    """'a 4-8× speedup over FlexGen …, and a 16× speedup in …': the second value measures the
    same thing as the first, so it is compared with the same system."""
    return one.metrics[0].text.lower() == other.metrics[0].text.lower()


def _share(source: Proposal, proposal: Proposal, baseline: bool = True) -> None:
    if not proposal.metrics:
        proposal.metrics, proposal.open_metrics = list(source.metrics), source.open_metrics
    if baseline and not proposal.baselines:
        proposal.baselines, proposal.open_baselines = list(source.baselines), source.open_baselines
    if not proposal.direction:
        proposal.direction, proposal.direction_cue = source.direction, source.direction_cue


LOWER_IS_BETTER = re.compile(
    r"latenc|time|TTFT|TPOT|TBT|memory|footprint|overhead|cost|energy|power|error|perplexity|"
    r"loss|SLO|delay|waste|fragmentation|transfers|traffic|I/O",
    re.IGNORECASE,
)
_BETTER = re.compile(r"improv|better|speed", re.IGNORECASE)


def _orient(proposal: Proposal) -> None:
    """'improves P99 latency by 15×' is a 15× lower latency: a cue that says better, on a metric
    where less is better, gives the direction lower."""
    if (
        proposal.direction == "higher"
        and _BETTER.search(proposal.direction_cue)
        and proposal.metrics
        and LOWER_IS_BETTER.search(proposal.metrics[0].text)
    ):
        proposal.direction = "lower"


def _not_others(names: list[Span], clause: Span, others: list[tuple[Span, Span]]) -> list[Span]:
    """For a value with a task of its own, the names of its own clause or of no other value's:
    a name stated after another value, in that value's clause, is that value's ("3× on GPT-2,
    and 2.4× on long-range arena" measured the 2.4× on no GPT-2); one opening the sentence is
    every value's setting."""
    return [
        n
        for n in names
        if _overlaps(n, clause)
        or not any(n.start >= value.end and _overlaps(n, other) for value, other in others)
    ]


def _nearest_first(names: list[Span], value: Span, clause: Span) -> list[Span]:
    """Names in the value's clause before the others, each group nearest first."""
    kept = [n for n in names if not _overlaps(n, value)]
    return sorted(
        kept,
        key=lambda n: (
            not _overlaps(n, clause),
            min(abs(n.start - value.end), abs(value.start - n.end)),
        ),
    )


def _values(sentence: str) -> list[tuple[Span, tuple[str, ...], str]]:
    found = []
    for match in _VALUE.finditer(sentence):
        unit = match.group("unit") or match.group("unit2") or ""
        if match.group("dollar"):
            unit = "$"
        if unit:
            if _multiplies(sentence, match, unit):
                continue
        elif not is_score_change(sentence, match.start("num"), match.end()):
            continue
        if _inside_name(sentence, match):
            continue
        numbers = tuple(n for n in (match.group("num"), match.group("num2")) if n)
        start = (
            match.start() if match.group("qual") or match.group("dollar") else match.start("num")
        )
        end = match.end()
        found.append((Span(sentence[start:end].strip(), start, end), numbers, _unit_name(unit)))
    return found


# "8 × 312 × 10^12": a product in a formula; "8×A100 GPUs": a count of devices
_FACTOR_AFTER = re.compile(r"\s*(?:\d|[A-Z]\w*\d)")
_FACTOR_BEFORE = re.compile(r"[×x*]\s*$")


def _multiplies(sentence: str, match: re.Match[str], unit: str) -> bool:
    """The '×' after the number multiplies it by what follows (a number, or a device: '8×A100'),
    or the number is itself a factor of a product; it states no ratio."""
    if _unit_name(unit) != "×":
        return False
    before = sentence[: match.start("num")]
    return bool(_FACTOR_AFTER.match(sentence, match.end()) or _FACTOR_BEFORE.search(before))


def _inside_name(sentence: str, match: re.Match[str]) -> bool:
    before = sentence[: match.start("num")]
    if _NAME_BEFORE.search(before) and not match.group("qual"):
        return True
    after = sentence[match.end("num") :]
    if match.group("unit") in (None, "") and _PARAMS_AFTER.match(after):
        return True
    if _EXPERTS_AFTER.match(sentence[match.end() :]):
        return True
    return bool(re.search(r"[\[(]\s*$", before) and re.match(r"\s*[\]),]", after))


def _unit_name(unit: str) -> str:
    unit = unit.strip()
    if unit in ("x", "X", "-fold"):
        return "×"
    if unit == "percent":
        return "%"
    return unit.lstrip("-")


def _overlaps(a: Span, b: Span) -> bool:
    return a.start < b.end and b.start < a.end


def _clause(sentence: str, value: Span, values: list[Span]) -> Span:
    """The part of the sentence that speaks of this value: bounded by the neighbouring values'
    clauses (a comma, semicolon or conjunction between two numbers separates their claims)."""
    left, right = 0, len(sentence)
    for other in values:
        if other.end <= value.start:
            gap = sentence[other.end : value.start]
            cut = _last_break(gap)
            left = max(left, other.end + cut if cut >= 0 else other.end)
        elif other.start >= value.end:
            gap = sentence[value.end : other.start]
            cut = _first_break(gap)
            right = min(right, value.end + cut if cut >= 0 else other.start)
    return Span(sentence[left:right], left, right)


_BREAK = re.compile(
    r",|;|\band\b|\bor\b|\bwhile\b|\bwhereas\b|\bwhich\b|\bachieving\b|\breaching\b|"
    r"\bresulting in\b|\bleading to\b"
)


def _last_break(text: str) -> int:
    breaks = [m.end() for m in _BREAK.finditer(text)]
    return breaks[-1] if breaks else -1


def _first_break(text: str) -> int:
    match = _BREAK.search(text)
    return match.start() if match else -1


def _direction(sentence: str, value: Span, clause: Span) -> tuple[str, str]:
    """The cue word nearest the value inside its clause decides."""
    best: tuple[int, str, str] | None = None
    for pattern, direction in ((_LOWER, "lower"), (_HIGHER, "higher")):
        for match in pattern.finditer(sentence, clause.start, clause.end):
            if match.group(0).lower() in ("more", "less", "fewer") and not _right_after(
                sentence, value, match
            ):
                continue
            distance = min(abs(match.start() - value.end), abs(value.start - match.end()))
            if best is None or distance < best[0]:
                best = (distance, direction, match.group(0))
    return (best[1], best[2]) if best else ("", "")


def _right_after(sentence: str, value: Span, match: re.Match[str]) -> bool:
    """'4.48× more requests' gives a direction; 'more than 2×' or 'more cost-effective' do not."""
    return match.start() >= value.end and not sentence[value.end : match.start()].strip()


def _metrics(sentence: str, value: Span, clause: Span) -> list[Span]:
    """Metric noun phrases in the value's clause, ranked by how the sentence ties them to it:
    '<value> higher <metric>', '<verb> the <metric> ... by <value>', '<metric> of <value>'."""
    spans = []
    aside = _ASIDE.search(sentence, value.end, clause.end)
    end = aside.start() if aside else clause.end
    for match in _METRIC.finditer(sentence, clause.start, end):
        span = _trim_modifiers(sentence, match.start(), match.end())
        if (
            span is not None
            and not _overlaps(span, value)
            and not _has_own_value(sentence, span, value)
        ):
            spans.append(span)
    spans = [_singular(span) for span in _merge_adjacent(sentence, spans)]
    ranked = sorted(spans, key=lambda span: _metric_rank(sentence, value, span))
    return (
        list(dict.fromkeys(ranked))
        or _changed_object(sentence, value, clause)
        or _compared_noun(sentence, value)
    )


# a metric is named in the singular ("22× higher request rates": the request rate is 22× higher);
# only heads whose singular is the plural without its "s", so the metric stays on the quote
_PLURAL_HEAD = re.compile(
    r"(?:rate|length|speed-?up|size|gain|improvement|throughput|cost|reduction|saving)s$",
    re.IGNORECASE,
)


def _singular(span: Span) -> Span:
    if not _PLURAL_HEAD.search(span.text):
        return span
    return Span(span.text[:-1], span.start, span.end - 1)


# ", while maintaining similar latencies": what the sentence says beside the value's claim
_ASIDE = re.compile(r",?\s*\b(?:while|whereas|without|with no)\b", re.IGNORECASE)
# "at batch size 64", "a context length of 2K": a setting holding a number of its own is not
# what another number measures ("a goodput of 10 rps, … 2.1× higher" is: goodput is measured)
_OWN_VALUE = re.compile(r"\s*(?:of\s+|=\s*|:\s*)?\(?\d")
_SETTING = re.compile(r"(?:batch size|context length|sequence length)s?$", re.IGNORECASE)


def _has_own_value(sentence: str, span: Span, value: Span) -> bool:
    """A setting with a number right after it, other than the value."""
    found = _OWN_VALUE.match(sentence, span.end)
    return (
        found is not None
        and bool(_SETTING.search(span.text))
        and not value.start <= found.end() - 1 < value.end
    )


# "9× fewer HBM accesses", "up to 4× fewer GPU hours": the noun phrase a comparative right after
# the value speaks of, when the field's vocabulary names none
_COMPARATIVE = r"(?:fewer|more|less|higher|lower|greater|larger|smaller)"
_COMPARED_NOUN = re.compile(
    rf"\s*{_COMPARATIVE}\s+(?P<noun>(?:[A-Za-z][\w/-]*\s+){{0,2}}?[A-Za-z][\w/-]*?s)\b"
    r"(?=\s*(?:[,.;:)]|than|compared|over|versus|vs\b|against|relative|$))",
    re.IGNORECASE,
)
_BARE_COMPARATIVE = re.compile(rf"\s*(?P<word>{_COMPARATIVE})\b(?!\s+[A-Za-z])", re.IGNORECASE)


def _compared_noun(sentence: str, value: Span) -> list[Span]:
    """The plural noun phrase after '<value> fewer', or, for a bare '(up to 9× fewer)', after
    the same comparative elsewhere in the sentence."""
    found = _COMPARED_NOUN.match(sentence, value.end)
    if found is None:
        bare = _BARE_COMPARATIVE.match(sentence, value.end)
        if bare is None:
            return []
        found = next(
            (
                m
                for m in _COMPARED_NOUN.finditer(sentence)
                if m.group(0).split()[0].lower() == bare["word"].lower()
            ),
            None,
        )
    if found is None or any(w.lower() in _NOT_MODIFIER for w in found["noun"].split()):
        return []
    return [Span(found["noun"], found.start("noun"), found.end("noun"))]


# "reduces base-model hallucinations by 97%": what a change verb changes by the value is what it
# measures, when no metric of the field's vocabulary is named
_CHANGED_BY = re.compile(
    r"\b(?:reduc|cut|lower|decreas|improv|increas|rais|boost|shrink|lift)\w*\s+"
    r"(?:the\s+|its\s+|their\s+)?(?P<object>(?:[\w-]+\s+){0,3}?[\w-]+)\s+by\s+$",
    re.IGNORECASE,
)


def _changed_object(sentence: str, value: Span, clause: Span) -> list[Span]:
    found = _CHANGED_BY.search(sentence, clause.start, value.start)
    if found is None or re.search(r"\d", found["object"]):
        return []
    return [Span(found["object"], found.start("object"), found.end("object"))]


def _merge_adjacent(sentence: str, spans: list[Span]) -> list[Span]:
    """'single-batch decoding' + 'latency' → 'single-batch decoding latency'."""
    merged: list[Span] = []
    for span in spans:
        if merged and not sentence[merged[-1].end : span.start].strip():
            start = merged[-1].start
            merged[-1] = Span(sentence[start : span.end], start, span.end)
        else:
            merged.append(span)
    return merged


_HEAD_AT_END = re.compile(rf"\b{_METRIC_HEAD}$", re.IGNORECASE)


def _trim_modifiers(sentence: str, start: int, end: int) -> Span | None:
    """The head with the run of allowed modifiers right before it."""
    head = _HEAD_AT_END.search(sentence, start, end)
    if head is None:
        return None
    first = head.start()
    for word in reversed(list(word_matches(sentence[start : head.start()], WordStyle.TOKEN))):
        if _not_modifier(word.group(0)):
            break
        first = start + word.start()
    text = sentence[first:end]
    return Span(text, first, end) if re.search(r"[A-Za-z]{2}", text) else None


def _not_modifier(word: str) -> bool:
    if re.fullmatch(r"[A-Z][A-Z0-9]+|KV|[a-z]+(?:-[a-z]+)+", word) and word.lower() not in (
        _NOT_MODIFIER
    ):
        return False  # an acronym (LLM, GPU, KV) or a compound (single-batch, high-priority)
    return word.lower() not in _MODIFIER_WORDS


_TIED_AFTER = re.compile(
    r"\s*(?:(?:higher|lower|more|less|better|faster|fewer|smaller|larger|greater|tighter|"
    r"improvements?|reductions?|increases?|decreases?|savings?|speedups?|speed-ups?|gains?)\s+"
    r"(?:(?:in|of|on)\s+(?:the\s+)?)?)?",
    re.IGNORECASE,
)
_TIED_BEFORE = re.compile(r"(?:\bby|\bof|\bis|\bto|:|\(|\bachieves?|\byields?)\s*$")


def _metric_rank(sentence: str, value: Span, span: Span) -> tuple[int, int, int]:
    weak = int(bool(_WEAK_HEAD.search(span.text)))
    if span.start >= value.end:
        between = sentence[value.end : span.start]
        if _TIED_AFTER.fullmatch(between):
            return (0, weak, len(between))
        return (2, weak, span.start - value.end)
    between = sentence[span.end : value.start]
    if _TIED_BEFORE.search(between) and len(between) < 80 and not re.search(r"[,;]", between):
        return (1, weak, len(between))
    return (3, weak, value.start - span.end)


def _baselines(sentence: str, value: Span, clause: Span) -> list[Span]:
    """What the value is compared with: the phrase after a comparison cue, in the value's
    clause or after it; a list introduced by 'such as' is the baseline it names."""
    found = _of_after(sentence, value)
    leading = _LEADING_COMPARE.match(sentence)
    own_cue = False  # a cue in the value's own clause: a later value's cue is not its baseline
    for cue in _COMPARE.finditer(sentence):
        if cue.start() < clause.start and not (leading and cue.start() == leading.start(1)):
            continue
        if cue.start() >= clause.end and own_cue:
            break
        own_cue = own_cue or cue.start() < clause.end
        start = cue.end()
        pronoun = _STANDS_FOR.match(sentence, start)
        start = pronoun.end() if pronoun else start
        start = _after_metric_of(sentence, start)
        if _NOT_BASELINE.match(sentence[start:]):
            continue
        span = _phrase(sentence, start)
        if span is None or _overlaps(span, value) or re.search(r"\d+(?:\.\d+)?\s*[×x%]", span.text):
            continue
        listed = _listed_after(sentence, span)
        found.extend(b for b in (listed, span) if b is not None and _names_a_baseline(b.text))
        if cue.start() >= clause.end:
            break
    return list(dict.fromkeys(found)) or _set_against(sentence, value)


# "reduces latency from 589 milliseconds for FP16 inference (on 8 GPUs) to 130 milliseconds, a
# 4.5× latency reduction": the setting the first number was measured in
_FROM_TO = re.compile(
    r"\bfrom\s+[\d.,]+\s*[^\s\d]*\s+(?:for|with|using|under|in)\s+(?P<setting>[^,;()]+?)"
    r"\s*(?:\([^)]*\)\s*)?\bto\s+[\d.,]+",
    re.IGNORECASE,
)
# "we achieve 28.5ms/token with int8 weights …, while we achieve 36.9ms/token with bfloat16
# weights": the other number's setting
_CONTRAST = re.compile(
    r"\b(?:while|whereas)\b[^.;]*?\d[\d.,]*\s*\S*\s+(?:with|using|for|under)\s+", re.IGNORECASE
)


def _contrasted(sentence: str, first: Span, second: Span) -> bool:
    """A contrast ('…, while we achieve M with B') opens between the two values."""
    found = _CONTRAST.search(sentence, first.end)
    return found is not None and found.start() < second.start


def _set_against(sentence: str, value: Span) -> list[Span]:
    """A baseline said without a comparison cue: the setting a change starts from ('from N for
    X to M'), or the other side of a contrast ('N with A, while M with B')."""
    moved = _FROM_TO.search(sentence)
    if moved and value.start >= moved.end("setting") and not _overlaps(value, _span_of(moved)):
        span = _phrase(sentence, moved.start("setting"))
        return [span] if span is not None and _names_a_baseline(span.text) else []
    contrast = _CONTRAST.search(sentence)
    if contrast and value.end <= contrast.start():
        span = _phrase(sentence, contrast.end())
        return [span] if span is not None and _names_a_baseline(span.text) else []
    compared = _COMPARE_VERB.search(sentence, 0, value.start)
    if compared and not _overlaps(value, _span_of(compared)):
        span = _phrase(sentence, compared.end())
        return [span] if span is not None and _names_a_baseline(span.text) else []
    return []


# "we compare actual walltimes for T5-XXL to those of the T5X implementation, showing a 2X-3X
# improvement": what the paper compares its own with, named before the value it found
_COMPARE_VERB = re.compile(
    r"\bcompar(?:e|es|ing)\s+(?!to\b|with\b|against\b)[^,;.()]{1,80}?\s(?:to|with|against)\s+"
    r"(?:(?:those|that)\s+of\s+)?",
    re.IGNORECASE,
)


def _span_of(found: re.Match[str]) -> Span:
    return Span(found.group(), found.start(), found.end())


# "Compared to vLLM, we achieve 2.6× ... and 3.7× ...": a cue that opens the sentence holds
# for every value in it
_LEADING_COMPARE = re.compile(
    r"^\s*(?:when\s+)?(?:(?:the|its|our)\s+(?:improvements?|speed-?ups?|gains?|advantages?|benefits?)\s+of\s+"
    rf"[\w.-]+(?:\s+[\w.-]+)?\s+)?((?:{_COMPARED_TO}|over|against)\s)",
    re.IGNORECASE,
)
# "1.91× the throughput of vLLM": the system after "the <metric> of"
_OF_AFTER = re.compile(r"\s+(?:the|that of)\s+(?:[\w-]+\s+){0,3}?of\s+", re.IGNORECASE)


_METRIC_OF = re.compile(r"(?:the\s+)?(?:[\w-]+\s+){0,3}?of\s+", re.IGNORECASE)


def _after_metric_of(sentence: str, start: int) -> int:
    """'outperforming the throughput of FlexGen by 16×': the baseline starts after 'the
    throughput of'."""
    found = _METRIC_OF.match(sentence, start)
    if found is None or not _METRIC.search(sentence, start, found.end()):
        return start
    return found.end()


def _of_after(sentence: str, value: Span) -> list[Span]:
    cue = _OF_AFTER.match(sentence, value.end)
    if cue is None or not _METRIC.search(sentence, value.end, cue.end()):
        return []
    span = _phrase(sentence, cue.end())
    return [span] if span is not None and _names_a_baseline(span.text) else []


_BASELINE_WORD = any_word(
    r"baselines?|systems?|methods?|approach(?:es)?|solutions?|implementations?|decoding|"
    r"inference|serving|models?|kernels?|librar(?:y|ies)|engines?|execution|loading|schedul\w*|"
    r"attention|autoregressive|standard|vanilla|naive|prior|existing|state-of-the-art|original|"
    r"dense|uncompressed|full|previous|conventional|traditional|default|static|sequential|"
    r"non-\w+|without \w+|works?|techniques?|frameworks?|counterparts?|designs?|policy|versions?|"
    r"variants?|formulations?|protocols?|configurations?|caches?|caching|"
    r"policies|algorithms?|fp16|bf16|fp32|fp8|int8|int4|bfloat16|float16|float32|round-robin|[\w]+-only|batch(?:es|ing)?|prefill(?:ing)?"
)
_DETERMINER = re.compile(r"^(?:the|a|an|its|their|our|that of|those of)\s+", re.IGNORECASE)


def _names_a_baseline(text: str) -> bool:
    """A system, a method or a setting: a name (capitals in it) or a word that names one, and
    not another measurement ('the capacity of', 'sequence length'), nor a list cut short into
    one name twice ('GPTQ and GPTQ' from 'GPTQ and GPTQ with reordering')."""
    bare = _DETERMINER.sub("", text)
    if re.fullmatch(r"(.+?),? (?:and|or) \1", bare):
        return False
    head = re.match(rf"{_METRIC_HEAD}\b", bare, re.IGNORECASE)
    if head and not _WEAK_HEAD.search(head.group(0)):
        return False
    has_name = re.search(r"[A-Z]", bare)  # vLLM, cuBLAS: a capital anywhere in a word
    return bool(has_name or _BASELINE_WORD.search(bare))


def _phrase(sentence: str, start: int, limit: int = 12) -> Span | None:
    """The noun phrase from `start` to the next stop, at most `limit` words."""
    rest = sentence[start:]
    stop = _BASELINE_STOP.search(rest)
    text = rest[: stop.start()] if stop else rest
    words = text.split()
    text = " ".join(words[:limit]).rstrip(" .")
    if len(words) > limit:  # a phrase cut short ends on a word, not on "of the"
        text = _TRAILING_JOINERS.sub("", text)
    if len(text) < 2 or not re.search(r"[A-Za-z]{2}|[A-Za-z]\d+[A-Za-z]", text):
        return None
    first = sentence.find(text, start)
    return Span(text, first, first + len(text)) if first >= 0 else None


_APPOSITIVE = re.compile(r",\s*(?=[A-Z])")


def _listed_after(sentence: str, span: Span) -> Span | None:
    """'the state-of-the-art systems, such as FasterTransformer and Orca' → the names listed;
    'the fine-tuning library, PEFT, …' → the name in apposition."""
    listed = _LIST_INTRO.match(sentence, span.end)
    intro = listed or _APPOSITIVE.match(sentence, span.end)
    if intro is None:
        return None
    named = _phrase(sentence, intro.end())
    if named is None or not re.match(r"[A-Z]", named.text):
        return None
    if not listed and not _APPOSITION_END.match(sentence, named.end):
        return None  # 'compared to X, BiLD achieved …': the next clause's subject, not a name of X
    return named


_APPOSITION_END = re.compile(r"\s*(?:[,;)\]]|\.?\s*$)")


def _names(sentence: str, pattern: re.Pattern[str], aliases: list[str]) -> list[Span]:
    spans = [Span(m.group(0), m.start(), m.end()) for m in pattern.finditer(sentence)]
    for alias in aliases:
        for match in re.finditer(rf"(?<![\w-]){re.escape(alias)}(?![\w-])", sentence):
            spans.append(Span(match.group(0), match.start(), match.end()))
    spans.sort(key=lambda s: (s.start, -s.end))
    kept: list[Span] = []
    for span in spans:
        if not kept or span.start >= kept[-1].end:
            kept.append(span)
    return kept


def setup_names(
    chunks: list[tuple[int | None, str, str]], aliases: dict[str, list[str]] | None = None
) -> dict[str, tuple[str, int]]:
    """The first model and hardware the paper's setup or evaluation names, with their page:
    what a claim whose sentence names neither was most likely measured with."""
    aliases = aliases or {}
    found: dict[str, tuple[str, int]] = {}
    for page, section, text in chunks:
        if page is None or not re.search(r"setup|experiment|evaluat|implement", section, re.I):
            continue
        for kind, pattern in (("model", MODEL_NAME), ("hardware", HARDWARE_NAME)):
            if kind not in found:
                names = [n for n in _names(text, pattern, aliases.get(kind, [])) if _sized(n)]
                if names:
                    found[kind] = (names[0].text, page)
    return found


def _sized(name: Span) -> bool:
    """A setup names a model by family and size (Llama-2-7B), not just its family."""
    return bool(re.search(r"\d", name.text))
