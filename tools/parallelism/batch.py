"""The global batch of a training search: the default that scales with the cluster, and a
nearby workable batch when no layout can split the one asked."""

from __future__ import annotations

from clusterplan.tools.parallelism.cluster import Cluster, JobContext
from clusterplan.tools.parallelism.input import ParallelismInput
from clusterplan.tools.parallelism.layout_search import (
    BATCH_SPLIT,
    Rejections,
    SearchSpace,
    shapes,
)
from clusterplan.tools.parallelism.training_plans import TrainingSearch, run_search

DEFAULT_BATCH_TOKENS = 4 * 1024 * 1024  # mfu-calibration#llama3-batch: 4M tokens per step
BATCH_TOKENS_PER_GPU = 2048  # mfu-calibration#batch-scaling-rule
MAX_DEFAULT_BATCH_TOKENS = 16 * 1024 * 1024  # mfu-calibration#llama3-table4-batch: 16M tokens
BATCH_LEEWAY = 0.05  # a replacement batch within 5% of the one asked (stated in the warning)


def default_batch_tokens(gpus: int) -> int:
    """Tokens per step when none is given: 2,048 per GPU, at least 4M and at most 16M.

    Published runs grow the batch with the cluster so that every data-parallel replica keeps
    enough micro-batches to fill its pipeline: Llama 3 405B started at 4M tokens and trained
    at 16M on 8,192 and 16,384 GPUs (2,048 tokens a GPU on 8,192).
    """
    return min(MAX_DEFAULT_BATCH_TOKENS, max(DEFAULT_BATCH_TOKENS, BATCH_TOKENS_PER_GPU * gpus))


def global_batch(inp: ParallelismInput, seq_len: int, said: list[str], warn: list[str],
                 gpus: int = 1) -> int:
    """Sequences per optimizer step: given, from tokens, or scaled with the cluster (stated)."""
    if inp.global_batch:
        return inp.global_batch
    default = default_batch_tokens(gpus)
    tokens = inp.global_batch_tokens or default
    batch = max(1, round(tokens / seq_len))
    if inp.global_batch_tokens is None:
        said.append(f"global batch: {default:,} tokens = {batch:,} sequences of {seq_len:,} "
                    f"(2,048 tokens a GPU between Llama 3's 4M-token start and its 16M)")
    elif batch * seq_len != tokens:
        warn.append(f"global_batch_tokens {tokens:,} is not a multiple of seq_len {seq_len:,}; "
                    f"using {batch:,} sequences ({batch * seq_len:,} tokens)")
    return batch


def nearest_batches(space: SearchSpace) -> list[int]:
    """Global batches near the space's own that some (dp, micro-batch) of its shapes divides,
    nearest first (ties: the smaller), the space's own batch excluded."""
    batch = space.global_batch
    units = {dp * mb for _, _, dp, _ in shapes(space, Rejections()) for mb in space.micro_batches}
    near = {m for u in units for m in (batch // u * u, -(-batch // u) * u) if m > 0}
    near.discard(batch)
    return sorted(near, key=lambda m: (abs(m - batch), m))


def search_workable(inp: ParallelismInput, cluster: Cluster, ctx: JobContext, batch: int,
                    seq_len: int, warn: list[str], tries: int = 8) -> tuple[TrainingSearch, int]:
    """The search at the given batch; when no layout can split it, at a nearby batch that one
    can (said in a warning), so the answer is a plan rather than "no layout".

    Of the workable batches within 5% of the one asked, the one that trains fastest (tokens per
    second of its best plan) is taken: 1,953 sequences become 2,048 (4.9% more, every power
    of two of data parallelism) rather than 1,952 (= 32 x 61, data parallelism 32 at most).
    Without one that close, the nearest workable batch.
    """
    found = run_search(inp, cluster, ctx, batch, seq_len)
    if found.ranked or BATCH_SPLIT not in found.outcome.rejected.counts:
        return found, batch
    tried: list[tuple[int, TrainingSearch]] = []
    for other in nearest_batches(found.space)[:tries]:
        if tried and abs(other - batch) > BATCH_LEEWAY * batch:
            break
        retry = run_search(inp, cluster, ctx, other, seq_len)
        if retry.ranked:
            tried.append((other, retry))
    if not tried:
        return found, batch
    other, best = max(tried, key=lambda t: t[1].ranked[0].score.tokens_per_s)
    warn.append(f"global batch: {batch:,} sequences does not split over any layout (dp x "
                f"micro-batch must divide it); using {other:,} ({other * seq_len:,} tokens), "
                f"the workable batch within {BATCH_LEEWAY:.0%} that trains fastest")
    return best, other
