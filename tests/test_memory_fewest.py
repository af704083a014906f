"""`min_gpus` against a brute-force search through the per-GPU accounting, training and serving.

For every GPU kind of the catalog, the answer must be the fewest GPUs of any layout the contract
allows (tp a power of two within a node that splits the heads, pp a power of two up to the layer
count, dp = ep·2^k) whose busiest GPU, counted term by term, fits the GPU's memory; for training
beyond one node, then the fewest whole nodes between the power of two below that answer and it,
with any pp that divides the GPUs left by tp. The brute force tries each layout with growing dp
(serving: dp = ep, as nothing shrinks with more replicas); it shares no code with the search but
the per-GPU sum.
"""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from clusterplan.db.active import catalog, use_store
from clusterplan.db.store import Store
from clusterplan.tools.memory.job import Layout, tp_problem
from clusterplan.tools.memory.terms import per_gpu
from clusterplan.tools.memory.tool import MemoryInput, prepare
from clusterplan.tools.registry import invoke

MAX_GPUS = 1 << 20  # the search's limit (memory_fewest_tables.MAX_GPUS)
_store: list[Store] = []


def _powers(limit: int) -> list[int]:
    return [1 << k for k in range(limit.bit_length()) if 1 << k <= limit]


def brute_force(job, ep: int, node: int, memory_bytes: float) -> tuple[int | None, float]:
    """(fewest GPUs, closest any tried layout came to the memory, relative)."""
    best, closest = None, float("inf")
    for tp in (t for t in _powers(node) if tp_problem(job.shape, t) is None):
        # serving splits layers over any number of whole nodes at a node-wide tp (vLLM)
        whole_nodes = not job.training and tp == node
        for pp in range(1, job.shape.layers + 1) if whole_nodes else _powers(job.shape.layers):
            dp = ep
            # serving: one dp only, as the search never goes past MAX_GPUS either
            limit = MAX_GPUS if job.training else min(MAX_GPUS, tp * pp * ep)
            while tp * pp * dp <= limit and (best is None or tp * pp * dp < best):
                total = per_gpu(job, Layout(dp=dp, tp=tp, pp=pp, ep=ep)).total
                closest = min(closest, abs(total - memory_bytes) / memory_bytes)
                if total <= memory_bytes:
                    best = tp * pp * dp
                    break
                dp *= 2
    if job.training and best is not None and best > node:
        for nodes in range(best // 2 // node + 1, -(-best // node)):
            gpus, fits = nodes * node, False
            for tp in (t for t in _powers(node) if tp_problem(job.shape, t) is None):
                for pp in range(1, job.shape.layers + 1):
                    if gpus % (tp * pp) or (gpus // (tp * pp)) % ep:
                        continue
                    total = per_gpu(job, Layout(dp=gpus // (tp * pp), tp=tp, pp=pp, ep=ep)).total
                    closest = min(closest, abs(total - memory_bytes) / memory_bytes)
                    fits = fits or total <= memory_bytes
            if fits:
                return gpus, closest
    return best, closest


def _active_store() -> None:
    if not _store:
        _store.append(Store.memory())
    use_store(_store[0])


@st.composite
def training_jobs(draw) -> dict:
    """A training request over the catalog's models and every setting the search weighs."""
    model = draw(st.sampled_from(["llama-3-8b", "llama-3-70b", "llama-3.1-405b", "mixtral-8x7b",
                                  "qwen2.5-7b", "deepseek-v3", "gpt-3-175b", "llama-4-scout"]))
    workload = draw(st.sampled_from(["pretrain", "full_finetune", "lora", "qlora"]))
    payload = {"model": model, "workload": workload,
               "zero_stage": draw(st.integers(0, 3)),
               "seq_len": draw(st.sampled_from([128, 2048, 4096, 8192, 32768])),
               "micro_batch": draw(st.integers(1, 8)),
               "recompute": draw(st.sampled_from(["none", "selective", "full"])),
               "sequence_parallel": draw(st.booleans()),
               "flash_attention": draw(st.booleans()),
               "optimizer": draw(st.sampled_from(["adamw", "adamw_8bit", "sgd_momentum", "lion"]))}
    if workload != "qlora":
        payload["precision"] = draw(st.sampled_from(["bf16", "fp32"]))
    if draw(st.booleans()):
        payload["microbatches_in_flight"] = draw(st.integers(1, 8))
    if model in ("mixtral-8x7b", "deepseek-v3", "llama-4-scout"):
        payload["ep"] = draw(st.sampled_from([1, 2, 4, 8]))
    return payload


@st.composite
def serving_jobs(draw) -> dict:
    """An inference request over models with every kind of attention the KV share knows: GQA
    with few and many KV heads, MHA (GPT-3), MLA (DeepSeek-V3), and MoE with expert parallelism."""
    model = draw(st.sampled_from(["llama-3-8b", "llama-3-70b", "llama-3.1-405b", "qwen2.5-7b",
                                  "gpt-3-175b", "deepseek-v3", "mixtral-8x7b",
                                  "llama-4-maverick"]))
    payload = {"model": model, "workload": "inference",
               "batch": draw(st.integers(1, 512)),
               "context_len": draw(st.integers(1, 1 << 20)),
               "precision": draw(st.sampled_from(["fp32", "bf16", "fp8", "int4"])),
               "paging": draw(st.booleans()),
               "flash_attention": draw(st.booleans())}
    if draw(st.booleans()):
        payload["kv_precision"] = draw(st.sampled_from(["fp32", "bf16", "fp8"]))
    if model in ("mixtral-8x7b", "deepseek-v3", "llama-4-maverick"):
        payload["ep"] = draw(st.sampled_from([1, 2, 8]))
    return payload


def _assert_fewest_of_any_layout(payload: dict) -> None:
    _active_store()
    answer = invoke("memory", payload).model_dump()["min_gpus"]
    job, layout, _, _ = prepare(MemoryInput(**payload))
    seen: dict[tuple[int, float], int | None] = {}
    for gid, gpu in catalog().gpus.rows.items():
        shape = (gpu.gpus_per_node, gpu.memory_gb * 1e9)
        if shape not in seen:
            fewest, closest = brute_force(job, layout.ep, *shape)
            assume(closest > 1e-9)  # a layout within rounding of the memory could go either way
            seen[shape] = fewest
        assert answer[gid] == seen[shape], (gid, shape)


@settings(max_examples=40, deadline=None)
@given(payload=training_jobs())
def test_training_min_gpus_is_the_fewest_of_any_layout_that_fits(payload):
    _assert_fewest_of_any_layout(payload)


@settings(max_examples=60, deadline=None)
@given(payload=serving_jobs())
def test_serving_min_gpus_is_the_fewest_of_any_layout_that_fits(payload):
    _assert_fewest_of_any_layout(payload)


def test_a_job_that_fits_one_gpu_needs_one():
    # Llama 3 8B LoRA, default settings (Meta's config: 8.03B parameters, 32 layers, hidden
    # 4096): frozen BF16 weights 8.03e9 x 2 = 16.1 GB; activations without recompute, with
    # FlashAttention, 4096 x 1 x 4096 x (10 + 24) bytes a layer x 32 layers = 18.3 GB; rank-16
    # adapters well under 1 GB with their AdamW states. About 35 GB, plus 0.5 GB and 5%
    # overhead, fits one H100 (81,559 MiB = 85.52 GB), so 1 is the fewest.
    _active_store()
    answer = invoke("memory", {"model": "llama-3-8b", "workload": "lora"}).model_dump()
    assert answer["min_gpus"]["h100-sxm"] == 1


def test_fewest_gpus_of_a_multi_node_job_are_whole_nodes():
    # BLOOM-176B full fine-tuning (70 layers, hidden 14,336), memory-tool defaults: at tp 8 and
    # dp 7 over 56 H100 (7 nodes), ZeRO-3 (the default with dp > 1) leaves 176.25e9/56 = 3.147e9
    # parameters x 16 bytes = 50.4 GB a GPU, plus 26.7 GB of activations: it fits the 85.52 GB
    # an H100 has; 48 GPUs do not. A power-of-two count jumped from 32 to 64; whole nodes stop
    # at 7. The answer's own per-GPU figure for that layout agrees. (tp 8, pp 7 no longer fits:
    # its first stage holds the 250,880 x 14,336 = 3.6e9-parameter embedding whole.)
    _active_store()
    answer = invoke("memory", {"model": "bloom-176b", "workload": "full_finetune"}).model_dump()
    assert answer["min_gpus"]["h100-sxm"] == 56
    at_56 = invoke("memory", {"model": "bloom-176b", "workload": "full_finetune", "gpu": "h100",
                              "tp": 8, "pp": 1, "dp": 7}).model_dump()
    assert at_56["fits"] is True
    at_48 = invoke("memory", {"model": "bloom-176b", "workload": "full_finetune", "gpu": "h100",
                              "tp": 8, "pp": 6, "dp": 1}).model_dump()
    assert at_48["fits"] is False


def test_serving_fills_whole_nodes_not_powers_of_two():
    # Llama 3.1 70B in BF16 for 50 sequences of 4,096 tokens on 4-GPU RTX 4090 nodes: 141.1 GB
    # of weights + 50 x 4,096 x 327,680 B = 67.1 GB of KV cache = 208.2 GB. Two nodes (8 GPUs)
    # give 26.0 GB a GPU before any overhead, more than the 4090's 25.76 GB; three nodes (TP 4,
    # PP 3, 27 layers on the busiest stage) give about 19 GB: 12 GPUs, not the 16 a
    # power-of-two pipeline would take.
    _active_store()
    payload = {"model": "llama-3.1-70b", "workload": "inference", "batch": 50,
               "context_len": 4096, "precision": "bf16"}
    assert (141.1e9 + 50 * 4096 * 327_680) / 8 > 25_757_220_864
    assert invoke("memory", payload).model_dump()["min_gpus"]["rtx-4090"] == 12


def test_a_job_no_count_of_a_gpu_holds_is_said_plainly(memory_store):
    # Llama 3 70B fully fine-tuned on 131,072-token sequences: the activations of one sequence
    # do not shard with ZeRO, and a 12 GB RTX 3060 cannot hold them at any count.
    from clusterplan.assistant.respond import respond

    answer = respond("how many RTX 3060 to fully fine-tune llama-3-70b with 128k sequences?")
    assert "does not fit on any number of NVIDIA GeForce RTX 3060 12GB" in answer.markdown
    assert "needs at least no number" not in answer.markdown
    assert "More GPUs shorten the run" not in answer.markdown
