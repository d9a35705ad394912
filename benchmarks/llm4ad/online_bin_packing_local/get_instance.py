"""Weibull instances for online bin packing (written for trace-bench from the problem definition)."""
from __future__ import annotations

import numpy as np


def generate_weibull_dataset(n_instances: int, n_items: int, capacity: int, seed: int = 2024) -> dict:
    """`n_instances` item streams of `n_items` integer sizes each, drawn from one seeded stream.

    Each size is Weibull(shape 3) scaled by 45, clipped to [1, capacity] and rounded (half to even).
    The result maps `instance_<i>` to {"capacity", "num_items", "items"}.
    """
    rng = np.random.RandomState(seed)
    dataset = {}
    for i in range(n_instances):
        sizes = rng.weibull(3.0, n_items) * 45.0
        items = np.round(np.clip(sizes, 1, capacity)).astype(int)
        dataset[f"instance_{i}"] = {"capacity": int(capacity), "num_items": int(n_items), "items": items}
    return dataset
