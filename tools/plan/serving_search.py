"""The serving half of the plan search: per GPU kind and replica shape, the concurrency that the
KV cache and the latency targets allow, the replicas the throughput needs, and their price.

Every shape that meets the targets is an option (not only the best per kind), so the cost /
throughput front can show a wider, faster replica beside a cheaper, slower one."""

from __future__ import annotations

import math

from clusterplan.tools.contract import ToolError
from clusterplan.tools.plan.input import PlanInput
from clusterplan.tools.plan.search import Option, Search, host_offer, kind_offers, model_args
from clusterplan.tools.plan.serving_model import Replica, ServingModel
from clusterplan.tools.pricing.costs import HOURS_PER_MONTH

MAX_CONCURRENCY = 4096  # sequences a replica may batch when no user count caps it


def replica_rate(model: ServingModel, r: Replica, batch: int, inp: PlanInput,
                 context: int) -> tuple[float, float | None, float]:
    """(output tokens/s, requests/s or None, decode step s) of one replica at `batch`.
    With request lengths a replica spends, per request, its prefill plus output x step / batch
    (note serving-latency#requests-per-second); without them, decode only."""
    step = model.decode(r, batch, context).total_s
    if inp.input_tokens is None or inp.output_tokens is None:
        return batch / step, None, step
    per_request = model.prefill(r, inp.input_tokens).total_s + inp.output_tokens * step / batch
    rps = 1 / per_request
    return rps * inp.output_tokens, rps, step


def search_serving(inp: PlanInput, kinds: list[tuple[str, int]], out: Search) -> None:
    """Per GPU kind and replica shape: the largest batch within the per-token target and the KV
    room, the time to first token against its target, replicas for the goal, the cheapest
    offer holding a replica."""
    target = inp.target_tokens_per_s or 0.0
    for gpu, gpn in kinds:
        offers = kind_offers(gpu, inp.providers, inp.offer_kinds)
        if not offers:
            out.fail("no offer")
            continue
        try:
            model = ServingModel(model_args(inp), gpu, gpn, inp.serving_context)
        except ToolError:
            out.fail("does not fit")
            continue
        context = model.context_len
        shapes = model.replicas()
        if not shapes:
            out.fail("does not fit")
            continue
        for r in shapes:
            out.evaluated += 1
            _shape_option(inp, model, r, gpu, gpn, context, target, offers, out)


def _shape_option(inp: PlanInput, model: ServingModel, r: Replica, gpu: str, gpn: int,
                  context: int, target: float, offers: list, out: Search) -> None:
    if r.max_batch(context) < 1:
        out.fail("does not fit")
        return
    ttft = model.prefill(r, inp.input_tokens) if inp.input_tokens else None
    if ttft is not None and inp.ttft_ms is not None and ttft.total_s * 1e3 > inp.ttft_ms:
        out.fail("misses time to first token")
        _near(out, "ttft", ttft.total_s * 1e3 / inp.ttft_ms, gpu, r)
        return
    cap = inp.concurrent_users or MAX_CONCURRENCY
    batch = model.largest_batch(r, context, inp.tpot_target_s, cap)
    if batch < 1:
        out.fail("misses time per output token")
        one = model.decode(r, 1, context).total_s
        _near(out, "tpot", one / (inp.tpot_target_s or one), gpu, r)
        return
    tokens_s, rps, step = replica_rate(model, r, batch, inp, context)
    if not tokens_s > 0:  # guards the divisions below against a degenerate answer
        out.fail("does not fit")
        return
    replicas = math.ceil(target / tokens_s - 1e-9)
    if inp.concurrent_users:  # every user holds a slot in some replica's batch
        replicas = max(replicas, math.ceil(inp.concurrent_users / batch))
    gpus = replicas * r.gpus
    if gpus > inp.max_gpus:
        out.fail("above max_gpus")
        return
    hosted = host_offer(offers, r.gpus, gpn, multi_node=r.pp > 1)
    if hosted is None:
        out.fail("no offer")
        return
    offer = hosted[0]
    if r.pp > 1:  # a pipelined replica spans whole nodes of the offer
        billed = replicas * hosted[1]
    else:
        per_node = max(1, offer.gpus_per_node // r.gpus)  # replicas a node holds
        billed = math.ceil(replicas / per_node) * offer.gpus_per_node
    hourly = billed * offer.effective_usd_per_gpu_hour
    monthly = round(hourly * HOURS_PER_MONTH, 2)
    decode = model.decode(r, batch, context)
    opt = Option(
        gpu=gpu, gpus=gpus, nodes=math.ceil(billed / offer.gpus_per_node),
        gpus_per_node=offer.gpus_per_node, layout={"tp": r.tp, "pp": r.pp},
        offer=offer, billed_gpus=billed, hourly_usd=round(hourly, 4), cost_usd=monthly,
        tokens_per_s=tokens_s * replicas, replicas=replicas, gpus_per_replica=r.gpus,
        concurrency_per_replica=batch, time_per_output_token_ms=step * 1e3,
        requests_per_s=None if rps is None else rps * replicas,
        decode_ms=decode.ms(), prefill_ms=None if ttft is None else ttft.ms(),
        decode_bound=decode.bound)
    if inp.budget_usd is not None and monthly > inp.budget_usd:
        out.over_budget(opt)
        return
    out.options.append(opt)


def _near(out: Search, which: str, ratio: float, gpu: str, r: Replica) -> None:
    """Keep the shape that came closest to a latency target (ratio = achieved / target)."""
    best = out.latency_miss.get(which)
    if best is None or ratio < best[0]:
        out.latency_miss[which] = (ratio, gpu, r.tp, r.pp)
