"""Random 0/1 knapsack instances (written for trace-bench from the problem definition)."""
from __future__ import annotations

import numpy as np


class GetData:
    """`n_instances` instances of `n_items` items each, from one seeded stream.

    Per instance: weights uniform integers in [10, 59], then values uniform integers in [1, 100];
    every instance has the knapsack capacity `capacity`.
    """

    def __init__(self, n_instances: int, n_items: int, capacity: int, seed: int = 2024):
        self.n_instances = int(n_instances)
        self.n_items = int(n_items)
        self.capacity = int(capacity)
        self.seed = seed

    def generate_instances(self) -> list[tuple[np.ndarray, np.ndarray, int]]:
        """A list of (weights, values, capacity) triples."""
        rng = np.random.RandomState(self.seed)
        instances = []
        for _ in range(self.n_instances):
            weights = rng.randint(10, 60, size=self.n_items)
            values = rng.randint(1, 101, size=self.n_items)
            instances.append((weights, values, self.capacity))
        return instances
