"""From sources to the store: expand inputs, extract in a process pool, store paper by paper."""
