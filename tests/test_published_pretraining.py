"""Pretraining a published model: its own token count, and its own GPU-hours set beside the
estimate. The figures come from the model cards and reports the pretraining-tokens note cites."""

from __future__ import annotations

import pytest

from clusterplan.assistant.respond import respond


@pytest.fixture(autouse=True)
def _store(memory_store):
    yield


def test_how_long_to_pretrain_a_named_model_is_its_published_run():
    # "how long to pretrain" is a time question (it was read as a fit), and Llama 3 8B's budget
    # is its published 15T tokens, not 20 x 8.03B = 160.6B.
    answer = respond("how long to pretrain llama 3 8b on 256 H100?")
    assert answer.intent.kind == "training"
    assert answer.intent.assumed["tokens"] == 15e12
    assert answer.markdown.startswith("Pre-training Llama 3 8B on 15.0T tokens (Llama 3 8B's "
                                      "published pretraining count) on 256× NVIDIA H100 SXM "
                                      "80GB")
    # the model card's 1.3M H100 GPU-hours beside the estimate, as their ratio
    [step] = [s for s in answer.trace if s.label == "the published run's GPU-hours"]
    assert step.inputs["published"].value == 1.3e6
    assert step.result.value == pytest.approx(1.3e6 / step.inputs["estimate"].value, rel=1e-9)
    assert "The published run took 1,300,000 NVIDIA H100 SXM 80GB GPU-hours" in answer.markdown


def test_deepseek_v3_pretraining_on_its_own_cluster_is_within_10_percent_of_its_report():
    # DeepSeek-V3 report: 14.8T tokens on 2,048 H800s in 2.664M GPU-hours of pretraining. The
    # estimate of that run (BF16 compute assumed; the report trained in FP8 with DualPipe
    # overlapping its all-to-alls) lands within 10% of it, the tolerance of the Megatron-LM
    # Table 1 comparisons in test_parallelism.
    answer = respond("how long to pretrain deepseek v3 on 2048 H800?")
    assert answer.intent.assumed["tokens"] == 14.8e12
    [step] = [s for s in answer.trace if s.label == "the published run's GPU-hours"]
    assert step.inputs["estimate"].value == pytest.approx(2.664e6, rel=0.10)


def test_another_gpu_than_the_published_runs_is_not_compared():
    answer = respond("how long to pretrain deepseek v3 on 2048 H100?")
    assert "it ran on another GPU, so the two are not compared" in answer.markdown


def test_a_token_count_the_question_gives_is_kept():
    answer = respond("how long to pretrain llama 3 8b on 1T tokens with 256 H100?")
    assert answer.intent.slots["tokens"] == 1e12
    assert "published run" not in answer.markdown
