"""Claim verdicts are kept in the store under a basis, so answers need not rerun the checks."""

from __future__ import annotations

import pytest

from clusterplan.assistant.notes import check as checks
from clusterplan.assistant.notes import verdict_cache
from clusterplan.tools import registry

DISPUTED = ("memory-sizing", "70b-training-fits")


@pytest.fixture(autouse=True)
def fresh_process_cache(memory_store):
    checks._shipped_outcome.cache_clear()
    yield
    checks._shipped_outcome.cache_clear()


def _no_tool_runs(monkeypatch):
    def refuse(*_a, **_k):
        raise AssertionError("a kept verdict should not run the tools")

    monkeypatch.setattr(registry, "invoke", refuse)


def test_a_kept_verdict_is_reused_without_running_the_tools(monkeypatch, memory_store):
    first = checks.dispute_for(*DISPUTED)
    assert first and "memory tool computes no" in first
    assert memory_store.db[verdict_cache.TABLE].count == 1
    checks._shipped_outcome.cache_clear()  # as in a new process
    _no_tool_runs(monkeypatch)
    assert checks.dispute_for(*DISPUTED) == first


def test_a_changed_basis_makes_kept_verdicts_stale(monkeypatch, memory_store):
    checks.dispute_for(*DISPUTED)
    checks._shipped_outcome.cache_clear()
    monkeypatch.setattr(verdict_cache, "basis", lambda: "another-catalog")
    assert verdict_cache.recall("memory-sizing#70b-training-fits") is None
    assert checks.dispute_for(*DISPUTED)  # recomputed under the new basis
