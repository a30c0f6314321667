"""What a claim measured, read by code from its metric and its quote: the metric family and
unit, and the setting (model size class, hardware, precision). Two claims are comparable only
when these agree."""

from __future__ import annotations

import re
from dataclasses import dataclass

_FAMILIES = (
    ("speedup", re.compile(r"speed-?up|faster|acceleration", re.I)),
    ("throughput", re.compile(r"throughput|goodput|tokens?\s*/\s*s|requests?\s*/\s*s|qps", re.I)),
    (
        "latency",
        re.compile(r"latency|ttft|time[- ]to[- ]first|tpot|time per (output )?token|tbt", re.I),
    ),
    ("memory", re.compile(r"memory|footprint|kv[- ]cache size|\bgb\b", re.I)),
    ("perplexity", re.compile(r"perplexity|\bppl\b", re.I)),
    ("accuracy", re.compile(r"accuracy|exact match|\bf1\b|rouge|bleu", re.I)),
    ("energy", re.compile(r"energy|joules?|\bwatts?\b|power draw", re.I)),
    ("cost", re.compile(r"\bcost\b|dollars?|\$|price", re.I)),
)
_SIZE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*([BM])\b")
_HARDWARE = re.compile(
    r"\b(A100|H100|H200|H800|A800|V100|A10G?|L40S?|L4|T4|A6000|RTX\s?\d{4}|MI\d{3}X?|"
    r"TPU\s?v?\d+\w*|Gaudi\s?\d?|CPUs?)\b",
    re.I,
)
_PRECISION = re.compile(r"\b(fp32|fp16|bf16|fp8|int8|int4|int3|w\d+a\d+|[2-8]-bit)\b", re.I)
_BETTER = re.compile(
    r"\b(faster|speed-?ups?|higher throughput|improv\w*|reduc\w*|outperform\w*|lower latency|"
    r"saves?|less memory)\b",
    re.I,
)
_WORSE = re.compile(
    r"\b(slower|slowdown|degrad\w*|worse|overhead|lower throughput|higher latency|"
    r"more memory|hurts?)\b",
    re.I,
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


def metric_family(metric: str, quote: str) -> str:
    """The family the metric names, else the one the quote names first, else ''."""
    for text in (metric, quote):
        for family, pattern in _FAMILIES:
            if pattern.search(text):
                return family
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
    hardware_match = _HARDWARE.search(quote)
    precision_match = _PRECISION.search(quote)
    return Setting(
        size_class(quote),
        re.sub(r"\s+", "", hardware_match.group(1)).upper() if hardware_match else "",
        precision_match.group(1).lower() if precision_match else "",
    )


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
