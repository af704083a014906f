"""The biggest model a budget fine-tunes, compared by method and by data size.

"I have $50k, what's the biggest model I can fine-tune?" has no single answer: it turns on how
much data and on full fine-tuning against LoRA or QLoRA. This lays the answer out as a table a
user can act on: for each method and each of a few data sizes, the largest catalog model whose
cheapest plan fits the budget, with its GPUs, time and cost.

Each model is searched once per method: the run's time is its step count (tokens over the
tokens a step trains, rounded up) times the step time, so a layout found for one data size
prices every other one; the cost is then billed as the offer bills it. To keep the table
quick, each GPU kind is tried at the smallest node count that holds the model (its cheapest
count, as a rule; the answer says so).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import BaseModel

from clusterplan.tools.catalog_lookup import active_catalog
from clusterplan.tools.parallelism.matmul_efficiency import (
    EFFICIENCY_CEILING,
    HALF_SATURATION,
    MAX_CALIBRATED_X,
)
from clusterplan.tools.parallelism.step_time import SEQUENCE_PARALLEL_SPEEDUP
from clusterplan.tools.plan.input import DEFAULT_FINETUNE_TOKENS, PlanInput
from clusterplan.tools.plan.largest import largest, size_index
from clusterplan.tools.plan.search import (
    Option,
    Search,
    gpu_kinds,
    host_offer,
    kind_offers,
    search_training,
)
from clusterplan.tools.pricing.billing import billed_hours
from clusterplan.tools.pricing.offers import Offer

METHODS = ("full_finetune", "lora", "qlora")
# Alpaca-sized (note finetune-dataset-default#default-tokens), then 1B and 10B tokens: an
# instruction set 12.5 and 125 times larger, the sizes compared, stated as such in the answer.
DATA_SIZES = (DEFAULT_FINETUNE_TOKENS, 1e9, 1e10)
FROZEN = ("lora", "qlora")  # weight gradients skipped: 4 FLOPs a parameter (qlora-paper)
# The step-time model's ceiling on MFU: its best GEMM efficiency (mfu-calibration#efficiency-
# curve, 0.84 x 10.8 / (10.8 + 4.5) = 0.593), sped up at most by sequence parallelism (19.6 /
# 19.0); compute alone then takes model FLOPs / (GPUs x peak x this), communication only adds.
MFU_BOUND = (EFFICIENCY_CEILING * MAX_CALIBRATED_X / (MAX_CALIBRATED_X + HALF_SATURATION)
             / SEQUENCE_PARALLEL_SPEEDUP)
CONSTRAINTS = ("gpus", "providers", "max_gpus", "offer_kinds", "global_batch_tokens")


class AffordableRow(BaseModel):
    """The largest model one method affords on one data size, with its cheapest plan."""

    workload: str
    tokens: float
    model: str | None = None
    gpu: str | None = None
    gpus: int | None = None
    provider: str | None = None
    training_days: float | None = None
    cost_usd: float | None = None


def cost_floor(active_params: float, workload: str, tokens: float, peak_flops: float,
               usd_per_gpu_hour: float) -> float:
    """No plan trains `tokens` for less: the model FLOPs (6 per parameter a token, 4 with frozen
    weights) at the highest share of peak the step-time model can reach, at the kind's lowest
    price. A GPU kind whose floor is over the budget, or over a plan already found, is not
    searched."""
    flops = (4 if workload in FROZEN else 6) * active_params * tokens
    return flops / (peak_flops * MFU_BOUND) / 3600 * usd_per_gpu_hour


def at_tokens(opt: Option, tokens: float, offers: list[Offer]) -> Option:
    """`opt`'s cluster priced for `tokens`: whole steps at its step time, on the offer that
    bills a run of that length least (an hourly-billed offer can lose a short run and win a
    long one)."""
    tokens_per_step = (opt.tokens_per_s or 0.0) * (opt.step_s or 0.0)
    seconds = math.ceil(tokens / tokens_per_step - 1e-9) * (opt.step_s or 0.0)
    hosted = host_offer(offers, opt.gpus, opt.gpus_per_node, opt.nodes > 1, hours=seconds / 3600)
    offer, billed = hosted if hosted is not None else (opt.offer, opt.billed_gpus)
    hourly = billed * offer.effective_usd_per_gpu_hour
    hours = billed_hours(offer, seconds / 3600) or seconds / 3600
    return replace(opt, offer=offer, billed_gpus=billed, hourly_usd=round(hourly, 4),
                   days=seconds / 86_400, billed_hours=round(hours, 6),
                   cost_usd=round(hourly * hours, 2))


Pick = tuple[str, Option]  # a model and its cheapest plan at one data size

# First-fitting clusters already searched in this process, for the catalog they were searched
# in: a second budget question (a user trying $500, then $1,000) reuses them. They depend only
# on the catalog and the constraints, which the key holds; a new catalog starts afresh.
_MEMO: dict[str, Any] = {"catalog": None, "fits": {}}
MEMO_LIMIT = 4096  # entries; a few hundred bytes each


def _first_fits() -> dict[tuple[str | int, ...], Option | None]:
    catalog = active_catalog()
    if _MEMO["catalog"] is not catalog or len(_MEMO["fits"]) > MEMO_LIMIT:
        _MEMO["catalog"], _MEMO["fits"] = catalog, {}
    return _MEMO["fits"]


def forget_searches() -> None:
    """Drop the remembered searches (the benchmark times a cold search with this)."""
    _MEMO["catalog"], _MEMO["fits"] = None, {}


@dataclass
class Affordable:
    """The table's rows, the (model, plan) picked and the next size down for each (method,
    data size), and how many (model, GPU kind) searches it took."""

    rows: list[AffordableRow] = field(default_factory=list)
    picks: dict[tuple[str, float], tuple[Pick | None, Pick | None]] = field(default_factory=dict)
    searches: int = 0


def sizes_for(inp: PlanInput) -> list[float]:
    """The data sizes compared: the three defaults and the one asked, if another."""
    return sorted({*DATA_SIZES, float(inp.tokens or DATA_SIZES[0])})


@dataclass
class MethodSearch:
    """One method's searches: each (model, GPU kind)'s first-fitting cluster, found once and
    priced for any data size; kinds are tried cheapest floor first."""

    inp: PlanInput
    workload: str
    plans: dict[tuple[str, str], Option | None] = field(default_factory=dict)
    offers: dict[str, list[Offer]] = field(default_factory=dict)
    kinds: list[tuple[str, int, float, float]] = field(default_factory=list)
    last_within: str | None = None  # the GPU kind of the last plan found within the budget

    def __post_init__(self) -> None:
        """(GPU, GPUs a node, peak FLOP/s, lowest $/GPU-h) of each kind with an offer."""
        rows = active_catalog().gpus.rows
        for gpu, gpn in gpu_kinds(self.inp):
            self.offers[gpu] = kind_offers(gpu, self.inp.providers, self.inp.offer_kinds)
            peak = rows[gpu].bf16_tflops
            if self.offers[gpu] and peak:
                low = min(o.effective_usd_per_gpu_hour for o in self.offers[gpu])
                self.kinds.append((gpu, gpn, peak * 1e12, low))

    def first_fit(self, model: str, gpu: str, gpn: int) -> Option | None:
        if (model, gpu) not in self.plans:
            base = {k: getattr(self.inp, k) for k in CONSTRAINTS
                    if getattr(self.inp, k) is not None}
            key = (self.workload, model, gpu, gpn, repr(sorted(base.items())))
            memo = _first_fits()
            if key not in memo:
                inp = PlanInput(**base, model=model, workload=self.workload,
                                tokens=DATA_SIZES[0], objective="cheapest")
                found = Search(fits_per_kind=1)
                search_training(inp, [(gpu, gpn)], found)
                memo[key] = found.options[0] if found.options else None
            self.plans[(model, gpu)] = memo[key]
        return self.plans[(model, gpu)]

    def cheapest(self, model: str, tokens: float, budget: float,
                 any_within: bool = False) -> Option | None:
        """The model's cheapest first-fitting cluster for `tokens`, of any GPU kind; kinds
        whose cost floor passes the budget or the best found are skipped. `any_within`: stop
        at the first within the budget (enough to know the model is affordable)."""
        active = active_catalog().models.rows[model].active_params_b * 1e9

        def floor(kind: tuple[str, int, float, float]) -> float:
            return cost_floor(active, self.workload, tokens, kind[2], kind[3])

        best: Option | None = None
        kinds = sorted(self.kinds, key=floor)
        if any_within:  # any kind within the budget will do: the last one that was, first
            kinds.sort(key=lambda k: k[0] != self.last_within)
        for kind in kinds:
            if floor(kind) > budget:
                if any_within:
                    continue
                break
            if best is not None and floor(kind) >= best.cost_usd:
                break
            opt = self.first_fit(model, kind[0], kind[1])
            if opt is not None:
                priced = at_tokens(opt, tokens, self.offers[kind[0]])
                if best is None or (priced.cost_usd, priced.gpus) < (best.cost_usd, best.gpus):
                    best = priced
                if any_within and best.cost_usd <= budget:
                    self.last_within = kind[0]
                    break
        return best

    def largest(self, tokens: float, budget: float, runner_up: bool, cap: int | None = None
                ) -> tuple[Pick | None, Pick | None]:
        """The largest model whose cheapest cluster for `tokens` costs at most `budget`, and
        (if asked) the next size down; `cap` bounds the sizes searched (see compare)."""
        def meets(model: str) -> str | None:
            opt = self.cheapest(model, tokens, budget, any_within=True)
            return model if opt is not None and opt.cost_usd <= budget else None

        best, runner, _ = largest(meets, runner_up, cap)
        return self._pick(best, tokens, budget), self._pick(runner, tokens, budget)

    def _pick(self, model: str | None, tokens: float, budget: float) -> Pick | None:
        """The model and its cheapest cluster (every kind under its floor searched)."""
        opt = None if model is None else self.cheapest(model, tokens, budget)
        return None if model is None or opt is None else (model, opt)


def compare(inp: PlanInput) -> Affordable:
    """For each method and data size, the largest model the budget affords.

    Sizes go smallest data first, and each answer caps the next: a plan's cost never falls as
    the data grows (whole steps at a fixed step time, each offer billing a longer run at least
    as much, the cheapest of those no lower), so a model the budget misses on fewer tokens it
    misses on more, and the bisection need not look above the last size found."""
    out = Affordable()
    for workload in METHODS:
        method = MethodSearch(inp, workload)
        cap: int | None = None
        for tokens in sizes_for(inp):
            asked = workload == inp.workload and tokens == float(inp.tokens or 0.0)
            best, runner = (None, None) if cap == -1 else \
                method.largest(tokens, inp.budget_usd or 0.0, runner_up=asked, cap=cap)
            cap = -1 if best is None else size_index(best[0])
            out.picks[(workload, tokens)] = (best, runner)
            out.rows.append(_row(workload, tokens, best))
        out.searches += len(method.plans)
    return out


def _row(workload: str, tokens: float, best: Pick | None) -> AffordableRow:
    if best is None:
        return AffordableRow(workload=workload, tokens=tokens)
    model, opt = best
    return AffordableRow(workload=workload, tokens=tokens, model=model, gpu=opt.gpu,
                         gpus=opt.gpus, provider=opt.offer.provider,
                         training_days=round(opt.days or 0.0, 6), cost_usd=opt.cost_usd)


def affordable_assumptions(inp: PlanInput) -> list[str]:
    """What the table takes as given, each shown with the answer."""
    said = [f"data sizes compared: {', '.join(f'{t:,.0f}' for t in sizes_for(inp))} tokens "
            f"(Alpaca's 52,000 examples x 512 tokens x 3 epochs = {DEFAULT_FINETUNE_TOKENS:,.0f}, "
            "note finetune-dataset-default; 1B and 10B tokens as larger instruction sets)",
            "methods compared: full fine-tuning, LoRA and QLoRA",
            "each GPU kind is tried at the smallest whole-node count that holds the model; a "
            "larger count can train faster and, at a higher MFU, sometimes for less",
            "a run's time is its steps (tokens / tokens a step, rounded up) x the step time of "
            "the layout found; the cost is billed as the offer bills a run of that length",
            "a plan's existence is taken to fall as the model grows, so the sizes are bisected "
            "rather than all searched; each size stands for the catalog's models of that size"]
    if inp.tokens_assumed:
        said.append(f"no data size given: the recommendation is for an Alpaca-sized fine-tune, "
                    f"{inp.tokens:,.0f} tokens")
    return said
