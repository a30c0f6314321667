"""The processes frontier starts: how they end with it."""
