"""Canonical names of the field's systems, accelerators and models, for grouping results.

A name is resolved only when it is known as a whole (after its decorations are dropped: an
article, a vendor, a version, a GPU's memory size or form factor, a count of GPUs); a field
holding several names resolves only when each of them does. Anything else resolves to nothing,
so a claim is never grouped with a system it did not name."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from frontier.model import EntityInfo

# canonical name -> other spellings; a canonical name is also an alias of itself
KNOWN_NAMES: dict[str, tuple[str, ...]] = {
    # serving systems and libraries
    "vLLM": (),
    "Orca": (),
    "FasterTransformer": ("Faster Transformer", "NVIDIA FasterTransformer"),
    "TensorRT-LLM": ("TensorRT LLM", "TRT-LLM", "TRTLLM"),
    "SGLang": (),
    "HF Transformers": (
        "HuggingFace",
        "Hugging Face",
        "HuggingFace Transformers",
        "Hugging Face Transformers",
        "HF",
    ),
    "HF TGI": ("TGI", "Text Generation Inference", "HuggingFace TGI", "Hugging Face TGI"),
    "DeepSpeed-Inference": ("DeepSpeed Inference", "DS-Inference"),
    "DeepSpeed-FastGen": ("DeepSpeed FastGen", "FastGen", "DeepSpeed-MII", "MII"),
    "LightLLM": (),
    "llama.cpp": ("llamacpp", "llama-cpp"),
    "Ollama": (),
    "MLC-LLM": ("MLC LLM", "MLC"),
    "FlexGen": (),
    "Sarathi-Serve": ("Sarathi Serve",),
    "DistServe": (),
    "Splitwise": (),
    "PyTorch": ("pytorch", "torch", "eager PyTorch"),
    # kernels, precisions and quantisation methods
    "FP16": ("float16", "half precision", "cuBLAS", "cuBLAS FP16", "FP16 cuBLAS", "W16A16"),
    "BF16": ("bfloat16",),
    "FP32": ("float32", "full precision"),
    "GPTQ": (),
    "AWQ": (),
    "SmoothQuant": (),
    "bitsandbytes": ("bnb", "LLM.int8()", "LLM.int8"),
    "FlashAttention": ("Flash Attention", "FlashAttention-1", "FlashAttention v1"),
    "FlashAttention-2": ("FlashAttention2", "Flash Attention 2", "FlashAttention v2"),
    "FlashAttention-3": ("FlashAttention3", "Flash Attention 3"),
    "FlashInfer": (),
    "xFormers": (),
    # accelerators
    "A100": ("A100 GPU",),
    "H100": ("H100 GPU",),
    "H800": (),
    "H200": (),
    "A800": (),
    "A10": ("A10G", "A10 GPU", "A10G GPU"),
    "T4": ("Tesla T4",),
    "V100": ("Tesla V100",),
    "L4": (),
    "L40": (),
    "L40S": (),
    "A6000": ("RTX A6000",),
    "RTX 4090": ("GeForce RTX 4090", "4090"),
    "RTX 3090": ("GeForce RTX 3090", "3090"),
    "MI250": ("Instinct MI250", "MI250X"),
    "MI300X": ("Instinct MI300X",),
    "TPU v4": ("TPUv4", "TPU-v4"),
    "TPU v5e": ("TPUv5e", "TPU-v5e"),
    "Gaudi 2": ("Gaudi2", "Intel Gaudi 2"),
}

# model families, resolved with the size that follows them: "llama-2 7b" -> "Llama-2-7B"
MODEL_FAMILIES: dict[str, tuple[str, ...]] = {
    "OPT": (),
    "Llama": ("LLaMA", "LLaMA-1"),
    "Llama-2": ("LLaMA-2", "Llama 2", "Llama2"),
    "Llama-3": ("LLaMA-3", "Llama 3", "Llama3"),
    "Llama-3.1": ("LLaMA-3.1", "Llama 3.1", "Llama3.1"),
    "CodeLlama": ("Code Llama", "Code-Llama"),
    "Mistral": (),
    "Mixtral": (),
    "Falcon": (),
    "BLOOM": ("BLOOMZ",),
    "GPT-2": ("GPT2",),
    "GPT-3": ("GPT3",),
    "GPT-J": ("GPTJ",),
    "GPT-NeoX": ("NeoX",),
    "Pythia": (),
    "Qwen": (),
    "Qwen2": ("Qwen-2",),
    "Qwen2.5": ("Qwen-2.5",),
    "Vicuna": (),
    "T5": (),
    "Yi": (),
    "Gemma": (),
}

_PARENS = re.compile(r"\s*[(\[][^()\[\]]*[)\]]")
_LEADING = re.compile(
    r"^(?:(?:the|a|an|our|original|vanilla|default|standard|stock|state-of-the-art|sota|"
    r"nvidia|nvidia's|amd|intel|google|meta|microsoft)\s+)+",
    re.IGNORECASE,
)
_COUNT = re.compile(r"^\d+\s*[x×]?\s*(?=[A-Za-z])")
_TRAILING = re.compile(
    r"(?:\s+v?\d+(?:\.\d+)+|-v\d+(?:\.\d+)+|[\s-]+(?:\d+\s*gb|sxm\d?|pcie|nvl|hf|baselines?|"
    r"systems?|frameworks?|engines?|library|libraries|implementations?|gpus?|kernels?))+$",
    re.IGNORECASE,
)
_ORG_PREFIX = re.compile(r"^[\w.-]+/(?=\S)")
_SEPARATORS = re.compile(r"\s*(?:,|;|&|/|\+|\band\b|\bor\b|\bvs\.?|\bversus\b|\bplus\b)\s*", re.I)
_SIZE = re.compile(
    r"^(?P<family>.+?)[\s_-]*(?P<size>\d+(?:\.\d+)?[bmk]|\d+x\d+(?:\.\d+)?b|xxl|xl|large|base|small)$",
    re.IGNORECASE,
)


def name_key(text: str) -> str:
    """How two spellings of one name compare: case, spaces and punctuation ignored."""
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def undecorated(text: str) -> str:
    """The name without what does not change which system or chip it is."""
    name = _PARENS.sub("", " ".join(text.split())).strip()
    name = _ORG_PREFIX.sub("", name)
    name = _LEADING.sub("", name)
    name = _COUNT.sub("", name)
    return _TRAILING.sub("", name).strip(" -")


@dataclass(frozen=True)
class NameTable:
    """Alias key -> canonical name, plus the model families that combine with a size."""

    aliases: Mapping[str, str]
    families: Mapping[str, str]
    # a KB names the same few systems thousands of times: each spelling is resolved once
    _resolved: dict[str, str | None] = field(default_factory=dict, compare=False, repr=False)

    def canonical(self, name: str) -> str | None:
        """The canonical name of one name, or None when it is not known as a whole."""
        if name not in self._resolved:
            self._resolved[name] = self._canonical(name)
        return self._resolved[name]

    def _canonical(self, name: str) -> str | None:
        for candidate in dict.fromkeys((name.strip(), undecorated(name))):
            key = name_key(candidate)
            if key in self.aliases:
                return self.aliases[key]
            if model := self._sized_model(candidate):
                return model
        return None

    def names_in(self, field: str) -> tuple[str, ...]:
        """The canonical names a field holds, in a stable order; () unless each part is known."""
        if not field.strip():
            return ()
        if whole := self.canonical(field):
            return (whole,)
        resolved = [self.canonical(part) for part in _SEPARATORS.split(field) if part.strip()]
        if not resolved or None in resolved:
            return ()
        return tuple(sorted({n for n in resolved if n}, key=str.casefold))

    def _sized_model(self, name: str) -> str | None:
        match = _SIZE.match(name.strip())
        if not match:
            return None
        family = self.families.get(name_key(match["family"]))
        return f"{family}-{_size_text(match['size'])}" if family else None


def _size_text(size: str) -> str:
    """A size as model names print it: 7B, 8x7B, 1.3B, XXL, Large."""
    if size[0].isdigit():
        return size[:-1].lower() + size[-1].upper()
    return size.upper() if len(size) <= 3 else size.capitalize()


def _add(
    table: dict[str, str], canonical: str, aliases: Iterable[str], *, replace: bool, bare: bool
) -> None:
    """Map each alias (and the canonical name) to the canonical name; `bare` maps only the
    undecorated spelling, so that an entity named "NVIDIA A100" leaves "A100" to the table."""
    for alias in (canonical, *aliases):
        spellings = (undecorated(alias),) if bare else (alias, undecorated(alias))
        for key in map(name_key, spellings):
            if key and (replace or key not in table):
                table[key] = canonical


def name_table(
    user_aliases: Mapping[str, Sequence[str]] | None = None,
    entities: Sequence[EntityInfo] = (),
) -> NameTable:
    """The built-in names, then the KB's tracked entities where they name something new, then
    the user's aliases from the settings, which override both."""
    aliases: dict[str, str] = {}
    families: dict[str, str] = {}
    for canonical, spellings in (*KNOWN_NAMES.items(), *MODEL_FAMILIES.items()):
        _add(aliases, canonical, spellings, replace=False, bare=False)
    for canonical, spellings in MODEL_FAMILIES.items():
        _add(families, canonical, spellings, replace=False, bare=False)
    for entity in entities:
        _add(aliases, entity.name, (entity.slug, *entity.aliases), replace=False, bare=True)
    for canonical, theirs in (user_aliases or {}).items():
        _add(aliases, canonical, theirs, replace=True, bare=False)
    return NameTable(aliases, families)
