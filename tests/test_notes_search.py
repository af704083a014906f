"""Search finds the note about a concept first, and concept answers quote cited claims."""

from __future__ import annotations

import pytest

from clusterplan.assistant.notes.concepts import explain
from clusterplan.knowledge.notes import load_notes, shipped_notes
from clusterplan.knowledge.search import build_index, search, search_claims
from tests.conftest import run_cli, run_tool

# The conceptual questions of the sample question set, and the notes that answer them.
CONCEPT_QUESTIONS = [
    ("What is pipeline parallelism?", {"parallelism-strategies"}),
    ("Why shouldn't tensor parallelism cross the node boundary?",
     {"parallelism-strategies", "nvlink-vs-infiniband"}),
    ("When should I use data parallelism instead of tensor parallelism?",
     {"parallelism-strategies"}),
    # The Megatron-LM paper gives the same rule with measurements, so it is a right answer too.
    ("why keep tensor parallelism inside a node?",
     {"parallelism-strategies", "megatron-lm-2021"}),
    ("What's the difference between the H100 and the H200 for 70B inference?",
     {"gpu-generations"}),
    ("Is NVLink an alternative to InfiniBand?", {"nvlink-vs-infiniband"}),
    ("SXM or PCIe servers for training?", {"node-form-factors"}),
    ("where do checkpoints and training datasets live?", {"cluster-storage"}),
]


@pytest.mark.parametrize(("question", "expected"), CONCEPT_QUESTIONS)
def test_concept_question_finds_the_right_note_first(question, expected):
    hits = search(question)
    assert hits, question
    assert hits[0].id in expected, [h.id for h in hits]


def test_cli_search_prints_the_best_note_first_with_a_snippet():
    result = run_cli("notes", "search", "What", "is", "pipeline", "parallelism?")
    assert result.exit_code == 0
    first, snippet = result.output.splitlines()[:2]
    assert first.startswith("parallelism-strategies: ")
    assert "Pipeline parallelism" in snippet and "**" not in snippet  # plain when piped


def test_snippet_is_one_line_from_the_best_claim():
    hit = search("pipeline parallelism")[0]
    assert "\n" not in hit.snippet
    assert hit.claims[0] in {"pipeline-parallel", "pp-tolerates-ib", "pp-standard-multi-node"}


def test_only_stop_words_find_nothing():
    assert search("what is the") == []
    assert run_cli("notes", "search", "why", "is").output.startswith("no note matches")


def test_claim_search_prefers_the_claim_that_defines_the_concept():
    claims = search_claims("What is tensor parallelism?", ["parallelism-strategies"], limit=3)
    assert all(c.note == "parallelism-strategies" for c in claims)
    assert claims[0].text.startswith("Tensor parallelism")


def test_index_built_from_given_notes_only(tmp_path):
    (tmp_path / "x.md").write_text(
        "---\nid: x\ntitle: Widgets\ntopics: [sprocket alignment]\nsources:\n"
        "  - {title: t, publisher: p, address: 'https://e.org', reviewed: 2026-12-02}\n"
        "claims:\n  - {id: c, text: Gears turn.}\n---\nbody\n", encoding="utf-8")
    db = build_index(load_notes(tmp_path))
    assert [h.id for h in search("sprocket alignment", db=db)] == ["x"]
    assert search("nvlink", db=db) == []


def test_explain_quotes_claims_with_ids_and_cites_each():
    answer = explain("What is pipeline parallelism?")
    keys = [ref.key for ref in answer.citations]
    assert "parallelism-strategies#pipeline-parallel" in keys
    for ref in answer.citations:
        assert f"[`{ref.key}`]" in answer.markdown
        assert ref.address == shipped_notes().notes[ref.id].address  # each links its own note
    # The defining note comes first; measured pipelines (BLOOM's) may follow it.
    assert answer.citations[0].address == "https://packet.ai/blog/gpu-clusters"
    assert answer.markdown.index("parallelism-strategies#pipeline-parallel") < len(
        answer.markdown) // 2
    assert answer.steps[0].label == "search the notes"
    assert set(answer.steps[-1].notes) == set(keys)


def test_explain_without_matching_note_says_so():
    answer = explain("zzzz qqqq")
    assert answer.citations == [] and "No note" in answer.markdown


def test_notes_tool_search_returns_cited_hits():
    result = run_tool("notes", {"query": "pipeline parallelism", "limit": 2})
    assert result["notes"][0]["id"] == "parallelism-strategies"
    assert result["citations"][0]["address"] == "https://packet.ai/blog/gpu-clusters"


def test_explain_puts_the_note_that_defines_the_named_concept_first():
    answer = explain("why keep tensor parallelism inside a node?")
    assert answer.citations[0].id == "parallelism-strategies"
    assert "parallelism-strategies#tp-inside-node" in [ref.key for ref in answer.citations]


def test_every_glossary_entry_names_a_shipped_note():
    from clusterplan.assistant.notes.concepts import GLOSSARY
    from clusterplan.knowledge.notes import shipped_notes

    assert set(GLOSSARY.values()) <= set(shipped_notes().notes)


def test_search_works_from_another_thread_after_the_index_is_built():
    # The app searches in worker threads; the shared index must not belong to one thread.
    from concurrent.futures import ThreadPoolExecutor

    search("pipeline parallelism")
    with ThreadPoolExecutor(max_workers=2) as pool:
        found = list(pool.map(lambda q: search(q)[0].id, ["pipeline parallelism"] * 4))
    assert found == ["parallelism-strategies"] * 4


@pytest.mark.parametrize(("question", "first_claim"), [
    ("What is pipeline parallelism?", "parallelism-strategies#pipeline-parallel"),
    ("Why shouldn't tensor parallelism cross the node boundary?",
     "parallelism-strategies#tensor-parallel"),
])
def test_a_concept_answer_leads_with_a_direct_claim_not_a_title(question, first_claim):
    from clusterplan.assistant.notes.concepts import explain

    first_line = explain(question).markdown.splitlines()[0]
    assert not first_line.startswith("**")
    assert f"[`{first_claim}`]" in first_line
