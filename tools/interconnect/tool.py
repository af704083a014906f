"""Tool `interconnect`: collective and transfer times, unit conversions and link comparisons.

Gb/s is not GB/s and both-directions is not one direction: every rate here is decimal GB/s
one way, read from the link catalog, and every size goes through pint at the boundary.
"""

from __future__ import annotations

from clusterplan.tools.citing import cite
from clusterplan.tools.interconnect import ops
from clusterplan.tools.interconnect.input import InterconnectInput
from clusterplan.tools.interconnect.result import InterconnectResult
from clusterplan.tools.registry import Tool


def run(inp: InterconnectInput) -> InterconnectResult:
    """Answer one interconnect question, with its steps and citations."""

    handler = {"convert": ops.convert, "compare": ops.compare, "transfer": ops.transfer}.get(
        inp.op, ops.collective)
    return cite(handler(inp))


TOOL = Tool(
    name="interconnect",
    description=("Link maths with units: time, algbw and busbw of all-reduce, all-gather, "
                 "reduce-scatter, all-to-all, broadcast and send/recv on ring, tree or "
                 "hierarchical layouts; bulk transfers (checkpoints, data sets); unit "
                 "conversion (Gb/s vs GB/s); per-direction comparison of two links."),
    input_model=InterconnectInput,
    output_model=InterconnectResult,
    run=run,
)
