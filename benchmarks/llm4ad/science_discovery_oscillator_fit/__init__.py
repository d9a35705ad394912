"""
LLM4AD task `science_discovery/oscillator_fit`: discover the equation of motion of an oscillator.

Written for trace-bench from the problem definition (not the upstream LLM4AD file). The data are
noisy accelerations sampled along trajectories of a damped, driven harmonic oscillator (see
get_instance.py; fixed seed, so the data are always the same). The candidate `equation(t, x, v,
params)` is a skeleton whose numeric parameters are fitted to the data with scipy's BFGS starting
from all ones; the score is minus the mean squared error of the fitted skeleton.
"""
from __future__ import annotations

import importlib.util
import os

import numpy as np
from scipy.optimize import minimize

from llm4ad_loader import Evaluation

try:
    from . import get_instance
except ImportError:  # imported as a plain module rather than as a package: load the sibling by path
    _spec = importlib.util.spec_from_file_location(
        "_llm4ad_science_discovery_oscillator_fit_get_instance",
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "get_instance.py"))
    get_instance = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(get_instance)

ENTRY_NAME = "equation"
FUNCTION_SIGNATURE = "def equation(t: np.ndarray, x: np.ndarray, v: np.ndarray, params: np.ndarray) -> np.ndarray:"
IMPORT_HEADER = "import math\nimport numpy as np"
TASK_DESCRIPTION = (
    "Equation discovery for a one-dimensional oscillator: measurements of time t, position x and "
    "velocity v along two trajectories of an unknown mechanical oscillator are given together with "
    "the (slightly noisy) acceleration. Write `equation(t, x, v, params)`, a vectorised mathematical "
    "skeleton that returns the predicted acceleration for numpy arrays t, x, v, using up to 10 "
    "numeric constants params[0..9]. The constants are fitted to the data with BFGS starting from all "
    "ones; the score is minus the mean squared error of the fitted prediction, so the skeleton should "
    "capture the true physics (restoring force, damping, external driving, ...)."
)
OBJECTIVE_TEXT = (
    f"You are optimizing the implementation of `{ENTRY_NAME}` for the LLM4AD task.\n\n"
    f"Task description:\n{TASK_DESCRIPTION}\n\n"
    "Your goal is to return a correct and efficient function whose score (computed by the task "
    "evaluator) is as high as possible."
)
TEMPLATE_FUNCTION = '''import math
import numpy as np


def equation(t: np.ndarray, x: np.ndarray, v: np.ndarray, params: np.ndarray) -> np.ndarray:
    """Mathematical skeleton of the oscillator's acceleration.

    Args:
        t: numpy array of times.
        x: numpy array of positions at those times.
        v: numpy array of velocities at those times.
        params: numpy array of 10 numeric constants, fitted to the data by the evaluator (BFGS,
            starting from all ones); use as many of them as needed.

    Returns:
        A numpy array of the same shape as x: the predicted acceleration at each sample.
    """
    # Baseline: a linear restoring force and linear damping, plus a constant offset.
    return params[0] * x + params[1] * v + params[2]
'''
EVAL_CLASS_NAME = "OscillatorFitEvaluation"
EVAL_KWARGS = {"timeout_seconds": 20, "n_points": 500, "noise_std": 0.01, "max_n_params": 10}


class OscillatorFitEvaluation(Evaluation):
    """Fits the skeleton's parameters to the oscillator data (BFGS from ones) and returns -MSE."""

    def __init__(self, timeout_seconds: float = 20, n_points: int = 500, noise_std: float = 0.01,
                 max_n_params: int = 10, **kwargs):
        super().__init__(template_program=TEMPLATE_FUNCTION, task_description=TASK_DESCRIPTION,
                         timeout_seconds=timeout_seconds, use_numba_accelerate=False, **kwargs)
        self.max_n_params = int(max_n_params)
        self._data = get_instance.generate_data(n_points=int(n_points), noise_std=float(noise_std))

    def evaluate_program(self, program_str: str, callable_func, **kwargs) -> float | None:
        t, x, v, a = self._data["t"], self._data["x"], self._data["v"], self._data["a"]

        def loss(params: np.ndarray) -> float:
            prediction = np.asarray(callable_func(t, x, v, params), dtype=float)
            return float(np.mean((prediction - a) ** 2))

        with np.errstate(all="ignore"):
            result = minimize(loss, np.ones(self.max_n_params), method="BFGS")
            final = loss(result.x)
        if not np.isfinite(final):
            return None
        return -final


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
