import time

import torch
import torch.nn as nn


# Never answers: the evaluation's time limit must stop it.
class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        while True:
            time.sleep(1)
