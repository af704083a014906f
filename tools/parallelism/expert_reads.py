"""How much of a mixture-of-experts model one decode step reads from memory.

Decode is bound by memory bandwidth: each step streams the weights its tokens use. A dense
model's tokens use every weight; a MoE token uses its router's k of E experts in each layer, so a
step of c sequences reads the experts any of them picked. With routing spread evenly, an expert
escapes one token with probability 1 - k/E and all c with (1 - k/E)^c, so a step touches
E·(1 - (1 - k/E)^c) experts a layer on average (model-mixtral#decode-experts-read): two of
Mixtral's eight for one sequence, nearly all eight by sixteen.
"""

from __future__ import annotations

from clusterplan.tools.memory.model_shape import ModelShape


def experts_touched(experts: int, per_token: int, sequences: int) -> float:
    """Expected distinct experts a layer's router picks for `sequences` tokens at once."""
    if experts <= 1:
        return 1.0
    return experts * (1 - (1 - per_token / experts) ** max(1, sequences))


def weights_read_share(shape: ModelShape, sequences: int) -> float:
    """The share of the weights one decode step of `sequences` reads: the dense part whole,
    the routed experts by the share of them touched."""
    if not shape.is_moe or shape.params <= 0:
        return 1.0
    expert_share = shape.expert_params / shape.params
    touched = experts_touched(shape.experts, shape.experts_per_token, sequences)
    return 1 - expert_share + expert_share * touched / shape.experts
