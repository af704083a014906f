"""The plan search: GPU kinds x whole-node counts, each run through the parallelism tool and
priced with the cheapest offer that can host it."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from clusterplan.tools.catalog_lookup import active_catalog
from clusterplan.tools.contract import ToolError
from clusterplan.tools.parallelism.result import TrainingPlan
from clusterplan.tools.parallelism.tool import ParallelismInput
from clusterplan.tools.parallelism.tool import run as run_parallelism
from clusterplan.tools.plan.input import PlanInput
from clusterplan.tools.pricing.billing import billed_hours
from clusterplan.tools.pricing.fabrics import hosts_as_one_cluster
from clusterplan.tools.pricing.offers import Offer
from clusterplan.tools.pricing.tool import PricingInput
from clusterplan.tools.pricing.tool import run as run_pricing

# Node counts tried: 1, 2, 3, 4, 6, 8, 12, 16, ... (each power of two and 1.5 x it), so a
# 3-node or 12-node cluster is a candidate, not only powers of two.
SECONDS_PER_DAY = 86_400
REASONS = ("does not fit", "no layout satisfies the rules", "misses deadline", "over budget",
           "no offer", "no offer with an inter-node fabric", "misses time per output token",
           "misses time to first token", "above max_gpus")


def node_ladder(max_nodes: int) -> list[int]:
    """1, 2, 3, 4, 6, 8, 12, 16, 24, ... up to max_nodes."""
    out, power = [1], 2
    while power <= max_nodes:
        out.append(power)
        if power * 3 // 2 <= max_nodes and power >= 2:
            out.append(power * 3 // 2)
        power *= 2
    return sorted(set(n for n in out if n <= max_nodes))


@dataclass
class Option:
    """One candidate cluster that works, with its time or throughput and its price."""

    gpu: str
    gpus: int
    nodes: int
    gpus_per_node: int
    layout: dict[str, Any]
    offer: Offer
    billed_gpus: int
    hourly_usd: float
    cost_usd: float
    days: float | None = None
    billed_hours: float | None = None  # training: the run as the offer bills it
    step_s: float | None = None  # training: one step of the layout
    mfu: float | None = None
    tokens_per_s: float | None = None
    replicas: int | None = None
    gpus_per_replica: int | None = None
    concurrency_per_replica: int | None = None
    time_per_output_token_ms: float | None = None
    requests_per_s: float | None = None
    decode_ms: dict[str, float] | None = None
    prefill_ms: dict[str, float] | None = None
    decode_bound: str | None = None


@dataclass
class Unpriced:
    """A training cluster that meets the deadline on a GPU kind no offer rents: the count, its
    layout and time, with no price (the user named the kind, so it is theirs or bought)."""

    gpu: str
    gpus: int
    nodes: int
    gpus_per_node: int
    layout: dict[str, Any]
    days: float
    mfu: float
    tokens_per_s: float


@dataclass
class Search:
    """Everything the search found: the working options and the failures by reason."""

    options: list[Option] = field(default_factory=list)
    failed: dict[str, int] = field(default_factory=dict)
    evaluated: int = 0
    kinds: list[str] = field(default_factory=list)
    closest: Option | None = None  # the fastest training option that missed the deadline
    # serving: per latency target ("ttft", "tpot"), the closest miss (achieved / target, gpu,
    # tp, pp)
    latency_miss: dict[str, tuple[float, str, int, int]] = field(default_factory=dict)
    cheapest_over: Option | None = None  # the cheapest option a budget ruled out
    # a named GPU kind no offer rents, with a deadline and no budget: its smallest count that
    # meets the deadline, or (missed at every count) the fastest found, unpriced
    unpriced: Unpriced | None = None
    # fitting counts tried per GPU kind: 4 draw the cost/time front and look for a cheaper
    # count past the smallest that fits; 1 takes the smallest (stated as an assumption)
    fits_per_kind: int = 4

    def over_budget(self, opt: Option) -> None:
        self.fail("over budget")
        if self.cheapest_over is None or opt.cost_usd < self.cheapest_over.cost_usd:
            self.cheapest_over = opt

    def fail(self, reason: str) -> None:
        self.failed[reason] = self.failed.get(reason, 0) + 1


def host_offer(offers: list[Offer], gpus: int, gpus_per_node: int, multi_node: bool,
               hours: float | None = None) -> tuple[Offer, int] | None:
    """The cheapest offer that can host `gpus` and the GPUs it bills. A job spanning nodes
    (training beyond one node) needs the offer's node to be the cluster's multi-GPU node and
    its provider to have an inter-node fabric (note plan-cluster-fabrics); independent serving
    replicas may sit on any node that holds one replica."""
    best: tuple[float, Offer, int] | None = None
    for o in offers:
        # the layouts were searched for the GPU's own node size, so a cluster is of those nodes
        if multi_node and (o.gpus_per_node != gpus_per_node or not hosts_as_one_cluster(o, gpus)):
            continue
        if not multi_node and o.gpus_per_node < gpus:
            continue
        billed = math.ceil(gpus / o.gpus_per_node) * o.gpus_per_node
        hourly = billed * o.effective_usd_per_gpu_hour
        if hours is not None:  # a job's length: a commitment's term, a provider's increment
            term = billed_hours(o, hours)
            if term is None:
                continue
            hourly *= term
        if best is None or hourly < best[0]:
            best = (hourly, o, billed)
    return None if best is None else (best[1], best[2])


def kind_offers(gpu: str, providers: list[str] | None,
                kinds: list[str] | tuple[str, ...] = ("on_demand",)) -> list[Offer]:
    """Available offers of one GPU kind (from the pricing tool) of the pricing kinds allowed."""
    found: list[Offer] = []
    for provider in providers or [None]:  # type: ignore[list-item]
        found += run_pricing(PricingInput(gpu=gpu, provider=provider)).offers
    return [o for o in found if o.status == "available" and o.kind in kinds]


def model_args(inp: PlanInput) -> dict[str, Any]:
    """The model as the parallelism tool takes it, with the precision asked (FP8, 4-bit
    weights change what fits and how fast each GPU decodes)."""
    args: dict[str, Any] = {"model": inp.model} if inp.model else {"params_b": inp.params_b}
    args.update({k: v for k, v in (("precision", inp.precision),
                                   ("kv_precision", inp.kv_precision)) if v is not None})
    return args


def train_at(inp: PlanInput, gpu: str, gpus: int, gpn: int) -> tuple[TrainingPlan, Any] | str:
    """The parallelism tool's best layout for `gpus` GPUs of `gpu`, or why there is none.
    A count such as 3 or 12 nodes often fails only because its data-parallel degree does not
    divide the default global batch; it is retried once with the batch rounded up to a
    multiple of the GPU count (at most `gpus` - 1 sequences more a step)."""
    batch: dict[str, Any] = {}
    if inp.global_batch_tokens:
        batch["global_batch_tokens"] = inp.global_batch_tokens
    res = _train(inp, gpu, gpus, gpn, batch)
    if not res.plans and not res.verdict.startswith("does not fit") and res.global_batch \
            and res.global_batch % gpus and not inp.global_batch_tokens:
        res = _train(inp, gpu, gpus, gpn,
                     {"global_batch": math.ceil(res.global_batch / gpus) * gpus})
    if not res.fits or not res.plans:
        if res.smallest_cluster is not None:  # the memory floor: skip the counts below it
            return f"does not fit:{res.smallest_cluster.gpus}"
        return "does not fit" if res.verdict.startswith("does not fit") else \
            "no layout satisfies the rules"
    plan = res.plans[0]
    assert isinstance(plan, TrainingPlan)
    return plan, res


def _train(inp: PlanInput, gpu: str, gpus: int, gpn: int, batch: dict[str, Any]) -> Any:
    return run_parallelism(ParallelismInput(
        **model_args(inp), workload=inp.workload, gpu=gpu, gpus=gpus, gpus_per_node=gpn,
        tokens=inp.tokens, top_k=1, **batch))


def layout_of(plan: TrainingPlan) -> dict[str, Any]:
    """A training plan's layout as an option carries it."""
    return {"tp": plan.tp, "pp": plan.pp, "dp": plan.dp, "ep": plan.ep,
            "zero_stage": plan.zero_stage, "micro_batch": plan.micro_batch,
            "recompute": plan.recompute}


def search_unpriced(inp: PlanInput, gpu: str, gpn: int, out: Search) -> None:
    """A GPU kind the user named that no offer rents (an A800, a card they own): the smallest
    whole-node count that meets the deadline, by time alone. Only with a deadline and no
    budget, since a budget cannot be checked without a price. The ladder finds a count that
    meets it; the node counts between the last count measured to miss and it are then
    bisected, since "how many nodes" asks for the smallest, not the next rung (time taken to
    fall as nodes grow, which a batch that does not divide can break by a node or two)."""
    deadline = inp.deadline_days
    assert deadline is not None
    floor_gpus, pace_gpus, missed_nodes = 0, 0.0, 0
    for nodes in node_ladder(inp.max_gpus // gpn):
        if nodes * gpn < max(floor_gpus, pace_gpus):
            continue
        option = _unpriced_at(inp, gpu, nodes, gpn, out)
        if isinstance(option, int):
            floor_gpus = max(floor_gpus, option)
            continue
        if option.days <= deadline:
            low, high = missed_nodes, nodes
            while high - low > 1:
                mid = (low + high) // 2
                smaller = _unpriced_at(inp, gpu, mid, gpn, out)
                if not isinstance(smaller, int) and smaller.days <= deadline:
                    option, high = smaller, mid
                else:
                    low = mid
            out.unpriced = option
            return
        out.fail("misses deadline")
        missed_nodes = nodes
        pace_gpus = nodes * gpn * option.days / deadline
        if out.unpriced is None or option.days < out.unpriced.days:
            out.unpriced = option  # the fastest miss, kept for the shortfall


def _unpriced_at(inp: PlanInput, gpu: str, nodes: int, gpn: int,
                 out: Search) -> Unpriced | int:
    """The best layout's time on `nodes` nodes, or the fewest GPUs that hold the model (0 when
    no layout works for another reason)."""
    out.evaluated += 1
    found = train_at(inp, gpu, nodes * gpn, gpn)
    if isinstance(found, str):
        reason, _, smallest = found.partition(":")
        out.fail(reason)
        return int(smallest) if smallest else 0
    plan, res = found
    assert res.training_days is not None  # a plan's training has tokens
    return Unpriced(gpu=gpu, gpus=nodes * gpn, nodes=nodes, gpus_per_node=gpn,
                    layout=layout_of(plan), days=res.training_days, mfu=plan.mfu,
                    tokens_per_s=plan.tokens_per_s)


def search_training(inp: PlanInput, kinds: list[tuple[str, int]], out: Search) -> None:
    """Per GPU kind: grow the node count along the ladder until the deadline is met (or, for a
    budget or cheapest/fastest goal, through a few counts past the smallest that fits)."""
    for gpu, gpn in kinds:
        offers = kind_offers(gpu, inp.providers, inp.offer_kinds)
        if inp.max_gpus < gpn:  # not one whole node of this kind within max_gpus
            out.fail("above max_gpus")
            continue
        if not offers and inp.gpus and inp.deadline_days is not None \
                and inp.budget_usd is None:
            out.fail("no offer")
            search_unpriced(inp, gpu, gpn, out)
            continue
        ladder = node_ladder(inp.max_gpus // gpn)
        fitted, floor_gpus, pace_gpus = 0, 0, 0.0
        for nodes in ladder:
            gpus = nodes * gpn
            if gpus < floor_gpus:
                out.fail("does not fit")
                continue
            if gpus < pace_gpus:  # even perfect scaling from a measured count misses it
                out.fail("misses deadline")
                continue
            if not offers:
                out.fail("no offer")
                break
            hosted = host_offer(offers, gpus, gpn, multi_node=nodes > 1)
            if hosted is None:  # no offer hosts this many nodes; more nodes fare no better
                out.fail("no offer with an inter-node fabric" if nodes > 1 and any(
                    o.gpus_per_node == gpn for o in offers) else "no offer")
                if nodes > 1:
                    break
                continue
            out.evaluated += 1
            found = train_at(inp, gpu, gpus, gpn)
            if isinstance(found, str):
                reason, _, smallest = found.partition(":")
                floor_gpus = int(smallest) if smallest else floor_gpus
                out.fail(reason)
                continue
            plan, res = found
            fitted += 1
            days = res.training_days
            hosted = host_offer(offers, gpus, gpn, nodes > 1, hours=days * 24)
            if hosted is None:  # only commitments whose longest term is shorter than the run
                out.fail("no offer")
                continue
            offer, billed = hosted
            hourly = billed * offer.effective_usd_per_gpu_hour
            paid_hours = billed_hours(offer, days * 24) or days * 24
            opt = Option(gpu=gpu, gpus=gpus, nodes=nodes, gpus_per_node=gpn,
                         layout=layout_of(plan),
                         offer=offer, billed_gpus=billed, hourly_usd=round(hourly, 4),
                         cost_usd=round(hourly * paid_hours, 2), days=days,
                         billed_hours=round(paid_hours, 6), mfu=plan.mfu,
                         tokens_per_s=plan.tokens_per_s, step_s=plan.step_time_s)
            if inp.deadline_days is not None and days > inp.deadline_days:
                out.fail("misses deadline")
                pace_gpus = gpus * days / inp.deadline_days
                if out.closest is None or days < (out.closest.days or 0.0):
                    out.closest = opt
                continue
            if inp.budget_usd is not None and opt.cost_usd > inp.budget_usd:
                out.over_budget(opt)
                # more nodes can cost less (a layout squeezed into the fewest GPUs that hold
                # the model runs at a low MFU), so a few more counts are tried
                if fitted >= out.fits_per_kind:
                    break
                continue

            out.options.append(opt)
            if inp.deadline_days is not None or fitted >= out.fits_per_kind:
                break  # deadline met: more nodes are only faster and dearer


def gpu_kinds(inp: PlanInput) -> list[tuple[str, int]]:
    """(catalog id, usual GPUs per node) of every GPU kind, or of the ones asked for."""

    cat = active_catalog()
    if not inp.gpus:
        return [(g.id, g.gpus_per_node) for g in cat.gpus.rows.values()]
    kinds = []
    for name in inp.gpus:
        try:
            g = cat.gpus.find(name)
        except Exception as exc:  # UnknownName: one line with the nearest names
            raise ToolError(f"gpus: {exc}") from None
        kinds.append((g.id, g.gpus_per_node))
    return list(dict.fromkeys(kinds))


def pareto(options: list[Option], time_key: Any) -> list[Option]:
    """Options no other beats on both cost and time, cheapest first."""
    front: list[Option] = []
    for o in sorted(options, key=lambda o: (o.cost_usd, time_key(o))):
        if not front or time_key(o) < time_key(front[-1]):
            front.append(o)
    return front


def cheapest_by_gpu(options: list[Option], time_key: Any) -> list[Option]:
    """Each GPU kind's cheapest option (the faster of equal costs), cheapest first: the
    comparison across kinds a front of one option hides."""
    best: dict[str, Option] = {}
    for o in sorted(options, key=lambda o: (o.cost_usd, time_key(o))):
        best.setdefault(o.gpu, o)
    return list(best.values())
