"""A model served as released keeps its checkpoint's precision unless the user names one.

DeepSeek-R1 is published in FP8 (one byte per weight): 671e9 parameters take 671 GB, not the
1,342 GB a BF16 default would claim. gpt-oss-120b is published with MXFP4 experts: OpenAI's
model card gives a 60.8 GiB checkpoint = 60.8 x 2^30 B = 65.3 GB.
"""

from __future__ import annotations

import pytest

from clusterplan.assistant.respond import respond
from clusterplan.tools.registry import invoke


def weights_gb(model: str, **extra: object) -> float:
    result = invoke("memory", {"model": model, "workload": "inference", **extra}).model_dump()
    return float(result["breakdown_gb"]["weights"])


def test_deepseek_r1_is_counted_in_fp8_by_default(memory_store):
    assert weights_gb("deepseek-r1") == pytest.approx(671e9 * 1 / 1e9, rel=0.001)


def test_a_named_precision_still_wins(memory_store):
    assert weights_gb("deepseek-r1", precision="bf16") == pytest.approx(671e9 * 2 / 1e9,
                                                                        rel=0.001)


def test_gpt_oss_120b_matches_its_published_checkpoint(memory_store):
    assert weights_gb("gpt-oss-120b") == pytest.approx(60.8 * 2**30 / 1e9, rel=0.02)


def test_the_assistant_says_the_precision_came_from_the_release(memory_store):
    answer = respond("我想问本地部署deepseek-r1:671b，大概需要多少算力？")
    assert "FP8" in answer.markdown
    # The weights are sized at the release's FP8 (671e9 x 1 B = 671 GB); BF16's 1342 GB
    # appears only among the weights at each common precision, as a comparison.
    memory = answer.data["memory"]
    assert memory["breakdown_gb"]["weights"] == pytest.approx(671.0, rel=0.001)
    assert memory["whole_model_gb"]["weights"] == pytest.approx(671.0, rel=0.001)
    assert memory["per_gpu_gb"] < 1342
