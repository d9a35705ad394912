"""
LLM4AD task `optimization/tsp_construct`: a constructive heuristic for the travelling salesman problem.

Written for trace-bench from the problem definition (not the upstream LLM4AD file). A tour starts
and ends at city 0 and is built one city at a time by the candidate `select_next_node`. Score =
-(mean tour length over the instances), so shorter tours are better.
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
        "_llm4ad_optimization_tsp_construct_get_instance",
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "get_instance.py"))
    get_instance = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(get_instance)

ENTRY_NAME = "select_next_node"
FUNCTION_SIGNATURE = ("def select_next_node(current_node: int, destination_node: int, unvisited_nodes: np.ndarray, "
                      "distance_matrix: np.ndarray) -> int:")
IMPORT_HEADER = "import math\nimport numpy as np"
TASK_DESCRIPTION = (
    "Travelling salesman problem, constructive heuristic: a closed tour through all cities (random "
    "points in the unit square, Euclidean distances) is built step by step, starting and ending at "
    "city 0. At each step the function `select_next_node(current_node, destination_node, "
    "unvisited_nodes, distance_matrix)` receives the current city, the city the tour must return to, "
    "the ids of the cities not yet visited and the full distance matrix, and must return the id of "
    "the next city to visit (one of `unvisited_nodes`). The goal is the shortest tour; the score is "
    "minus the mean tour length over the instances."
)
OBJECTIVE_TEXT = (
    f"You are optimizing the implementation of `{ENTRY_NAME}` for the LLM4AD task.\n\n"
    f"Task description:\n{TASK_DESCRIPTION}\n\n"
    "Your goal is to return a correct and efficient function whose score (computed by the task "
    "evaluator) is as high as possible."
)
TEMPLATE_FUNCTION = '''import math
import numpy as np


def select_next_node(current_node: int, destination_node: int, unvisited_nodes: np.ndarray,
                     distance_matrix: np.ndarray) -> int:
    """Choose the next city of the tour.

    Args:
        current_node: id of the city the tour is at now.
        destination_node: id of the city the tour must end at (the start city, 0).
        unvisited_nodes: 1-D numpy array of int ids of the cities not visited yet (never empty).
        distance_matrix: (n, n) numpy array of Euclidean distances between all cities.

    Returns:
        The id of the next city to visit; it must be one of `unvisited_nodes`.
    """
    # Nearest neighbour: go to the closest unvisited city.
    distances = distance_matrix[current_node, unvisited_nodes]
    return int(unvisited_nodes[np.argmin(distances)])
'''
EVAL_CLASS_NAME = "TSPEvaluation"
EVAL_KWARGS = {"timeout_seconds": 20, "n_instances": 8, "problem_size": 30}


class TSPEvaluation(Evaluation):
    """Builds one tour per instance (`n_instances` × `problem_size` cities, seed 2024) with the heuristic."""

    def __init__(self, timeout_seconds: float = 20, n_instances: int = 8, problem_size: int = 30, **kwargs):
        super().__init__(template_program=TEMPLATE_FUNCTION, task_description=TASK_DESCRIPTION,
                         timeout_seconds=timeout_seconds, use_numba_accelerate=False, **kwargs)
        self.n_instances = int(n_instances)
        self.problem_size = int(problem_size)
        self._instances = get_instance.GetData(self.n_instances, self.problem_size).generate_instances()

    @staticmethod
    def tour_length(distances: np.ndarray, select_next_node) -> float | None:
        """Length of the tour the heuristic builds, or None if it picks a city it may not visit."""
        n = distances.shape[0]
        start = 0
        tour = [start]
        visited = np.zeros(n, dtype=bool)
        visited[start] = True
        while len(tour) < n:
            unvisited = np.nonzero(~visited)[0]
            if len(unvisited) == 1:
                chosen = int(unvisited[0])
            else:
                answer = select_next_node(tour[-1], start, unvisited.copy(), distances)
                try:
                    chosen = int(answer)
                except (TypeError, ValueError):
                    return None
                if chosen != answer or not 0 <= chosen < n or visited[chosen]:
                    return None
            visited[chosen] = True
            tour.append(chosen)
        order = np.asarray(tour + [start])
        return float(np.sum(distances[order[:-1], order[1:]]))

    def evaluate_program(self, program_str: str, callable_func, **kwargs) -> float | None:
        lengths = []
        for _, distances in self._instances:
            length = self.tour_length(distances, callable_func)
            if length is None:
                return None
            lengths.append(length)
        return -float(np.mean(lengths))


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
