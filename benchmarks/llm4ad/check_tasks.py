#!/usr/bin/env python3
"""
Check trace-bench's bundled LLM4AD tasks: for every entry of index.json, import its folder as a
package, build the evaluator with the default kwargs, and score the template and every program of
`stub_alternatives.json`, printing each score (Python's float repr) and the seconds it took.

Usage: python3 benchmarks/llm4ad/check_tasks.py [KEY ...]   (run from anywhere; exit 1 on a problem)
"""
from __future__ import annotations

import importlib.util
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
LOADER_DIR = os.path.join(REPO, "adapters", "tasks", "llm4ad", "python")
MAX_SECONDS = 2.0

for path in (LOADER_DIR, HERE):
    if path not in sys.path:
        sys.path.insert(0, path)


def import_task(module_dir: str, serial: int):
    """Import `<module_dir>/__init__.py` as a package under a unique name (relative imports work)."""
    folder = os.path.join(HERE, module_dir)
    name = f"trace_bench_check_{module_dir}_{serial}"
    spec = importlib.util.spec_from_file_location(name, os.path.join(folder, "__init__.py"),
                                                  submodule_search_locations=[folder])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def score_program(module, evaluator, program: str) -> tuple[object, float]:
    full_code = module.IMPORT_HEADER + "\n" + program
    namespace: dict = {}
    start = time.perf_counter()
    exec(compile(full_code, "<candidate>", "exec"), namespace)
    func = namespace[module.ENTRY_NAME]
    score = evaluator.evaluate_program(full_code, func)
    return score, time.perf_counter() - start


def main(argv: list[str]) -> int:
    with open(os.path.join(HERE, "index.json"), encoding="utf-8") as handle:
        index = json.load(handle)
    problems = []
    for serial, entry in enumerate(index):
        if argv and entry["key"] not in argv:
            continue
        module = import_task(entry["module"], serial)
        start = time.perf_counter()
        evaluator = getattr(module, module.EVAL_CLASS_NAME)(**module.EVAL_KWARGS)
        built = time.perf_counter() - start
        print(f"== {entry['key']} (entry {module.ENTRY_NAME}, kwargs {module.EVAL_KWARGS}, "
              f"evaluator built in {built:.3f}s)")
        with open(os.path.join(HERE, entry["module"], "stub_alternatives.json"), encoding="utf-8") as handle:
            alternatives = json.load(handle)
        programs = [("template", module.TEMPLATE_FUNCTION)] + [(f"alternative {i + 1}", p) for i, p in enumerate(alternatives)]
        scores = []
        for label, program in programs:
            score, seconds = score_program(module, evaluator, program)
            scores.append(score)
            print(f"  {label:<14} score={score!r}  seconds={seconds:.3f}")
            if score is None or not math.isfinite(score):
                problems.append(f"{entry['key']}: {label} is not valid ({score!r})")
            if seconds > MAX_SECONDS:
                problems.append(f"{entry['key']}: {label} took {seconds:.2f}s (> {MAX_SECONDS}s)")
        finite = [s for s in scores if s is not None and math.isfinite(s)]
        if finite and scores[0] is not None and not any(s > scores[0] for s in finite[1:]):
            problems.append(f"{entry['key']}: no alternative beats the template")
    for problem in problems:
        print("PROBLEM:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
