"""The tile detector network: a small anchor-free (CenterNet-style) detector, our own code.

Why this shape: tiles are small, similar-sized objects packed edge to edge in rows, so one heatmap
peak per tile centre at stride 4 separates touching neighbours without anchors or NMS tuning, and
the box, sideways and face-down flags are read from the maps at the peak.

Output: one tensor ``maps`` of shape (N, 21, H/4, W/4), channels in :data:`MAP_CHANNELS`:
``heat`` (sigmoid, tile-centre probability), ``off_x, off_y`` (sub-cell centre offset, cells),
``log_w, log_h`` (box size as log of cells), ``sideways`` and ``face_down`` (sigmoid), and the
tile's face outline as a turned rectangle: ``axis_cos, axis_sin`` (cos 2a, sin 2a of the direction
``a`` of the face's up axis: a tile read upside down is the same tile, so the angle is doubled)
and ``log_face_w, log_face_h`` (its width across and height along that axis, log of cells).
The outline is what lets the classifier cut a turned tile out upright and the layout tell a tile
lying sideways from its neighbours; an axis-aligned box cannot (measured on 40 held-out renders:
94% of tiles read right from their outlines, 80% from their boxes).

A rectangle around the box centre is still not the face: the face sits off the centre of a tile's
box (the body's side shows below it) and perspective makes it a trapezoid (measured: 86.7% of
hand tiles read right from those rectangles, 96.2% from the labelled outlines). So the last ten
channels (:data:`CORNER_CHANNELS`) refine it: ``face_dx, face_dy``, the face centre's offset from
the box centre in the image frame, and for each corner (top-left, top-right, bottom-right,
bottom-left) ``du, dv``, its offset from the rectangle's corner along the face's across and up
axes, all as fractions of the face height (``vision.training.detector_targets.face_corner_target``).
The runtime (``vision.models.detector``) decodes these with numpy only.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F  # noqa: N812 - the usual torch alias

#: Channel order of the ``maps`` output; the runtime decoder relies on it.
CORNER_CHANNELS: tuple[str, ...] = ("face_dx", "face_dy", "tl_du", "tl_dv", "tr_du", "tr_dv",
                                     "br_du", "br_dv", "bl_du", "bl_dv")
MAP_CHANNELS: tuple[str, ...] = ("heat", "off_x", "off_y", "log_w", "log_h", "sideways", "face_down",
                                  "axis_cos", "axis_sin", "log_face_w", "log_face_h") + CORNER_CHANNELS
#: How many of the head's outputs are heat + box (the rest of the shared head is the face outline).
_BOX_OUTPUTS = 5
_OUTLINE_OUTPUTS = 4
STRIDE = 4
#: Channels of the corner refinement branch (r13; 32 up to r11).
CORNER_WIDTH = 64


def _conv_bn(c_in: int, c_out: int, kernel: int = 3, stride: int = 1, groups: int = 1,
             dilation: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, kernel, stride, dilation * (kernel // 2), dilation=dilation, groups=groups,
                  bias=False),
        nn.BatchNorm2d(c_out),
        nn.ReLU(inplace=True),
    )


class InvertedResidual(nn.Module):
    """MobileNetV2 block: 1x1 expand, 3x3 depthwise, 1x1 project; residual when shapes match."""

    def __init__(self, c_in: int, c_out: int, stride: int = 1, expand: int = 3) -> None:
        super().__init__()
        hidden = c_in * expand
        self.use_residual = stride == 1 and c_in == c_out
        self.body = nn.Sequential(
            _conv_bn(c_in, hidden, kernel=1),
            _conv_bn(hidden, hidden, kernel=3, stride=stride, groups=hidden),
            nn.Conv2d(hidden, c_out, 1, bias=False),
            nn.BatchNorm2d(c_out),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.body(x)
        return x + out if self.use_residual else out


def _stage(c_in: int, c_out: int, blocks: int, expand: int) -> nn.Sequential:
    layers: list[nn.Module] = [InvertedResidual(c_in, c_out, stride=2, expand=expand)]
    layers += [InvertedResidual(c_out, c_out, stride=1, expand=expand) for _ in range(blocks - 1)]
    return nn.Sequential(*layers)


class TileDetectorNet(nn.Module):
    """Backbone at strides 4..32, a light top-down pyramid back to stride 4, and one shared head.

    The stride-32 stage sees several tiles at once, which is what the sideways flag needs (a tile
    is sideways relative to its row, not in absolute terms).
    """

    def __init__(self, width: int = 32) -> None:
        super().__init__()
        c2, c3, c4, c5 = 24, 40, 64, 112
        # Full-resolution layers dominate the cost: reach stride 4 with one conv and a depthwise pair.
        self.stem = nn.Sequential(_conv_bn(3, 16, stride=2), _conv_bn(16, 16, kernel=3, stride=2, groups=16),
                                  _conv_bn(16, c2, kernel=1))
        self.stage2 = InvertedResidual(c2, c2, stride=1, expand=2)  # stride 4
        self.stage3 = _stage(c2, c3, blocks=2, expand=3)  # stride 8
        self.stage4 = _stage(c3, c4, blocks=3, expand=4)  # stride 16
        self.stage5 = _stage(c4, c5, blocks=2, expand=4)  # stride 32
        self.lateral5 = _conv_bn(c5, width, kernel=1)
        self.lateral4 = _conv_bn(c4, width, kernel=1)
        self.lateral3 = _conv_bn(c3, width, kernel=1)
        self.lateral2 = _conv_bn(c2, width, kernel=1)
        self.smooth4 = _conv_bn(width, width, kernel=3, groups=width)
        self.smooth3 = _conv_bn(width, width, kernel=3, groups=width)
        self.smooth2 = nn.Sequential(_conv_bn(width, width, kernel=3, groups=width),
                                     _conv_bn(width, width, kernel=1))
        self.head = nn.Sequential(
            _conv_bn(width, width, kernel=3, groups=width),
            _conv_bn(width, width * 2, kernel=1),
            nn.Conv2d(width * 2, _BOX_OUTPUTS + _OUTLINE_OUTPUTS, 1),
        )
        # The flags get their own branch: their rare positives (weighted loss) otherwise pull the
        # shared head away from the heatmap (measured: val recall 0.72 vs 0.89 at step 800).
        self.flag_head = nn.Sequential(
            _conv_bn(width, width, kernel=3, groups=width),
            _conv_bn(width, width, kernel=1),
            nn.Conv2d(width, 2, 1),
        )
        # The corner refinement has its own branch too, so a model trained before it existed loads
        # whole (``init_from``) and the branch starts at zero: the plain rectangle, then learns.
        # Up to r11 it was one depthwise 3x3 and one 1x1 at 32 channels (1.8 k parameters) and its
        # error only fell from 0.062 to 0.048 face heights: it sees +-1 cell (4 px) around the
        # centre, not the face's edges. Since r13 it is wider and sees the whole tile: a depthwise
        # 3x3 and a depthwise 3x3 dilated by 3 reach +-4 cells (16 px, about half a hand tile's
        # height at the network's 512 px input) beyond the pyramid's own view.
        self.corner_head = nn.Sequential(
            _conv_bn(width, CORNER_WIDTH, kernel=1),
            _conv_bn(CORNER_WIDTH, CORNER_WIDTH, kernel=3, groups=CORNER_WIDTH),
            _conv_bn(CORNER_WIDTH, CORNER_WIDTH, kernel=3, groups=CORNER_WIDTH, dilation=3),
            _conv_bn(CORNER_WIDTH, CORNER_WIDTH, kernel=1),
            nn.Conv2d(CORNER_WIDTH, len(CORNER_CHANNELS), 1),
        )
        # Start the heatmap and flags near the background prior (CenterNet): stable loss at step 0.
        with torch.no_grad():
            corner_out = self.corner_head[-1]
            assert isinstance(corner_out, nn.Conv2d)
            corner_out.weight.zero_()
            corner_out.bias.zero_()
            for last in (self.head[-1], self.flag_head[-1]):
                assert isinstance(last, nn.Conv2d)
                last.bias.zero_()
            self.head[-1].bias[0] = -2.19
            self.flag_head[-1].bias[:] = -2.19

    def raw_maps(self, x: torch.Tensor) -> torch.Tensor:
        """Logits for heat/sideways/face_down, raw values for offsets and sizes (training uses these)."""
        s2 = self.stage2(self.stem((x - 0.5) * 4.0))
        s3 = self.stage3(s2)
        s4 = self.stage4(s3)
        s5 = self.stage5(s4)
        p = self.lateral5(s5)
        p = self.smooth4(self.lateral4(s4) + F.interpolate(p, size=s4.shape[-2:], mode="nearest"))
        p = self.smooth3(self.lateral3(s3) + F.interpolate(p, size=s3.shape[-2:], mode="nearest"))
        p = self.smooth2(self.lateral2(s2) + F.interpolate(p, size=s2.shape[-2:], mode="nearest"))
        shared = self.head(p)
        return torch.cat([shared[:, :_BOX_OUTPUTS], self.flag_head(p), shared[:, _BOX_OUTPUTS:],
                          self.corner_head(p)], dim=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """The exported graph: ``x`` is (N,3,H,W) RGB float in [0,1]; probabilities where it matters."""
        raw = self.raw_maps(x)
        heat = torch.sigmoid(raw[:, 0:1])
        rest = raw[:, 1:5]
        flags = torch.sigmoid(raw[:, 5:7])
        return torch.cat([heat, rest, flags, raw[:, 7:]], dim=1)
