"""Real questions whose reading was right but whose answer lacked a figure a correct answer
contains (tests/data/corpus). Each test quotes its question, gives its address and works the
figure out by hand in a comment; the assertion checks the answer against that hand figure.
"""

from __future__ import annotations

import re

import pytest

from clusterplan.assistant.respond import respond


@pytest.fixture(autouse=True)
def _store(memory_store):
    """Every test here answers from a fresh in-memory catalog."""


def _figures(markdown: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", markdown)]


# --- a model larger than the cluster: the smallest cluster in whole usual nodes -------------

def test_a_72b_model_on_one_gpu_grows_to_a_whole_node_not_a_crash():
    # https://github.com/hiyouga/LlamaFactory/issues/4753: Qwen2-72B cannot be served on one
    # card. By hand: 72.7e9 params x 2 B = 145.4 GB of BF16 weights > one H100's 85.5 GB
    # (80 GiB), so it needs TP 2 at least; grown by whole 8-GPU nodes that is 8 GPUs.
    answer = respond("Qwen2 72B 推理无法使用多卡加载一个模型\n目前的推理只是单卡上推理，就算是在"
                     "多卡的机器上也只是不同显卡加载不同的模型。但这样对于72B模型而言，无法在单卡上"
                     "推理。有什么办法可以多卡加载同一模型来推理吗？期待您的解答！")
    assert answer.error is None
    assert "**8 GPUs** (1 node)" in answer.markdown
    assert any(abs(x - 145.4) <= 0.01 * 145.4 for x in _figures(answer.markdown))


def test_deepseek_r1_on_one_gpu_grows_to_two_nodes_with_uneven_stages():
    # https://github.com/deepseek-ai/DeepSeek-R1/issues/460: "what is the maximum context
    # length ... that a single GPU can support?" By hand: 671e9 params x 1 B (FP8) = 671 GB;
    # one 8-GPU H100 node holds 8 x 85.9 GB = 687 GB, less the 5% + 0.5 GB overhead per GPU
    # too little, so 2 nodes (16 GPUs). DeepSeek-V3's 61 layers are prime: 2 stages of 31/30.
    answer = respond("**Context Length and Throughput:** For DeepSeek-R1:671b, what is the "
                     "maximum context length and throughput that a single GPU can support?")
    assert answer.error is None
    assert "**16 GPUs** (2 nodes)" in answer.markdown
    assert "61 layers over 2 stages" in answer.markdown
    assert 671.0 in _figures(answer.markdown)
