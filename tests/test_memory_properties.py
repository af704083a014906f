"""Properties of the memory tool that hold for every input (hypothesis).

More work never needs less memory; more sharding never needs more memory per GPU.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from clusterplan.db.active import use_store
from clusterplan.db.store import Store
from clusterplan.tools.registry import invoke

MODELS = st.sampled_from(["llama-3-8b", "llama-3-70b", "mixtral-8x7b", "qwen2.5-7b",
                          "deepseek-v3", "gpt-3-175b"])
TRAINING = st.sampled_from(["pretrain", "full_finetune", "lora", "qlora"])
_store: list[Store] = []


def per_gpu(**payload) -> float:
    """Per-GPU GB through the registry, as the assistant calls it."""
    if not _store:
        _store.append(Store.memory())
    use_store(_store[0])
    return float(invoke("memory", payload).model_dump()["per_gpu_gb"])


@settings(max_examples=60, deadline=None)
@given(model=MODELS, batch=st.integers(1, 512), more=st.integers(1, 512),
       context=st.integers(1, 131072))
def test_inference_never_needs_less_for_a_bigger_batch(model, batch, more, context):
    small = per_gpu(model=model, workload="inference", batch=batch, context_len=context)
    big = per_gpu(model=model, workload="inference", batch=batch + more, context_len=context)
    assert big >= small


@settings(max_examples=60, deadline=None)
@given(model=MODELS, context=st.integers(1, 65536), more=st.integers(1, 65536),
       batch=st.integers(1, 64))
def test_inference_never_needs_less_for_a_longer_context(model, context, more, batch):
    short = per_gpu(model=model, workload="inference", batch=batch, context_len=context)
    long = per_gpu(model=model, workload="inference", batch=batch, context_len=context + more)
    assert long >= short


@settings(max_examples=60, deadline=None)
@given(model=MODELS, workload=TRAINING, seq=st.integers(1, 32768), more=st.integers(1, 32768),
       recompute=st.sampled_from(["none", "selective", "full"]), flash=st.booleans())
def test_training_never_needs_less_for_longer_sequences(model, workload, seq, more, recompute,
                                                        flash):
    common = dict(model=model, workload=workload, recompute=recompute, flash_attention=flash)
    assert per_gpu(**common, seq_len=seq + more) >= per_gpu(**common, seq_len=seq)


@settings(max_examples=60, deadline=None)
@given(model=MODELS, workload=TRAINING, stage=st.integers(0, 2),
       dp=st.sampled_from([1, 2, 8, 64, 512]),
       optimizer=st.sampled_from(["adamw", "adamw_8bit", "sgd_momentum", "adafactor", "lion"]))
def test_a_higher_zero_stage_never_needs_more_per_gpu(model, workload, stage, dp, optimizer):
    common = dict(model=model, workload=workload, dp=dp, optimizer=optimizer)
    assert per_gpu(**common, zero_stage=stage + 1) <= per_gpu(**common, zero_stage=stage)


@settings(max_examples=60, deadline=None)
@given(model=st.sampled_from(["llama-3-8b", "llama-3-70b", "mixtral-8x7b", "gpt-3-175b"]),
       workload=st.sampled_from(["pretrain", "full_finetune", "lora", "qlora", "inference"]),
       tp_steps=st.tuples(st.integers(0, 2), st.integers(1, 3)), sp=st.booleans(),
       recompute=st.sampled_from(["none", "selective", "full"]), dp=st.sampled_from([1, 4]))
def test_more_tensor_parallelism_never_needs_more_per_gpu(model, workload, tp_steps, sp,
                                                         recompute, dp):
    # tp in 1, 2, 4, 8: each divides the heads and KV heads of these models.
    low, extra = tp_steps
    tp_small, tp_big = 2 ** low, 2 ** min(3, low + extra)
    common = dict(model=model, workload=workload, dp=dp)
    if workload != "inference":
        common |= dict(sequence_parallel=sp, recompute=recompute)
    assert per_gpu(**common, tp=tp_big) <= per_gpu(**common, tp=tp_small)
