"""Conceptual questions ("what is pipeline parallelism?") answered from the notes, quoted."""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.composing.markdown import num
from clusterplan.assistant.notes.concepts import explain
from clusterplan.assistant.parsing.jobs import gpu_name
from clusterplan.assistant.parsing.lazy_re import lazy
from clusterplan.assistant.routing.dispatch import Calls, Reply, slot
from clusterplan.tools.contract import Step, q


def concept(intent: Intent, calls: Calls) -> Reply:
    """The best notes' claims for the question, each cited (disputes shown by the notes)."""
    question = str(intent.slots.get("question") or intent.slots.get("query") or "")
    found = _explained(question)
    reply = Reply(headline=found.markdown, steps=list(found.steps), citations=found.citations)
    if BUS_WORDS.search(question):
        example = _bus_example(intent, calls)
        lead, _, rest = reply.headline.partition("\n\n")  # after the answer, before the notes
        reply.headline = lead + " " + example[0] + (f"\n\n{rest}" if rest else "")
        reply.steps.append(example[1])
    degrees = intent.slots.get("degrees")
    if isinstance(degrees, dict) and len(degrees) >= 2:
        product = math.prod(int(v) for v in degrees.values())
        said = " × ".join(f"{k} {v}" for k, v in degrees.items())
        reply.headline = (f"The degrees named multiply to the GPU count: {said} = **{product} "
                          f"GPUs**, in whatever order they are listed. " + reply.headline)
        reply.steps.insert(0, Step(label="GPUs the parallel degrees need",
                                   formula="product of the degrees",
                                   inputs={k: q(v) for k, v in degrees.items()},
                                   result=q(product, "GPUs"),
                                   notes=["megatron-lm-2021#degrees-multiply"]))
    return reply


# "algbw", "busbw", "bus bandwidth": nccl-tests' two figures, best shown on a run
BUS_WORDS = lazy(r"\balgbw\b|\bbusbw\b|\bbus\s+bandwidth\b|\balgorithm\s+bandwidth\b",
                 re.IGNORECASE)
EXAMPLE_RANKS, EXAMPLE_SIZE = 8, "1 GB"


def _bus_example(intent: Intent, calls: Calls) -> tuple[str, Step]:
    """A worked all-reduce on the question's GPU (an H100 node when none is named): its time,
    algbw = S / t, and busbw = algbw × 2(n-1)/n, the figure set against the link."""
    gpu = str(slot(intent, "gpu") or "h100-sxm")
    run = calls.run("interconnect", {"op": "all_reduce", "size": EXAMPLE_SIZE,
                                     "ranks": EXAMPLE_RANKS, "gpu": gpu},
                    "a worked all-reduce for algbw and busbw")
    said = (f"For example, an all-reduce of {EXAMPLE_SIZE} over {EXAMPLE_RANKS} "
            f"{gpu_name(gpu)} takes about {num(run['time_s'] * 1e3)} ms: algbw = "
            f"{EXAMPLE_SIZE} / t = **{num(run['algbw_gbps'])} GB/s**; the factor at "
            f"{EXAMPLE_RANKS} ranks is 2 × {EXAMPLE_RANKS - 1}/{EXAMPLE_RANKS} = "
            f"**{num(run['bus_factor'])}**, so busbw = "
            f"**{num(run['busbw_gbps'])} GB/s**, the figure to set against the "
            f"{run['bottleneck']} link (at 2 ranks the factor is 1, at 4 ranks 1.5).")
    step = Step(label="worked example: algbw and busbw of an all-reduce",
                formula="algbw = S / t; busbw = algbw × 2(n-1)/n",
                inputs={"size": q(1.0, "GB"), "ranks": q(EXAMPLE_RANKS),
                        "time": q(run["time_s"], "s")},
                result=q(round(run["busbw_gbps"], 1), "GB/s"),
                notes=["nccl-tests-performance#algbw", "nccl-tests-performance#factors"])
    return said, step


@lru_cache(maxsize=256)
def _explained(question: str) -> Any:
    """The notes' answer to one question (the shipped notes do not change while running)."""

    return explain(question)
