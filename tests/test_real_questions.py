"""Questions copied from public threads (tests/data/corpus), answered as their askers need.

Each test quotes its question and writes the expected figure by hand; the corpus test grades
all of them, these pin one behaviour per class so a regression names itself.
"""

from __future__ import annotations

import pytest

from clusterplan.assistant.respond import respond


@pytest.fixture(autouse=True)
def _store(memory_store):
    """Every test here answers from a fresh in-memory catalog."""


# --- layout with no model: the split the cluster's links dictate ------------------------

def test_two_nodes_of_two_gpus_split_tp_inside_pp_across():
    # vllm-7837: 2 nodes x 2 V100: TP = the 2 GPUs of a node, PP = the 2 nodes.
    answer = respond("I have 2 nodes and each of them has 2 v100. According to the guide, i can "
                     "use tensor parallel in each node and crossing the 2 nodes i can use "
                     "pipline parallel. My question is which card or cards will communicate "
                     "with the other card or cards in the other node.")
    assert answer.clarification is None and answer.intent.kind == "layout"
    assert "**TP 2 × PP 2**" in answer.markdown
    assert "megatron-lm-2021" in {c.id for c in answer.citations}


def test_sixteen_gpus_on_two_machines_are_tp_8_by_pp_2():
    # xinference-issue-3163: two machines of 8 GPUs each: TP 8 inside, PP 2 across; 8 x 2 = 16.
    answer = respond("秦总，如果需要用vllm在2台各8卡的机器上部署多机多卡的话，按照您的方法，GPU count per "
                     "worker目前还无法设置成16，worker count如果设置成1也无法启动多台机器，请问这个是要修改代码吗")
    assert answer.intent.kind == "layout" and "**TP 8 × PP 2**" in answer.markdown


def test_a_strategy_choice_on_a_named_cluster_is_a_layout_not_a_price():
    # megatron-258: "30% speed up" is a measurement, not a utilisation to price.
    answer = respond("Hello, I have compared the training speed between tensor parallel and "
                     "pipeline parallel in Megatron with a DGX A100 node. I find that when the "
                     "micro-batch-size and gradient accumulation steps are big enough, pure "
                     "pipeline parallism runs faster than pure tensor parallelism, with over 30% "
                     "speed up.")
    assert answer.intent.kind == "layout"


def test_strategies_named_with_no_job_or_cluster_stay_a_concept():
    assert respond("Tensor Parallelism vs Data Parallelism").intent.kind == "concept"


# --- totals people quote ---------------------------------------------------------------

def test_an_oom_on_four_a100_states_the_16_bytes_per_parameter_total():
    # llamafactory-5553 "A100 80G *4 sft full ... 72B OOM": 72e9 x 16 B = 1152 GB of model
    # states against 4 x 85.9 GB (the A100 80GB's 80 GiB) = 343.6 GB of GPU memory.
    answer = respond("A100 80G *4 sft full 72B OOM")
    memory = answer.data["memory"]
    assert memory["whole_model_gb"]["model_states"] == pytest.approx(1152.0, abs=0.01)
    assert memory["cluster_memory_gb"] == pytest.approx(4 * 85.899, abs=0.05)


# --- several models in one question ------------------------------------------------------

def test_seven_thirteen_and_seventy_b_are_each_sized():
    # vllm-802: Llama 2 7B has 6.74e9 parameters and 13B 13.0e9 (Meta's configs): at 2 bytes
    # each their FP16 weights are 13.48 GB and 26.0 GB; 70B (68.98e9) is 138 GB.
    answer = respond("Hello, somebody please help me find suitable gpu vram for 7, 13, 70b "
                     "models for llama 2 in vllm.")
    assert answer.intent.slots["model_list"] == [
        {"model": "llama-2-7b"}, {"model": "llama-2-13b"}, {"model": "llama-2-70b"}]
    table = answer.markdown.split("\n\n")[1]
    assert "| Llama 2 7B | 6.74 | 13.5 |" in table and "| Llama 2 13B | 13.0 | 26.0 |" in table
    assert "| Llama 2 70B | 69.0 | 138 |" in table


def test_a_size_after_a_named_model_is_that_familys_model():
    # vllm-8188: "Llama 3.1 70B and 405B": the 405B is Llama 3.1 405B (405e9 x 2 B = 810 GB,
    # the catalog's 405.85e9 x 2 = 811.7 GB), not dropped.
    answer = respond("I want to run Llama 3.1 70B and 405B with 120K context length. How much "
                     "memory do I need?")
    listed = answer.intent.slots["model_list"]
    assert {"model": "llama-3.1-405b"} in listed
    assert "Llama 3.1 405B" in answer.markdown


def test_a_token_count_is_not_a_model_size():
    answer = respond("How long to train a 7B model on 300B tokens on 64 H100?")
    assert "model_list" not in answer.intent.slots
