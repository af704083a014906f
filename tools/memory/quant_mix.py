"""Which storage type each tensor of a model gets under a named quantisation format, and so the
bytes of the whole file: formats leave embeddings, the output head and norms at higher
precision, and the GGUF mixes (Q4_K_M, ...) raise some attention-V and FFN-down layers.

The tensors are counted from the model's shape: attention Q, K, V, O from heads × head_dim,
one FFN matrix (the "down" projection) as hidden × ffn_hidden per expert, the embedding and
the output head as vocab × hidden each (untied), and the rest of each layer's parameters
(gate/up) as what remains of the published parameter count.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from clusterplan.tools.memory.model_shape import ModelShape
from clusterplan.tools.memory.quant_formats import bits_per_weight

LayerRule = Callable[[int, int], str]  # (layer index, layers) -> storage type


class Mix(NamedTuple):
    """A format's storage types: the bulk of the block weights, the embedding, the output head,
    norms, and per-layer overrides for attention V, attention O, FFN down and Q/K."""

    base: str
    embd: str
    output: str
    note: str
    norms: str = "f32"
    v: LayerRule | None = None
    o: LayerRule | None = None
    down: LayerRule | None = None
    qk: str | None = None
    experts_only: bool = False  # only MoE expert weights take `base`; the rest stay BF16


def use_more_bits(i: int, n: int) -> bool:
    """llama.cpp's choice of layers that get more bits in the _M mixes: the first and last
    eighth of the layers and every third layer between (gguf-quant-mixes#use-more-bits)."""
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def _more(high: str, low: str) -> LayerRule:
    return lambda i, n: high if use_more_bits(i, n) else low


def _first(share: int, high: str, low: str) -> LayerRule:
    return lambda i, n: high if i < n // share else low


def _all(kind: str) -> LayerRule:
    return lambda i, n: kind


_MIX = "gguf-quant-mixes#mixes"
_IQ = "gguf-quant-mixes#i-quants"

MIXES: dict[str, Mix] = {
    "q2_k": Mix("q3_k", "q2_k", "q6_k", _MIX, qk="q2_k"),
    "q3_k_s": Mix("q3_k", "q3_k", "q6_k", _MIX),
    "q3_k_m": Mix("q3_k", "q3_k", "q6_k", _MIX, v=lambda i, n: "q5_k" if i < 2 else "q4_k",
                  o=_all("q4_k"), down=_first(16, "q5_k", "q4_k")),
    "q3_k_l": Mix("q3_k", "q3_k", "q6_k", _MIX, v=_all("q5_k"), o=_all("q5_k"),
                  down=_all("q5_k")),
    "q4_0": Mix("q4_0", "q4_0", "q6_k", _MIX),
    "q4_k_s": Mix("q4_k", "q4_k", "q6_k", _MIX, v=_first(8, "q5_k", "q4_k"),
                  down=_first(8, "q5_k", "q4_k")),
    "q4_k_m": Mix("q4_k", "q4_k", "q6_k", _MIX, v=_more("q6_k", "q4_k"),
                  down=_more("q6_k", "q4_k")),
    "q5_0": Mix("q5_0", "q5_0", "q6_k", _MIX),
    "q5_k_s": Mix("q5_k", "q5_k", "q6_k", _MIX),
    "q5_k_m": Mix("q5_k", "q5_k", "q6_k", _MIX, v=_more("q6_k", "q5_k"),
                  down=_more("q6_k", "q5_k")),
    "q6_k": Mix("q6_k", "q6_k", "q6_k", _MIX),
    "q8_0": Mix("q8_0", "q8_0", "q8_0", _MIX),
    **{iq: Mix(iq, iq, "q6_k", _IQ) for iq in (
        "iq1_s", "iq1_m", "iq2_xxs", "iq2_xs", "iq2_s", "iq3_xxs", "iq3_s", "iq4_nl", "iq4_xs")},
    "gptq": Mix("gptq4", "f16", "f16", "gptq-awq-formats#unquantised-layers", norms="f16"),
    "gptq-8bit": Mix("gptq8", "f16", "f16", "gptq-awq-formats#unquantised-layers", norms="f16"),
    "awq": Mix("awq4", "f16", "f16", "gptq-awq-formats#unquantised-layers", norms="f16"),
    "nf4": Mix("nf4", "bf16", "bf16", "gptq-awq-formats#bnb-4bit-layers", norms="bf16"),
    "bnb-int8": Mix("bnb_int8", "f16", "f16", "gptq-awq-formats#llm-int8", norms="f16"),
    "mxfp4": Mix("mxfp4", "bf16", "bf16", "mxfp4-fp8#gpt-oss-layers", norms="bf16",
                 experts_only=True),
    "1.58bit": Mix("tq1_0", "f16", "f16", "mxfp4-fp8#ternary", norms="f16"),
}


class Tensors(NamedTuple):
    """Parameter counts of one model's tensor classes (per layer where it says so)."""

    embd: float
    output: float
    norms: float
    q: float  # per layer; also K's size is k
    k: float
    v: float
    o: float
    down: float
    rest: float  # per layer: the other FFN matrices (gate/up), whatever the count leaves


def tensors(s: ModelShape) -> Tensors:
    """The shape's tensor classes; the remainder keeps the total at the published count."""
    embd = output = float(s.vocab * s.hidden)
    norms = float((2 * s.layers + 1) * s.hidden)
    q = o = float(s.hidden * s.heads * s.head_dim)
    k = v = float(s.hidden * s.kv_heads * s.head_dim)
    down = float(s.hidden * s.ffn_hidden * s.experts)
    per_layer = (s.params - embd - output - norms) / s.layers
    rest = max(0.0, per_layer - q - k - v - o - down)
    return Tensors(embd, output, norms, q, k, v, o, down, rest)


def _bits(kind: str, hidden: int) -> float:
    """Bits per weight; bitsandbytes int8 adds one FP32 scale per row of `hidden` inputs."""
    return 8 + 32 / hidden if kind == "bnb_int8" else bits_per_weight(kind)


def file_bytes(fmt: str, s: ModelShape) -> float:
    """Bytes of the model's weights stored in format `fmt` (a MIXES key)."""
    mix = MIXES[fmt]
    if mix.experts_only and s.is_moe:
        bits = s.expert_params * _bits(mix.base, s.hidden) + (s.params - s.expert_params) * 16
        return bits / 8
    t, h = tensors(s), s.hidden
    bits = t.embd * _bits(mix.embd, h) + t.output * _bits(mix.output, h)
    bits += t.norms * _bits(mix.norms, h)
    base = _bits(mix.base, h)
    qk = _bits(mix.qk, h) if mix.qk else base
    fixed = (t.q + t.k) * qk + t.rest * base
    for i in range(s.layers):
        bits += fixed
        for size, rule in ((t.v, mix.v), (t.o, mix.o), (t.down, mix.down)):
            bits += size * (_bits(rule(i, s.layers), h) if rule else base)
    return bits / 8
