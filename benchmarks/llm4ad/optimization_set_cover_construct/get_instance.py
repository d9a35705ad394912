"""Random set cover instances (written for trace-bench from the problem definition)."""
from __future__ import annotations

import numpy as np


class GetData:
    """`n_instances` set cover instances drawn from one seeded stream.

    Per instance: `n_subsets` subsets of the universe {0, ..., n_elements-1}, each of a size uniform
    in [min_subset_size, max_subset_size] with distinct elements; then every element no subset
    contains is added to one subset picked uniformly, so the whole family always covers the universe.
    """

    def __init__(self, n_instances: int, n_elements: int, n_subsets: int, min_subset_size: int,
                 max_subset_size: int, seed: int = 2024):
        self.n_instances = int(n_instances)
        self.n_elements = int(n_elements)
        self.n_subsets = int(n_subsets)
        self.min_subset_size = int(min_subset_size)
        self.max_subset_size = int(max_subset_size)
        self.seed = seed

    def generate_instances(self) -> list[tuple[int, list[list[int]]]]:
        """A list of (n_elements, subsets) pairs; each subset is a sorted list of element ids."""
        rng = np.random.RandomState(self.seed)
        instances = []
        for _ in range(self.n_instances):
            subsets = []
            for _ in range(self.n_subsets):
                size = rng.randint(self.min_subset_size, self.max_subset_size + 1)
                subsets.append(set(int(e) for e in rng.choice(self.n_elements, size=min(size, self.n_elements),
                                                              replace=False)))
            covered = set().union(*subsets)
            for element in range(self.n_elements):
                if element not in covered:
                    subsets[rng.randint(self.n_subsets)].add(element)
            instances.append((self.n_elements, [sorted(s) for s in subsets]))
        return instances
