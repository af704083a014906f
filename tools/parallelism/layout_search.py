"""Enumerating TP x PP x DP (x EP) layouts and applying the hard rules, counting each rejection.

Every candidate the search looks at is either accepted or counted under exactly one reason, so
accepted + sum(rejected) == evaluated. A structural rule (tp across nodes, pp not dividing the
layers...) rejects every ZeRO stage, micro-batch and recompute choice of that shape at once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

TP_CROSSES_NODE = "tp crosses the node boundary (tp > gpus per node)"
TP_NOT_GPUS = "tp does not divide the GPU count"
TP_STRADDLES = "tp does not divide the GPUs per node (its groups would straddle two nodes)"
TP_NOT_HEADS = "tp does not divide the attention heads"
TP_NOT_KV_HEADS = "tp does not divide the KV heads"
PP_NOT_GPUS = "tp x pp does not divide the GPU count"
PP_NOT_LAYERS = "pp does not divide the layers"
PP_TOO_DEEP = "pp exceeds the layers"
EP_NOT_DP = "ep does not divide dp"
BATCH_SPLIT = "global batch does not divide into dp x micro-batch x micro-batches"
NO_FIT = "does not fit in GPU memory"


@dataclass(frozen=True)
class Layout:
    """One way to lay a training job on the cluster."""

    tp: int
    pp: int
    dp: int
    ep: int
    zero_stage: int
    micro_batch: int
    num_microbatches: int
    recompute: str
    cp: int = 1  # context parallel: each sequence split over cp ranks (ring attention)
    shard_group: int = 0  # ZeRO-3 shards over this many ranks (HSDP), 0 = over all of dp x cp

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)  # the fields in order; all plain ints and strings

    def said(self) -> dict[str, Any]:
        """The fields as a person reads them: cp and the shard group only when used."""
        return {k: v for k, v in self.__dict__.items()
                if not (k == "cp" and v == 1 or k == "shard_group" and not v)}

    @property
    def zero_ranks(self) -> int:
        """The ranks ZeRO divides the model states over: the shard group under HSDP, else
        every data-parallel rank (dp x cp: the context-parallel ranks hold the same weights)."""
        return self.shard_group or self.dp * self.cp


@dataclass(frozen=True)
class SearchSpace:
    """The cluster, the model's divisibility facts, and the choices the user allows."""

    gpus: int
    gpus_per_node: int
    heads: int
    kv_heads: int
    layers: int
    experts: int
    global_batch: int
    zero_stages: tuple[int, ...]
    micro_batches: tuple[int, ...]
    recompute: tuple[str, ...]
    uneven_stages: bool = False
    context_parallel: tuple[int, ...] = (1,)  # cp degrees to weigh (long sequences)
    hybrid_sharding: bool = False  # also weigh ZeRO-3 sharded within a node (HSDP)


@dataclass
class Rejections:
    """How many layouts each rule rejected, with the first one as an example."""

    counts: dict[str, int] = field(default_factory=dict)
    examples: dict[str, dict[str, Any]] = field(default_factory=dict)

    def add(self, reason: str, example: dict[str, Any] | None, count: int = 1) -> None:
        """Count a rejection; `example` may be None once the reason has one (see `has`)."""
        self.counts[reason] = self.counts.get(reason, 0) + count
        if example is not None:
            self.examples.setdefault(reason, example)

    def has(self, reason: str) -> bool:
        """The reason has its example already, so a later one need not be built."""
        return reason in self.examples

    @property
    def total(self) -> int:
        return sum(self.counts.values())


@dataclass
class Accepted:
    """A layout that passed every rule, with its memory and its score (e.g. a step time)."""

    layout: Layout
    per_gpu_gb: float
    score: Any


@dataclass
class SearchOutcome:
    accepted: list[Accepted]
    rejected: Rejections
    evaluated: int


# fits(layout) -> (per_gpu_gb, fits, detail); score(layout) -> anything the caller ranks by.
Fits = Callable[[Layout], tuple[float, bool, str]]
Score = Callable[[Layout, float], Any]


def divisors(n: int) -> list[int]:
    """All positive divisors of n, ascending."""
    small = [d for d in range(1, int(n**0.5) + 1) if n % d == 0]
    return sorted(set(small + [n // d for d in small]))


def tp_candidates(space: SearchSpace) -> list[int]:
    """Every tp up to the node size, and the GPU count's divisors beyond it (to be rejected)."""
    beyond = [d for d in divisors(space.gpus) if d > space.gpus_per_node and d <= space.heads]
    return sorted(set(range(1, min(space.gpus_per_node, space.gpus) + 1)) | set(beyond))


def tp_rule(space: SearchSpace, tp: int) -> str | None:
    """The first hard rule a tensor-parallel degree breaks, or None."""
    if space.gpus % tp:
        return TP_NOT_GPUS
    if tp > space.gpus_per_node:
        return TP_CROSSES_NODE
    if space.gpus_per_node % tp:
        return TP_STRADDLES
    if space.heads % tp:
        return TP_NOT_HEADS
    if space.kv_heads % tp:
        return TP_NOT_KV_HEADS
    return None


def pp_candidates(space: SearchSpace, tp: int) -> list[int]:
    """Every pp that splits the GPUs left by tp, and every pp up to them that splits the layers."""
    room = space.gpus // tp
    return sorted(set(divisors(room)) | {d for d in divisors(space.layers) if d <= room})


def pp_rule(space: SearchSpace, tp: int, pp: int) -> str | None:
    """The hard rule a pipeline depth breaks, or None."""
    if pp > space.layers:
        return PP_TOO_DEEP
    if space.gpus % (tp * pp):
        return PP_NOT_GPUS
    if space.layers % pp and not space.uneven_stages:
        return PP_NOT_LAYERS
    return None


def shapes(space: SearchSpace, rejected: Rejections) -> Iterator[tuple[int, int, int, int]]:
    """(tp, pp, dp, ep) that obey the structural rules; the others are counted in `rejected`."""
    per_shape = len(space.zero_stages) * len(space.micro_batches) * len(space.recompute)
    for tp in tp_candidates(space):
        reason = tp_rule(space, tp)
        if reason:
            rejected.add(reason, _example(tp, 1, space.gpus // tp or 1, 1), per_shape)
            continue
        for pp in pp_candidates(space, tp):
            dp = space.gpus // (tp * pp)
            reason = pp_rule(space, tp, pp)
            if reason:
                rejected.add(reason, _example(tp, pp, max(1, dp), 1), per_shape)
                continue
            for ep in divisors(space.experts):
                if dp % ep:
                    rejected.add(EP_NOT_DP, _example(tp, pp, dp, ep), per_shape)
                    continue
                yield tp, pp, dp, ep


def search(space: SearchSpace, fits: Fits, score: Score,
           rejected: Rejections | None = None) -> SearchOutcome:
    """Every layout of the space: accepted with its score, or rejected with its reason (counted
    in `rejected`, a fresh tally unless the caller brings one that also lists them)."""
    rejected = Rejections() if rejected is None else rejected
    accepted: list[Accepted] = []
    per_mb = len(space.zero_stages) * len(space.recompute)
    for cp, tp, pp, dp, ep in _cp_shapes(space, rejected):
        for mb in space.micro_batches:
            m = _microbatches(space, dp, mb)
            if m is None:
                rejected.add(BATCH_SPLIT, _example(tp, pp, dp, ep, mb=mb), per_mb)
                continue
            for zero in space.zero_stages:
                for rc in space.recompute:
                    for shard in shard_groups(space, tp, cp, dp, ep, zero):
                        layout = Layout(tp, pp, dp, ep, zero, mb, m, rc, cp, shard)
                        gb, ok, detail = fits(layout)
                        if not ok:
                            rejected.add(NO_FIT, None if rejected.has(NO_FIT) else {
                                **layout.said(), "per_gpu_gb": round(gb, 2),
                                "detail": detail})
                            if shard == 0:
                                break  # sharding over fewer ranks only needs more memory
                            continue
                        accepted.append(Accepted(layout, gb, score(layout, gb)))
                        if shard or not _exposes_data_parallel(accepted[-1].score):
                            break  # a bigger group would only trade more traffic for memory
    return SearchOutcome(accepted, rejected, len(accepted) + rejected.total)


def _exposes_data_parallel(score: Any) -> bool:
    """Whether a fully sharded layout leaves data-parallel traffic exposed: if not, sharding
    within smaller groups cannot make its step shorter, only its memory bigger."""
    return getattr(score, "dp_s", 1.0) > 0


def _cp_shapes(space: SearchSpace, rejected: Rejections
               ) -> Iterator[tuple[int, int, int, int, int]]:
    """(cp, tp, pp, dp, ep): each context-parallel degree takes its share of the GPUs, and the
    rest are laid out as without it."""
    for cp in space.context_parallel:
        if space.gpus % cp:
            continue
        sub = space if cp == 1 else dataclasses.replace(space, gpus=space.gpus // cp)
        for tp, pp, dp, ep in shapes(sub, rejected):
            yield cp, tp, pp, dp, ep


def shard_groups(space: SearchSpace, tp: int, cp: int, dp: int, ep: int, zero: int) -> list[int]:
    """ZeRO-3 over all data-parallel ranks (0), and, with hybrid sharding, over groups of the
    ranks of one node, two nodes, four... (FSDP's HYBRID_SHARD, MiCS's partition groups): the
    smaller the group, the shorter its rings and the more of them stay on NVLink, the bigger,
    the less memory each rank holds. The search stops at the smallest group that fits."""
    if zero != 3 or not space.hybrid_sharding or ep != 1 or cp != 1:
        return [0]
    group = max(2, space.gpus_per_node // tp)  # tp divides the node (tp_rule)
    groups = [0]
    while group < dp and dp % group == 0:
        groups.append(group)
        group *= 2
    return groups


def _microbatches(space: SearchSpace, dp: int, mb: int) -> int | None:
    if space.global_batch % (dp * mb):
        return None
    return space.global_batch // (dp * mb)


def _example(tp: int, pp: int, dp: int, ep: int, mb: int | None = None) -> dict[str, Any]:
    example: dict[str, Any] = {"tp": tp, "pp": pp, "dp": dp, "ep": ep}
    if mb is not None:
        example["micro_batch"] = mb
    return example
