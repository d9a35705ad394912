import torch
import torch.nn as nn


# Right values, wrong shape: only the first 1024 columns.
class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x[:, :1024])
