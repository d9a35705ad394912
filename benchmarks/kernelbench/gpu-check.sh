#!/usr/bin/env bash
# The GPU check of KernelBench's local back end (see gpu-check/gpu_check.py): on a machine with
# torch (CUDA), nvcc and ninja, node not needed, no network. Writes to $OUT (default ./gpu-check-out):
# environment.txt, results.json (every worker answer), check.log (this script's output).
#     OUT=/some/dir bash benchmarks/kernelbench/gpu-check.sh
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-$PWD/gpu-check-out}"
mkdir -p "$out"
exec > >(tee "$out/check.log") 2>&1
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1
  python3 --version 2>&1
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())' 2>&1
  echo "nvcc: $(command -v nvcc || echo missing)"; nvcc --version 2>&1 | tail -2
  echo "ninja: $(command -v ninja || echo missing) $(ninja --version 2>&1)"
  echo "bwrap: $(command -v bwrap || echo missing)"
  echo "node: $(command -v node || echo missing)"
  nproc
} > "$out/environment.txt" 2>&1
cat "$out/environment.txt"
if ! python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  echo "gpu-check: python3 cannot use a CUDA device through torch here; nothing to check"
  exit 3
fi
# Whether CUDA works inside a bubblewrap sandbox that binds the GPU's device nodes (what the engine's
# sandboxed worker would need); informational, bounded.
if command -v bwrap >/dev/null; then
  binds=(); for node in /dev/nvidia*; do [ -e "$node" ] && binds+=(--dev-bind "$node" "$node"); done
  timeout 60 bwrap --unshare-pid --unshare-net --die-with-parent --ro-bind / / --dev /dev "${binds[@]}" --proc /proc --tmpfs /tmp \
    python3 -c 'import torch; print("sandbox probe: cuda available", torch.cuda.is_available(), "sum", torch.ones(4, device="cuda").sum().item())' 2>&1 | tail -3
else
  echo "sandbox probe: bwrap is not installed here"
fi
# The compiler's parallelism: the machine's cores (load_inline's ninja reads MAX_JOBS).
export MAX_JOBS="${MAX_JOBS:-$(nproc)}"
python3 "$here/gpu-check/gpu_check.py" --out "$out"
