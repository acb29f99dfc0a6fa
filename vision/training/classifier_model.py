"""The tile classifier network: a compact residual CNN for small colour crops (64x48, 80x60, ...).

Why this shape: tiles are read from crops as small as 20x30 pixels (table photos), so a deep
stack of 3x3 residual blocks with four stride-2 steps (64x48 -> 4x3) sees the whole face by the
last stage, while ~1.2 M parameters keep the ONNX file small (4.9 MB) and CPU inference at a
few milliseconds per crop. Global average pooling makes the weights independent of the input
size; the cost grows with its area.
"""

from __future__ import annotations

import torch
from torch import nn


class ResidualBlock(nn.Module):
    """Two 3x3 conv-BN layers with a shortcut (1x1 conv when the shape changes)."""

    def __init__(self, in_channels: int, out_channels: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, out_channels, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(out_channels)
        self.conv2 = nn.Conv2d(out_channels, out_channels, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_channels)
        self.shortcut: nn.Module = nn.Identity()
        if stride != 1 or in_channels != out_channels:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_channels, out_channels, 1, stride, bias=False), nn.BatchNorm2d(out_channels)
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return torch.relu(out + self.shortcut(x))


class TileNet(nn.Module):
    """Stem (stride 2) + residual stages + global average pool + linear head over ``num_classes``."""

    def __init__(self, num_classes: int, widths: tuple[int, ...] = (24, 48, 96, 160), dropout: float = 0.2):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, widths[0], 3, 2, 1, bias=False), nn.BatchNorm2d(widths[0]), nn.ReLU(inplace=True)
        )
        layers: list[nn.Module] = [ResidualBlock(widths[0], widths[0], 1)]
        for previous, width in zip(widths[:-1], widths[1:], strict=True):
            layers += [ResidualBlock(previous, width, 2), ResidualBlock(width, width, 1)]
        self.stages = nn.Sequential(*layers)
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(dropout),
                                  nn.Linear(widths[-1], num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.stages(self.stem(x)))
