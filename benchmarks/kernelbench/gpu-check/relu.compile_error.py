import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# Does not compile: `undeclared_value` is never declared.
broken_source = r"""
#include <torch/extension.h>

__global__ void relu_kernel(const float* x, float* out, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) out[i] = x[i] > 0.0f ? x[i] : undeclared_value;
}

torch::Tensor relu_cuda(torch::Tensor x) {
    auto out = torch::empty_like(x);
    relu_kernel<<<(x.numel() + 255) / 256, 256>>>(x.data_ptr<float>(), out.data_ptr<float>(), x.numel());
    return out;
}
"""

broken_extension = load_inline(
    name="trace_bench_relu_broken",
    cpp_sources="torch::Tensor relu_cuda(torch::Tensor x);",
    cuda_sources=broken_source,
    functions=["relu_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return broken_extension.relu_cuda(x)
