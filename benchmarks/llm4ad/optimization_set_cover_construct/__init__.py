"""
LLM4AD task `optimization/set_cover_construct`: a constructive heuristic for the set cover problem.

Written for trace-bench from the problem definition (not the upstream LLM4AD file). A cover of the
universe is built one subset at a time by the candidate `select_next_subset`. Score = -(mean number
of subsets used over the instances), so smaller covers are better.
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
        "_llm4ad_optimization_set_cover_construct_get_instance",
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "get_instance.py"))
    get_instance = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(get_instance)

ENTRY_NAME = "select_next_subset"
FUNCTION_SIGNATURE = "def select_next_subset(uncovered_elements: List[int], remaining_subsets: List[List[int]]) -> int:"
IMPORT_HEADER = "import math\nimport numpy as np\nfrom typing import List, Optional, Tuple"
TASK_DESCRIPTION = (
    "Set cover, constructive heuristic: a universe of 60 elements (ids 0-59) must be covered with as "
    "few subsets as possible, chosen from a family of 40 random subsets whose union is the whole "
    "universe. The cover is built one subset at a time: at each step the function "
    "`select_next_subset(uncovered_elements, remaining_subsets)` receives the sorted list of element "
    "ids not covered yet and the list of subsets not chosen yet (each a sorted list of element ids), "
    "and returns the position in `remaining_subsets` of the subset to add. Construction ends when "
    "every element is covered. The score is minus the mean number of subsets used over the instances."
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


def select_next_subset(uncovered_elements: List[int], remaining_subsets: List[List[int]]) -> int:
    """Choose the next subset to add to the cover.

    Args:
        uncovered_elements: sorted list of the element ids not covered yet (never empty).
        remaining_subsets: the subsets not chosen yet, each a sorted list of element ids; together
            they cover every uncovered element.

    Returns:
        The position (0-based int) in `remaining_subsets` of the subset to add.
    """
    # Classic greedy: the subset that covers the most still-uncovered elements.
    uncovered = set(uncovered_elements)
    gains = [len(uncovered.intersection(subset)) for subset in remaining_subsets]
    return int(np.argmax(gains))
'''
EVAL_CLASS_NAME = "SCPEvaluation"
EVAL_KWARGS = {"timeout_seconds": 20, "n_instances": 16, "n_elements": 60, "n_subsets": 40,
               "min_subset_size": 3, "max_subset_size": 12}


class SCPEvaluation(Evaluation):
    """Builds one cover per instance (`n_instances` random families, seed 2024) with the heuristic."""

    def __init__(self, timeout_seconds: float = 20, n_instances: int = 16, n_elements: int = 60,
                 n_subsets: int = 40, min_subset_size: int = 3, max_subset_size: int = 12, **kwargs):
        super().__init__(template_program=TEMPLATE_FUNCTION, task_description=TASK_DESCRIPTION,
                         timeout_seconds=timeout_seconds, use_numba_accelerate=False, **kwargs)
        self.n_instances = int(n_instances)
        self.n_elements = int(n_elements)
        self.n_subsets = int(n_subsets)
        self._instances = get_instance.GetData(self.n_instances, self.n_elements, self.n_subsets,
                                               int(min_subset_size), int(max_subset_size)).generate_instances()

    @staticmethod
    def cover_size(n_elements: int, subsets: list[list[int]], select_next_subset) -> int | None:
        """Number of subsets the heuristic uses, or None if it answers with an invalid position."""
        uncovered = set(range(n_elements))
        remaining = [list(subset) for subset in subsets]
        used = 0
        while uncovered:
            if not remaining:  # cannot happen with a covering family, kept as a guard
                return None
            answer = select_next_subset(sorted(uncovered), [list(subset) for subset in remaining])
            try:
                position = int(answer)
            except (TypeError, ValueError):
                return None
            if position != answer or not 0 <= position < len(remaining):
                return None
            uncovered.difference_update(remaining.pop(position))
            used += 1
        return used

    def evaluate_program(self, program_str: str, callable_func, **kwargs) -> float | None:
        sizes = []
        for n_elements, subsets in self._instances:
            size = self.cover_size(n_elements, subsets, callable_func)
            if size is None:
                return None
            sizes.append(size)
        return -float(np.mean(sizes))


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
