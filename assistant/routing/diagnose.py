"""Measurements someone wants checked: what the calculators expect, what was measured, the ratio,
a verdict and the likely causes, ranked, each with the note it rests on.

Each check takes the figures it understands (see `measurements`): collective bandwidth against
the interconnect tool, TFLOP/s and MFU against the GPU's dense peak and the parallelism planner,
decode tokens/s against the memory-bandwidth bound, the time per collective call against the
calls a token makes, GPU memory in use against the memory tool, and slower runs on more GPUs
against the gradient all-reduce. A figure the question lacks gets a shown default.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.composing.markdown import num, pct, table
from clusterplan.assistant.parsing.gpu_reading import gpu_family
from clusterplan.assistant.parsing.jobs import gpu_name, memory_payload, model_name
from clusterplan.assistant.parsing.lazy_re import lazy
from clusterplan.assistant.parsing.measurements import (
    KV_CLAIM,
    KV_LOG,
    KV_NEEDED,
    KV_REFUSAL,
    P2P_TEST,
    PROMPT_OVER_CACHE,
    Measurement,
    find,
    prompt_tokens,
    request_tokens,
)
from clusterplan.assistant.routing import kv_formula
from clusterplan.assistant.routing.cluster import tokens_said
from clusterplan.assistant.routing.dispatch import Calls, Reply, model_fields, model_shape, slot
from clusterplan.assistant.routing.finding import LOW_FROM, NORMAL_FROM, Finding
from clusterplan.assistant.routing.gpu_pair import gpu_pair
from clusterplan.assistant.routing.lora_speedup import lora_against_full
from clusterplan.assistant.routing.memory import VLLM_SHARE, fit
from clusterplan.assistant.routing.run_figures import PROGRESS_BAR
from clusterplan.db.active import catalog
from clusterplan.tools.citing import note_ref
from clusterplan.tools.contract import Step, ToolError, q
from clusterplan.tools.memory.offload import DEEPSPEED_BUFFER
from clusterplan.tools.parallelism.serving_layouts import WEIGHTS_READ_EFFICIENCY

DEFAULT_GPU = "h100-sxm"
# The verdict bands are this tool's own convention, stated in every answer that uses them.
BANDS = (f"verdict bands (this tool's convention): for rates, measured/expected >= {NORMAL_FROM} "
         f"is as expected, {LOW_FROM}-{NORMAL_FROM} below, < {LOW_FROM} well below; for times "
         f"and memory the same bands on expected/measured")
# Published end-to-end MFU: Llama 3 405B on H100 at 38-43% (mfu-calibration#llama3-mfu).
PUBLISHED_MFU = 0.38
# One token's activations when no model is named: hidden 8192 (Llama 3 70B, note model-llama-3).
ASSUMED_HIDDEN = 8192
DEFAULT_TRAINING_GPUS = 64
COLLECTIVE_WORDS = lazy(r"nccl|all[-_ ]?reduce|allreduce|all[-_ ]?gather|busbw|algbw|"
                        r"bus\s*bandwidth", 2)
# ZeRO stages 2 and 3 set side by side ("stage3 cpu offload occupies more memory than stage 2").
STAGES_COMPARED = lazy(r"(?=.*(?:stage|zero)[\s_-]*3)(?=.*(?:stage|zero)[\s_-]*2)",
                       re.IGNORECASE | re.DOTALL)
TRAINING_WORDS = lazy(r"\btrain|\bpre-?train|fine-?tun|\bsft\b|训练|微调|megatron|nemo|\bmfu\b",
                      2)
PIPELINE_WORDS = lazy(r"\bpp\s*=?\s*([2-9]|\d\d)|\bpp([2-9]|\d\d)\b|pipeline", 2)
QUANT_WORDS = lazy(r"int4|int8|8\s*-?bits?|4\s*-?bits?|gptq|awq|量化|bitsandbytes|bnb|nf4", 2)
TP_PAIR = lazy(r"\btp\s*=?\s*(\d+)\b.{0,40}?\b(?:slower|faster|than|vs\.?|versus)\b.{0,20}?"
               r"\btp\s*=?\s*(\d+)\b", 2)
MEMORY_WORDS = lazy(r"memory|vram|显存|内存|\d\s*(?:gb|g|gib)\b", 2)
# Out of memory said outright: "OOM", "CUDA out of memory", "爆显存", "显存不足".
OUT_OF_MEMORY = lazy(r"\boom\b|out\s+of\s+memory|爆显存|显存不足|显存溢出", 2)
# GPU memory idle: the complaint is the opposite of a reservation.
IDLE_WORDS = lazy(r"没在用|没有用|not\s+(?:being\s+)?used|not\s+using|\b0\s*%", 2)
SLOWER = lazy(r"slower|slow|慢", 2)
RUN_STEPS = lazy(r"(?<![\w.])(\d[\d,]*)\s*(?:个\s*)?(?:steps?|iterations?|iters?|步)\b", 2)
ENGINE_WORDS = lazy(r"\bvllm|\bsglang\b", 2)
# A model to size the comparison when none is named: Llama 3 8B fits one GPU at TP=1.
DEFAULT_TP_MODEL = "llama-3-8b"
# Between two step times, the second run named as the smaller setup ("However, the training
# speed of single node with total 2 A10 GPUs: ...")
SMALLER_SETUP = lazy(r"\bsingle\s+(?:node|machine|gpu|card)\b|\bone\s+(?:node|machine|gpu)\b|"
                     r"单机|单节点|单卡", re.IGNORECASE)
NODES_SAID = lazy(r"\b\d+\s+(?:nodes|machines|servers)\b|\b(?:two|three|four)\s+(?:nodes|"
                  r"machines|servers)\b|\bmulti[\s-]*(?:node|machine)s?\b|多机|多台|两台|"
                  r"两个节点", re.IGNORECASE)
MORE_GPUS_WORDS = lazy(r"双卡|两张|多卡|\d\s*[块张台]|比一[块张个台]|\b2\s*(?:nodes|gpus)|"
                       r"\bnodes?\b.*\bslower|slower.*\bnodes?\b|比单卡|than\s+(?:a\s+)?single|"
                       r"one\s+node|单卡", 2)


class GpuOutsideCatalog(LookupError):
    """The question's GPU is not in the catalog: no rate of it can be expected."""


@dataclass
class Context:
    intent: Intent
    calls: Calls
    text: str
    found: list[Measurement]
    assumptions: list[str] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    paired: bool = False  # two GPU kinds' rates already set against each other (_gpu_pair)
    layouts: list[list[Any]] = field(default_factory=list)  # the planner's layouts consulted

    def gpu(self) -> str:
        gpu = slot(self.intent, "gpu")
        if gpu:
            return str(gpu)
        unknown = slot(self.intent, "unknown_gpu")
        if unknown:  # a GPU named outside the catalog is never checked as an H100
            raise GpuOutsideCatalog(unknown)
        note = f"GPU not named: assumed {DEFAULT_GPU}"
        if note not in self.assumptions:
            self.assumptions.append(note)
        return DEFAULT_GPU

    def gpu_row(self) -> Any:
        return catalog().gpus.rows.get(self.gpu())

    def of(self, kind: str) -> list[Measurement]:
        return [m for m in self.found if m.kind == kind]

    def has_model(self) -> bool:
        return "model" in self.intent.slots or "params_b" in self.intent.slots


def diagnose(intent: Intent, calls: Calls) -> Reply:
    """Check each measured figure in the question against what the calculators expect."""
    text = str(intent.slots.get("question", ""))
    ctx = Context(intent, calls, text, find(text))
    findings: list[Finding] = []
    rl_run = bool(RL_STEP.search(text))
    for check in (_p2p, _collective, _flops, _call_time, _gpu_pair, _decode, _first_token,
                  _response_time,
                  _reservation,
                  _memory, _kv_budget,
                  _kv_room, _kv_needed, _kv_claimed, _kv_available, _zero3_gather,
                  _zero3_network, _scaling,
                  _tp_compare, _one_step, _checkpoint_save, _lora_speedup):
        if check in (_flops, _one_step) and rl_run and not (ctx.of("mfu") or ctx.of("tflops")):
            continue  # an RL step's time is mostly generation (rl-step-time#generation-in-step)
        findings.extend(_unless_unknown_gpu(check, ctx))
    if not findings:  # an RL run's hours are not a training run's tokens (rl-step-time)
        findings = (_unless_unknown_gpu(_duration, ctx) if not rl_run else []) \
            or _network(ctx)
    if not findings:
        return _unmeasured(ctx)
    for f in findings:
        ctx.steps.append(Step(
            label=f"diagnosis: {f.what}", formula="measured / expected, then the verdict band",
            inputs={"expected": {"value": f.expected, "unit": f.unit},
                    "measured": {"value": f.measured, "unit": f.unit},
                    "ratio": {"value": f.ratio, "unit": ""}},  # None where nothing measured
            result={"value": f.verdict, "unit": ""},
            notes=list(dict.fromkeys([f.note] + [k for _, k in f.causes]))))
    rows = [[f.what, f"{num(f.expected)} {f.unit}",
             f"{num(f.measured)} {f.unit}" if f.measured is not None else "not given",
             f"{num(f.ratio)}", f.verdict] for f in findings]
    lead = " ".join(f"{f.what}: measured **{num(f.measured)} {f.unit}** against about "
                    f"**{num(f.expected)} {f.unit}** expected (ratio {num(f.ratio)}), "
                    f"**{f.verdict}**." if f.measured is not None else
                    f"{f.what}: expected about **{num(f.expected)} {f.unit}** (no measured "
                    f"figure in the question to set against it)." for f in findings)
    tables = [table(["check", "expected", "measured", "measured / expected", "verdict"], rows)]
    causes = _ranked(findings)
    if ctx.layouts:
        tables.append(table(["model", "cluster", "planner's layout", "bubble",
                             "communication share", "planner's MFU"], ctx.layouts))
    if causes:
        tables.append(table(["rank", "likely cause", "note"],
                            [[i + 1, c, k] for i, (c, k) in enumerate(causes)]))
    keys = [f.note for f in findings if f.note] + [k for _, k in causes]
    return Reply(headline=lead, tables=tables, steps=ctx.steps,
                 assumptions=ctx.assumptions + [BANDS],
                 citations=[note_ref(k) for k in dict.fromkeys(keys)])


def _unless_unknown_gpu(check: Any, ctx: Context) -> list[Finding]:
    """A check's findings; none, and the reason said once, when they need the rates of a GPU
    named outside the catalog."""
    try:
        return list(check(ctx))
    except GpuOutsideCatalog as unknown:
        said = (f"'{unknown}' is not a GPU in the catalog, so nothing that depends on its memory "
                "bandwidth or FLOP/s is checked (`clusterplan gpus list` shows the catalog's)")
        if said not in ctx.assumptions:
            ctx.assumptions.append(said)
        return []


def _ranked(findings: list[Finding]) -> list[tuple[str, str]]:
    """Each cause once, in the order the checks found them. Two checks wording the same cause
    a little differently (the same note, the same opening words) count as one."""
    seen: dict[str, str] = {}
    said: set[tuple[str, str]] = set()
    for f in findings:
        for cause, key in f.causes:
            gist = (key, " ".join(cause.split()[:6]))
            if cause not in seen and gist not in said:
                seen[cause] = key
                said.add(gist)
    return list(seen.items())


# --- collectives: nccl-tests algbw / busbw -------------------------------------------------

OUT_OF = lazy(r"\bout\s+of\s+(?:the\s+)?$", re.IGNORECASE)
BOTH_WAYS = lazy(r"\bbi-?directional|双向", re.IGNORECASE)
ONE_WAY = lazy(r"\buni-?directional|单向", re.IGNORECASE)


def _p2p(ctx: Context) -> list[Finding]:
    """A copy between two GPUs timed by cuda-samples' p2p test, against the pair's link: its
    unidirectional figure is one way, its bidirectional figure both ways added
    (nvlink-generations#p2p-test), so it is set against the line rate or twice it."""
    # ("only 380GB/s out of 450GB/s theoretical", "the spec says ... 300 GB/s": yardsticks,
    # not runs)
    stated = STATED.search(ctx.text)
    yardstick = float(stated[1] or stated[2]) if stated else None
    rates = [m for m in ctx.of("bandwidth") if not m.what and not OUT_OF.search(m.before)
             and m.value != yardstick]
    row = ctx.gpu_row() if P2P_TEST.search(ctx.text) and rates else None
    if row is None:
        return []
    link = catalog().links.rows.get((row.pair_link or row.intra_link) or "")
    if link is None:
        return []
    out = []
    for m in rates:
        at = ctx.text.find(m.text)
        before = ctx.text[max(0, at - 90):at] if at >= 0 else m.before[-80:]
        both = BOTH_WAYS.search(before) is not None and (
            ONE_WAY.search(before) is None
            or max(x.end() for x in BOTH_WAYS.finditer(before))
            > max(x.end() for x in ONE_WAY.finditer(before)))
        line = link.line_rate_per_direction_gb_s * (2 if both else 1)
        causes = [("copies reach part of the line rate: protocol headers and the copy engines' "
                   "own limits; NCCL plans about 80 % of an NVLink link's 25 GB/s (20.0 on "
                   "Ampere, 20.6 on Hopper)",
                   "nccl-link-bandwidths")]
        if int(slot(ctx.intent, "gpus") or 8) < 8 and m.value < 0.5 * line:
            # "a 4xH100 system": a board without NVSwitch joins each pair by its own links only
            causes.insert(0, ("no NVSwitch on a 4-GPU board: a pair shares only the links "
                              "joining those two GPUs, part of each GPU's NVLink",
                              "nvlink-generations#nvswitch"))
        out.append(Finding(
            f"p2p copy between two {row.name} GPUs, {'both ways added' if both else 'one way'} "
            f"({100 * m.value / line:.1f} % of {link.name}'s {num(line)} GB/s)", line, m.value,
            "GB/s", causes, "nvlink-generations#p2p-test"))
    return out + _against_stated(ctx, out[0]) if out else out


def _collective(ctx: Context) -> list[Finding]:
    """A collective's measured rate against what the links allow (and against the figure the
    question itself expected, when it states one)."""
    found = _collective_rates(ctx)
    return found + _against_stated(ctx, found[0]) if found else found


# The rate the asker expected: "theoretical busbw should be 200", "theoretical bandwidth is 400".
STATED = lazy(r"\b(?:theoretical(?:ly)?|spec(?:ification)?s?|nominal)\b[^.。;\d]{0,30}?"
              r"\b(?:should\s+be|is|of|=|:|reaches)\s*(?:about\s+|around\s+|~)?(\d+(?:\.\d+)?)"
              r"(?![\d.])|\bspec\w*\s+says?\b[^.。;]{0,60}?\bis\s+(\d+(?:\.\d+)?)\s*GB/s",
              re.IGNORECASE)


def _against_stated(ctx: Context, first: Finding) -> list[Finding]:
    """The measured rate as a share of the rate the question expected (its own yardstick); said
    on the first check when the two yardsticks agree."""
    m, rates = STATED.search(ctx.text), ctx.of("bandwidth")
    if not m or not rates or first.measured is None:
        return []
    stated, measured = float(m[1] or m[2]), float(first.measured)
    if stated <= 0:
        return []
    share = f"{100 * measured / stated:.0f} % of the {num(stated)} GB/s the question expected"
    if abs(stated - first.expected) <= 0.05 * first.expected:
        first.what += f" ({share})"
        return []
    return [Finding(f"the measured rate against the one the question expected ({share})",
                    stated, measured, "GB/s", [], "nccl-tests-performance#busbw")]


def _collective_rates(ctx: Context) -> list[Finding]:
    rates = ctx.of("bandwidth")
    op = slot(ctx.intent, "op") or "all_reduce"
    if not rates and COLLECTIVE_WORDS.search(ctx.text) and slot(ctx.intent, "gpus") \
            and int(slot(ctx.intent, "nodes") or 1) > 1:
        # a collective across nodes said to be slow, its figure not stated: what it should reach
        return [_collective_at(ctx, op, None)]
    if not rates or not (COLLECTIVE_WORDS.search(ctx.text) or any(m.what for m in rates)):
        return []
    ranks = slot(ctx.intent, "gpus")
    nodes = slot(ctx.intent, "nodes")
    if ranks and nodes and (int(nodes) > 1 or any(ACROSS_NODES.search(m.before) for m in rates)):
        # the cluster named has several nodes: each figure is checked where its words put it
        return [_collective_at(ctx, op, m) for m in rates]
    if ranks == 1:
        ctx.assumptions.append("a collective needs 2 or more GPUs; 1 was named, so its "
                               "bandwidth was not checked")
        return []
    if not ranks:
        ranks = 8
        ctx.assumptions.append("GPU count not named: assumed 8 (one HGX node)")
    payload = {"op": op, "size": "8 GB", "ranks": ranks, "gpu": ctx.gpu()}
    named = [k for k in ctx.intent.slots.get("links", []) if k.startswith("nvlink-bridge-")]
    if named:  # "NVLINK connected H100 PCIe": the bridge the question says joins them
        payload["intra_link"] = named[0]
    usable = ctx.calls.run("interconnect", payload, "bus bandwidth NCCL can reach at 8 GB")
    line = ctx.calls.run("interconnect", {**payload, "bandwidth": "line_rate"},
                         "bus bandwidth at the link's one-way line rate")
    factor = float(usable["bus_factor"])
    out = []
    for m in rates:
        busbw = m.value * factor if m.what == "algbw" else m.value
        if not m.what:
            ctx.assumptions.append(f"{m.text} read as bus bandwidth (busbw); if it is algbw, "
                                   f"multiply by {num(factor)}")
        ctx.steps.append(Step(
            label="measured bus bandwidth",
            formula="busbw = algbw x bus factor (2(n-1)/n for all-reduce)",
            inputs={"algbw": {"value": m.value, "unit": "GB/s"} if m.what == "algbw"
                    else {"value": busbw / factor, "unit": "GB/s"},
                    "bus factor": {"value": factor, "unit": ""}},
            result={"value": busbw, "unit": "GB/s busbw"},
            notes=["nccl-tests-performance#factors"]))
        causes: list[tuple[str, str]] = []
        if busbw > float(line["busbw_gbps"]) * 1.05:
            if op == "all_reduce" and _nvswitch_nvls(ctx):
                causes.append(("NVLink SHARP (NVLS): the NVSwitch reduces in the switch, so the "
                               "ring's factor overstates the bus bandwidth; NCCL_ALGO=Ring "
                               "measures the links", "collective-algorithms#nvls-offload"))
            causes.append(("busbw above the link's one-way line rate: the figure may count both "
                           "directions, or be busbw already read as algbw",
                           "nvlink-generations#headline-is-bidirectional"))
        elif busbw < NORMAL_FROM * float(usable["busbw_gbps"]):
            causes += [
                ("message sizes too small: at small sizes latency, not bandwidth, sets the time; "
                 "read the busbw of the largest sizes", "nccl-tests-performance#small-sizes"),
                ("traffic not on NVLink (PCIe path or a GPU outside the NVLink domain)",
                 "pcie-bandwidth#gen4-rate"),
            ]
        else:
            causes.append(("nothing wrong: busbw, not algbw, is the figure to set against the "
                           "link's one-way rate", "nccl-tests-performance#busbw"))
        causes += _headline_quoted(ctx, float(line["busbw_gbps"]))
        out.append(Finding(f"{op.replace('_', '-')} bus bandwidth on {ranks} x {ctx.gpu()} "
                           f"(line rate {num(line['busbw_gbps'])} GB/s one way)",
                           float(usable["busbw_gbps"]), busbw, "GB/s", causes,
                           "nccl-tests-performance#busbw"))
    return out


# NVSwitch generations that reduce in the switch (collective-algorithms#nvls-offload)
NVLS_LINKS = ("nvlink-4", "nvlink-5")


def _nvswitch_nvls(ctx: Context) -> bool:
    """GPUs on an NVSwitch board of the NVLink 4 generation or later, where NCCL can run NVLS."""
    row = ctx.gpu_row()
    return row is not None and row.intra_link in NVLS_LINKS and row.nvlink_domain_gpus >= 8


def _headline_quoted(ctx: Context, one_way: float) -> list[tuple[str, str]]:
    """A reference rate in the question that is the link's both-ways headline ("each NVLink is
    capable of 600 GB/s" on an A100): say it is per GPU, both directions added."""
    row = ctx.gpu_row()
    link = catalog().links.rows.get(row.intra_link or "") if row is not None else None
    if link is None or not link.marketed_bidirectional:
        return []
    both = 2 * link.line_rate_per_direction_gb_s
    quoted = [float(m[1].replace(",", "")) for m in RATE_QUOTED.finditer(ctx.text)]
    if not any(abs(q - both) <= 0.01 * both for q in quoted):
        return []
    return [(f"{num(both)} GB/s is {link.name}'s headline: one GPU's links together, both "
             f"directions added; one direction is {num(link.line_rate_per_direction_gb_s)} GB/s, "
             f"and a busbw near {num(one_way)} GB/s is the ceiling",
             "nvlink-generations#headline-is-bidirectional")]


RATE_QUOTED = lazy(r"(\d[\d,]*(?:\.\d+)?)\s*GB/[sS]")


# Where a figure was measured, from the words before it: "between two nodes only 86GB/s".
ACROSS_NODES = lazy(r"between\s+(?:the\s+)?(?:two|2|\d+)\s+nodes|across\s+(?:the\s+)?nodes|"
                    r"inter[\s-]*node|multi[\s-]*node|two\s+nodes|跨节点|多机|两台|双机", re.I)
ONE_NODE = lazy(r"single[\s-]*node|one\s+node|intra[\s-]*node|单机|单节点", re.I)


def _collective_at(ctx: Context, op: str, m: Measurement | None) -> Finding:
    """One rate checked on the cluster its words name: inside one node, or over all of them
    with the inter-node ports the question gives (a ring through them: note
    collective-algorithms#rings-per-port). With no rate (None), what it should reach."""
    slots = ctx.intent.slots
    per_node = int(slot(ctx.intent, "gpus_per_node") or slot(ctx.intent, "gpus"))
    nodes = 1 if m is not None and ONE_NODE.search(m.before) \
        and not ACROSS_NODES.search(m.before) else int(slot(ctx.intent, "nodes"))
    payload: dict[str, Any] = {"op": op, "size": "8 GB", "ranks": per_node * nodes,
                               "gpus_per_node": per_node, "gpu": ctx.gpu()}
    fabric = [k for k in slots.get("links", []) if k.startswith(("ib-", "roce-"))]
    if nodes > 1 and fabric:
        payload["inter_link"] = fabric[0]
    if nodes > 1 and slots.get("nics_per_node"):
        payload["nics_per_node"] = slots["nics_per_node"]
    usable = ctx.calls.run("interconnect", payload, f"bus bandwidth NCCL can reach on "
                           f"{nodes} node{'s' if nodes > 1 else ''} at 8 GB")
    busbw = None if m is None else \
        m.value * float(usable["bus_factor"]) if m.what == "algbw" else m.value
    if m is not None and not m.what:
        ctx.assumptions.append(f"{m.text} read as bus bandwidth (busbw)")
    where = f"{nodes} nodes of {per_node}" if nodes > 1 else f"one node of {per_node}"
    ports = _ports(usable) if nodes > 1 else ""
    if busbw is not None and busbw >= NORMAL_FROM * float(usable["busbw_gbps"]):
        causes = [("nothing wrong: NCCL's usable rate over these links, not their line rate, "
                   "is the ceiling", "nccl-tests-performance#busbw")]
    else:
        causes = [("message sizes too small: read the busbw of the largest sizes",
                   "nccl-tests-performance#small-sizes"),
                  ("fewer network ports in use than the node has (NCCL_IB_HCA, rails, PCIe "
                   "switch placement)", "collective-algorithms#rings-per-port")]
        if "roce" in ports.lower() or "ethernet" in ports.lower():
            causes.append(("NCCL on its socket transport (TCP through the host) instead of RDMA: "
                           "check the log for NET/IB, the GID index and GPUDirect RDMA",
                           "ethernet-roce#tcp-sockets"))
    return Finding(f"{op.replace('_', '-')} bus bandwidth on {where} x {ctx.gpu()}{ports}",
                   float(usable["busbw_gbps"]), busbw, "GB/s", causes,
                   "nccl-tests-performance#busbw")


def _ports(result: dict[str, Any]) -> str:
    """' (4 × roce-200 a node, 100 GB/s one way)': the network the check assumed."""
    nics = result.get("nics_per_node")
    net = next((p for p in result.get("phases", []) if str(p["link"]).startswith(("ib-", "roce-",
                                                                                   "eth-"))),
               None)
    link = catalog().links.rows.get(net["link"]) if net else None
    if not nics or link is None:
        return ""
    each = link.line_rate_per_direction_gb_s
    return f" ({nics} × {link.id} a node, {num(each)} GB/s each, {num(nics * each)} GB/s one way)"


# --- TFLOP/s per GPU and MFU ----------------------------------------------------------------

def _near(value: float, target: float) -> bool:
    """Within 5% of a datasheet figure: no measured rate comes that close to a peak."""
    return abs(value - target) <= 0.05 * target


def _peak_quoted(m: Measurement, peak: float, gpu: str, note: str) -> tuple[str, str]:
    """A datasheet peak quoted in the question is the divisor of MFU, not a rate measured; the
    headline figure is the 2:4-sparsity one, twice the dense peak MFU divides by."""
    if _near(m.value, 2 * peak):
        return (f"{num(m.value)} TFLOP/s quoted is the {gpu}'s peak with 2:4 sparsity; MFU "
                f"divides by the dense peak, {num(peak)} TFLOP/s", note)
    return (f"{num(m.value)} TFLOP/s quoted is the {gpu}'s dense peak, the one MFU divides by",
            note)


def _flops(ctx: Context) -> list[Finding]:
    tflops = ctx.of("tflops")
    mfus = ctx.of("mfu")
    per_gpu_tokens = [m for m in ctx.of("tokens_per_s")
                      if m.what == "per_gpu" or (TRAINING_WORDS.search(ctx.text)
                                                 and slot(ctx.intent, "workload") != "inference"
                                                 and not ctx.of("call_time"))]
    if not (tflops or mfus or (per_gpu_tokens and ctx.has_model())):
        return []
    row = ctx.gpu_row()
    if row is None:
        return []
    precision = slot(ctx.intent, "precision") or "bf16"
    peak = float(row.fp8_tflops if precision == "fp8" and row.fp8_tflops else row.bf16_tflops
                 or row.fp16_tflops)
    note = row.source_note
    ctx.steps.append(Step(label="dense peak per GPU", formula=f"{row.name}, {precision}, "
                          "without 2:4 sparsity", result={"value": peak, "unit": "TFLOP/s"},
                          notes=[note]))
    expected, source = _expected_mfu(ctx)
    by_size: dict[str, tuple[float, str]] = {}
    for m in mfus:
        if m.what and m.what not in by_size:
            by_size[m.what] = _expected_mfu(ctx, float(m.what[:-1]))
    out = []
    measured: list[tuple[float, Measurement]] = []
    quoted: list[tuple[str, str]] = []  # peaks the question cites, explained beside each figure
    for m in tflops:
        if _near(m.value, 2 * peak) or _near(m.value, peak):
            quoted.append(_peak_quoted(m, peak, row.name, note))
            continue
        measured.append((m.value / peak, m))
    for m in mfus:
        measured.append((m.value, m))
    if per_gpu_tokens and ctx.has_model():
        params = _params(ctx)
        for m in per_gpu_tokens:
            if not params:
                break
            if m.what != "per_gpu":
                gpus = slot(ctx.intent, "gpus") or 1
                rate = m.value / gpus
            else:
                rate = m.value
            achieved = 6 * params * 1e9 * rate / 1e12
            ctx.steps.append(Step(label="achieved model TFLOP/s per GPU",
                                  formula="6 x parameters x tokens/s per GPU",
                                  inputs={"parameters": {"value": params * 1e9, "unit": ""},
                                          "tokens/s per GPU": {"value": rate, "unit": "tokens/s"}},
                                  result={"value": achieved, "unit": "TFLOP/s"},
                                  notes=["mfu-calibration#model-flops-per-token"]
                                  + (["training-throughput-units#torchtitan-wps"]
                                     if "wps" in m.text else [])))
            measured.append((achieved / peak, m))
            other = _on_other_gpu(ctx, achieved, row)
            if other:
                quoted.append(other)
    for value, m in measured:
        ctx.steps.append(Step(label="MFU", formula="achieved TFLOP/s / dense peak TFLOP/s",
                              inputs={"measured": {"value": m.value, "unit": m.unit or "fraction"}},
                              result={"value": value * 100, "unit": "%"},
                              notes=["mfu-calibration#mfu-definition"]))
        causes: list[tuple[str, str]] = list(quoted)
        if m.divisor and _near(m.divisor, 2 * peak):
            causes.append((f"divided by {num(m.divisor)} TFLOP/s, the 2:4-sparsity peak; the "
                           f"dense peak is {num(peak)}, so the MFU is {pct(m.value / peak)}",
                           note))
        if value < NORMAL_FROM * expected:
            if PIPELINE_WORDS.search(ctx.text):
                causes.append(("pipeline bubble: (p-1)/m of the compute idles; more "
                               "micro-batches per batch shrink it", "megatron-lm-2021#bubble-1f1b"))
            causes += [
                ("tensor-parallel all-reduces every layer: keep TP inside one NVLink node",
                 "megatron-lm-2021#tp-within-node"),
                ("pipeline bubble: (p-1)/m of the compute idles when the model is split into "
                 "stages", "megatron-lm-2021#bubble-1f1b"),
                ("small micro-batch: low arithmetic intensity per matmul",
                 "megatron-lm-2021#microbatch-tradeoff"),
                ("recomputed FLOPs are not counted in MFU (they are in HFU)",
                 "mfu-calibration#hfu-definition"),
            ]
        what = (f"MFU from {m.text.strip()} on {row.name}" if m.kind != "mfu"
                else f"MFU as stated ({m.text.strip()})")
        mine, my_source = expected, source
        if m.kind == "mfu" and m.what in by_size:
            mine, my_source = by_size[m.what]
            what = f"MFU of the {m.what} model as stated ({m.text.strip()})"
        out.append(Finding(what, mine * 100, value * 100, "%", causes, my_source))
    return out


# The GPU a rate is set against when the question names none and the default (H100) is
# assumed: the A100, on which most published training rates of 2021-2023 were measured
OTHER_GPU = "a100-sxm-80gb"


def _on_other_gpu(ctx: Context, achieved_tflops: float, row: Any) -> tuple[str, str] | None:
    """The same per-GPU rate as MFU on an A100, when no GPU was named: a figure quoted from a
    paper is as likely an A100's as the assumed H100's (a comparison, not a second guess)."""
    other = catalog().gpus.rows.get(OTHER_GPU)
    if "gpu" in ctx.intent.slots or other is None or row.id == OTHER_GPU \
            or not other.bf16_tflops:
        return None
    return (f"no GPU named, so an {row.name} was assumed; on an {other.name} "
            f"({num(other.bf16_tflops)} dense BF16 TFLOP/s) the same rate is "
            f"{pct(achieved_tflops / float(other.bf16_tflops))} MFU", other.source_note)


def _expected_mfu(ctx: Context, size_b: float | None = None) -> tuple[float, str]:
    """The planner's MFU for this model (or a model of `size_b` billion parameters) and cluster
    when it can place it, else the published 38% (Llama 3 405B on H100)."""
    gpus = slot(ctx.intent, "gpus")
    if size_b and not gpus:
        gpus = DEFAULT_TRAINING_GPUS
        note = (f"cluster not named: the planner's MFU is for {DEFAULT_TRAINING_GPUS} GPUs "
                f"(8 nodes of 8)")
        if note not in ctx.assumptions:
            ctx.assumptions.append(note)
    model = {"params_b": size_b} if size_b else model_fields(ctx.intent)
    training = TRAINING_WORDS.search(ctx.text) or ctx.intent.slots.get("workload") in (
        "pretrain", "full_finetune")  # "multinode_trainer.slurm": the run read as training
    if (size_b or ctx.has_model()) and gpus and gpus >= 1 and training:
        stated = _stated_layout(ctx, size_b)
        try:
            plan = ctx.calls.run("parallelism", {**model, "gpu": ctx.gpu(), "gpus": gpus,
                                                 "workload": "pretrain",
                                                 "top_k": 1000 if stated else 5},
                                 "the planner's MFU for this model and cluster")
        except Exception:  # the planner refusing the input leaves the published figure
            plan = {}
        plans = plan.get("plans") or []
        if stated:  # the run's own layout, when the question gives it and the planner has it
            plans = [p for p in plans if (p["tp"], p["pp"]) == stated] or plans
        if plans and plans[0].get("mfu"):
            best = plans[0]
            name = model.get("model") or f"{num(model.get('params_b'))}B"
            row = [name, f"{gpus} x {ctx.gpu()}",
                   f"tp {best['tp']} x pp {best['pp']} x dp {best['dp']}",
                   pct(best["bubble_fraction"]), pct(best["comm_s"] / best["step_time_s"]),
                   pct(best["mfu"])]
            if row not in ctx.layouts:  # two figures of one run consult the same layout
                ctx.layouts.append(row)
            as_stated = stated is not None and (best["tp"], best["pp"]) == stated
            which = "layout as stated" if as_stated else "best layout"
            ctx.steps.append(Step(label=f"planner's {which} for {name}",
                                  formula=f"tp {best['tp']} x pp {best['pp']} x dp {best['dp']}; "
                                          f"bubble {pct(best['bubble_fraction'])}, communication "
                                          f"{pct(best['comm_s'] / best['step_time_s'])} of the "
                                          "step",
                                  result={"value": best["mfu"] * 100, "unit": "% MFU"},
                                  notes=["mfu-calibration#efficiency-assumption"]))
            return float(best["mfu"]), "mfu-calibration#efficiency-assumption"
    ctx.assumptions.append(f"expected MFU: {pct(PUBLISHED_MFU)}, the low end of Llama 3 405B's "
                           "published 38-43% on H100")
    return PUBLISHED_MFU, "mfu-calibration#llama3-mfu"


def _stated_layout(ctx: Context, size_b: float | None) -> tuple[int, int] | None:
    """The (tp, pp) the question says its run used, for the model it names first (a second
    model's MFU, set beside it, keeps the planner's best layout)."""
    slots = ctx.intent.slots
    if "tp" not in slots and "pp" not in slots:
        return None
    primary = slots.get("params_b")
    if size_b is not None and primary is not None and abs(float(size_b) - float(primary)) > 0.5:
        return None
    return int(slots.get("tp") or 1), int(slots.get("pp") or 1)


def _moe_across_nodes(ctx: Context, gpus: int, row: Any) -> bool:
    """A catalog mixture of experts served on more GPUs than one node holds."""
    model = catalog().models.rows.get(str(slot(ctx.intent, "model") or ""))
    return bool(model is not None and model.experts > 1 and row is not None
                and gpus > row.gpus_per_node)


def _bandwidth_cap(ctx: Context, row: Any, gpus: int, together: int) -> tuple[str, str]:
    """Every token of one sequence reads the weights it passes through once: the memory
    bandwidth of the GPUs holding a replica over those bytes is a speed no engine passes; a
    batch shares each read, so together they reach at most that many times it."""
    held = _weights_held(ctx) if row is not None and row.memory_bandwidth_tb_s else None
    if held is None:
        return ("one request's decode streams every weight per token: memory bandwidth, not "
                "FLOPs, sets the speed", "inference-roofline#decode-memory-bound")
    bandwidth = float(row.memory_bandwidth_tb_s) * gpus
    ceiling = bandwidth * 1000 / held[1]
    ctx.steps.append(Step(label="decode ceiling: all weights read once per token",
                          formula="memory bandwidth of the replica's GPUs ÷ weight bytes read",
                          inputs={"bandwidth": q(bandwidth, "TB/s"), "weights": q(held[1], "GB")},
                          result=q(round(ceiling, 1), "tokens/s"),
                          notes=["inference-roofline#decode-memory-bound", row.source_note]))
    said = (f"memory bandwidth caps one sequence at {num(ceiling)} tokens/s: every token reads "
            f"{num(held[1])} GB of weights at {num(bandwidth)} TB/s")
    if together > 1:
        said += (f"; {together} at once share each read, at most {num(together * ceiling)} "
                 "tokens/s together before the KV cache reads and the fixed cost a step")
    return said, "inference-roofline#decode-memory-bound"


def _weights_held(ctx: Context) -> tuple[float, float] | None:
    """(all the weights, the weights one sequence reads a token) in GB: the routed experts'
    share for a mixture of experts (active over total parameters), every weight otherwise."""
    payload = {**model_fields(ctx.intent), "workload": "inference"}
    precision = slot(ctx.intent, "precision")
    if precision:
        payload["precision"] = precision
    result = ctx.calls.run("memory", payload, "the weights read for every token")
    whole = float(result["whole_model_gb"]["weights"])
    if not whole:
        return None
    return whole, whole * float(result["active_params_b"]) / float(result["params_b"])


def _params(ctx: Context) -> float | None:
    result = ctx.calls.run("memory", {**model_fields(ctx.intent), "workload": "inference"},
                           "the model's parameter count")
    return float(result["params_b"]) if result.get("params_b") else None


# --- time per collective call -----------------------------------------------------------------

TP_WORDS = lazy(r"\btensor[\s-]*parallel\w*|\btp\s*=?\s*[2-9]|\bboth\s+gpus\b|\btwo\s+gpus\b|"
                r"张量并行", re.IGNORECASE)


def _gpu_pair(ctx: Context) -> list[Finding]:
    """The same run measured on two GPU kinds ("3,396 tokens/s on B200 ... 6,051 on H200"):
    their ratio against the datasheets' (gpu_pair)."""
    rows = [catalog().gpus.rows[g] for g in ctx.intent.slots.get("gpu_list") or []
            if g in catalog().gpus.rows]
    found = gpu_pair(ctx.text, ctx.of("tokens_per_s"), rows, slot(ctx.intent, "precision"))
    if found is None:
        return []
    ctx.steps.append(found[1])
    ctx.paired = True
    return [found[0]]


def _lora_speedup(ctx: Context) -> list[Finding]:
    """"30.5 hours full, 25 hours with LoRA": the LoRA run against 4/6 of the full run's time
    (lora_speedup)."""
    found = lora_against_full(ctx.text)
    if found is None:
        return []
    ctx.steps.append(found[1])
    return [found[0]]


def _tp_run_first(ctx: Context, tokens: list[Measurement]) -> list[Measurement]:
    """The rates quoted, the tensor-parallel run's first: "29 tokens/s on a single GPU, but
    this drops to only 17 tokens/s when employing tensor parallelism" (the all-reduces are
    that run's)."""
    def near_tp(m: Measurement) -> bool:
        return bool(TP_WORDS.search(_around(ctx, m, 0, 50)))
    return sorted(tokens, key=lambda m: not near_tp(m)) if len(tokens) > 1 else tokens


def _call_time(ctx: Context) -> list[Finding]:
    times = ctx.of("call_time")
    if not times:
        return []
    t = times[0].value
    tokens = _tp_run_first(ctx, ctx.of("tokens_per_s"))
    out = []
    layers = _layers(ctx)
    hidden = _hidden(ctx)
    gpus = max(2, slot(ctx.intent, "gpus") or 2)
    if not hidden:
        hidden = ASSUMED_HIDDEN
        ctx.assumptions.append(f"model not named: one token's activations assumed "
                               f"{ASSUMED_HIDDEN} x 2 B (hidden size of a 70B-class model)")
    if not slot(ctx.intent, "gpus"):
        ctx.assumptions.append("GPU count not named: assumed 2 (tensor parallel 2)")
    one = ctx.calls.run("interconnect", {"op": "all_reduce", "size": f"{hidden * 2} B",
                                         "ranks": gpus, "gpu": ctx.gpu()},
                        "one token's activations all-reduced (hidden x 2 B)")
    causes = [("per-call overhead dominates small messages: latency, not bandwidth, sets the "
               "time", "nccl-tests-performance#small-sizes"),
              ("all-reduce latency per call caps decode speed: each token waits for 2 "
               "all-reduces per layer", "megatron-lm-2021#tp-allreduces")]
    out.append(Finding(f"time per all-reduce of one token's activations ({hidden} x 2 B on "
                       f"{gpus} x {ctx.gpu()})", float(one["time_s"]) * 1e6, t * 1e6, "us",
                       causes, "nccl-tests-performance#small-sizes", lower_is_better=True))
    if layers:
        calls_per_token = 2 * layers
        ctx.steps.append(Step(label="all-reduces per generated token",
                              formula="2 per transformer layer (attention and MLP) x layers",
                              inputs={"layers": {"value": layers, "unit": ""}},
                              result={"value": calls_per_token, "unit": "calls"},
                              notes=["megatron-lm-2021#tp-allreduces"]))
        ceiling = 1 / (calls_per_token * t)
        ctx.steps.append(Step(label="tokens/s ceiling from all-reduce time alone",
                              formula="1 / (calls per token x time per call)",
                              inputs={"calls per token": {"value": calls_per_token, "unit": ""},
                                      "time per call": {"value": t, "unit": "s"}},
                              result={"value": ceiling, "unit": "tokens/s"},
                              notes=["megatron-lm-2021#tp-allreduces"]))
        if tokens:
            out.append(Finding(f"tokens/s against the ceiling that {calls_per_token} all-reduces "
                               f"of {num(t * 1e6)} us ({num(calls_per_token * t * 1e3)} ms a "
                               "token) allow", ceiling, tokens[0].value,
                               "tokens/s", causes[1:], "megatron-lm-2021#tp-allreduces"))
    elif tokens:
        per_token = 1 / tokens[0].value
        room = per_token / t
        ctx.steps.append(Step(label="all-reduce calls that fit in one token's time",
                              formula="(1 / tokens/s) / time per call",
                              inputs={"time per token": {"value": per_token, "unit": "s"},
                                      "time per call": {"value": t, "unit": "s"}},
                              result={"value": room, "unit": "calls"},
                              notes=["megatron-lm-2021#tp-allreduces"]))
        ctx.assumptions.append(f"at {num(t * 1e6)} us per call, {num(tokens[0].value)} "
                               f"tokens/s leaves room for {num(room)} calls per token; tensor "
                               f"parallelism makes 2 per layer, so a {num(room / 2)}-layer model "
                               f"would spend all its time in all-reduce")
    return out


def _model_row(ctx: Context) -> Any:
    model = ctx.intent.slots.get("model")
    return catalog().models.rows.get(model) if model else None


def _layers(ctx: Context) -> int | None:
    row = _model_row(ctx)
    return int(row.layers) if row is not None and row.layers else None


def _hidden(ctx: Context) -> int | None:
    row = _model_row(ctx)
    return int(row.hidden) if row is not None and row.hidden else None


# --- decode tokens/s --------------------------------------------------------------------------

def _decode(ctx: Context) -> list[Finding]:
    tokens = [m for m in ctx.of("tokens_per_s") if m.what != "per_gpu"]
    if not tokens or not ctx.has_model() or ctx.of("call_time") or ctx.paired or (
            TRAINING_WORDS.search(ctx.text) and slot(ctx.intent, "workload") != "inference"):
        return []
    gpus = slot(ctx.intent, "gpus") or 1
    # the requests decoded together, when the question gives them ("batch size 4",
    # "GLOBAL_BATCH_SIZE=4"): they share each pass over the weights
    together = int(ctx.intent.slots.get("batch") or ctx.intent.slots.get("global_batch") or 1)
    # a benchmark's "total tokens/s" counts prompts too (serving-latency#benchmark-counts-
    # prompts): its output figure, when given beside it, is the decode rate
    tokens = _own_rate_first(sorted(tokens, key=lambda m: "total" in m.text.lower()))
    bench = _benchmark_batch(ctx) if together == 1 else None
    plans: list[dict[str, Any]] | None
    if bench is not None:
        together, plans = bench
    else:
        plans = _serving_plans(ctx, "decode speed bound for " + (
            "one request" if together == 1 else f"{together} requests"), together)
    if plans is None:
        return []
    row = ctx.gpu_row()
    link = getattr(row, "intra_link", "") or ""
    if plans:
        best = plans[0]
        expected = float(best["decode_tokens_per_s_per_replica"])
    elif row is not None and row.memory_bandwidth_tb_s and slot(ctx.intent, "gpus"):
        # Not enough memory for the weights: the bandwidth bound as if they fitted, said so.
        # One sequence of a mixture of experts reads only its routed experts' weights.
        held = _weights_held(ctx)
        if held is None:
            return []
        whole, weights = held
        expected = gpus * float(row.memory_bandwidth_tb_s) * 1000 * WEIGHTS_READ_EFFICIENCY \
            / weights
        ctx.steps.append(Step(label="decode bound from memory bandwidth",
                              formula="GPUs x memory bandwidth x 0.8 / weight bytes per token",
                              inputs={"GPUs": {"value": gpus, "unit": ""},
                                      "bandwidth": {"value": float(row.memory_bandwidth_tb_s),
                                                    "unit": "TB/s"},
                                      "weights": {"value": weights, "unit": "GB"}},
                              result={"value": expected, "unit": "tokens/s"},
                              notes=["inference-roofline#decode-memory-bound",
                                     "serving-latency#weights-read-efficiency",
                                     row.source_note]))
        ctx.assumptions.append(f"the weights do not fit {gpus} x {row.name} by the memory "
                               f"calculator; the bound is computed as if they did (check which "
                               f"GPU variant you have)")
        best = {"tp": gpus, "decode_bound": "memory bandwidth"}
    else:
        return []
    causes: list[tuple[str, str]] = [
        _bandwidth_cap(ctx, row, int(best.get("tp", 1)) * int(best.get("pp", 1)), together)]
    if best.get("tp", 1) > 1 and link.startswith("pcie"):
        causes.insert(0, ("tensor parallel over PCIe: 2 all-reduces per layer per token cross "
                          "PCIe", "megatron-lm-2021#tp-allreduces"))
    causes.append(("long prompts: the KV cache read grows with the context",
                   "inference-roofline#kv-cache-grows"))
    if _moe_across_nodes(ctx, gpus, row):
        causes.insert(0, ("a large mixture of experts across nodes: every layer runs many small "
                          "kernels (attention, routing, the experts) and all-reduces over the "
                          "network, which the bandwidth bound leaves out; DeepSeek-R1 on two "
                          "nodes of 8 H100 was measured at 19-30 tokens/s for one request",
                          "serving-latency#moe-across-nodes"))
    measured = tokens[0].value
    if together == 1 and measured > 1.5 * expected:
        # one request cannot pass its memory-bound rate: a figure above it was many requests
        # decoded together, at least this many (each slows a little as the batch grows)
        causes.insert(0, (f"more than one request's rate: only requests decoded together, at "
                          f"least {math.ceil(measured / expected)} sharing each read of the "
                          "weights, reach it; compare at the same batch",
                          "serving-latency#requests-per-second"))
    if not plans and row is not None:
        # Weights far beyond the GPUs named: the rate cannot be theirs alone (ranked first);
        # a little beyond, the GPUs may be a bigger variant than the catalog read (ranked last)
        capacity = float(row.memory_gb) * gpus
        short = (f"the weights, {num(whole)} GB, do not fit {gpus} x {row.name} ({num(capacity)} "
                 "GB): the GPUs are a variant with more memory, or the rate quoted on "
                 f"{'one GPU' if gpus == 1 else 'them'} is a per-GPU share of a larger "
                 "deployment (its total divided by its GPUs)", "memory-sizing")
        causes.insert(0 if whole > 2 * capacity else len(causes), short)
    if bench is not None:  # many requests share each read: one request's bound is not it
        causes = [_benchmark_cause(ctx, together)] + causes[1:]
    if len(tokens) > 1 and OWN_FIGURE.search(tokens[0].before) and _quoted(ctx, tokens[1]):
        causes.insert(1 if bench is not None else len(causes),
                      _other_figure(ctx, tokens[1].value, expected, bench is not None))
    split = f"TP {best['tp']} × PP {best['pp']}" if best.get("pp", 1) > 1 else f"TP {best['tp']}"
    requests = "one request" if together == 1 else f"{together} requests at once"
    return [Finding(f"decode tokens/s, {requests}, {gpus} x {ctx.gpu()} ({split}; bound: "
                    f"{best.get('decode_bound', 'memory bandwidth')})", expected, m.value,
                    "tokens/s", causes, "inference-roofline#decode-memory-bound")
            for m in tokens[:1]]


# The asker's own figure among several: "I get a throughput about 1000 tokens/s" (the others
# are a blog's or another run's, quoted to compare)
OWN_FIGURE = lazy(r"\b(?:i|we)\s+(?:only\s+|just\s+)?(?:get|got|see|saw|measured?|achieved?|"
                  r"reach(?:ed)?|observed?)\b[^.!?]*$|\b(?:i'm|i\s+am|we're|only)\s+getting\b"
                  r"[^.!?]*$|\bmy\s+(?:throughput|speed|result)\b[^.!?]*$|我(?:测|跑|得到)[^。]*$|"
                  r"实测[^。]*$", re.IGNORECASE)
# An offline throughput benchmark: many requests of a set prompt and output length at once
THROUGHPUT_RUN = lazy(r"\bthroughput\b|benchmark_throughput|\bbench\s+throughput\b|吞吐",
                      re.IGNORECASE)


# A figure quoted from elsewhere: "2298.89 tokens/s reported in your blog"
QUOTED_FIGURE = lazy(r"\b(?:reported|blog|paper|readme|official|claimed|advertised|published|"
                     r"documented|benchmark\s+page)\b|官方|博客|论文", re.IGNORECASE)


def _around(ctx: Context, m: Measurement, before: int, after: int) -> str:
    """The question's words around a measurement's own text (empty when it is not found)."""
    at = ctx.text.find(m.text)
    return ctx.text[max(0, at - before):at + len(m.text) + after] if at >= 0 else ""


def _quoted(ctx: Context, m: Measurement) -> bool:
    return bool(QUOTED_FIGURE.search(_around(ctx, m, 40, 40)))


def _own_rate_first(tokens: list[Measurement]) -> list[Measurement]:
    """The rates quoted, the asker's own first ("reported in your blog ... I get about 1000")."""
    own = [m for m in tokens if OWN_FIGURE.search(m.before)]
    return own[:1] + [m for m in tokens if m is not (own[0] if own else None)]


def _benchmark_batch(ctx: Context) -> tuple[int, list[dict[str, Any]]] | None:
    """A throughput benchmark of requests of a set size ("input tokens to 1000, min_tokens
    1000"): the engine decodes as many at once as the KV cache holds at that length
    (kv-cache#per-token), so the rate to expect is that batch's, not one request's."""
    sizes = request_tokens(ctx.text)
    if sizes is None or not THROUGHPUT_RUN.search(ctx.text):
        return None
    length = sum(sizes)
    one = _serving_plans(ctx, "the KV room at the benchmark's request length", 1, length)
    if not one:
        return None
    held = int(one[0]["kv_capacity_tokens"] // length) * int(one[0].get("replicas") or 1)
    while held >= 2:
        plans = _serving_plans(ctx, f"decode rate of {held} requests at once", held, length)
        if plans:
            ctx.steps.append(Step(label="requests the KV cache holds at the benchmark's length",
                                  formula="KV tokens ÷ (input + output tokens)",
                                  inputs={"KV tokens": q(one[0]["kv_capacity_tokens"], "tokens"),
                                          "request": q(length, "tokens")},
                                  result=q(held, "requests"), notes=["kv-cache#per-token"]))
            return held, plans
        held -= max(1, held // 20)
    return None


def _other_figure(ctx: Context, other: float, expected: float, bench: bool
                  ) -> tuple[str, str]:
    """The figure quoted beside the asker's (a blog's, a README's): how far it is from the
    estimate, and, from a throughput benchmark that counts prompts, its output share."""
    if bench and (sizes := request_tokens(ctx.text)):
        prompt, out = sizes
        generated = other * out / (prompt + out)
        return (f"the {num(other)} tokens/s quoted beside it may be a throughput benchmark's "
                f"count, which adds the prompt tokens to the output: at {num(prompt)} + "
                f"{num(out)} tokens a request that is {num(generated)} output tokens/s, "
                f"{num(generated / expected)}× this estimate; compare like with like",
                "serving-latency#benchmark-counts-prompts")
    return (f"the {num(other)} tokens/s quoted beside it is another run's figure, "
            f"{num(other / expected)}× this estimate: its batch, prompt and output lengths "
            "decide it as much as the GPU does", "serving-latency#requests-per-second")


def _benchmark_cause(ctx: Context, held: int) -> tuple[str, str]:
    prompt, out = request_tokens(ctx.text) or (0.0, 0.0)
    return (f"a throughput run decodes many requests together: at {num(prompt)} input + "
            f"{num(out)} output tokens the KV cache holds about {held} at once, and the rate "
            "above is theirs together; fewer requests in flight (a low max_num_seqs, too few "
            "prompts, or a smaller gpu_memory_utilization) lower it, and prefill of the prompts "
            "takes its share of the time", "serving-latency#requests-per-second")


# A named weight format as the serving model reads it: its width, or none (the checkpoint's)
SERVED_BITS = {"gptq": "int4", "awq": "int4", "nf4": "int4", "gptq-8bit": "int8",
               "bnb-int8": "int8"}


def _served_bits(precision: Any) -> str | None:
    if precision in (None, "bf16", "fp16", "fp8", "int8", "int4"):
        return precision
    return SERVED_BITS.get(str(precision))


# --- the time to a request's first token ------------------------------------------------------

def _first_token(ctx: Context) -> list[Finding]:
    """"TTFT 2 s for a 3,000-token prompt": the prompt's prefill, never faster than one read
    of the weights (serving-latency#prefill)."""
    times, prompt = ctx.of("first_token"), prompt_tokens(ctx.text)
    if not times or prompt is None or not ctx.has_model():
        return []
    best = _one_request_plan(ctx, prompt + 1, "one request's prefill")
    if best is None:
        return []
    prefill_s = max(prompt / float(best["prefill_tokens_per_s_per_replica"]),
                    float(best["time_per_output_token_ms"]) / 1000)
    gpus = slot(ctx.intent, "gpus") or 1
    ctx.steps.append(Step(label="time to first token", formula="max(prompt tokens / prefill "
                          "rate, one decode step's read)",
                          inputs={"prompt": q(prompt, "tokens"),
                                  "prefill rate": q(best["prefill_tokens_per_s_per_replica"],
                                                    "tokens/s")},
                          result=q(prefill_s, "s"), notes=["serving-latency#prefill"]))
    causes = [("requests queued behind others: the first token waits for a batch slot and "
               "for other prompts' prefill", "serving-latency#requests-per-second")]
    return [Finding(f"time to first token ({num(prompt)}-token prompt, {gpus} x {ctx.gpu()}, "
                    f"TP {best['tp']})", prefill_s, times[0].value, "s", causes,
                    "serving-latency#prefill", lower_is_better=True)]


def _one_request_plan(ctx: Context, context: float, why: str) -> dict[str, Any] | None:
    """The best serving plan of one request of `context` tokens on the question's GPUs."""
    plans = _serving_plans(ctx, why, 1, context)
    return plans[0] if plans else None


def _serving_plans(ctx: Context, why: str, concurrency: int,
                   context: float | None = None) -> list[dict[str, Any]] | None:
    """The question's model served on its GPUs, `concurrency` requests at once: the ranked
    plans (none when it does not fit), or None when the tool refuses the input."""
    payload = {**model_fields(ctx.intent), "workload": "inference", "gpu": ctx.gpu(),
               "gpus": slot(ctx.intent, "gpus") or 1, "concurrency": concurrency,
               "precision": _served_bits(slot(ctx.intent, "precision"))}
    if context:
        payload["context_len"] = int(context)
    tp = slot(ctx.intent, "tp")
    if tp:
        payload["top_k"] = 64  # every split, to find the one the run used
    try:
        plans = list(ctx.calls.run("parallelism", payload, why).get("plans") or [])
    except (ToolError, ValueError, LookupError):
        return None
    used = [p for p in plans if p.get("tp") == tp]
    return used or plans  # "tp 8": that split, not the best one, is what was measured


# --- a request's response time -----------------------------------------------------------------

def _response_time(ctx: Context) -> list[Finding]:
    """"1500 input tokens, 50-100 output tokens, response time about 7s": one request's prefill
    of its prompt plus its output tokens at the time per output token (serving-latency)."""
    times, sizes = ctx.of("response_time"), request_tokens(ctx.text)
    if not times or sizes is None or not ctx.has_model():
        return []
    prompt, answer = sizes
    gpus = slot(ctx.intent, "gpus") or 1
    best = _one_request_plan(ctx, prompt + answer, "one request's prefill and decode")
    if best is None:
        return []
    tpot_s = float(best["time_per_output_token_ms"]) / 1000
    # a prompt is computed at the prefill rate, but never faster than one read of the weights,
    # which a decode step also makes (serving-latency#prefill)
    prefill_s = max(prompt / float(best["prefill_tokens_per_s_per_replica"]), tpot_s)
    decode_s = answer * tpot_s
    ctx.steps.append(Step(label="one request's time", formula="max(prompt tokens / prefill "
                          "rate, one decode step's read) + output tokens x time per output "
                          "token",
                          inputs={"prompt": q(prompt, "tokens"), "output": q(answer, "tokens"),
                                  "prefill rate": q(best["prefill_tokens_per_s_per_replica"],
                                                    "tokens/s"),
                                  "time per output token": q(best["time_per_output_token_ms"],
                                                             "ms")},
                          result=q(prefill_s + decode_s, "s"),
                          notes=["serving-latency#prefill", "serving-latency#decode-step"]))
    causes = [("requests queued behind others: the time includes waiting for a batch slot",
               "serving-latency#requests-per-second"),
              ("the output tokens dominate: each waits for a whole decode step, bound by memory "
               "bandwidth", "inference-roofline#decode-memory-bound")]
    return [Finding(f"one request's time ({num(prompt)} prompt + {answer:g} output tokens, "
                    f"{gpus} x {ctx.gpu()}, TP {best['tp']}): prefill {num(prefill_s)} s + "
                    f"decode {num(decode_s)} s", prefill_s + decode_s, times[0].value, "s",
                    causes, "serving-latency#decode-step", lower_is_better=True)]


# --- GPU memory in use --------------------------------------------------------------------------

def _memory(ctx: Context) -> list[Finding]:
    used = ctx.of("memory")
    if not used or not ctx.has_model():
        return []
    workload = slot(ctx.intent, "workload") or "inference"
    # per GPU of the cluster named, as it is split there (a per-GPU reading is compared with a
    # per-GPU figure, never with the whole model's)
    payload = memory_payload(ctx.intent) | {"workload": workload}
    try:
        result = ctx.calls.run("memory", payload, "memory the model needs per GPU")
    except Exception:
        return []
    expected = float(result["per_gpu_gb"])
    weights = float(result["breakdown_gb"]["weights"])
    m = used[0]
    causes: list[tuple[str, str]] = []
    if m.value > expected / NORMAL_FROM and workload == "inference":
        causes += [
            ("the serving engine reserves most of the free memory for its KV cache at start "
             "(vLLM 90% of the GPU, TensorRT-LLM 90% of what is free): memory in use is a "
             "reservation, not a need", "serving-memory-preallocation#vllm-default"),
            ("a long maximum context sizes the KV cache", "kv-cache"),
        ]
    elif m.value > expected / NORMAL_FROM:
        causes.append(("activations grow with micro-batch and sequence length",
                       "activation-memory"))
    if workload != "inference":
        causes += _logits(ctx)
    if m.value < NORMAL_FROM * weights:
        causes.append(("weights quantized or offloaded to CPU: less than the 16-bit weights "
                       "is on the GPU", "memory-sizing"))
    causes.append(("CUDA context and allocator cache sit outside the tensors",
                   "gpu-memory-overhead#cuda-context"))
    return [Finding(f"GPU memory for {model_name(result)} ({workload}; weights "
                    f"{num(weights)} GB)", expected, m.value, "GB", causes, "memory-sizing",
                    lower_is_better=True)]


# Logits under this many GB are left out of the causes (this tool's display threshold: at a
# few thousand tokens they are a rounding error beside the states, logits-memory).
LOGITS_WORTH_GB = 1.0


def _logits(ctx: Context) -> list[tuple[str, str]]:
    """A training step's FP32 logits, tokens x vocabulary x 4 bytes, set beside those of the
    other models the question names when their vocabularies differ."""
    tokens = int(slot(ctx.intent, "seq_len") or 0) * int(slot(ctx.intent, "micro_batch") or 1)
    rows = catalog().models.rows
    named = [rows[m["model"]] for m in ctx.intent.slots.get("model_list", [])
             if m.get("model") in rows] or \
        [rows[x] for x in [slot(ctx.intent, "model")] if x in rows]
    if not named or not tokens:
        return []
    gb = {row.name: tokens * row.vocab * 4 / 1e9 for row in named}
    first = named[0]
    if gb[first.name] < LOGITS_WORTH_GB:
        return []
    others = [f"{num(gb[r.name])} GB with {r.name}'s {r.vocab:,}" for r in named[1:]
              if r.vocab != first.vocab]
    return [(f"the FP32 logits for the loss: {tokens:,} tokens × {first.vocab:,} vocabulary × "
             f"4 B = {num(gb[first.name])} GB for {first.name}"
             + (f" ({'; '.join(others)})" if others else ""), "logits-memory#tokens-by-vocab")]


# --- ZeRO-3: every forward gathers the parameters --------------------------------------------

FORWARD_TIME = lazy(r"forward(?:\s+(?:time|pass))?[^.\d]{0,30}?(\d+(?:\.\d+)?)\s*(ms|s)\b", 2)


def _zero3_gather(ctx: Context) -> list[Finding]:
    """Under ZeRO-3 each forward all-gathers every 16-bit parameter: (n-1)/n of 2 B × params
    reaches each GPU, at best at the link's one-way rate."""
    params_b = slot(ctx.intent, "params_b")
    rates = ctx.of("bandwidth")
    if slot(ctx.intent, "zero_stage") != 3 or not params_b or not rates:
        return []
    ranks = int(slot(ctx.intent, "gpus") or 8)
    if "gpus" not in ctx.intent.slots:
        ctx.assumptions.append("GPU count not named: assumed 8 (one node)")
    one_way = rates[0].value / 2
    ctx.assumptions.append(f"{rates[0].text} read as NVLink's headline, both directions added: "
                           f"{num(one_way)} GB/s each way")
    gathered = 2 * float(params_b)  # GB of 16-bit parameters
    seconds = (ranks - 1) / ranks * gathered / one_way
    ctx.steps.append(Step(label="ZeRO-3 parameter all-gather per forward",
                          formula="(n-1)/n × 2 B × parameters ÷ one-way link rate",
                          inputs={"n": q(ranks), "parameters": q(gathered, "GB"),
                                  "one-way rate": q(one_way, "GB/s")},
                          result=q(round(seconds, 4), "s"),
                          notes=["collective-algorithms#ring", "zero-paper#stage-3",
                                 "nvlink-generations#headline-is-bidirectional"]))
    m = FORWARD_TIME.search(ctx.text)
    measured = (float(m[1]) / (1000 if m[2].lower() == "ms" else 1)) if m else None
    causes = [("the gather is not overlapped with compute (prefetch off or buckets too small): "
               "each layer waits for its parameters", "zero-paper#stage-3"),
              ("many small all-gathers run at latency, not bandwidth",
               "nccl-tests-performance#small-sizes")]
    return [Finding(f"forward time against ZeRO-3's all-gather of {num(gathered)} GB of 16-bit "
                    f"parameters over {ranks} GPUs ({num(seconds * 1000)} ms at "
                    f"{num(one_way)} GB/s each way)", seconds, measured, "s", causes,
                    "zero-paper#stage-3", lower_is_better=True)]


def _zero3_network(ctx: Context) -> list[Finding]:
    """ZeRO-3 across nodes: every forward and backward all-gathers the 16-bit weights through
    the nodes' network ports, which on Ethernet can outlast the whole step of one node."""
    links = catalog().links.rows
    net = next((links[k] for k in ctx.intent.slots.get("links", [])
                if k in links and links[k].scope == "inter_node"), None)
    nodes = int(slot(ctx.intent, "nodes") or 0)
    if slot(ctx.intent, "zero_stage") != 3 or nodes < 2 or net is None:
        return []
    params = _params(ctx) if ctx.has_model() else None
    per_node = int(slot(ctx.intent, "gpus_per_node") or 8)
    nics = slot(ctx.intent, "nics_per_node") or (1 if net.kind == "ethernet" else per_node)
    if not slot(ctx.intent, "nics_per_node"):
        ctx.assumptions.append(f"{nics} {net.id} port{'s' if nics > 1 else ''} per node")
    size_gb = 2 * (params or 1.0)
    gather = ctx.calls.run("interconnect", {
        "op": "all_gather", "size": f"{size_gb:.6g} GB", "ranks": nodes * per_node,
        "gpus_per_node": per_node, "gpu": ctx.gpu(), "inter_link": net.id,
        "nics_per_node": nics}, "ZeRO-3's all-gather of the 16-bit weights across the nodes")
    seconds = 2 * float(gather["time_s"])  # once in the forward, again in the backward
    steps = ctx.of("step_time")
    measured = max(m.value for m in steps) if steps and params else None
    weights = f"{num(size_gb)} GB of 16-bit weights" if params else \
        "each billion parameters' 2 GB of 16-bit weights (no model named)"
    causes = [("every micro-batch's forward and backward gather the weights across the nodes, "
               "so the network, not the GPUs, sets the step; ZeRO-2, or hybrid sharding (ZeRO-3 "
               "inside each node, replicas across), leaves only one gradient reduction a step "
               "on it", "zero3-at-scale#fsdp-hybrid")]
    if net.kind in ("ethernet", "roce"):
        causes.append(("NCCL on its socket transport (TCP through the host) instead of RDMA "
                       "reaches less than the line rate", "ethernet-roce#tcp-sockets"))
    return [Finding(f"ZeRO-3 forward and backward on {nodes} nodes over {net.name} "
                    f"({nics} port{'s' if nics > 1 else ''} a node, "
                    f"{num(net.line_rate_per_direction_gb_s * nics)} GB/s one way): 2 all-gathers "
                    f"of {weights}", seconds, measured, "s", causes,
                    "zero-paper#stage-3", lower_is_better=True)]


# --- vLLM's KV-cache budget ------------------------------------------------------------------

UTILIZATION = lazy(r"gpu[-_\s]?memory[-_\s]?utili[sz]ation\s*[:=]?\s*(0?\.\d+|1(?:\.0+)?)\b", 2)
WEIGHTS_TAKE = lazy(r"(?:模型占用|模型权重占用|weights?\s+(?:took|take|takes|use|uses)|model\s+"
                    r"(?:took|takes|uses))\s*(?:about\s+)?(\d+(?:\.\d+)?)\s*(?:GiB|GB|G)\b", 2)
KV_GOT = lazy(r"(?:实际|actual(?:ly)?|only|只有|got|allocated)[^\d]{0,20}?(\d+(?:\.\d+)?)", 2)
GIB = 2**30


def _kv_budget(ctx: Context) -> list[Finding]:
    """vLLM keeps for the KV cache what is left of its share of the GPU (total × utilization)
    after the weights; the question's own figures give the most it can be."""
    util, weights = UTILIZATION.search(ctx.text), WEIGHTS_TAKE.search(ctx.text)
    if not (util and weights):
        return []
    size = str(ctx.intent.slots.get("size") or "")
    row = catalog().gpus.rows.get(slot(ctx.intent, "gpu") or "")
    if size.endswith("MiB"):
        total_gib = float(size.split()[0]) / 1024
    elif size.endswith("GiB"):
        total_gib = float(size.split()[0])
    elif row is not None:
        total_gib = row.memory_bytes / GIB
    else:
        return []
    share, weights_gib = float(util[1]), float(weights[1])
    budget = total_gib * share - weights_gib
    if not (0 < share <= 1) or budget <= 0:
        return []
    tail = ctx.text[weights.end():]
    got = next((float(m[1]) for m in KV_GOT.finditer(tail) if "kv" in
                tail[max(0, m.start() - 30): m.end()].lower()), None)
    ctx.assumptions.append("vLLM's log figures are GiB (bytes ÷ 2^30), so the budget is too")
    ctx.steps.append(Step(label="KV-cache budget vLLM can have",
                          formula="total GPU memory × gpu_memory_utilization − weights",
                          inputs={"total": q(round(total_gib, 3), "GiB"),
                                  "utilization": q(share), "weights": q(weights_gib, "GiB")},
                          result=q(round(budget, 3), "GiB"),
                          notes=["serving-memory-preallocation#vllm-default"]))
    causes = [("activations of the profiling run (the longest batch vLLM may schedule) and "
               "memory outside PyTorch (CUDA graphs, NCCL buffers) come out of the share before "
               "the KV cache", "serving-memory-preallocation#vllm-default")]
    what = (f"KV-cache budget: {total_gib:.2f} GiB × {share:g} − {weights_gib:g} GiB of weights "
            f"= {budget:.2f} GiB")
    return [Finding(what, budget, got, "GiB", causes,
                    "serving-memory-preallocation#vllm-default")]


def _kv_room(ctx: Context) -> list[Finding]:
    """vLLM's "max seq len (N) is larger than ... KV cache (M)": the tokens of KV cache its
    share of the GPUs should hold once the weights are in, against the M it found. Its older
    "Input prompt (N tokens) ... exceeds the capacity of block_manager" gives no M: the room
    alone is set against the prompt."""
    refusal = KV_REFUSAL.search(ctx.text)
    too_long = PROMPT_OVER_CACHE.search(ctx.text)
    if not refusal and not too_long:
        return []
    wanted = int((refusal or too_long)[1])
    got = int(refusal[2]) if refusal else None
    if not ctx.has_model():
        return [_kv_room_levers(wanted, got)] if got else []
    gpus = slot(ctx.intent, "gpus") or 1
    expected, per_token, result = _vllm_kv_tokens(ctx, gpus)
    need_gb = wanted * per_token / 1e9
    causes = [
        (f"the profiling run: without chunked prefill vLLM schedules up to max_model_len "
         f"({num(wanted)}) tokens in one step and keeps that forward pass's activations out of "
         "the share before the KV cache; enable chunked prefill or lower max_num_batched_tokens",
         "kv-cache#chunked-prefill"),
        ("memory outside the tensors (CUDA graphs, NCCL buffers) and gpu_memory_utilization "
         "(0.9 by default) also come out first; raise it to 0.95 if nothing else shares the GPU",
         "serving-memory-preallocation#vllm-default"),
        (f"one {num(wanted)}-token sequence needs {num(need_gb)} GB of KV cache in all; an FP8 "
         "cache (kv_cache_dtype fp8) halves it", "kv-cache#cache-dtype-default"),
    ]
    if got is None:
        causes = [_prompt_over_room(ctx, wanted, expected, need_gb, gpus)] + causes[1:]
    what = (f"KV-cache room on {gpus}× {gpu_name(result['gpu'])} for {model_name(result)}"
            + (f" (the prompt refused needs {num(wanted)} tokens of it)" if got is None else ""))
    return [Finding(what, expected, got, "tokens", causes,
                    "serving-memory-preallocation#vllm-default")]


def _vllm_kv_tokens(ctx: Context, gpus: int) -> tuple[float, float, dict[str, Any]]:
    """The tokens of KV cache vLLM's default share of `gpus` GPUs holds after the weights and
    overhead, the KV bytes per token, and the memory tool's result."""
    payload = memory_payload(ctx.intent) | {"workload": "inference", "gpu": ctx.gpu(),
                                            "gpus": gpus}
    result = ctx.calls.run("memory", payload, f"weights and overhead per GPU under vLLM on "
                           f"{gpus} GPU{'s' if gpus > 1 else ''}")
    parts, held_on = result["breakdown_gb"], int(result["layout"]["gpus"])
    held = parts["weights"] + parts["overhead"]
    room_gb = VLLM_SHARE * result["gpu_memory_gb"] - held
    per_token = float(result["kv_cache_bytes_per_token"])
    expected = max(0.0, room_gb * 1e9 * held_on / per_token)
    ctx.steps.append(Step(label=f"KV-cache tokens vLLM's share of {held_on} GPUs should hold",
                          formula="(GPU memory × 0.9 − weights − overhead) × GPUs / KV bytes "
                                  "per token",
                          inputs={"gpu_memory": q(result["gpu_memory_gb"], "GB"),
                                  "weights_and_overhead": q(round(held, 3), "GB"),
                                  "gpus": q(held_on), "kv_per_token": q(per_token, "B/token")},
                          result=q(round(expected), "tokens"),
                          notes=["serving-memory-preallocation#vllm-default",
                                 "kv-cache#per-token"]))
    return expected, per_token, result


def _prompt_over_room(ctx: Context, wanted: int, room: float, need_gb: float,
                      gpus: int) -> tuple[str, str]:
    """Why one prompt is refused: its KV cache against the room, and the room twice the GPUs
    (tensor parallel over all of them) would give."""
    if wanted <= room:
        return (f"the {num(wanted)}-token prompt ({num(need_gb)} GB of KV cache) should fit the "
                f"room of about {num(room)} tokens: check that tensor_parallel_size spans every "
                "GPU and what else holds memory on them",
                "serving-memory-preallocation#vllm-default")
    more, _, _ = _vllm_kv_tokens(ctx, 2 * gpus)
    return (f"the {num(wanted)}-token prompt needs {num(need_gb)} GB of KV cache, more than the "
            f"room of about {num(room)} tokens, so the scheduler refuses it; on {2 * gpus} GPUs "
            f"with tensor_parallel_size={2 * gpus} the room is about {num(more)} tokens (if it "
            "still fails there, the GPUs are not all in the tensor-parallel group)",
            "serving-memory-preallocation#vllm-default")


def _kv_room_levers(wanted: int, got: int) -> Finding:
    """The refusal with no model named: the room vLLM found against the context asked, and
    which levers close the gap, each by the factor it brings."""
    short = wanted / got
    enough = "enough" if 2 * got >= wanted else "still short"
    causes = [
        (f"an FP8 KV cache (kv_cache_dtype fp8) stores each token in half the bytes: the same "
         f"memory holds about {num(2 * got)} tokens, {enough} for {num(wanted)}",
         "kv-cache#cache-dtype-default"),
        (f"the cache gets what is left of gpu_memory_utilization's share after the weights, the "
         f"profiling run's activations and memory outside PyTorch: {num(short)}× the room needs "
         "a higher utilization, chunked prefill (a smaller profiling run) or more GPUs (tensor "
         "parallelism spreads the weights and adds their memory)",
         "serving-memory-preallocation#vllm-default"),
    ]
    return Finding(f"KV-cache room vLLM found against the context asked ({num(short)}× short)",
                   float(wanted), float(got), "tokens", causes,
                   "serving-memory-preallocation#vllm-default")


def _kv_needed(ctx: Context) -> list[Finding]:
    """vLLM V1's "max seq len (N) ... X GiB KV cache is needed ... available (Y GiB)": the KV
    cache one N-token request needs by the model's shape, against the X vLLM computed, and
    the longest context the Y it had would hold. No GPU needed: the bytes are the model's."""
    refusal = KV_NEEDED.search(ctx.text)
    log = KV_LOG.search(ctx.text)
    if refusal and not ctx.has_model() and log and float(log[1]) > 0 \
            and int(log[2].replace(",", "")) > 0:
        return [_kv_needed_by_log(ctx, refusal, log)]
    if not refusal or not ctx.has_model():
        return []
    wanted, need_gib, have_gib = int(refusal[1]), float(refusal[2]), float(refusal[3])
    payload = {**model_fields(ctx.intent), "workload": "inference", "context_len": wanted}
    result = ctx.calls.run("memory", payload, "KV cache bytes per token of the model")
    per_token = float(result["kv_cache_bytes_per_token"])
    expected = wanted * per_token / GIB
    fits = int(have_gib * GIB / per_token)
    ctx.steps.append(Step(label="KV cache of one request at the full context",
                          formula="max seq len × KV bytes per token ÷ 2^30",
                          inputs={"max seq len": q(wanted, "tokens"),
                                  "kv_per_token": q(per_token, "B/token")},
                          result=q(round(expected, 3), "GiB"), notes=["kv-cache#per-token"]))
    causes = [
        (f"the context asked for is longer than the room: {num(have_gib)} GiB hold "
         f"{num(fits)} tokens, so --max-model-len {fits} or less starts",
         "kv-cache#per-token"),
        (f"an FP8 KV cache (--kv-cache-dtype fp8) halves the {num(expected)} GiB",
         "kv-cache#cache-dtype-default"),
        ("more room: raise gpu_memory_utilization, or add GPUs (the cache splits over them)",
         "serving-memory-preallocation#vllm-default"),
    ]
    what = f"KV cache for one {num(wanted)}-token request of {model_name(result)}"
    return [Finding(what, expected, need_gib, "GiB", causes, "kv-cache#per-token")]


def _kv_needed_by_log(ctx: Context, refusal: re.Match[str], log: re.Match[str]) -> Finding:
    """No model named, but vLLM's own log of an earlier start ("Available KV cache memory:
    10.55 GiB ... GPU KV cache size: 230,528 tokens") gives the bytes a token of its cache
    takes, whatever its dtype: the refusal's KV need is checked at that rate, and the room it
    reported turned into the longest context it holds."""
    wanted, need_gib, have_gib = int(refusal[1]), float(refusal[2]), float(refusal[3])
    room_gib, room_tokens = float(log[1]), int(log[2].replace(",", ""))
    per_token = room_gib * GIB / room_tokens
    expected = wanted * per_token / GIB
    fits = int(have_gib * GIB / per_token)
    ctx.steps.append(Step(label="KV bytes per token from vLLM's log",
                          formula="available KV cache memory × 2^30 ÷ GPU KV cache size",
                          inputs={"memory": q(room_gib, "GiB"), "size": q(room_tokens, "tokens")},
                          result=q(round(per_token), "B/token"), notes=["kv-cache#per-token"]))
    causes = [
        (f"the KV cache dtype is counted: at the log's {num(per_token)} B a token, "
         f"{num(wanted)} tokens need {num(expected)} GiB, the figure vLLM refused with; what "
         f"changed is the room, {num(room_gib)} GiB before and {num(have_gib)} GiB now",
         "kv-cache#per-token"),
        (f"a longer max_model_len makes the profiling run longer, and its activations come out "
         f"of the share before the cache: {num(have_gib)} GiB hold {num(fits)} tokens, so "
         f"--max-model-len {fits} or less starts; chunked prefill keeps that run small",
         "kv-cache#chunked-prefill"),
        ("more room: raise gpu_memory_utilization, or add GPUs (the cache splits over them)",
         "serving-memory-preallocation#vllm-default"),
    ]
    return Finding(f"KV cache for one {num(wanted)}-token request at the log's "
                   f"{num(per_token)} B a token", expected, need_gib, "GiB", causes,
                   "kv-cache#per-token")


UNIT_BYTES = {"gib": 2**30, "gb": 1e9, "mib": 2**20, "mb": 1e6}


def _kv_claimed(ctx: Context) -> list[Finding]:
    """A KV-cache size stated for a context length, checked against the model's own bytes per
    token. A figure near heads/kv_heads times too big counted every query head, not the
    grouped KV heads (kv-cache#gqa)."""
    claim = KV_CLAIM.search(ctx.text)
    context = ctx.intent.slots.get("context_len")  # stated, never the assumed default
    if not claim or not context or not ctx.has_model() or KV_NEEDED.search(ctx.text):
        return []
    payload = {**model_fields(ctx.intent), "workload": "inference", "context_len": context}
    result = ctx.calls.run("memory", payload, "KV cache bytes per token of the model")
    per_token = float(result["kv_cache_bytes_per_token"])
    stated = float(claim[1]) * UNIT_BYTES[claim[2].lower()] / 1e9
    expected = per_token * context / 1e9
    ctx.steps.append(Step(label="KV cache of one sequence at the length stated",
                          formula="KV bytes per token × tokens", inputs={
                              "kv_per_token": q(per_token, "B/token"),
                              "tokens": q(context, "tokens")},
                          result=q(round(expected, 4), "GB"), notes=["kv-cache#per-token"]))
    shape = model_shape(ctx.intent)
    if shape is None:
        return []
    causes = kv_formula.differences(ctx.intent, shape, per_token)
    heads, kv_heads = shape.heads, shape.kv_heads
    if not causes and kv_heads and heads > kv_heads and abs(stated / expected - heads / kv_heads) \
            <= 0.15 * heads / kv_heads:
        causes.append((f"every query head counted ({heads}), where grouped-query attention keeps "
                       f"K and V for {kv_heads}: {heads // kv_heads}x too much",
                       "kv-cache#gqa"))
    causes.append(("KV bytes per token are 2 x layers x KV heads x head size x bytes per "
                   "element, for K and V", "kv-cache#per-token"))
    return [Finding(f"KV cache for one {num(context)}-token sequence of {model_name(result)}",
                    expected, stated, "GB", causes, "kv-cache#per-token", lower_is_better=True)]


def _kv_available(ctx: Context) -> list[Finding]:
    """vLLM's "KV cache is only X GiB" on GPUs named, no length given: the room one GPU keeps
    for the cache, its share of the GPU (0.9) less its slice of the weights and the overhead.
    vLLM reports it per GPU; a sum over the GPUs that takes one GPU's weights reads it high."""
    claim = KV_CLAIM.search(ctx.text)
    memory_only = not slot(ctx.intent, "gpu") and ctx.intent.slots.get("gpu_memory_gb")
    if not claim or "context_len" in ctx.intent.slots or not ctx.has_model() \
            or not (slot(ctx.intent, "gpu") or memory_only) or KV_NEEDED.search(ctx.text):
        return []
    # ("on a 24GB card": a GPU known by its memory alone)
    card = {"gpu_memory_gb": memory_only} if memory_only else {"gpu": ctx.gpu()}
    payload = memory_payload(ctx.intent) | {"workload": "inference", "gpus":
                                            slot(ctx.intent, "gpus") or 1} | card
    result = ctx.calls.run("memory", payload, "weights and overhead per GPU under vLLM")
    parts, gpus = result["breakdown_gb"], int(result["layout"]["gpus"])
    room_gb = VLLM_SHARE * result["gpu_memory_gb"] - parts["weights"] - parts["overhead"]
    stated_gb = float(claim[1]) * UNIT_BYTES[claim[2].lower()] / 1e9
    ctx.steps.append(Step(label="KV-cache room vLLM's share leaves on one GPU",
                          formula="GPU memory × 0.9 − weights − overhead, per GPU",
                          inputs={"gpu_memory": q(result["gpu_memory_gb"], "GB"),
                                  "weights": q(parts["weights"], "GB"),
                                  "overhead": q(parts["overhead"], "GB"), "gpus": q(gpus)},
                          result=q(round(room_gb, 3), "GB"),
                          notes=["serving-memory-preallocation#vllm-default"]))
    causes = [(f"the figure is per GPU: each of the {gpus} GPUs keeps its own slice of the "
               "weights and its own cache; adding both GPUs' memory but one GPU's weights "
               "reads it high", "serving-memory-preallocation#vllm-default")] if gpus > 1 else []
    causes.append(("gpu_memory_utilization (0.9 by default), the profiling run's activations "
                   "and CUDA graphs come out before the cache",
                   "serving-memory-preallocation#vllm-default"))
    card_name = gpu_name(result["gpu"]) if result["gpu"] else \
        f"GPU with {num(result['gpu_memory_gb'])} GB"
    what = f"KV-cache room per GPU on {gpus}× {card_name} for {model_name(result)}"
    return [Finding(what, room_gb, stated_gb, "GB", causes,
                    "serving-memory-preallocation#vllm-default")]


def _reservation(ctx: Context) -> list[Finding]:
    """Memory in use under vLLM that equals its share of a GPU the question names (0.9 of a
    40 GB A100 is 38.65 GB): a reservation, whatever the model or the TP size."""
    used = ctx.of("memory")
    gpu = slot(ctx.intent, "gpu")
    rows = catalog().gpus.rows
    if not used or not ENGINE_WORDS.search(ctx.text) or gpu not in rows:
        return []
    measured = used[0].value
    kin = [r for i, r in rows.items() if gpu_family(i) == gpu_family(str(gpu))]
    row = min(kin, key=lambda r: abs(VLLM_SHARE * r.memory_gb - measured))
    reserved = VLLM_SHARE * row.memory_gb
    if abs(reserved - measured) > 0.03 * reserved:  # 3 %: GB vs GiB and rounding in a report
        return []
    cause = ("vLLM reserves gpu_memory_utilization (0.9) of each GPU at start and fills what "
             "the weights leave with KV-cache blocks: the same share on every GPU whatever the "
             "model or the TP size; lower gpu_memory_utilization to use less")
    return [Finding(f"vLLM's reservation on an {row.name}: {VLLM_SHARE} × "
                    f"{num(row.memory_gb)} GB", reserved, measured, "GB",
                    [(cause, "serving-memory-preallocation#vllm-default")],
                    "serving-memory-preallocation#vllm-default", lower_is_better=True)]


# --- a checkpoint's save time ------------------------------------------------------------------

# "It takes ~6 minutes to save a checkpoint", "保存一次checkpoint要10分钟": the time, and its unit
_UNIT = r"(min(?:ute)?s?|分钟|s(?:ec(?:ond)?s?)?|秒|h(?:ours?)?|小时)"
SAVE_TIME = lazy(r"(?:\bsav(?:e|es|ing)\b|\bcheckpoint|保存)[^.。\n]{0,60}?(\d+(?:\.\d+)?)\s*"
                 + _UNIT + r"\b|(\d+(?:\.\d+)?)\s*" + _UNIT
                 + r"[^.。\n]{0,40}?(?:\bto\s+save\b|\bsaving\b|保存)", re.IGNORECASE)
NVME_GB_S = 7.0  # storage-bandwidth#nvme-write: one PCIe Gen4 NVMe drive, sequential write


def _checkpoint_save(ctx: Context) -> list[Finding]:
    """The time a checkpoint took to save against its bytes written to one local NVMe drive:
    what the measured time means as a write rate, and what storage that rate looks like."""
    m = SAVE_TIME.search(ctx.text)
    if not m or not ctx.has_model():
        return []
    figure, unit = (m[1], m[2]) if m[1] else (m[3], m[4])
    seconds = float(figure) * _SECONDS_IN.get(unit.lower()[:1] if unit[0].isascii() else unit, 1)
    if seconds <= 0:
        return []
    workload = slot(ctx.intent, "workload")
    payload = {**model_fields(ctx.intent),
               "workload": workload if workload not in (None, "inference") else "pretrain"}
    size_gb = float(ctx.calls.run("memory", payload, "the bytes a full checkpoint writes")
                    ["checkpoint_gb"])
    expected = size_gb / NVME_GB_S
    rate = size_gb / seconds
    ctx.steps.append(Step(label="the write rate the save time means",
                          formula="checkpoint bytes ÷ seconds measured",
                          inputs={"checkpoint": q(size_gb, "GB"), "measured": q(seconds, "s")},
                          result=q(round(rate, 3), "GB/s"), notes=["storage-bandwidth#nvme-write"]))
    causes = [(f"the {num(size_gb)} GB in {num(seconds)} s is {num(rate)} GB/s: a network file "
               "system, object store or one slow disk, not local NVMe (7 GB/s a drive)",
               "storage-bandwidth#lustre-client"),
              ("an object store writes about 93 MB/s a connection: only many parallel writes "
               "reach its rate", "storage-bandwidth#object-storage")]
    return [Finding(f"checkpoint save time ({num(size_gb)} GB of weights and optimizer states "
                    "at one NVMe drive's 7 GB/s)", expected, seconds, "s", causes,
                    "storage-bandwidth#nvme-write", lower_is_better=True)]


_SECONDS_IN = {"m": 60.0, "分钟": 60.0, "s": 1.0, "秒": 1.0, "h": 3600.0, "小时": 3600.0}


# --- slower on more GPUs ------------------------------------------------------------------------

def _scaling(ctx: Context) -> list[Finding]:
    steps = ctx.of("step_time")
    samples = ctx.of("samples_per_s")
    first = "the first"
    if len(steps) >= 2:
        before, after = steps[0].value, steps[1].value
        if SMALLER_SETUP.search(ctx.text[ctx.text.find(steps[0].text) + len(steps[0].text):
                                         ctx.text.find(steps[1].text)]):
            # "2 nodes ... 8.68s/iter. However, single node ... 2.46s/iter": the second figure
            # is the smaller setup's, so the larger one's is the first
            before, after, first = after, before, "the smaller setup's"
        slowdown = after / before
        change = f"{before:g} → {after:g} s per step: {100 * after / before:.1f}% of {first}"
    elif len(samples) >= 2:
        before, after = samples[0].value, samples[1].value
        slowdown = before / after
        change = (f"{before:g} → {after:g} per second: "
                  f"{100 * abs(before - after) / before:.1f}% "
                  f"{'fewer' if after < before else 'more'}")
    else:
        return []
    gpus = slot(ctx.intent, "gpus") or 2
    causes: list[tuple[str, str]] = []
    row = ctx.gpu_row()
    link = getattr(row, "intra_link", "") or ""
    if ctx.has_model() and gpus >= 2:
        params = _params(ctx)
        if params:
            grads = ctx.calls.run("interconnect", {"op": "all_reduce",
                                                   "size": f"{params * 2:.6g} GB",
                                                   "ranks": gpus, "gpu": ctx.gpu()},
                                  "gradient all-reduce per step (2 B per parameter)")
            ctx.steps.append(Step(label="gradient all-reduce per step",
                                  formula="16-bit gradients of every parameter over the link",
                                  result={"value": float(grads["time_s"]), "unit": "s"},
                                  notes=["parallelism-strategies#data-parallel"]))
    more_gpus = bool(MORE_GPUS_WORDS.search(ctx.text)) or (slot(ctx.intent, "gpus") or 1) > 1
    if more_gpus:
        if link.startswith("pcie") or MORE_GPUS_WORDS.search(ctx.text):
            causes.append(("gradients (and under ZeRO-3 the parameters) cross PCIe every step: "
                           "without NVLink the exchange can outweigh the halved compute",
                           "pcie-bandwidth#gen4-rate"))
        if NODES_SAID.search(ctx.text):
            causes.insert(0, ("the GPUs are now in more than one node: gradients (and ZeRO-3's "
                              "gathers) cross the network between them, an order of magnitude "
                              "slower than inside a node on common Ethernet",
                              "nvlink-vs-infiniband#allreduce-18x"))
        causes += [("ZeRO-3 gathers the parameters in every forward and backward pass",
                    "zero-paper#stage-3"),
                   ("data parallelism all-reduces the gradients once a step",
                    "parallelism-strategies#data-parallel")]
        ctx.assumptions.append("expected: the same time per step or less on more GPUs at the "
                               "same per-GPU batch (data parallelism)")
    else:
        ctx.assumptions.append("expected: the same time per step on the same GPUs; nothing the "
                               "calculators model explains a slowdown within one run")
    against = "the first figure" if first == "the first" else "the smaller setup's figure"
    return [Finding(f"time per step (or per sample) relative to {against} ({change})",
                    1.0, slowdown,
                    "x", causes,
                    "parallelism-strategies#strategy-decides-performance",
                    lower_is_better=True)]


# --- one training step's time ------------------------------------------------------------------

def _one_step(ctx: Context) -> list[Finding]:
    """One measured time per training step, with the model, the GPUs and the tokens of a step
    (global batch x sequence length) named: the planner's step time for that job on those GPUs
    ("2.5 s per iteration on 64 V100, 256 x 2048 tokens: good or slow?")."""
    steps = ctx.of("step_time")
    batch, seq = slot(ctx.intent, "global_batch"), slot(ctx.intent, "seq_len")
    gpus = slot(ctx.intent, "gpus")
    if len(steps) != 1 or not (batch and seq and gpus and ctx.has_model() and ctx.gpu_row()):
        return []
    try:
        plan = ctx.calls.run("parallelism", {**model_fields(ctx.intent), "gpu": ctx.gpu(),
                                             "gpus": gpus, "workload": "pretrain",
                                             "global_batch": batch, "seq_len": seq, "top_k": 1},
                             "the planner's step time for this job on these GPUs")
    except ToolError:  # the planner refusing the input: nothing to set the time against
        return []
    best = (plan.get("plans") or [{}])[0]
    if not best.get("step_time_s"):
        return []
    causes = [("communication the step does not hide: the gradient all-reduce (or ZeRO's "
               "gathers) across nodes", "parallelism-strategies#data-parallel"),
              ("activation recompute repeats the forward pass", "activation-memory#full-recompute"),
              ("small GEMMs of a small model fill the GPU less", "mfu-calibration#"
               "efficiency-assumption")]
    return [Finding(f"time per step ({num(batch * seq)} tokens on {gpus} x {ctx.gpu()}, the "
                    f"planner's layout tp {best['tp']} x pp {best['pp']} x dp {best['dp']}, "
                    f"MFU {pct(best['mfu'])})", float(best["step_time_s"]), steps[0].value, "s",
                    causes, "mfu-calibration#efficiency-assumption", lower_is_better=True)]


# --- a run's duration -------------------------------------------------------------------------

MINUTES_RUN_H = 0.05  # a training run said to have taken minutes: three of them at least


def _duration(ctx: Context) -> list[Finding]:
    """Hours a training run took, with a model named: the tokens its GPUs train in that time at
    the expected MFU, set against the tokens the run held when the question gives them (with
    the run's own MFU beside the expected one), else shown for the asker to compare (and, with
    its step count, the tokens one step should hold)."""
    hours = ctx.intent.slots.get("hours")
    row = ctx.gpu_row()
    # seconds to answer are a latency, not a training run; minutes a run took ("finished in
    # 40 minutes") are one
    shortest = MINUTES_RUN_H if ctx.intent.slots.get("hours_elapsed") else 1
    if not hours or float(hours) < shortest or not ctx.has_model() or row is None:
        return []
    params = _params(ctx)
    if not params:
        return []
    frozen = slot(ctx.intent, "workload") in ("lora", "qlora")
    per_param = 4 if frozen else 6  # LoRA's frozen weights take no weight gradients
    gpus = int(slot(ctx.intent, "gpus") or 1)
    peak = float(row.bf16_tflops or row.fp16_tflops)
    seconds = float(hours) * 3600
    run_tokens = ctx.intent.slots.get("tokens")
    published = (PUBLISHED_MFU, "mfu-calibration#llama3-mfu")
    mfu, source = _expected_mfu(ctx) if run_tokens else published
    if not run_tokens:
        ctx.assumptions.append(f"MFU {pct(PUBLISHED_MFU)}: Llama 3 405B's published figure on H100")
    tokens = peak * 1e12 * mfu * gpus / (per_param * params * 1e9) * seconds
    flops_note = "qlora-paper#lora-compute" if frozen else "mfu-calibration#model-flops-per-token"
    ctx.steps.append(Step(
        label="tokens trained in the time measured",
        formula=f"dense peak x MFU x GPUs / ({per_param} x parameters) x seconds",
        inputs={"dense peak": {"value": peak, "unit": "TFLOP/s"},
                "MFU": {"value": mfu, "unit": ""}, "GPUs": {"value": gpus, "unit": ""},
                "parameters": {"value": params * 1e9, "unit": ""},
                "seconds": {"value": seconds, "unit": "s"}},
        result={"value": tokens, "unit": "tokens"},
        notes=[row.source_note, source, flops_note]))
    if not frozen and "workload" not in ctx.intent.slots:
        ctx.assumptions.append("workload not named: full training, 6 FLOPs per parameter per "
                               "token (LoRA would be 4)")
    causes = [("the run held more tokens than this (tokens per step = batch x sequence length x "
               "gradient accumulation, times the steps)", "mfu-calibration#mfu-definition"),
              ("activation recompute (gradient checkpointing) repeats the forward pass",
               "activation-memory#full-recompute"),
              ("optimizer or weights offloaded to the CPU: every step waits on PCIe",
               "pcie-bandwidth#gen4-rate")]
    what = (f"tokens {gpus}x {row.name} train in {num(hours)} h ({num(gpus * float(hours))} "
            f"GPU-hours) at {pct(mfu)} MFU ({per_param} FLOPs per parameter per token)")
    if run_tokens:
        # the run's own tokens: the hours they take at the expected MFU, set against the
        # hours measured ("2B tokens, 13B, 8 A800, 400 hours: how long normally?")
        expected_h = float(hours) * float(run_tokens) / tokens
        ctx.steps.append(Step(
            label="hours the run's tokens take at the expected MFU",
            formula="hours measured x the run's tokens / tokens trained in those hours",
            inputs={"hours": q(float(hours), "h"), "tokens": q(float(run_tokens), "tokens")},
            result=q(round(expected_h, 3), "h"), notes=[source, flops_note]))
        return [_run_mfu(ctx, float(run_tokens), params, per_param, seconds, gpus, peak,
                         (mfu, source), causes[1:], flops_note),
                Finding(f"hours {tokens_said(float(run_tokens))} tokens take on {gpus}x "
                        f"{row.name} at {pct(mfu)} MFU ({per_param} FLOPs per parameter per "
                        "token)", expected_h, float(hours), "h", [], source,
                        lower_is_better=True)]
    found = [Finding(what, tokens, None, "tokens", causes, source)]
    steps = RUN_STEPS.search(ctx.text)
    if steps and int(steps[1].replace(",", "")) > 0:
        count = int(steps[1].replace(",", ""))
        found.append(Finding(f"tokens per step over {count:,} steps", tokens / count, None,
                             "tokens", [], source))
    return found


def _run_mfu(ctx: Context, tokens: float, params: float, per_param: int, seconds: float,
             gpus: int, peak: float, expected: tuple[float, str],
             causes: list[tuple[str, str]], flops_note: str) -> Finding:
    """The MFU a run reached: its model FLOPs over the seconds it took on all its GPUs."""
    flops = per_param * params * 1e9 * tokens
    achieved = flops / (seconds * gpus * peak * 1e12)
    ctx.steps.append(Step(
        label="model FLOPs of the run", formula=f"{per_param} x parameters x tokens",
        inputs={"parameters": {"value": params * 1e9, "unit": ""},
                "tokens": {"value": tokens, "unit": "tokens"}},
        result={"value": flops, "unit": "FLOP"}, notes=[flops_note]))
    ctx.steps.append(Step(
        label="MFU of the run", formula="model FLOPs / (seconds x GPUs x dense peak)",
        inputs={"model FLOPs": {"value": flops, "unit": "FLOP"},
                "seconds": {"value": seconds, "unit": "s"}, "GPUs": {"value": gpus, "unit": ""},
                "dense peak": {"value": peak, "unit": "TFLOP/s"}},
        result={"value": achieved * 100, "unit": "%"},
        notes=["mfu-calibration#mfu-definition", flops_note]))
    what = (f"MFU of the run ({tokens_said(tokens)} tokens in {num(seconds / 3600)} h on all "
            f"{gpus} GPUs)")
    return Finding(what, expected[0] * 100, achieved * 100, "%", causes, expected[1])


# --- slower on more nodes over a stated network ------------------------------------------------

def _network(ctx: Context) -> list[Finding]:
    """More nodes slower than one over a stated network, model named: the time each step's
    gradient all-reduce takes across the nodes at that rate, which one node never pays."""
    nodes = ctx.intent.slots.get("nodes")
    rate = ctx.intent.slots.get("bandwidth")
    if not nodes or int(nodes) < 2 or not rate or not ctx.has_model():
        return []
    params = _params(ctx)
    if not params:
        return []
    gb_s = float(ctx.calls.run("interconnect", {"op": "convert", "value": rate, "to": "GB/s"},
                               "the network rate in bytes")["value"])
    n = int(nodes)
    if slot(ctx.intent, "workload") in ("lora", "qlora") \
            and int(slot(ctx.intent, "zero_stage") or 0) == 3:
        return [_adapter_gathers(ctx, n, params, rate, gb_s)]
    grads_gb = params * 2  # 16-bit gradients, 2 B per parameter
    seconds = 2 * (n - 1) / n * grads_gb / gb_s
    ctx.steps.append(Step(
        label="gradient all-reduce across nodes per step",
        formula="2(N-1)/N x gradient bytes / node network rate (hierarchical all-reduce)",
        inputs={"nodes": {"value": n, "unit": ""}, "gradients": {"value": grads_gb, "unit": "GB"},
                "network": {"value": gb_s, "unit": "GB/s"}},
        result={"value": seconds, "unit": "s"},
        notes=["collective-algorithms#hierarchical", "parallelism-strategies#data-parallel"]))
    ctx.assumptions.append(f"{rate} read as each node's whole network rate; 16-bit gradients")
    causes = [(f"every step all-reduces {num(grads_gb)} GB of gradients over {rate}: "
               f"{num(seconds)} s a step that one node never spends",
               "collective-algorithms#hierarchical"),
              ("ZeRO-3 also gathers the parameters in every forward and backward pass, on top "
               "of this traffic", "zero-paper#stage-3"),
              ("gradient accumulation (more micro-batches per step) spreads the all-reduce over "
               "more compute", "parallelism-strategies#data-parallel")]
    return [Finding(f"gradient all-reduce per step across {n} nodes over {rate} "
                    f"({num(gb_s)} GB/s)", seconds, None, "s", causes,
                    "collective-algorithms#hierarchical", lower_is_better=True)]


def _adapter_gathers(ctx: Context, n: int, params: float, rate: str, gb_s: float) -> Finding:
    """LoRA under ZeRO-3 across nodes: the adapters' gradients are small, but the frozen base
    is sharded too, and every micro-batch gathers it in the forward and again in the backward
    pass: 2 x (N-1)/N of its 16-bit bytes cross the network each micro-batch."""
    weights_gb = params * 2
    seconds = 2 * (n - 1) / n * weights_gb / gb_s
    ctx.steps.append(Step(
        label="ZeRO-3 parameter gathers across nodes per micro-batch",
        formula="2 passes x (N-1)/N x 16-bit weight bytes / node network rate",
        inputs={"nodes": q(n), "weights": q(weights_gb, "GB"), "network": q(gb_s, "GB/s")},
        result=q(seconds, "s"), notes=["zero-paper#stage-3", "collective-algorithms#ring"]))
    ctx.assumptions.append(f"{rate} read as each node's whole network rate; 16-bit base weights")
    causes = [(f"ZeRO-3 shards the frozen base too: every micro-batch gathers its "
               f"{num(weights_gb)} GB in the forward and again in the backward pass, "
               f"{num(seconds)} s over {rate} "
               "that one node never spends; the adapters' own gradients are small",
               "zero-paper#stage-3"),
              ("with LoRA the base fits one node's GPUs unsharded more often than not: ZeRO-2 or "
               "plain data parallelism across the nodes sends only the adapters' gradients",
               "qlora-paper#lora-params"),
              ("offload (a ds_z3_offload config) adds the host link to every gather",
               "pcie-bandwidth#gen4-rate")]
    return Finding(f"ZeRO-3 parameter gathers per micro-batch across {n} nodes over {rate} "
                   f"({num(gb_s)} GB/s)", seconds, None, "s", causes, "zero-paper#stage-3",
                   lower_is_better=True)


# --- nothing measured that a calculator can check ---------------------------------------------

# Pipeline parallelism named in a serving question ("--pipeline-parallel-size 2", "PP=2").
PIPELINE_WORDS = lazy(r"pipeline[\s_-]*parallel|\bpp\s*[=:]?\s*\d|流水线并行", 2)


def _pipeline_in_serving(ctx: Context) -> list[tuple[str, str]]:
    """Why serving with pipeline stages is slow: the stages take turns unless batches overlap,
    and the hand-off per token is one hidden vector, too small for the link to matter."""
    row = catalog().models.rows.get(slot(ctx.intent, "model") or "")
    handoff = ("one hidden-state vector per token" if row is None else
               f"{num(row.hidden * 2 / 1e3)} KB per token ({row.hidden:,} × 2 bytes)")
    return [("with fewer batches in flight than pipeline stages the stages take turns, each token "
             "passing every stage while the others wait: one stream gains nothing over one GPU "
             "holding the model, and each token pays the hand-offs",
             "serving-pipeline-parallel#one-batch-takes-turns"),
            (f"the stages hand each other only {handoff}, well under a microsecond on NVLink or "
             f"PCIe, so which link carries it barely changes the speed",
             "serving-pipeline-parallel#small-sends"),
            ("when one GPU holds the model, replicas (data parallelism) raise throughput with no "
             "hand-offs; keep pipeline stages for a model too large for one stage's GPUs",
             "serving-pipeline-parallel#replicas-for-throughput")]


def _moe_under_zero3(ctx: Context) -> list[tuple[str, str]]:
    """A mixture of experts trained under ZeRO-3: the gathers follow its total parameters, the
    compute its active ones, and the experts' changing order defeats the prefetch."""
    if slot(ctx.intent, "zero_stage") != 3 or slot(ctx.intent, "workload") == "inference":
        return []
    try:
        shape = model_shape(ctx.intent)
    except ToolError:
        return []
    if shape is None or not shape.is_moe:
        return []
    ratio = shape.params_b / shape.active_params_b
    return [(f"ZeRO-3 gathers every expert's weights in each pass ({num(shape.params_b)}B "
             f"parameters) while each token computes with {num(shape.active_params_b)}B: "
             f"{ratio:.0f}× the gathers per FLOP of a dense model of the same compute",
             "moe-zero3#gathers-every-expert"),
            ("the experts that run change from pass to pass, which defeats ZeRO-3's prefetch; "
             "mark the MoE block a ZeRO-3 leaf module (deepspeed.utils.set_z3_leaf_modules), "
             "which LLaMA-Factory does only for the MoE model types it lists",
             "moe-zero3#leaf-modules"),
            ("or keep the weights whole with ZeRO-2 when they fit, or place whole experts with "
             "expert parallelism instead of gathering them", "moe-zero3#other-ways")]


# A reinforcement-learning run: its steps generate before they train.
RL_STEP = lazy(r"\b(?:grpo|ppo|dapo|rlhf|rollouts?|verl|openrlhf)\b", re.IGNORECASE)


def _rl_step(ctx: Context) -> list[tuple[str, str]]:
    """A PPO or GRPO run: the generation stage and its longest responses set the step time."""
    if not RL_STEP.search(ctx.text):
        return []
    return [("each RL step first generates its responses token by token (decoding, bound by "
             "memory bandwidth), then scores them, then trains: the step time is mostly the "
             "generation, which a training MFU does not measure", "rl-step-time#generation-in-"
             "step"),
            ("the generation stage waits for its longest response: the maximum completion "
             "length, the generations per prompt and the generation engine's batch set much of "
             "the step", "rl-step-time#long-tail")]


# ZeRO-3 wished kept inside a node ("控制zero3只把模型参数分摊到同一节点内", "shard only within
# the node and replicate across nodes"): hybrid sharding asked for
WITHIN_NODE = lazy(r"(?:zero[\s_-]*(?:stage[\s_-]*)?3|fsdp|shard\w*).{0,120}"
                   r"(?:同一节点|节点内|单个?节点|\b(?:within|inside|in)\s+(?:a|one|the|each|same)\s+node\b|"
                   r"\bintra[\s-]*node\b)|"
                   r"\bhybrid[\s_-]*shard|\bhsdp\b|\bhpz\b", re.IGNORECASE | re.DOTALL)


def _within_node(ctx: Context) -> list[tuple[str, str]]:
    """Hybrid sharding asked for: it holds only when a group of nodes holds the job sharded,
    the fewest GPUs the memory tool finds (zero3-at-scale#planner-hsdp)."""
    row = catalog().gpus.rows.get(slot(ctx.intent, "gpu") or "")
    if not WITHIN_NODE.search(ctx.text) or row is None or not ctx.has_model() \
            or slot(ctx.intent, "workload") == "inference":
        return []
    try:
        sized = ctx.calls.run("memory", memory_payload(ctx.intent, with_gpu=False, least=True)
                              | {"gpu": row.id}, "the fewest GPUs a sharding group needs",
                              aside=True)
    except (ToolError, ValueError, LookupError):
        return []
    whole = float((sized.get("whole_model_gb") or {}).get("model_states") or 0)
    fewest = (sized.get("min_gpus") or {}).get(row.id)
    per_node = int(slot(ctx.intent, "gpus_per_node") or row.gpus_per_node)
    if not whole or not fewest:
        return []
    node_gb = per_node * float(row.memory_gb)
    if fewest <= per_node:
        return [(f"shard within each node and replicate across nodes (FSDP HYBRID_SHARD, or "
                 f"ZeRO++ with zero_hpz_partition_size {per_node}): one node of {per_node} holds "
                 f"the job sharded, so the parameter gathers stay on NVLink and one gradient "
                 "all-reduce a step crosses the network", "zero3-at-scale#planner-hsdp")]
    nodes = math.ceil(fewest / per_node)
    return [(f"sharding only within one node cannot hold this model: its {num(whole)} GB of "
             f"model states (weights, gradients, optimizer) are more than one node's "
             f"{num(node_gb)} GB ({per_node} × {gpu_name(row.id)}) without offload; the fewest "
             f"that hold the job sharded are {fewest} GPUs, so a hybrid shard group spans "
             f"{nodes} nodes, replicated across the rest", "zero3-at-scale#planner-hsdp")]


def _unmeasured(ctx: Context) -> Reply:
    causes: list[tuple[str, str]] = _within_node(ctx) + _rl_step(ctx) + _moe_under_zero3(ctx)
    checked = _training_fit(ctx)  # out of memory on GPUs named: the fit comes first
    if QUANT_WORDS.search(ctx.text):
        causes.append(("quantized weights are expanded to 16 bits inside each matmul; memory "
                       "shrinks, speed need not improve", "memory-sizing"))
    serving = slot(ctx.intent, "workload") == "inference"
    if serving and PIPELINE_WORDS.search(ctx.text):
        causes += _pipeline_in_serving(ctx)
    elif checked is None and (MORE_GPUS_WORDS.search(ctx.text) or "gpus" in ctx.intent.slots) \
            and not serving:
        row = catalog().gpus.rows.get(slot(ctx.intent, "gpu") or "")
        if row is None or row.over_pcie() or int(slot(ctx.intent, "nodes") or 1) > 1:
            causes.append(("gradients or parameters cross a slow link every step (PCIe, "
                           "Ethernet)", "pcie-bandwidth#gen4-rate"))
        if not any(ref.startswith("moe-zero3") for _, ref in causes):
            causes.append(("ZeRO-3 gathers the parameters in every pass", "zero-paper#stage-3"))
    if STAGES_COMPARED.search(ctx.text) and MEMORY_WORDS.search(ctx.text):
        causes.append(("ZeRO stage 3 partitions the parameters too, where stage 2 keeps a whole "
                       "copy on every GPU (and offloads only the optimizer side), so stage 3 "
                       "needs less memory, not more", "zero-paper#stage-3"))
    if MEMORY_WORDS.search(ctx.text) and slot(ctx.intent, "workload") in ("lora", "qlora"):
        causes.append(("LoRA removes the frozen weights' gradients and optimizer states, not the "
                       "activations: on a small model with long sequences or a large batch the "
                       "activations dominate, and checkpointing settings decide the rest",
                       "qlora-paper#lora-params"))
    if MEMORY_WORDS.search(ctx.text) and not IDLE_WORDS.search(ctx.text) \
            and slot(ctx.intent, "workload") in (None, "inference"):
        causes.append(("serving engines reserve memory for the KV cache up front",
                       "serving-memory-preallocation#vllm-default"))
    lead = ("This asks for a check of a measurement, but no figure in it could be checked by a "
            "calculator as stated (a rate with its unit: GB/s, tokens/s, TFLOP/s, MFU %, s/it, "
            "or GPU memory in use with a model). Likely causes for what it describes, ranked:")
    unknown = slot(ctx.intent, "unknown_gpu")
    if unknown and ctx.found:
        lead = (f"The figure quoted ({ctx.found[0].text.strip()}) cannot be checked: '{unknown}' "
                "is not a GPU in the catalog, and its memory bandwidth and FLOP/s set what to "
                "expect. Likely causes for what it describes, ranked:")
    if PROGRESS_BAR.search(ctx.text):
        lead = ("This asks for a check of a run's pace: its progress bar is worked out against "
                "the run times it states below. Likely causes for what it describes, ranked:")
    if ctx.has_model() and (slot(ctx.intent, "workload") or "inference") == "inference":
        try:
            payload = {**model_fields(ctx.intent), "workload": slot(ctx.intent, "workload")
                       or "inference"}
            result = ctx.calls.run("memory", payload, "what the model needs, for comparison")
            lead = (f"Expected for {result['model'] or 'the model'} "
                    f"({payload['workload']}): **{num(result['per_gpu_gb'])} GB** per GPU, of "
                    f"which weights {num(result['breakdown_gb']['weights'])} GB. " + lead)
        except Exception:  # a refused input leaves the causes alone
            pass
    offload = _offload_need(ctx)
    if offload:
        lead = offload + " " + lead
        if ctx.intent.slots.get("oom_seen") or HOST_KILLED.search(ctx.text):
            # the host ran out, not the GPUs: the causes are the host's
            causes = _host_oom_causes(ctx) + [c for c in causes if c[1] not in GPU_SIDE_NOTES]
            lead = offload + " Likely causes, ranked:"
    upgrade = _network_upgrade(ctx)
    if upgrade:
        lead = upgrade + " " + lead.replace("This asks for a check of a measurement, but no "
                                            "figure in it could be checked by a calculator as "
                                            "stated (a rate with its unit: GB/s, tokens/s, "
                                            "TFLOP/s, MFU %, s/it, or GPU memory in use with a "
                                            "model). ", "")
    held, fits = checked if checked is not None else (None, False)
    if held is not None:
        lead = held.headline + (
            " So it can fit: an out-of-memory error points at the settings. Likely causes, "
            "ranked:" if fits else " No setting makes it fit these GPUs: more GPUs, a smaller "
            "precision or offload are the ways out.")
        causes = ([("activation recompute off, or sharding below ZeRO-3: the figure above "
                    "assumes both, and without them the same GPUs need more",
                    "activation-memory#full-recompute"),
                   ("a larger micro-batch or longer sequences than assumed: activations grow "
                    "with both", "activation-memory#full-recompute")] if fits else []) + causes
    if not causes:
        lead = lead.replace("Likely causes for what it describes, ranked:",
                            "" if upgrade else "Nothing in it names a setting the calculators "
                            "can relate to, so no cause is ranked.").strip()
    tables = [table(["rank", "likely cause", "note"],
                    [[i + 1, c, k] for i, (c, k) in enumerate(causes)])] if causes else []
    if held is not None:
        tables = held.tables[:1] + tables
    return Reply(headline=lead, tables=tables, assumptions=ctx.assumptions
                 + (held.assumptions if held else []), steps=ctx.steps,
                 citations=[note_ref(k) for _, k in causes])


# "the communication time ... is more than 90% of the total running time"
COMM_SHARE = lazy(r"communicat\w*[^.%]{0,80}?(\d+(?:\.\d+)?)\s*%", 2)


def _network_upgrade(ctx: Context) -> str | None:
    """Communication measured as a share of the step on the slowest network named, and what
    the faster ones named would leave of the step (the same bytes, Amdahl's law)."""
    share_m = COMM_SHARE.search(ctx.text)
    links = catalog().links.rows
    nets = sorted((links[k] for k in ctx.intent.slots.get("links", [])
                   if k in links and links[k].scope == "inter_node"),
                  key=lambda x: x.line_rate_per_direction_gb_s)
    if not share_m or len(nets) < 2:
        return None
    share = min(float(share_m[1]) / 100, 1.0)
    slow = nets[0]
    parts = []
    for fast in nets[1:]:
        ratio = fast.line_rate_per_direction_gb_s / slow.line_rate_per_direction_gb_s
        left = (1 - share) + share / ratio
        parts.append(f"over {fast.name} ({num(fast.line_rate_per_direction_gb_s)} GB/s, "
                     f"{num(ratio)}×) the step would take {pct(left)} of today's "
                     f"({num(1 / left)}× faster)")
        ctx.steps.append(Step(label=f"step on {fast.id} against {slow.id}",
                              formula="(1 − comm share) + comm share × slow rate / fast rate",
                              inputs={"comm share": q(share), "slow": q(
                                  slow.line_rate_per_direction_gb_s, "GB/s"),
                                      "fast": q(fast.line_rate_per_direction_gb_s, "GB/s")},
                              result=q(left), notes=[slow.source_note, fast.source_note]))
    return (f"Communication takes {pct(share)} of the step over {slow.name} "
            f"({num(slow.line_rate_per_direction_gb_s)} GB/s each way). With the same bytes, "
            + "; ".join(parts) + ": beyond that the compute, not the network, sets the pace.")


def _training_fit(ctx: Context) -> tuple[Reply, bool] | None:
    """Out of memory training a model on GPUs the question names: whether it fits them at all,
    with the least-memory settings (ZeRO-3, full recompute), is the first thing to know. The
    fit route's answer, and whether it fits (its own memory call says)."""
    slots = ctx.intent.slots
    if not (ctx.has_model() and OUT_OF_MEMORY.search(ctx.text)
            and slot(ctx.intent, "workload") not in (None, "inference")
            and slots.keys() & {"gpus", "gpu", "gpu_memory_gb"}
            and not slots.keys() & {"offload", "host_ram_gb"}):  # host RAM: _offload_need's
        return None
    before = len(ctx.calls.made)
    try:
        reply = fit(ctx.intent, ctx.calls, least=True)
    except Exception:  # a refused input leaves the causes alone
        return None
    own = next((c for c in ctx.calls.made[before:] if c.name == "memory"), None)
    return (reply, bool(own.data["fits"])) if own is not None else None


# Causes that are the GPUs' or the links' (a slow link, ZeRO-3's gathers): not a host OOM's
GPU_SIDE_NOTES = ("pcie-bandwidth#gen4-rate", "zero-paper#stage-3")
# The kernel killing a process for host memory: "exitcode -9", "dmesg ... OOM", "Killed"
HOST_KILLED = lazy(r"exit\s*code\s*:?\s*-9\b|\bsigkill\b|\bdmesg\b|\boom[\s-]*killer\b|"
                   r"^\s*killed\s*$", re.IGNORECASE | re.MULTILINE)


def _host_oom_causes(ctx: Context) -> list[tuple[str, str]]:
    """Host RAM exhausted under ZeRO offload: DeepSpeed's buffered estimate, and the copy of
    the weights every process loads before ZeRO-3 partitions them."""
    per_node = int(slot(ctx.intent, "gpus_per_node") or slot(ctx.intent, "gpus") or 1)
    held = _weights_held(ctx)
    loaded = f" ({per_node} × {num(held[0])} GB here)" if held else ""
    return [("DeepSpeed's estimate adds a 1.5× buffer to the offloaded states for pinned "
             "memory and fragmentation; when it is above the RAM, the states alone fitting is "
             "not enough", "deepspeed-memory-estimator#buffer-factor"),
            (f"loading: every process reads the whole checkpoint into host RAM before ZeRO-3 "
             f"partitions it{loaded}, twice that if the model is built before the weights are "
             "copied in; zero.Init or low_cpu_mem_usage loading avoids the extra copies",
             "model-loading-ram#copy-per-process")]


def _offload_need(ctx: Context) -> str:
    """Training with ZeRO offload and the host's RAM given: what the offloaded states need per
    node, by this tool and by DeepSpeed's estimator (whose 18 bytes per parameter with
    parameters offloaded include a 1.5× buffer)."""
    if not (ctx.has_model() and "offload" in ctx.intent.slots
            and "host_ram_gb" in ctx.intent.slots):
        return ""
    try:
        result = ctx.calls.run("memory", memory_payload(ctx.intent),
                               "host RAM the offloaded states need")
    except Exception:  # a refused input: the causes alone
        return ""
    off = result.get("offload") or {}
    if "host_ram_per_node_gb" not in off:
        return ""
    text = (f"Offloaded, the states need about **{num(off['host_ram_per_node_gb'])} GB of host "
            f"RAM per node** against the {num(off['host_ram_gb'])} GB given")
    estimate = off.get("deepspeed_estimate_per_node_gb")
    if estimate:
        over = ", more than the RAM given" if estimate > off["host_ram_gb"] else ""
        text += (f"; DeepSpeed's estimator asks for {num(estimate)} GB "
                 f"({num(estimate / DEEPSPEED_BUFFER)} GB before its {DEEPSPEED_BUFFER:g}× "
                 f"buffer){over}")
    return text + "; loading the checkpoint and pinned buffers come on top."


# --- one tensor-parallel degree against another -----------------------------------------------

def _tp_compare(ctx: Context) -> list[Finding]:
    """Decode time per token at two TP degrees: the weights' read shrinks with the degree, the
    2 all-reduces per layer appear and grow with it."""
    m = TP_PAIR.search(ctx.text)
    if not m or m[1] == m[2] or not (1 <= int(m[1]) <= 64 and 1 <= int(m[2]) <= 64):
        return []
    first, second = int(m[1]), int(m[2])
    intent = ctx.intent
    if not ctx.has_model():
        intent = intent.model_copy(update={"slots": {**intent.slots, "model": DEFAULT_TP_MODEL}})
        ctx.assumptions.append(f"model not named: sized with {DEFAULT_TP_MODEL}")

    model_row = catalog().models.rows.get(intent.slots.get("model", ""))
    row = ctx.gpu_row()
    if model_row is None or row is None or not row.memory_bandwidth_tb_s:
        return []
    weights = float(ctx.calls.run("memory", {**model_fields(intent), "workload": "inference"},
                                  "the weights read for every token")["breakdown_gb"]["weights"])
    bandwidth = float(row.memory_bandwidth_tb_s) * 1000  # GB/s
    times = {}
    for tp in (first, second):
        read = weights / (tp * bandwidth)
        comm = 0.0
        if tp > 1:
            one = ctx.calls.run("interconnect", {"op": "all_reduce",
                                                 "size": f"{model_row.hidden * 2} B",
                                                 "ranks": tp, "gpu": ctx.gpu()},
                                f"one all-reduce of a token's activations at TP={tp}")
            comm = 2 * model_row.layers * float(one["time_s"])
        times[tp] = read + comm
        ctx.steps.append(Step(
            label=f"decode time per token at TP={tp}",
            formula="weights / (TP x memory bandwidth) + 2 x layers x all-reduce time",
            inputs={"weights": {"value": weights, "unit": "GB"},
                    "memory bandwidth": {"value": bandwidth, "unit": "GB/s"},
                    "all-reduce time per token": {"value": comm, "unit": "s"}},
            result={"value": times[tp] * 1000, "unit": "ms"},
            notes=["inference-roofline#decode-memory-bound", "megatron-lm-2021#tp-allreduces"]))
    expected = times[first] / times[second]
    link = str(getattr(row, "intra_link", "") or "")
    causes = [("2 all-reduces per layer for every token: at one request they are small "
               "messages whose latency does not shrink with TP",
               "nccl-tests-performance#small-sizes"),
              ("tensor parallelism all-reduces in every layer", "megatron-lm-2021#tp-allreduces")]
    if link.startswith("pcie"):
        causes.insert(0, ("no NVLink: the all-reduces cross PCIe", "pcie-bandwidth#gen4-rate"))
    if expected < 1 and SLOWER.search(ctx.text):
        causes.insert(0, (f"the calculators expect TP={first} to be faster; a slower run means "
                          f"each all-reduce costs far more than NCCL's latency model (about 1 us "
                          f"a step on PCIe, under 1 us on NVLink): launch overhead or P2P off",
                          "nccl-link-bandwidths#latency"))
    steps = ctx.of("step_time")
    measured = steps[0].value / steps[1].value if len(steps) >= 2 else None
    return [Finding(f"decode time per token at TP={first} relative to TP={second} "
                    f"({model_row.name}, {ctx.gpu()}, one request)", expected, measured, "x",
                    causes, "inference-roofline#decode-memory-bound", lower_is_better=True)]
