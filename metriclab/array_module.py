"""Where the heavy steps run (the kNN graph, the spectral eigensolve, the 1-NN baseline) and the
array module that runs them: NumPy and scipy.sparse on the CPU, CuPy and cupyx.scipy.sparse on an
NVIDIA GPU (issue 42).

The shared code is written once against a `Backend` (its `xp` is `numpy` or `cupy`, its `sparse`
is `scipy.sparse` or `cupyx.scipy.sparse`), so the CPU and the GPU run the same algorithm and CI,
which has no GPU, tests it with NumPy.

device: "cpu", "gpu", or "auto" (the GPU when CuPy imports and sees a CUDA device, else the CPU).
"gpu" where there is none is refused with one line naming the extra (GPU_EXTRA).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse

DEVICES = ("auto", "cpu", "gpu")
GPU_EXTRA = 'pip install "metric-learning-lab[gpu]"'


@dataclass(frozen=True)
class Backend:
    """An array module and its sparse module, with the copies between it and the host.

    Parameters
    ----------
    device : {"cpu", "gpu"}
        Where its arrays live.
    xp : module
        ``numpy`` or ``cupy``.
    sparse : module
        ``scipy.sparse`` or ``cupyx.scipy.sparse`` (``sparse.csr_matrix`` of a SciPy matrix
        copies it there).
    to_device : callable
        A host (NumPy) array to an array of `xp`.
    to_host : callable
        An array of `xp` to a NumPy array.

    Examples
    --------
    >>> from metriclab.array_module import backend
    >>> cpu = backend("cpu")
    >>> cpu.device, cpu.xp.__name__, cpu.sparse.__name__
    ('cpu', 'numpy', 'scipy.sparse')
    """

    device: str
    xp: Any
    sparse: Any
    to_device: Callable[[Any], Any]
    to_host: Callable[[Any], np.ndarray]


CPU = Backend("cpu", np, scipy.sparse, np.asarray, np.asarray)


@functools.lru_cache(maxsize=1)
def _gpu_backend() -> tuple[Backend | None, str]:
    """(the GPU backend, "") when CuPy imports and sees a CUDA device, else (None, the reason)."""
    try:
        import cupy
        import cupyx.scipy.sparse
    except ImportError:  # also a CuPy built for another CUDA than the one installed
        return None, "CuPy is not installed"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # cupy.cuda.runtime.CUDARuntimeError: no driver, no device
        return None, f"CuPy finds no CUDA device ({exc})"
    if count < 1:
        return None, "CuPy finds no CUDA device"
    return Backend("gpu", cupy, cupyx.scipy.sparse, cupy.asarray, cupy.asnumpy), ""


def gpu_available() -> bool:
    """Whether CuPy imports and sees a CUDA device (checked once per process).

    Returns
    -------
    bool
        True when ``device="auto"`` runs on the GPU.

    Examples
    --------
    >>> from metriclab.array_module import gpu_available
    >>> isinstance(gpu_available(), bool)
    True
    """
    return _gpu_backend()[0] is not None


def resolve_device(device: str) -> str:
    """The device a ``device`` parameter means here: "cpu" or "gpu".

    Parameters
    ----------
    device : {"auto", "cpu", "gpu"}
        "auto": the GPU when one is usable (`gpu_available`), else the CPU.

    Returns
    -------
    str
        "cpu" or "gpu".

    Raises
    ------
    ValueError
        For "gpu" without CuPy or without a CUDA device: one line naming the extra.

    Examples
    --------
    >>> from metriclab.array_module import resolve_device
    >>> resolve_device("cpu")
    'cpu'
    """
    if device not in DEVICES:
        raise ValueError(f"device must be one of {list(DEVICES)}, got {device!r}")
    if device == "cpu":
        return "cpu"
    found, reason = _gpu_backend()
    if found is not None:
        return "gpu"
    if device == "auto":
        return "cpu"
    raise ValueError(f"device='gpu' needs CuPy and an NVIDIA GPU ({reason}): {GPU_EXTRA}")


def backend(device: str = "cpu") -> Backend:
    """The `Backend` of a device ("auto" resolved by `resolve_device`).

    Parameters
    ----------
    device : {"auto", "cpu", "gpu"}, default="cpu"
        Where to compute.

    Returns
    -------
    Backend
        NumPy's for the CPU, CuPy's for the GPU.

    Examples
    --------
    >>> from metriclab.array_module import backend
    >>> backend("cpu").xp.ones(2).sum()
    np.float64(2.0)
    """
    if resolve_device(device) == "cpu":
        return CPU
    return _gpu_backend()[0]
