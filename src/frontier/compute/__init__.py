"""Where CPU work runs, by `cluster.engine`: worker processes here, or a Ray cluster; either
way results come back in input order, so runs are deterministic."""
