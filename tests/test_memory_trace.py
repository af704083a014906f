"""A memory result reads the same however it is used: its steps are written on first read,
so dumping, comparing, copying and pickling must all see them."""

from __future__ import annotations

import copy
import pickle

from clusterplan.tools.memory.tool import MemoryInput, run
from clusterplan.tools.registry import invoke


def _inp() -> MemoryInput:
    return MemoryInput(model="llama-3-70b", workload="inference", gpu="h100", batch=3)


def test_dump_is_the_same_before_and_after_reading_the_steps(memory_store):
    untouched = run(_inp()).model_dump_json()
    read = run(_inp())
    labels = [s.label for s in read.steps]
    assert labels[0] == "model" and "per GPU" in labels
    assert read.model_dump_json() == untouched
    assert list(read.model_dump())[:2] == ["steps", "citations"]


def test_results_of_the_same_input_are_equal_whichever_was_read(memory_store):
    first, second = run(_inp()), run(_inp())
    assert first.citations  # written on this read
    assert first == second and second == first
    assert run(_inp()) != run(MemoryInput(model="llama-3-8b"))


def test_copies_and_pickles_carry_the_steps(memory_store):
    steps = len(run(_inp()).steps)
    assert len(copy.deepcopy(run(_inp())).steps) == steps
    assert len(copy.copy(run(_inp())).steps) == steps
    assert len(pickle.loads(pickle.dumps(run(_inp()))).steps) == steps
    assert len(run(_inp()).model_copy(update={"gpu": "h200-sxm"}).steps) == steps


def test_steps_set_by_a_caller_are_kept(memory_store):
    result = invoke("memory", {"model": "llama 3 8b"})
    result.steps = []
    assert result.model_dump()["steps"] == []
    assert result.citations  # the citations are still those of the answer's own steps
