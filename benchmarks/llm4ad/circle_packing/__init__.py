"""
LLM4AD task `circle_packing`: pack n circles (26 by default) in the unit square, maximising the sum of radii.

Written for trace-bench from the problem definition (not the upstream LLM4AD file). The candidate
`pack_circles(n)` returns the circles as rows (x, y, r). Score = sum of the radii when the packing
is valid, -inf otherwise (circles overlapping or leaving the square, wrong shape, non-finite values).
Unlike the original task, the starting program here is a valid packing with a finite score.
"""
from __future__ import annotations

import numpy as np

from llm4ad_loader import Evaluation

ENTRY_NAME = "pack_circles"
FUNCTION_SIGNATURE = "def pack_circles(n: int = 26) -> np.ndarray:"
IMPORT_HEADER = "import math\nimport numpy as np"
TASK_DESCRIPTION = (
    "Circle packing: place n = 26 non-overlapping circles inside the unit square [0, 1] x [0, 1] so "
    "that the sum of their radii is as large as possible. The function `pack_circles(n)` must return "
    "a numpy array of shape (n, 3) whose rows are (x, y, r): centre coordinates and radius. A packing "
    "is valid only if every circle lies inside the square (x - r >= 0, y - r >= 0, x + r <= 1, "
    "y + r <= 1) and no two circles overlap (centre distance >= sum of radii), checked exactly in "
    "floating point, so keep a tiny safety margin. The score is the sum of the radii; an invalid "
    "packing scores -inf. The function must be deterministic (seed any random generator with 2025)."
)
OBJECTIVE_TEXT = (
    f"You are optimizing the implementation of `{ENTRY_NAME}` for the LLM4AD task.\n\n"
    f"Task description:\n{TASK_DESCRIPTION}\n\n"
    "Your goal is to return a correct and efficient function whose score (computed by the task "
    "evaluator) is as high as possible."
)
TEMPLATE_FUNCTION = '''import math
import numpy as np


def pack_circles(n: int = 26) -> np.ndarray:
    """Place n non-overlapping circles in the unit square, maximising the sum of the radii.

    Args:
        n: number of circles to place (26 in this task).

    Returns:
        A numpy array of shape (n, 3); row i is (x_i, y_i, r_i), the centre and radius of circle i.
        Every circle must lie inside [0, 1] x [0, 1] and no two circles may overlap (the check is
        exact, so leave a tiny margin). Seed any random number generator with 2025.
    """
    # Baseline: equal circles on a regular grid (6 columns x 5 rows for n = 26), slightly shrunk
    # so that floating-point rounding can never make neighbours overlap.
    cols = math.ceil(math.sqrt(n))
    rows = math.ceil(n / cols)
    radius = 0.5 * min(1.0 / cols, 1.0 / rows) * (1.0 - 1e-9)
    circles = []
    for k in range(n):
        row, col = divmod(k, cols)
        circles.append(((col + 0.5) / cols, (row + 0.5) / rows, radius))
    return np.array(circles, dtype=float)
'''
EVAL_CLASS_NAME = "CirclePackingEvaluation"
EVAL_KWARGS = {"timeout_seconds": 30, "n": 26}


class CirclePackingEvaluation(Evaluation):
    """Calls `pack_circles(n)` once and scores the packing it returns."""

    def __init__(self, timeout_seconds: float = 30, n: int = 26, **kwargs):
        super().__init__(template_program=TEMPLATE_FUNCTION, task_description=TASK_DESCRIPTION,
                         timeout_seconds=timeout_seconds, use_numba_accelerate=False, **kwargs)
        self.n = int(n)

    def score_packing(self, circles) -> float:
        """Sum of the radii of a valid packing, -inf for an invalid one."""
        try:
            circles = np.asarray(circles, dtype=np.float64)
        except (TypeError, ValueError):
            return float("-inf")
        if circles.shape != (self.n, 3) or not np.all(np.isfinite(circles)):
            return float("-inf")
        x, y, r = circles[:, 0], circles[:, 1], circles[:, 2]
        if np.any(r < 0) or np.any(x - r < 0) or np.any(y - r < 0) or np.any(x + r > 1) or np.any(y + r > 1):
            return float("-inf")
        i, j = np.triu_indices(self.n, 1)
        if np.any(np.sqrt((x[i] - x[j]) ** 2 + (y[i] - y[j]) ** 2) < r[i] + r[j]):
            return float("-inf")
        return float(np.sum(r))

    def evaluate_program(self, program_str: str, callable_func, **kwargs) -> float:
        return self.score_packing(callable_func(self.n))


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
