"""Which layout a request means: the degrees given, or filled in from the GPU count."""

from __future__ import annotations

from collections.abc import Callable

from clusterplan.tools.contract import ToolError
from clusterplan.tools.memory.input import MemoryInput
from clusterplan.tools.memory.job import Job, Layout, tp_problem

DEFAULT_NODE_GPUS = 8


def resolve_layout(inp: MemoryInput, job: Job, node_gpus: int, said: list[str],
                   holds: Callable[[Layout], bool] | None = None) -> Layout:
    """The layout given, or filled in: training spreads data over the GPUs; inference splits
    the model over them (tensor parallel within a node, pipeline across nodes). `holds` says
    whether a layout fits the GPU, to size a replica when the GPUs make many."""
    tp, pp, ep, given_dp, gpus = inp.tp, inp.pp, inp.ep, inp.dp, inp.gpus
    ep, dp = ep or 1, given_dp
    if gpus and not job.training and tp is None and pp is None and dp is None:
        tp = _widest_tp(job, gpus, node_gpus)
        pp = gpus // tp
        if pp > job.shape.layers and gpus % tp == 0:
            # more pipeline stages than layers cannot be one replica: "serve on 1,000,000
            # H100" means many replicas, each split tp-wide within a node and over as few
            # nodes (pipeline stages) as hold it
            stages = _fewest_stages(job, gpus // tp, tp, ep, holds)
            said.append(f"layout: {gpus} GPUs are more than one replica of "
                        f"{job.shape.layers} layers can be split over; each replica is tp={tp} "
                        f"within a node" + (f" and pp={stages} across nodes" if stages > 1
                                            else "") +
                        f", and the GPUs hold {gpus // (tp * stages)} replicas")
            return Layout(dp=gpus // (tp * stages), tp=tp, pp=stages, ep=ep)
        said.append(_said("layout: the {} GPUs hold one model replica, tp={} within a node and "
                          "pp={}", gpus, tp, pp))
        return Layout(dp=1, tp=tp, pp=pp, ep=ep)
    tp, pp = tp or 1, pp or 1
    if dp is None:
        if gpus is None:
            dp = ep
        elif gpus % (tp * pp):
            raise ToolError(f"gpus: {gpus} is not a multiple of tp·pp = {tp * pp}")
        else:
            dp = gpus // (tp * pp)
        if job.training and dp > 1 and given_dp is None:
            said.append(_said("dp: {} (the GPUs left after tp={} and pp={})", dp, tp, pp))
    elif gpus is not None and gpus != dp * tp * pp:
        raise ToolError(f"gpus: {gpus} differs from dp·tp·pp = {dp * tp * pp}; give "
                        "matching values or leave one out")
    return Layout(dp, tp, pp, ep)


# Lines already written, by template and numbers: finding one costs a third of formatting three
# integers again. Bounded: the numbers are the ones users ask about.
_WRITTEN: dict[tuple[str, int, int, int], str] = {}


def _said(template: str, a: int, b: int, c: int) -> str:
    """template.format(a, b, c), remembered."""
    key = (template, a, b, c)
    text = _WRITTEN.get(key)
    if text is None:
        if len(_WRITTEN) >= 4096:
            _WRITTEN.clear()
        text = _WRITTEN[key] = template.format(a, b, c)
    return text


def _fewest_stages(job: Job, groups: int, tp: int, ep: int,
                   holds: Callable[[Layout], bool] | None) -> int:
    """The fewest pipeline stages (dividing the tp-wide groups, at most the layers) at which
    one replica fits; 1 when none does or fit cannot be judged (no GPU named)."""
    if holds is None:
        return 1
    for stages in range(1, min(groups, job.shape.layers) + 1):
        if groups % stages == 0 and holds(Layout(dp=groups // stages, tp=tp, pp=stages, ep=ep)):
            return stages
    return 1


def _widest_tp(job: Job, gpus: int, node_gpus: int) -> int:
    """The largest tensor-parallel degree within a node that divides gpus and the heads."""
    for tp in range(min(gpus, node_gpus), 0, -1):
        if gpus % tp == 0 and tp_problem(job.shape, tp) is None:
            return tp
    return 1
