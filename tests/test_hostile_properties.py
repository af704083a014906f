"""Property checks over hostile input (issue 23), on a bounded budget: questions of any text
and tool inputs of any shape get an answer or a one-line refusal, quickly, with no inf, nan
or traceback, and every answer serialises to JSON."""

from __future__ import annotations

import json
import math
import time

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


TOOLS = ["notes", "memory", "interconnect", "parallelism", "pricing", "plan"]


def test_every_tool_is_covered():
    from clusterplan.tools.registry import tools

    assert sorted(tools()) == sorted(TOOLS)


def _negative(value, path: str = "") -> str | None:
    """The path of the first negative number in `value`, or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return path if value < 0 else None
    items = value.items() if isinstance(value, dict) else enumerate(value) \
        if isinstance(value, list) else ()
    for key, item in items:
        found = _negative(item, f"{path}.{key}".lstrip("."))
        if found is not None:
            return found
    return None


def _checked_call(tool: str, payload) -> None:
    """One call: a result that is finite, not negative and serialisable, or a one-line
    ToolError; either within 2 s."""
    from clusterplan.tools.registry import invoke

    started = time.perf_counter()
    try:
        result = invoke(tool, payload)
    except ToolError as exc:
        assert len(str(exc).splitlines()) == 1, str(exc)
        return
    finally:
        took = time.perf_counter() - started
        assert took < 2, f"{tool} took {took:.1f} s on {payload!r}"
    dumped = result.model_dump(mode="json")
    assert _finite(dumped)
    assert _negative(dumped) is None, (_negative(dumped), payload)
    json.dumps(dumped).encode("utf-8")


@pytest.mark.parametrize("tool", TOOLS)
def test_inputs_drawn_from_the_tool_schema_are_answered_quickly_and_finitely(tool, memory_store):
    from clusterplan.tools.registry import get
    from tests.schema_inputs import tool_inputs

    schema = get(tool).input_model.model_json_schema()

    @settings(BUDGET, max_examples=40)
    @given(payload=tool_inputs(tool, schema))
    def check(payload):
        _checked_call(tool, payload)

    check()


@pytest.mark.parametrize("tool", TOOLS)
def test_any_tool_input_is_a_result_or_a_tool_error(tool, memory_store):
    from clusterplan.tools.registry import get

    fields = list(get(tool).input_model.model_fields)
    values = st.one_of(HOSTILE_NUMBERS, st.text(max_size=30), st.booleans(), st.none(),
                       st.lists(st.integers(), max_size=3))

    @BUDGET
    @given(payload=st.dictionaries(st.sampled_from(fields), values, max_size=6))
    def check(payload):
        _checked_call(tool, payload)

    check()
