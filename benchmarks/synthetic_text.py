"""Words and vectors for a synthetic KB: text drawn from a field vocabulary with Zipf-like
frequencies (so BM25 sees realistic postings: a few very common words, a long tail), each paper
leaning on the words of its cluster; unit vectors shaped like real embeddings, drawn around
cluster centres (so the nearest neighbours of a query are its cluster's chunks, not random rows)."""

from __future__ import annotations

import numpy as np

DIM = 384


def _words(text: str) -> list[str]:
    return text.split()


FIELD_WORDS = _words("""
attention cache paged speculative decoding quantization kernel batching prefill decode memory
bandwidth throughput latency sparse expert offloading scheduler tensor pipeline parallelism
token tokens request requests serving inference model models layer layers weights activation
activations precision compression pruning distillation draft verifier acceptance rate batch
continuous admission eviction prefix reuse sharing disaggregation placement instance cluster
gpu gpus accelerator chip interconnect network hbm sram dram flash offload cpu host device
context window long sequence length rope position embedding head heads grouped query multi
mixture router gating load balance capacity utilization efficiency energy power cost price
margin dollar hour provider cloud fleet replica autoscaling slo goodput tail percentile queue
queueing arrival workload trace benchmark evaluation baseline speedup improvement reduction
overhead fragmentation allocation block page table copy write transfer communication allreduce
collective shard sharding partition stage microbatch bubble recomputation checkpoint lora
adapter tenant fine tuning low rank matrix multiplication gemm fused operator compiler graph
runtime engine system framework design implementation algorithm approach method technique
analysis study result results experiment experiments show shows demonstrate achieves achieve
compared over under across while without within between large language transformer decoder
encoder autoregressive generation output input prompt response chat agent reasoning chain
retrieval augmented vector database search index quality accuracy perplexity loss error
""")
ENTITY_WORDS = [
    "vLLM",
    "PagedAttention",
    "A100",
    "H100",
    "H800",
    "NVIDIA",
    "DeepSeek",
    "Llama",
    "LLaMA",
]
_SYLLABLES = _words("ka ri to me sa lo nu pe vi da ko ze mi ra tu fe ba no si gu")
FUNCTION_WORDS = _words("the of and to in a is for we that on with by this as are our from an")


def vocabulary(size: int = 30_000, seed: int = 1) -> np.ndarray:
    """Field words first (the frequent ranks), then made-up technical words (the tail)."""
    rng = np.random.default_rng(seed)
    words = list(dict.fromkeys(FUNCTION_WORDS + FIELD_WORDS + ENTITY_WORDS))
    seen = set(words)
    while len(words) < size:
        parts = rng.choice(_SYLLABLES, size=int(rng.integers(2, 5)))
        word = "".join(parts) + str(rng.choice(["", "", "net", "former", "flow", "opt"]))
        if word not in seen:
            seen.add(word)
            words.append(word)
    return np.array(words, dtype=object)


class WordSource:
    """Draws text: Zipf over the whole vocabulary, mixed with the paper's cluster's own words."""

    def __init__(self, clusters: int, seed: int = 2, vocab_size: int = 30_000) -> None:
        self.rng = np.random.default_rng(seed)
        self.vocab = vocabulary(vocab_size)
        ranks = np.arange(1, len(self.vocab) + 1, dtype=np.float64)
        weights = 1.0 / (ranks + 2.7)
        self.cdf = np.cumsum(weights / weights.sum())
        common = len(FUNCTION_WORDS) + len(FIELD_WORDS)
        self.cluster_words = [
            self.rng.choice(np.arange(common // 3, len(self.vocab)), size=40, replace=False)
            for _ in range(clusters)
        ]

    def indices(self, count: int, cluster: int, own_share: float = 0.15) -> np.ndarray:
        picks = np.searchsorted(self.cdf, self.rng.random(count))
        picks = np.minimum(picks, len(self.vocab) - 1)
        own = self.rng.random(count) < own_share
        picks[own] = self.rng.choice(self.cluster_words[cluster], size=int(own.sum()))
        return picks

    def text(self, count: int, cluster: int) -> str:
        words = self.vocab[self.indices(count, cluster)]
        return " ".join(words)

    def sentence_text(self, count: int, cluster: int) -> str:
        """Words cut into sentences of 8-24 words, capitalised and full-stopped."""
        words = list(self.vocab[self.indices(count, cluster)])
        out, start = [], 0
        while start < len(words):
            end = start + int(self.rng.integers(8, 25))
            part = words[start:end]
            part[0] = part[0][:1].upper() + part[0][1:]
            out.append(" ".join(part) + ".")
            start = end
        return " ".join(out)


class VectorSource:
    """Unit float32 vectors shaped like sentence embeddings of a field's papers (MiniLM over the
    shared PDFs' chunks: 90% of the variance in ~140 of 384 directions, mean cosine 0.30 between
    any two chunks, nearest neighbour 0.75): a direction all share, noise with a power-law
    spectrum, papers around a cluster centre, chunks around their paper. Isotropic noise instead
    makes every point nearly equidistant, which no real KB looks like and which no approximate
    index searches well."""

    def __init__(self, clusters: int, seed: int = 3, dim: int = DIM) -> None:
        self.rng = np.random.default_rng(seed)
        self.dim = dim
        scales = np.arange(1, dim + 1, dtype=np.float64) ** (-_SPECTRUM / 2)
        self.scales = (scales / np.sqrt((scales**2).mean())).astype(np.float32)
        self.rotation = np.linalg.qr(self.rng.standard_normal((dim, dim)))[0].astype(np.float32)
        self.shared = _unit(self.rng.standard_normal((1, dim)).astype(np.float32))[0]
        self.centres = _unit(self._shaped((clusters, dim)))

    def papers(self, clusters: np.ndarray) -> np.ndarray:
        return self._around(self.centres[clusters], _PAPER_SPREAD)

    def chunks(self, paper_vectors: np.ndarray) -> np.ndarray:
        return _unit(self._around(paper_vectors, _CHUNK_SPREAD) + _SHARED * self.shared)

    def queries(self, near: np.ndarray) -> np.ndarray:
        """A question about a chunk is close to it, not equal to it."""
        return self._around(near, 0.8)

    def _shaped(self, shape: tuple[int, int]) -> np.ndarray:
        noise = self.rng.standard_normal(shape).astype(np.float32)
        return (noise * self.scales) @ self.rotation

    def _around(self, base: np.ndarray, spread: float) -> np.ndarray:
        return _unit(base + self._shaped(base.shape) * (spread / np.sqrt(self.dim)))


# fitted to the statistics above: spectrum exponent, weight of the shared direction, spreads
_SPECTRUM, _SHARED, _PAPER_SPREAD, _CHUNK_SPREAD = 1.0, 0.65, 1.5, 1.2


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return (rows / np.maximum(norms, 1e-12)).astype(np.float32)
