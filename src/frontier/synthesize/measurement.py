"""What a claim measured, read by code from its metric and its quote: the metric family and
unit, and the setting (model size class, hardware, precision). Two claims are comparable only
when these agree."""

from __future__ import annotations

import re
from dataclasses import dataclass

from frontier.text import NumberShape, NumberStart, any_word, number_pattern

# checked in order: the first family whose pattern the metric holds is its family, so a
# specific measure (TTFT, goodput) comes before the general one it is a kind of (latency,
# throughput), and speedup, which any measure can be expressed as, comes last
FAMILIES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (family, re.compile(pattern, re.IGNORECASE))
    for family, pattern in (
        ("ttft", r"\bttft\b|time[- ]to[- ]first[- ]token|first[- ]token latency"),
        (
            "tbt",
            r"\btbt\b|\btpot\b|\bitl\b|time[- ]between[- ]tokens|time[- ]per[- ]output[- ]token|"
            r"inter[- ]token latency|per[- ]token latency",
        ),
        ("goodput", r"goodput"),
        (
            "request-rate",
            r"request rate|requests? per second|\brps\b|\bqps\b|queries per second|capacity|"
            r"arrival rate",
        ),
        ("throughput", r"throughput|tokens?\s*(?:/|per)\s*s(?:ec(?:ond)?)?\b|\btok/s"),
        ("latency", r"latenc(?:y|ies)|response time|completion time|\bjct\b"),
        ("memory", r"memory(?! bandwidth)|footprint|kv[- ]cache (?:size|usage)|\bvram\b"),
        ("perplexity", r"perplexity|\bppl\b"),
        ("accuracy", r"accuracy|exact match|\bf1\b|rouge|bleu|pass@\d"),
        ("energy", r"energy|joules?|power consumption|\bwatts?\b"),
        ("cost", r"\bcosts?\b|dollars?|\bprice"),
        ("speedup", r"speed-?ups?|faster|acceleration"),
    )
)
FAMILY_NAMES = tuple(family for family, _pattern in FAMILIES)
_FAMILY_SYNONYMS = {"tpot": "tbt", "capacity": "request-rate", "speed-up": "speedup"}
# the coarser families conflicts compare within: a TTFT and a latency are both latencies
_COMPARED_AS = {"ttft": "latency", "tbt": "latency", "goodput": "throughput",
                "request-rate": "throughput"}  # fmt: skip
_SIZE = re.compile(
    rf"({number_pattern(NumberShape.DECIMAL, NumberStart.OUTSIDE_WORDS)})\s*([BM])\b"
)
_HARDWARE = re.compile(
    r"\b(A100|H100|H200|H800|A800|V100|A10G?|L40S?|L4|T4|A6000|RTX\s?\d{4}|MI\d{3}X?|"
    r"TPU\s?v?\d+\w*|Gaudi\s?\d?|CPUs?)\b",
    re.I,
)
_PRECISION = re.compile(
    r"\b(fp32|fp16|bf16|fp8|int8|int4|int3|w\d+a\d+|[2-8]-bit|[2-8] bits|16-bit|16 bits)\b", re.I
)
_BETTER = any_word(
    r"faster|speed-?ups?|higher throughput|improv\w*|reduc\w*|outperform\w*|lower latency|"
    r"saves?|less memory"
)
_WORSE = any_word(
    r"slower|slowdown|degrad\w*|worse|overhead|lower throughput|higher latency|more memory|hurts?"
)


@dataclass(frozen=True)
class Setting:
    size: str
    hardware: str
    precision: str

    def known(self) -> int:
        return sum(bool(x) for x in (self.size, self.hardware, self.precision))

    def describe(self) -> str:
        parts = [f"{self.size} models" if self.size else "", self.hardware, self.precision]
        return ", ".join(p for p in parts if p) or "unstated setting"


_LABELS = {"ttft": "TTFT", "tbt": "TBT / TPOT", "request-rate": "request rate"}


def family_label(family: str | None) -> str:
    """A family as a reader reads it ('TTFT', 'request rate'); '' for none."""
    return _LABELS.get(family or "", family or "")


def named_family(text: str) -> str | None:
    """The family of measure a metric's words name, else None."""
    for family, pattern in FAMILIES:
        if pattern.search(text):
            return family
    return None


def family_name(text: str) -> str | None:
    """A family as a user types it (any case, `request rate`, `TPOT`), or None if unknown."""
    key = "-".join(text.casefold().split())
    key = _FAMILY_SYNONYMS.get(key, key)
    return key if key in FAMILY_NAMES else None


def metric_family(metric: str, quote: str) -> str:
    """The family conflicts compare a claim within: the one its metric names, else the one its
    quote names first, coarsened (TTFT and TBT are latencies); '' when neither names one."""
    for text in (metric, quote):
        if family := named_family(text):
            return _COMPARED_AS.get(family, family)
    return ""


def unit_class(unit: str, value_text: str) -> str:
    text = f"{unit} {value_text}".lower()
    if "×" in text or re.search(r"\d\s*x\b|^\s*x\b", text):
        return "x"
    if "%" in text:
        return "%"
    return unit.strip().lower()


def size_class(text: str) -> str:
    sizes = []
    for number, scale in _SIZE.findall(text):
        value = float(number) / (1000 if scale == "M" else 1)
        if 0.01 <= value <= 2000:
            sizes.append(value)
    if not sizes:
        return ""
    top = max(sizes)
    for bound, label in ((3, "<3B"), (15, "3-15B"), (40, "15-40B")):
        if top < bound:
            return label
    return ">40B"


def setting_of(quote: str) -> Setting:
    """The setting as the quote states it; the model's typed fields count only when the quote
    says them, so the quote alone decides."""
    hardware = {re.sub(r"\s+", "", m.group(1)).upper() for m in _HARDWARE.finditer(quote)}
    precision = {_precision_name(m.group(1)) for m in _PRECISION.finditer(quote)}
    # a quote naming two (3-bit weights beside FP16 embeddings) states neither as its setting
    return Setting(
        size_class(quote),
        hardware.pop() if len(hardware) == 1 else "",
        precision.pop() if len(precision) == 1 else "",
    )


def _precision_name(text: str) -> str:
    """'3 bits' and '3-bit' alike; '16-bit' is fp16 unless the quote says bf16."""
    name = re.sub(r"\s*bits?$", "-bit", text.lower())
    return "fp16" if name == "16-bit" else name


def is_setting_unit(unit: str) -> bool:
    """A bit width is the precision a result was measured at, not a measure of it."""
    return unit.strip().lower() in {"bit", "bits", "-bit"}


def comparable(a: Setting, b: Setting) -> bool:
    """No stated dimension differs, and at least two are stated by both."""
    shared = 0
    for x, y in ((a.size, b.size), (a.hardware, b.hardware), (a.precision, b.precision)):
        if x and y:
            if x != y:
                return False
            shared += 1
    return shared >= 2


def stated_direction(quote: str) -> str:
    """'better' or 'worse' when the quote says which way the result went, else ''."""
    better, worse = bool(_BETTER.search(quote)), bool(_WORSE.search(quote))
    return "better" if better and not worse else "worse" if worse and not better else ""
