"""A model's shape: from the catalog by name, or from a parameter count and what the user knows.

The memory calculator and the parallelism solver both start here, so a model is resolved the
same way everywhere: catalog rows by what a person types, or `params_b` with a stated
Llama-like shape filling the architecture fields the user did not give.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from clusterplan.db.models import row_from_config
from clusterplan.tools.catalog_lookup import CatalogLookup
from clusterplan.tools.contract import ToolError

# Fields a user may give alongside `params_b` (the catalog's architecture columns).
ARCHITECTURE_FIELDS = ("layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab",
                       "experts", "experts_per_token", "active_params_b")

# The assumed shape when only params_b is known: Llama 3-like proportions (see model-llama-3).
ASSUMED_HEAD_DIM = 128
ASSUMED_HIDDEN_PER_LAYER = 128   # hidden / layers: 4096/32 (8B), 16384/126 (405B)
ASSUMED_PARAMS_PER_LAYER = 12    # x hidden^2: attention ~2-4 h^2 plus a gated FFN ~3 x 3.5 h^2
ASSUMED_KV_HEADS = 8
ASSUMED_FFN_RATIO = 3.5          # 14336/4096 in Llama 3 8B
ASSUMED_VOCAB = 128256
SHAPE_NOTE = "model-llama-3#assumed-shape"
# A MoE known by its counts alone is routed like Qwen3's (the note's hand check).
MOE_SHAPE_NOTE = "model-qwen3#assumed-moe"
ASSUMED_EXPERTS = 128
ASSUMED_TOP_K = 8
MOST_EXPERTS = 512  # the rule's cap, above Kimi K2's 384 (model-qwen3#assumed-moe)


@dataclass(frozen=True, slots=True)
class ModelShape:
    """What the calculators need to know about a transformer, in its published numbers."""

    id: str
    name: str
    params_b: float
    active_params_b: float
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn_hidden: int
    vocab: int
    experts: int = 1
    experts_per_token: int = 1
    attention: str = "gqa"
    kv_latent_dim: int | None = None
    max_context: int = 131072
    source_note: str = ""
    native_precision: str = "bf16"  # what the released weights are stored in
    assumed: tuple[str, ...] = field(default=())
    # Derived once when the shape is made (every answer reads them many times).
    params: float = field(init=False, repr=False, compare=False)
    expert_params: float = field(init=False, repr=False, compare=False)
    dense_params: float = field(init=False, repr=False, compare=False)
    is_moe: bool = field(init=False, repr=False, compare=False)
    # Tables other modules derive from the shape alone (the layout search's layouts), kept
    # with the shape so that a catalog model's are built once.
    derived: dict[Any, Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        params = self.params_b * 1e9
        experts = _expert_params(self.params_b, self.active_params_b, self.experts,
                                 self.experts_per_token)
        for name, value in (("params", params), ("expert_params", experts),
                            ("dense_params", params - experts), ("is_moe", self.experts > 1),
                            ("derived", {})):
            object.__setattr__(self, name, value)

    def __hash__(self) -> int:
        """By the few fields that tell shapes apart (equal shapes hash equal): the layout
        search looks shapes up on every answer."""
        return hash((self.id, self.params_b, self.layers, self.hidden, self.heads))


def _expert_params(params_b: float, active_params_b: float, experts: int, top_k: int) -> float:
    """Parameters in routed experts: total - active = X(1 - k/E), so X = (P - A)E/(E - k)."""
    if experts <= 1 or top_k >= experts:
        return 0.0
    spread = (params_b - active_params_b) * 1e9
    return min(params_b * 1e9, spread * experts / (experts - top_k))


def find_model(name: str, catalog: Any = None) -> ModelShape:
    """The catalog model a person named, cached per catalog (default: the active one); unknown
    names list the nearest."""
    return _models.find(name, catalog)


def shape_of_row(row: Any) -> ModelShape:
    """A catalog ModelRow as a ModelShape."""
    return ModelShape(
        id=row.id, name=row.name, params_b=row.params_b, active_params_b=row.active_params_b,
        layers=row.layers, hidden=row.hidden, heads=row.heads, kv_heads=row.kv_heads,
        head_dim=row.head_dim, ffn_hidden=row.ffn_hidden, vocab=row.vocab,
        experts=row.experts, experts_per_token=row.experts_per_token,
        attention=row.attention, kv_latent_dim=row.kv_latent_dim,
        max_context=row.max_context, source_note=row.source_note,
        native_precision=getattr(row, "native_precision", "bf16"),
    )


def shape_from_config(config: dict[str, Any]) -> ModelShape:
    """The shape a Hugging Face config.json gives (parameters counted from it when it does not
    state them), as `clusterplan models import` reads it; a config it cannot read is a
    ToolError in one line."""
    name = str(config.get("_name_or_path") or config.get("model_type") or "config")
    try:
        row, _ = row_from_config(config, name.split("/")[-1])
    except ValueError as exc:
        raise ToolError(f"config: {exc}") from None
    return shape_of_row(row)


def shape_from_params(params_b: float, given: dict[str, Any]) -> ModelShape:
    """A shape for `params_b` parameters: the user's fields, the rest Llama-like (listed).
    Given fewer active parameters than total and no experts, a mixture of experts: its
    attention and depth sized from the active parameters, its experts assumed (see
    `_assumed_routing`)."""
    known = {k: v for k, v in given.items() if v is not None}
    stated_active = known.get("active_params_b")
    active_b = float(stated_active) if stated_active else params_b
    moe_by_count = active_b < params_b and not known.get("experts")
    if moe_by_count:
        experts, top_k = _assumed_routing(params_b, active_b)
    else:
        experts, top_k = known.get("experts") or 1, known.get("experts_per_token") or 1
    sized_by = active_b if moe_by_count else params_b
    hidden = known.get("hidden") or _assumed_hidden(sized_by, known.get("layers"))
    heads = known.get("heads") or max(1, hidden // ASSUMED_HEAD_DIM)
    layers = known.get("layers") or max(1, round(hidden / ASSUMED_HIDDEN_PER_LAYER))
    kv_heads = known.get("kv_heads") or math.gcd(heads, ASSUMED_KV_HEADS)
    ffn = known.get("ffn_hidden") or (
        _assumed_expert_width(params_b, active_b, layers, hidden, experts, top_k)
        if moe_by_count else 256 * max(1, round(ASSUMED_FFN_RATIO * hidden / 256)))
    active = stated_active or _assumed_active(params_b, layers, hidden, ffn, experts, top_k)
    assumed = tuple(k for k in ("layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab",
                                "experts", "experts_per_token", "active_params_b")
                    if k not in known and (k != "active_params_b" or experts > 1)
                    and (k not in ("experts", "experts_per_token") or moe_by_count))
    attention = "mha" if kv_heads == heads else "mqa" if kv_heads == 1 else "gqa"
    name = (f"a {params_b:g}B-parameter MoE with {active_b:g}B active" if moe_by_count
            else f"a {params_b:g}B-parameter model")
    return ModelShape(id=f"custom-{params_b:g}b", name=name,
                      params_b=params_b, active_params_b=min(active, params_b), layers=layers,
                      hidden=hidden, heads=heads, kv_heads=kv_heads,
                      head_dim=max(1, hidden // heads), ffn_hidden=ffn,
                      vocab=known.get("vocab") or ASSUMED_VOCAB,
                      experts=experts, experts_per_token=top_k,
                      attention=attention, assumed=assumed)


def _assumed_routing(params_b: float, active_b: float) -> tuple[int, int]:
    """Experts and experts a token for a MoE known by its total and active counts alone
    (MOE_SHAPE_NOTE): 8 a token, and 128 experts as Qwen3's MoE models have, or more
    (a power of two) when the total is so many times the active that 128 would leave the
    layers outside the experts under a fifth of the active parameters."""
    ratio = max(ASSUMED_EXPERTS // ASSUMED_TOP_K, (params_b / active_b - 0.2) / 0.8)
    return min(MOST_EXPERTS, ASSUMED_TOP_K * 2 ** math.ceil(math.log2(ratio))), ASSUMED_TOP_K


def _assumed_expert_width(params_b: float, active_b: float, layers: int, hidden: int,
                          experts: int, top_k: int) -> int:
    """The FFN width of each expert that puts the routed parameters, (P - A)·E/(E - k), in
    `experts` gated FFNs of 3·hidden·width per layer (a multiple of 128)."""
    routed = (params_b - active_b) * 1e9 * experts / (experts - top_k)
    return 128 * max(1, round(routed / (3 * hidden * layers * experts) / 128))


def _assumed_active(params_b: float, layers: int, hidden: int, ffn: int, experts: int,
                    top_k: int) -> float:
    """Active parameters of a MoE whose count was not given: gated-FFN experts of 3·h·ffn in
    every layer, of which top_k of `experts` run (a dense model: all of them)."""
    if experts <= 1:
        return params_b
    expert_b = min(params_b, layers * experts * 3 * hidden * ffn / 1e9)
    return params_b - expert_b * (1 - top_k / experts)


def _assumed_hidden(params_b: float, layers: int | None) -> int:
    """Hidden size from params = 12·L·h², with L = h/128 unless the user gave L."""
    per = ASSUMED_PARAMS_PER_LAYER
    if layers:
        raw = math.sqrt(params_b * 1e9 / (per * layers))
    else:
        raw = (params_b * 1e9 * ASSUMED_HIDDEN_PER_LAYER / per) ** (1 / 3)
    return 1024 * max(1, round(raw / 1024))  # a multiple of 1024 keeps heads a multiple of 8


_models: CatalogLookup[ModelShape] = CatalogLookup(
    "models", shape_of_row,
    "model: unknown model {name!r}; nearest catalog models: {nearest} (or give params_b)")
