"""How much of the dense peak a GPU's matmuls reach, from the shapes it actually multiplies.

A small GEMM spends a larger share of its time moving operands than multiplying them, so the
achieved fraction of peak grows with the GEMM's arithmetic intensity: FLOPs per byte moved,
1 / (1/M + 1/K + 1/N) for 16-bit operands of an M x K by K x N product. Each GPU multiplies the
micro-batch's tokens (M) by weight slices of h x (width / tp), so intensity falls with tensor
parallelism and rises with the hidden size and the micro-batch. Measured against the GPU's
ridge point (peak FLOP/s over memory bandwidth, the intensity at which a kernel stops being
bandwidth-bound), one saturating curve describes both A100 and H100 runs.

The two constants are fitted on Narayanan et al. 2021 Table 1 (note
mfu-calibration#efficiency-curve, fit and residuals in the note).
"""

from __future__ import annotations

from functools import lru_cache

# mfu-calibration#efficiency-curve: ceiling and half-saturation point (intensity / ridge).
EFFICIENCY_CEILING = 0.94
HALF_SATURATION = 5.5
# mfu-calibration#efficiency-curve: the largest intensity / ridge in the fitted rows (the 1T
# model's FFN GEMMs on A100, 1,652 / 153 = 10.8); the curve is not extrapolated beyond it.
MAX_CALIBRATED_X = 10.8

# mfu-calibration#hopper-scale: Hopper GPUs reach a smaller share of their (three times higher)
# dense peak than the A100 the curve was fitted on; one factor, fitted on MosaicML's measured
# MFU of MPT 1B-70B on H100, brings the curve to them.
HOPPER_SCALE = 0.86
A100_GPUS = frozenset({"a100-sxm-80gb", "a100-sxm-40gb", "a100-pcie-40gb", "a800-sxm-80gb"})
HOPPER_GPUS = frozenset({"h100-sxm", "h100-pcie", "h100-nvl", "h800-sxm", "h20", "h200-sxm",
                         "h200-nvl", "gh200"})


def gpu_scale(gpu_id: str) -> float:
    """The factor on the A100-fitted curve for a GPU: 1 on the A100 it was fitted on, the
    measured Hopper factor on Hopper, and the same factor, the smaller of the two measured, on a
    GPU no published run calibrates (mfu-calibration#unmeasured-gpus): a comparison across GPU
    kinds never favours one because it has not been measured."""
    return 1.0 if gpu_id in A100_GPUS else HOPPER_SCALE


def is_measured(gpu_id: str) -> bool:
    """Whether published training runs calibrate the curve on this GPU."""
    return gpu_id in A100_GPUS or gpu_id in HOPPER_GPUS


def gemm_intensity(m: float, k: float, n: float, operand_bytes: float = 2.0) -> float:
    """FLOPs per byte of an M x K by K x N product: 2MKN / (bytes x (MK + KN + MN)); with
    16-bit operands 1 / (1/M + 1/K + 1/N)."""
    return 2.0 / (operand_bytes * (1.0 / m + 1.0 / k + 1.0 / n))


def curve(intensity: float, ridge: float) -> float:
    """Achieved fraction of peak at an intensity: ceiling · x / (x + x½), x = intensity / ridge,
    held at the largest x it was fitted on (bigger GEMMs are not assumed faster than measured)."""
    x = min(intensity / ridge, MAX_CALIBRATED_X)
    return EFFICIENCY_CEILING * x / (x + HALF_SATURATION)


@lru_cache(maxsize=4096)
def layer_efficiency(tokens: int, hidden: int, attn_dim: int, kv_dim: int, ffn_hidden: int,
                     tp: int, ridge: float, operand_bytes: float = 2.0) -> float:
    """FLOP-weighted efficiency of one transformer layer's four weight GEMMs on one GPU.

    QKV (h -> (d + 2·kv)/tp), output projection (d/tp -> h), FFN up (h -> ffn/tp; a gated
    FFN's second up matrix has the same shape, so the same efficiency, and is not weighed in
    again) and FFN down (ffn/tp -> h); the layer's time is the
    sum of each GEMM's FLOPs over its own efficiency, so the slowest shapes weigh in by their
    share of the work.
    """
    gemms = (  # (K, N) of each weight GEMM per GPU
        (hidden, (attn_dim + 2 * kv_dim) / tp),
        (attn_dim / tp, hidden),
        (hidden, ffn_hidden / tp),
        (ffn_hidden / tp, hidden),
    )
    flops = sum(k * n for k, n in gemms)
    seconds = sum(k * n / curve(gemm_intensity(tokens, k, n, operand_bytes), ridge)
                  for k, n in gemms)
    return flops / seconds
