"""Random Euclidean TSP instances (written for trace-bench from the problem definition)."""
from __future__ import annotations

import numpy as np


class GetData:
    """`n_instances` instances of `n_cities` cities uniform in the unit square, from one seeded stream."""

    def __init__(self, n_instances: int, n_cities: int, seed: int = 2024):
        self.n_instances = int(n_instances)
        self.n_cities = int(n_cities)
        self.seed = seed

    def generate_instances(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """A list of (coordinates (n, 2), distance matrix (n, n)) pairs."""
        rng = np.random.RandomState(self.seed)
        instances = []
        for _ in range(self.n_instances):
            coordinates = rng.rand(self.n_cities, 2)
            distances = np.linalg.norm(coordinates[:, None, :] - coordinates[None, :, :], axis=-1)
            instances.append((coordinates, distances))
        return instances
