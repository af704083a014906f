"""A measurement stated in a question calibrates the rest of the session, said as carried."""

from __future__ import annotations

import pytest

from clusterplan.assistant.parsing.calibration import read
from clusterplan.assistant.sessions.session import Assistant

TRAIN = "how long to train llama 3 8b on 1T tokens on 64 H100"


def _search(answer) -> dict:
    return next(v for k, v in answer.data.items() if k.startswith("parallelism"))


@pytest.mark.parametrize(("text", "fields"), [
    ("we measure 150 TFLOP/s per A100", {"measured_tflops_per_gpu": 150.0}),
    ("a step takes 4.2 s on 64 H100", {"measured_step_s": 4.2}),
    ("our run does 2.5 s per step on Llama 3 8B", {"measured_step_s": 2.5}),
    ("each step took 850 ms", {"measured_step_s": 0.85}),
    ("how many TFLOP/s does an H100 reach?", {}),  # asks, states nothing
    ("H100 has 989 TFLOPS", {}),  # a datasheet figure, not a measurement
    ("can we get 400 TFLOP/s per H100 with FP8?", {}),  # hoped for
    ("we get 150 TFLOP/s on A100, is that expected?", {"measured_tflops_per_gpu": 150.0}),
])
def test_a_stated_measurement_is_read_with_its_unit(text, fields):
    assert read(text) == fields


def test_a_step_measured_twice_the_model_doubles_the_training_time_for_the_session(
        memory_store):
    assistant = Assistant(memory_store)
    before = assistant.ask(TRAIN)
    predicted = _search(before)["plans"][0]["step_time_s"]
    measured = assistant.ask(f"a step takes {2 * predicted:.6g} s on 64 H100 for llama 3 8b")
    assert any("calibration kept for this session" in a for a in measured.assumptions)
    after = assistant.ask(TRAIN)
    # Same cluster, same best layout, every step twice as long: 2x the days (the measured
    # figure was written to 6 significant digits).
    assert _search(after)["training_days"] == pytest.approx(
        2 * _search(before)["training_days"], rel=1e-5)
    assert any(r.startswith("carried from earlier in this session") for r in
               after.intent.readings)
    assert any("from an earlier measurement" in a for a in after.assumptions)


def test_measured_tflops_carry_to_later_questions_on_that_gpu_only(memory_store):
    assistant = Assistant(memory_store)
    assistant.ask("we measure 150 TFLOP/s per A100")
    on_a100 = assistant.ask("how long to train llama 3 8b on 1T tokens on 64 A100")
    assert _search(on_a100)["plans"][0]["tflops_per_gpu"] == pytest.approx(150, rel=1e-6)
    on_h100 = assistant.ask(TRAIN)
    assert _search(on_h100)["efficiency_scale"] == 1.0
    assert any(r.startswith("not carried") for r in on_h100.intent.readings)
    assistant.reset()
    again = assistant.ask("how long to train llama 3 8b on 1T tokens on 64 A100")
    assert _search(again)["efficiency_scale"] == 1.0


def test_a_figure_above_the_gpus_peak_is_not_kept(memory_store):
    # A100 SXM: 312 dense BF16 TFLOP/s (datasheet), no FP8; 2,000 cannot have been measured.
    assistant = Assistant(memory_store)
    assistant.ask("we measure 2000 TFLOP/s per A100")
    assert assistant.calibration is None
