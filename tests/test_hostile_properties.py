"""Property checks over hostile input (issue 23), on a bounded budget: questions of any text
and tool inputs of any shape get an answer or a one-line refusal, quickly, with no inf, nan
or traceback, and every answer serialises to JSON."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clusterplan.tools.contract import ToolError

BUDGET = settings(max_examples=60, deadline=2000, derandomize=True,
                  suppress_health_check=[HealthCheck.function_scoped_fixture,
                                         HealthCheck.too_slow])

HOSTILE_NUMBERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True), st.integers(min_value=-10**400,
                                                                max_value=10**400),
    st.sampled_from(["9**9**9", "1e999", "nan", "inf", "-1", "0", "9" * 400]))
WORDS = st.sampled_from(["H100", "llama 3 70b", "GB", "Gb/s", "cheapest", "serve", "train",
                         "tokens", "$", "month", "fp8", "convert", "to", "on", "and", "TP=",
                         "\u2028", "\x0c", "\x00", "\ud800", "**", "1e308", "9" * 60])
QUESTIONS = st.one_of(st.text(max_size=200),
                      st.lists(st.one_of(WORDS, HOSTILE_NUMBERS.map(str)), max_size=12)
                      .map(" ".join))


def _finite(value) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True


@BUDGET
@given(question=QUESTIONS)
def test_any_question_gets_a_serialisable_finite_answer(question, memory_store):
    from clusterplan.assistant.respond import respond

    answer = respond(question)
    dumped = answer.model_dump(mode="json")
    assert _finite(dumped)
    json.dumps(dumped)
    assert "Traceback" not in (answer.error or "")
    for text in (answer.markdown, answer.error or ""):
        assert " nan " not in f" {text.lower()} " and " inf " not in f" {text.lower()} "


@pytest.mark.parametrize("tool", ["memory", "interconnect", "parallelism", "pricing"])
def test_any_tool_input_is_a_result_or_a_tool_error(tool, memory_store):
    from clusterplan.tools.registry import get, invoke

    fields = list(get(tool).input_model.model_fields)
    values = st.one_of(HOSTILE_NUMBERS, st.text(max_size=30), st.booleans(), st.none(),
                       st.lists(st.integers(), max_size=3))

    @BUDGET
    @given(payload=st.dictionaries(st.sampled_from(fields), values, max_size=6))
    def check(payload):
        try:
            result = invoke(tool, payload)
        except ToolError:
            return
        dumped = result.model_dump(mode="json")
        assert _finite(dumped)
        json.dumps(dumped)

    check()
