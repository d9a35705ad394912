"""
What LLM4AD task modules import from `llm4ad_loader` (their `Evaluation` base class and the
CO-Bench data helpers), written for trace-bench's evaluation worker. The modules are the original
Trace-Bench's task folders (or trace-bench's bundled ones in the same format); their wrapper's
`build_trace_problem` is never called here: the worker reads the module's constants instead.
"""
from __future__ import annotations

import os
from typing import Any


class Evaluation:
    """Base of every task evaluator: keeps its settings; subclasses score a program."""

    def __init__(self, template_program: str = "", task_description: str = "", timeout_seconds: float = 30,
                 random_seed: int | None = None, exec_code: bool = True, safe_evaluate: bool = False, **kwargs: Any):
        self.template_program = template_program
        self.task_description = task_description
        self.timeout_seconds = timeout_seconds
        self.random_seed = random_seed
        self.exec_code = exec_code
        self.safe_evaluate = safe_evaluate
        self.kwargs = kwargs

    def evaluate_program(self, program_str: str, callable_func: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


def _dataset_files(subdir: str) -> list[str]:
    # CO-Bench tasks read their instances from the Hugging Face dataset CO-Bench/CO-Bench: that needs
    # the network and the `huggingface_hub` package; a local copy under $CO_BENCH_DATA is used first.
    local = os.environ.get("CO_BENCH_DATA")
    if local:
        folder = os.path.join(local, subdir)
        if not os.path.isdir(folder):
            raise FileNotFoundError(f"CO-Bench data folder not found: {folder}")
        return sorted(os.path.join(folder, name) for name in os.listdir(folder))
    from huggingface_hub import snapshot_download  # noqa: PLC0415 (optional dependency)
    root = snapshot_download(repo_id="CO-Bench/CO-Bench", repo_type="dataset", allow_patterns=[f"{subdir}/*"])
    folder = os.path.join(root, subdir)
    return sorted(os.path.join(folder, name) for name in os.listdir(folder))


def load_subdir_as_text(repo_id: str, subdir: str, *args: Any, **kwargs: Any) -> dict[str, str]:
    """Every file of a CO-Bench problem folder, as text, by file name."""
    texts = {}
    for path in _dataset_files(subdir):
        with open(path, encoding="utf-8") as handle:
            texts[os.path.basename(path)] = handle.read()
    return texts


def load_subdir_as_pickle(repo_id: str, subdir: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """Every file of a CO-Bench problem folder, unpickled, by file name."""
    import pickle  # noqa: PLC0415
    loaded = {}
    for path in _dataset_files(subdir):
        with open(path, "rb") as handle:
            loaded[os.path.basename(path)] = pickle.load(handle)
    return loaded
