"""The deep-dive presets of `frontier ask` (named here, without the machinery of answering, so
the command line can list them cheaply)."""

PRESETS = {
    "compare": "methodology comparison: what each family of approaches changes, trades and gains",
    "benchmarks": "benchmarking gaps: what the evaluations leave unmeasured or incomparable",
    "roadmap": "implementation roadmap: techniques ordered by reported gain against effort",
    "versus": "when does X beat Y: the conditions under which each approach wins",
}
