"""The only door to any model: one OpenAI-compatible client for every backend, the embedded
offline server included, with structured output, caching, a usage ledger and retries."""
