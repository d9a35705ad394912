"""
LLM4AD task `optimization/knapsack_construct`: a constructive heuristic for the 0/1 knapsack problem.

Written for trace-bench from the problem definition (not the upstream LLM4AD file). The knapsack
is filled one item at a time by the candidate `select_next_item`. Score = +(mean packed value over
the instances), what the task text asks to maximise.

Sign note: the upstream LLM4AD/Trace-Bench evaluator returns -(mean packed value), which, with
"higher is better", rewards packing LESS value. This version scores what the task means by default;
the evaluator kwarg `upstream_sign: true` returns the upstream sign, for comparing with published
Trace-Bench numbers.
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
        "_llm4ad_optimization_knapsack_construct_get_instance",
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "get_instance.py"))
    get_instance = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(get_instance)

ENTRY_NAME = "select_next_item"
FUNCTION_SIGNATURE = ("def select_next_item(remaining_capacity: int, remaining_items: List[Tuple[int, int, int]]) "
                      "-> Optional[Tuple[int, int, int]]:")
IMPORT_HEADER = "import math\nimport numpy as np\nfrom typing import List, Optional, Tuple"
TASK_DESCRIPTION = (
    "0/1 knapsack, constructive heuristic: a knapsack of capacity 100 is filled one item at a time "
    "from 50 items (integer weights 10-59, integer values 1-100). At each step the function "
    "`select_next_item(remaining_capacity, remaining_items)` receives the capacity still free and "
    "the list of items not yet considered, each a tuple (weight, value, index), and returns one of "
    "those tuples, or None to stop. A chosen item is packed if its weight fits the remaining "
    "capacity and is discarded otherwise; construction ends when the heuristic returns None, no item "
    "is left, or the knapsack is full. The goal is to maximise the total value packed; the score is "
    "the mean packed value over the instances."
)
OBJECTIVE_TEXT = (
    f"You are optimizing the implementation of `{ENTRY_NAME}` for the LLM4AD task.\n\n"
    f"Task description:\n{TASK_DESCRIPTION}\n\n"
    "Your goal is to return a correct and efficient function whose score (computed by the task "
    "evaluator) is as high as possible."
)
TEMPLATE_FUNCTION = '''import math
import numpy as np
from typing import List, Optional, Tuple


def select_next_item(remaining_capacity: int, remaining_items: List[Tuple[int, int, int]]) -> Optional[Tuple[int, int, int]]:
    """Choose the next item to put into the knapsack.

    Args:
        remaining_capacity: capacity still free in the knapsack (a positive integer).
        remaining_items: the items not considered yet, each a tuple (weight, value, index) of ints.

    Returns:
        One tuple taken from `remaining_items` (it is packed if its weight fits, discarded
        otherwise), or None to stop filling the knapsack.
    """
    # Greedy by value density: the fitting item with the highest value per unit of weight.
    fitting = [item for item in remaining_items if item[0] <= remaining_capacity]
    if not fitting:
        return None
    return max(fitting, key=lambda item: item[1] / item[0])
'''
EVAL_CLASS_NAME = "KnapsackEvaluation"
EVAL_KWARGS = {"timeout_seconds": 20, "n_instances": 32, "n_items": 50, "knapsack_capacity": 100, "upstream_sign": False}


class KnapsackEvaluation(Evaluation):
    """Fills `n_instances` knapsacks (`n_items` items, capacity `knapsack_capacity`, seed 2024)."""

    def __init__(self, timeout_seconds: float = 20, n_instances: int = 32, n_items: int = 50,
                 knapsack_capacity: int = 100, upstream_sign: bool = False, **kwargs):
        super().__init__(template_program=TEMPLATE_FUNCTION, task_description=TASK_DESCRIPTION,
                         timeout_seconds=timeout_seconds, use_numba_accelerate=False, **kwargs)
        self.n_instances = int(n_instances)
        self.n_items = int(n_items)
        self.knapsack_capacity = int(knapsack_capacity)
        self.upstream_sign = bool(upstream_sign)
        self._instances = get_instance.GetData(self.n_instances, self.n_items,
                                               self.knapsack_capacity).generate_instances()

    @staticmethod
    def packed_value(weights: np.ndarray, values: np.ndarray, capacity: int, select_next_item) -> float | None:
        """Total value the heuristic packs, or None if it returns something that is not a remaining item."""
        remaining = [(int(w), int(v), i) for i, (w, v) in enumerate(zip(weights, values))]
        free = int(capacity)
        total = 0
        while remaining and free > 0:
            chosen = select_next_item(free, list(remaining))
            if chosen is None:
                break
            try:
                position = remaining.index(tuple(chosen))
            except (TypeError, ValueError):
                return None
            weight, value, _ = remaining.pop(position)
            if weight <= free:
                free -= weight
                total += value
        return float(total)

    def evaluate_program(self, program_str: str, callable_func, **kwargs) -> float | None:
        totals = []
        for weights, values, capacity in self._instances:
            total = self.packed_value(weights, values, capacity, callable_func)
            if total is None:
                return None
            totals.append(total)
        mean = float(np.mean(totals))
        # Upstream returns the NEGATED mean, so that optimising its score rewards packing less;
        # `upstream_sign: true` keeps that sign for comparisons with published numbers.
        return -mean if self.upstream_sign else mean


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
