"""A zerosum checkpoint as a torch.nn.Module: the same layers under the same names as the
Rust families (crates/nn/src/families.rs), so the weights load unchanged."""

import hashlib
import json
import struct
from typing import Any, Dict, Tuple

import torch
from torch import nn

from ._zerosum import GameError, read_checkpoint


class _ConvBn(nn.Module):
    """A bias-free square convolution that keeps the board size, then batch norm."""

    def __init__(self, c_in: int, c_out: int, kernel: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, kernel, padding=kernel // 2, bias=False)
        self.bn = nn.BatchNorm2d(c_out)


class _Tower(nn.Module):
    """`resnet` (AlphaZero's residual tower) or `conv` (OpenSpiel's conv2d torso), with
    AlphaZero's policy and value heads."""

    def __init__(self, model: Dict[str, Any], shape: Tuple[int, int, int], actions: int) -> None:
        super().__init__()
        planes, height, width = shape
        channels, cells = model["channels"], height * width
        self.residual = model["family"] == "resnet"
        self.trunk = nn.Module()
        self.trunk.stem = nn.Conv2d(planes, channels, 3, padding=1, bias=False)
        self.trunk.stem_bn = nn.BatchNorm2d(channels)
        blocks = []
        for _ in range(model["blocks"]):
            block = nn.Module()
            if self.residual:
                block.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
                block.bn1 = nn.BatchNorm2d(channels)
                block.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
                block.bn2 = nn.BatchNorm2d(channels)
            else:
                block.conv = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
                block.bn = nn.BatchNorm2d(channels)
            blocks.append(block)
        self.trunk.blocks = nn.ModuleList(blocks)
        self.heads = nn.Module()
        heads = ["policy", "reply"] if model.get("reply_head") else ["policy"]
        for name in heads:
            setattr(self.heads, f"{name}_conv", nn.Conv2d(channels, 2, 1, bias=False))
            setattr(self.heads, f"{name}_bn", nn.BatchNorm2d(2))
            setattr(self.heads, f"{name}_fc", nn.Linear(2 * cells, actions))
        self.heads.value_conv = nn.Conv2d(channels, 1, 1, bias=False)
        self.heads.value_bn = nn.BatchNorm2d(1)
        self.heads.value_fc1 = nn.Linear(cells, model["value_hidden"])
        self.heads.value_fc2 = nn.Linear(model["value_hidden"], 1)

    def forward(self, obs: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        x = torch.relu(self.trunk.stem_bn(self.trunk.stem(obs)))
        for block in self.trunk.blocks:
            if self.residual:
                y = torch.relu(block.bn1(block.conv1(x)))
                x = torch.relu(block.bn2(block.conv2(y)) + x)
            else:
                x = torch.relu(block.bn(block.conv(x)))
        h = self.heads
        policy = h.policy_fc(torch.relu(h.policy_bn(h.policy_conv(x))).flatten(1))
        value = torch.relu(h.value_bn(h.value_conv(x))).flatten(1)
        value = torch.tanh(h.value_fc2(torch.relu(h.value_fc1(value)))).squeeze(-1)
        return policy, value


class _Mlp(nn.Module):
    """Linear, batch norm and ReLU, repeated, then the policy and value heads."""

    def __init__(self, model: Dict[str, Any], inputs: int, actions: int) -> None:
        super().__init__()
        hidden = model["hidden"]
        self.trunk = nn.Module()
        layers = []
        for i in range(model["layers"]):
            layer = nn.Module()
            layer.fc = nn.Linear(inputs if i == 0 else hidden, hidden)
            layer.bn = nn.BatchNorm1d(hidden)
            layers.append(layer)
        self.trunk.layers = nn.ModuleList(layers)
        self.heads = nn.Module()
        self.heads.policy = nn.Linear(hidden, actions)
        self.heads.value_hidden = nn.Linear(hidden, model["value_hidden"])
        self.heads.value = nn.Linear(model["value_hidden"], 1)
        if model.get("reply_head"):
            self.heads.reply = nn.Linear(hidden, actions)

    def forward(self, obs: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        x = obs.flatten(1)
        for layer in self.trunk.layers:
            x = torch.relu(layer.bn(layer.fc(x)))
        value = torch.tanh(self.heads.value(torch.relu(self.heads.value_hidden(x))))
        return self.heads.policy(x), value.squeeze(-1)


class ZerosumNet(nn.Module):
    """A zerosum network: `forward(obs)` takes observations shaped `[B, C, H, W]` (or flat,
    `[B, C*H*W]`, as `State.observation_tensor()` gives them) and returns the policy
    logits `[B, num_actions]` and the values `[B]` in [-1, 1], from the mover's view."""

    def __init__(self, meta: Dict[str, Any]) -> None:
        super().__init__()
        self.meta = meta
        self.sha256 = ""
        model = meta["model"]
        shape = tuple(meta["obs_shape"])
        actions = meta["num_actions"]
        if model["family"] == "mlp":
            self.net: nn.Module = _Mlp(model, shape[0] * shape[1] * shape[2], actions)
        elif model["family"] in ("resnet", "conv"):
            self.net = _Tower(model, shape, actions)
        else:
            raise GameError(f"unknown network family {model['family']!r}")

    def forward(self, obs: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        return self.net(obs.reshape(-1, *self.meta["obs_shape"]))


_DTYPES = {"F32": torch.float32, "F64": torch.float64, "F16": torch.float16, "I64": torch.int64}


def _safetensors(data: bytes) -> Dict[str, torch.Tensor]:
    """The tensors of a safetensors file: an 8-byte header length, a JSON header, the data."""
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + length])
    body = memoryview(data)[8 + length :]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        start, end = entry["data_offsets"]
        flat = torch.frombuffer(bytearray(body[start:end]), dtype=_DTYPES[entry["dtype"]])
        tensors[name] = flat.reshape(entry["shape"])
    return tensors


def load_checkpoint(path: str) -> ZerosumNet:
    """The network of the checkpoint `path` names (NAME with NAME.safetensors and NAME.json
    beside it, either file, a `checkpoints/latest` pointer, a run, or a URL of any of them),
    as a torch module in eval mode on the CPU, with the checkpoint's sidecar as `.meta` and
    the SHA-256 of its safetensors file as `.sha256`."""
    meta_text, weights = read_checkpoint(path)
    meta = json.loads(meta_text)
    net = ZerosumNet(meta)
    net.sha256 = hashlib.sha256(weights).hexdigest()
    state = {f"net.{name}": tensor for name, tensor in _safetensors(weights).items()}
    missing, unexpected = net.load_state_dict(state, strict=False)
    # PyTorch's batch norm counts its updates; zerosum's does not keep the count.
    missing = [name for name in missing if not name.endswith("num_batches_tracked")]
    if missing or unexpected:
        raise GameError(
            f"{path}: the weights do not fit a {meta['model']['family']} network "
            f"(missing {missing[:3]}, unexpected {unexpected[:3]})"
        )
    return net.eval()
