import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# Compiles and runs, but is wrong: negative inputs are scaled by 0.1 (a leaky ReLU), not zeroed.
leaky_source = r"""
#include <torch/extension.h>

__global__ void leaky_kernel(const float* x, float* out, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        out[i] = v > 0.0f ? v : 0.1f * v;
    }
}

torch::Tensor relu_cuda(torch::Tensor x) {
    auto input = x.contiguous();
    auto out = torch::empty_like(input);
    long n = input.numel();
    int threads = 256;
    long blocks = (n + threads - 1) / threads;
    leaky_kernel<<<blocks, threads>>>(input.data_ptr<float>(), out.data_ptr<float>(), n);
    return out;
}
"""

leaky_extension = load_inline(
    name="trace_bench_relu",
    cpp_sources="torch::Tensor relu_cuda(torch::Tensor x);",
    cuda_sources=leaky_source,
    functions=["relu_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return leaky_extension.relu_cuda(x)
