"""The same job measured on two GPU kinds: their speed ratio against what the datasheets allow.

"3,396 tokens/s on B200 ... on H200 6,051 tokens/s": a serving run is bound by memory
bandwidth while it decodes and by the dense matmul rate while it fills prompts or runs large
batches (inference-roofline#decode-memory-bound), so the ratio of the two GPUs' bandwidths and
the ratio of their peak FLOP/s at the run's precision bracket the speed-up to expect. A
measured ratio outside both points at the software (kernels, engine version, settings), not at
the hardware.
"""

from __future__ import annotations

import re
from typing import Any

from clusterplan.assistant.composing.markdown import num
from clusterplan.assistant.parsing.measurements import Measurement
from clusterplan.assistant.routing.finding import Finding
from clusterplan.tools.contract import Step, q

# peak columns by the precision a run computes in
PEAK_BY_PRECISION = {"fp8": "fp8_tflops", "int8": "int8_tops", "fp16": "fp16_tflops"}


def _mentions(text: str, row: Any) -> list[int]:
    """Where the text names the GPU, by its catalog id or any alias."""
    names = {row.id, *str(row.aliases).split(";")}
    found: list[int] = []
    for name in filter(None, names):
        found += [m.start() for m in re.finditer(rf"(?<![\w]){re.escape(name)}(?![\w])", text,
                                                  re.IGNORECASE)]
    return sorted(found)


def _owner(text: str, rate: Measurement, rows: list[Any]) -> Any | None:
    """The GPU named last before the rate (the run it was measured on)."""
    at = text.find(rate.text)
    if at < 0:
        return None
    before = [(max((p for p in _mentions(text, r) if p < at), default=-1), r) for r in rows]
    best = max(before, key=lambda pair: pair[0])
    return best[1] if best[0] >= 0 else None


def gpu_pair(text: str, rates: list[Measurement], rows: list[Any], precision: str | None
             ) -> tuple[Finding, Step] | None:
    """Two rates, each on its own GPU kind: the first-named GPU's rate over the other's,
    against their bandwidth ratio, with the peak-FLOP/s ratio as the other bound."""
    if len(rows) != 2 or len(rates) < 2:
        return None
    owned = {}
    for rate in (r for r in rates if r.value > 0):  # a zero rate sets nothing against another
        row = _owner(text, rate, rows)
        if row is not None and row.id not in owned:
            owned[row.id] = rate
    if len(owned) != 2:
        return None
    first, second = rows
    if not (first.memory_bandwidth_tb_s and second.memory_bandwidth_tb_s):
        return None
    measured = owned[first.id].value / owned[second.id].value
    bandwidth = float(first.memory_bandwidth_tb_s) / float(second.memory_bandwidth_tb_s)
    column = PEAK_BY_PRECISION.get(precision or "", "bf16_tflops")
    peaks = (float(getattr(first, column, 0) or 0), float(getattr(second, column, 0) or 0))
    compute = peaks[0] / peaks[1] if all(peaks) else None
    step = Step(label=f"speed ratio to expect, {first.name} over {second.name}",
                formula="memory bandwidth ratio (decode); peak FLOP/s ratio (prefill, big batches)",
                inputs={f"{first.id} bandwidth": q(float(first.memory_bandwidth_tb_s), "TB/s"),
                        f"{second.id} bandwidth": q(float(second.memory_bandwidth_tb_s), "TB/s"),
                        f"{first.id} peak": q(peaks[0], "TFLOP/s"),
                        f"{second.id} peak": q(peaks[1], "TFLOP/s")},
                result=q(round(bandwidth, 3)),
                notes=["inference-roofline#decode-memory-bound", first.source_note,
                       second.source_note])
    bound = f"; {num(compute)}× by peak {column.split('_')[0].upper()} FLOP/s" if compute else ""
    scaled = owned[second.id].value * bandwidth
    causes = [(f"the datasheets give {first.name} {num(bandwidth)}× the memory bandwidth of "
               f"{second.name}{bound}: scaled by bandwidth, {num(owned[second.id].value)} "
               f"tokens/s there is about {num(scaled)} here; a run below 1× on the faster card is "
               "held back by its software (kernels not tuned for it, engine version, build "
               "settings), not its hardware", "inference-roofline#decode-memory-bound"),
              ("the two runs must match batch, prompt and output lengths and precision for the "
               "ratio to mean anything", "serving-latency#requests-per-second")]
    finding = Finding(f"tokens/s on {first.name} over {second.name} (the same run on each; "
                      "memory-bandwidth ratio)", bandwidth, measured, "x", causes,
                      "inference-roofline#decode-memory-bound")
    return finding, step
