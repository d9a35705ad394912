"""
LLM4AD task `online_bin_packing_local`: a priority heuristic for online bin packing.

Written for trace-bench from the problem definition (not the upstream LLM4AD file). Items of a
Weibull-distributed size arrive one at a time and must be put at once into a bin; the candidate
`priority(item, bins)` scores the bins that can take the item and the item goes to the best one.
Score = -(mean number of bins used), so fewer bins is better.
"""
from __future__ import annotations

import importlib.util
import os

import numpy as np

from llm4ad_loader import Evaluation

try:
    from . import get_instance
except ImportError:  # imported as a plain module rather than as a package: load the sibling by path
    _spec = importlib.util.spec_from_file_location(
        "_llm4ad_online_bin_packing_local_get_instance",
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "get_instance.py"))
    get_instance = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(get_instance)

ENTRY_NAME = "priority"
FUNCTION_SIGNATURE = "def priority(item: float, bins: np.ndarray) -> np.ndarray:"
IMPORT_HEADER = "import math\nimport numpy as np"
TASK_DESCRIPTION = (
    "Online one-dimensional bin packing: items arrive one at a time (integer sizes drawn from a "
    "Weibull distribution, bin capacity 100) and each must be placed immediately into a bin that "
    "still has room for it. Design the function `priority(item, bins)` that, given the size of the "
    "incoming item and a numpy array with the remaining capacities of the bins that can hold it, "
    "returns one priority score per bin; the item is placed in the bin with the highest score (a "
    "fresh, empty bin is always among the candidates). The goal is to use as few bins as possible; "
    "the score is minus the mean number of bins used over the instances."
)
OBJECTIVE_TEXT = (
    f"You are optimizing the implementation of `{ENTRY_NAME}` for the LLM4AD task.\n\n"
    f"Task description:\n{TASK_DESCRIPTION}\n\n"
    "Your goal is to return a correct and efficient function whose score (computed by the task "
    "evaluator) is as high as possible."
)
TEMPLATE_FUNCTION = '''import math
import numpy as np


def priority(item: float, bins: np.ndarray) -> np.ndarray:
    """Score every bin that can take the incoming item; the item goes to the highest-scored bin.

    Args:
        item: size of the incoming item (a positive integer, at most the bin capacity).
        bins: 1-D numpy array with the remaining capacity of each bin that can hold the item
            (every value is >= item); fresh empty bins have the full capacity.

    Returns:
        A 1-D numpy array of the same length as `bins` with one priority per bin (higher = preferred;
        ties go to the first bin).
    """
    # Best fit: prefer the bin that will be left with the least free space.
    return -(bins - item)
'''
EVAL_CLASS_NAME = "OBPEvaluation"
EVAL_KWARGS = {"timeout_seconds": 30, "n_instances": 5, "n_items": 500, "capacity": 100}


class OBPEvaluation(Evaluation):
    """Runs the priority heuristic on `n_instances` Weibull streams of `n_items` items (seed 2024)."""

    def __init__(self, timeout_seconds: float = 30, n_instances: int = 5, n_items: int = 500,
                 capacity: int = 100, **kwargs):
        super().__init__(template_program=TEMPLATE_FUNCTION, task_description=TASK_DESCRIPTION,
                         timeout_seconds=timeout_seconds, use_numba_accelerate=False, **kwargs)
        self.n_instances = int(n_instances)
        self.n_items = int(n_items)
        self.capacity = int(capacity)
        self._datasets = get_instance.generate_weibull_dataset(self.n_instances, self.n_items, self.capacity)

    @staticmethod
    def pack(items: np.ndarray, capacity: int, priority) -> int | None:
        """Number of bins the heuristic uses on one stream, or None if it answers out of schema."""
        # As many bins as items is always enough: an unused bin keeps its full capacity.
        remaining = np.full(len(items), capacity, dtype=float)
        for item in items:
            fits = np.nonzero(remaining - item >= 0)[0]
            scores = np.asarray(priority(item, remaining[fits]), dtype=float)
            if scores.shape != fits.shape or not np.all(np.isfinite(scores)):
                return None
            remaining[fits[int(np.argmax(scores))]] -= item
        return int(np.count_nonzero(remaining != capacity))

    def evaluate_program(self, program_str: str, callable_func, **kwargs) -> float | None:
        used = []
        for instance in self._datasets.values():
            count = self.pack(instance["items"], instance["capacity"], callable_func)
            if count is None:
                return None
            used.append(count)
        return -float(np.mean(used))


def build_trace_problem(**override_eval_kwargs) -> dict:
    """The Trace bundle of this task, as the original Trace-Bench runner expects it."""
    from opto import trace  # noqa: PLC0415 (only the original runner calls this)
    from llm4ad_loader import AutonomousEvaluatorGuide  # noqa: PLC0415

    eval_kwargs = {**EVAL_KWARGS, **override_eval_kwargs}
    evaluator = globals()[EVAL_CLASS_NAME](**eval_kwargs)
    param = trace.node(TEMPLATE_FUNCTION.strip(), name="__code",
                       description=f"The code should start with: {FUNCTION_SIGNATURE}", trainable=True)
    guide = AutonomousEvaluatorGuide(evaluator, ENTRY_NAME, IMPORT_HEADER,
                                     timeout=eval_kwargs.get("timeout_seconds", 30))
    return {
        "param": param,
        "guide": guide,
        "train_dataset": {"inputs": [TASK_DESCRIPTION], "infos": [{"imports": IMPORT_HEADER, "entry": ENTRY_NAME}]},
        "optimizer_kwargs": {"objective": OBJECTIVE_TEXT, "memory_size": 10},
        "metadata": {"entry": ENTRY_NAME, "function_signature": FUNCTION_SIGNATURE,
                     "eval_class": EVAL_CLASS_NAME, "benchmark": True},
    }
