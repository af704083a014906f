"""Notes stay honest: every note sourced, every claim named once, every citation resolvable,
and every note cited by something (a catalog row, a tool step, the glossary or another note).

Each test lists every offender, so the fix is obvious from the failure alone.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

from clusterplan.db.seed_data import CATALOG, seed_rows
from clusterplan.knowledge.notes import shipped_notes

TOOLS_DIR = Path(__file__).resolve().parent.parent / "tools"
REF = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)+(?:#[a-z0-9-]+)?$|^[a-z0-9-]+#[a-z0-9-]+$")


def _missing(key: str) -> str | None:
    """Why `note-id` or `note-id#claim-id` does not resolve, or None when it does."""
    note_id, _, claim_id = key.partition("#")
    note = shipped_notes().notes.get(note_id)
    if note is None:
        return f"no note {note_id!r}"
    if claim_id and note.claim(claim_id) is None:
        return f"note {note_id!r} has no claim {claim_id!r}"
    return None


def test_every_note_loads_with_a_source_and_named_claims():
    # The loader refuses a note without a source, a claim without an id, a duplicate note id.
    problems = shipped_notes().problems
    assert not problems, "\n".join(problems)


def test_every_source_has_title_publisher_address_and_review_date():
    bad = [f"{n.id}: source {i}" for n in shipped_notes().notes.values()
           for i, s in enumerate(n.sources)
           if not (s.title and s.publisher and s.address.startswith("http") and s.reviewed)]
    assert not bad, "\n".join(bad)


def test_claim_ids_are_unique_within_each_note():
    dupes = []
    for note in shipped_notes().notes.values():
        ids = [c.id for c in note.claims]
        dupes += [f"{note.id}#{i}" for i in sorted({i for i in ids if ids.count(i) > 1})]
    assert not dupes, "\n".join(dupes)


def test_every_catalog_row_cites_an_existing_note():
    bad = [f"{table} row {row.get('id') or i}: {why}"
           for table in CATALOG for i, row in enumerate(seed_rows(table))
           if (why := _missing(row["source_note"]))]
    assert not bad, "\n".join(bad)


@cache
def tool_note_refs() -> dict[str, list[str]]:
    """Note references written under tools/: `notes=` arguments, *NOTE* constants, 'a#b'."""
    found: dict[str, list[str]] = {}
    for path in sorted(TOOLS_DIR.rglob("*.py")):
        for node in _note_bearing_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            for const in ast.walk(node):
                if isinstance(const, ast.Constant) and isinstance(const.value, str):
                    if REF.match(const.value):
                        found.setdefault(const.value, []).append(f"{path.name}:{const.lineno}")
    return found


def _note_bearing_nodes(tree: ast.AST) -> list[ast.AST]:
    nodes: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg and "note" in node.arg.lower():
            nodes.append(node.value)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            if any("note" in name.lower() for name in names) and node.value is not None:
                nodes.append(node.value)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "#" in node.value:
            nodes.append(node)
    return nodes


def test_every_note_id_written_in_the_tools_exists():
    bad = [f"{key} ({', '.join(dict.fromkeys(places))}): {why}"
           for key, places in sorted(tool_note_refs().items()) if (why := _missing(key))]
    assert not bad, "\n".join(bad)


@cache
def checked_results() -> list[tuple[str, dict]]:
    """Every claim check's result, a representative call of each tool, with the call's name."""
    from clusterplan.tools.registry import invoke, tools

    results = []
    for note in shipped_notes().notes.values():
        for claim in note.claims:
            if claim.check and claim.check.tool in tools():
                try:
                    result = invoke(claim.check.tool, claim.check.input).model_dump()
                except (ValueError, LookupError):
                    continue  # `notes check` reports these as not checkable
                results.append((f"{claim.check.tool} tool, check of {note.id}#{claim.id}", result))
    return results


def _key(ref: dict) -> str:
    return f"{ref['id']}#{ref['claim']}" if ref["claim"] else ref["id"]


def _citing_steps(result: dict, key: str) -> list[str]:
    return [s["label"] for s in result["steps"] if key in s["notes"]]


def test_every_citation_of_a_tool_result_resolves(memory_store):
    bad = {f"{_key(ref)!r} in steps {_citing_steps(result, _key(ref))} ({call}): {why}"
           for call, result in checked_results() for ref in result["citations"]
           if (why := _missing(_key(ref)))}
    assert not bad, "\n".join(sorted(bad))


def _cited_by_other_notes() -> set[str]:
    notes = shipped_notes().notes
    cited = set()
    for note in notes.values():
        text = note.body + "\n" + "\n".join(c.text for c in note.claims)
        cited |= {other for other in notes if other != note.id
                  and re.search(rf"(?<![\w-]){re.escape(other)}(?![\w-])", text)}
    return cited


def test_every_note_is_cited_by_something(memory_store):
    from clusterplan.assistant.notes.concepts import GLOSSARY

    cited = {row["source_note"].partition("#")[0] for t in CATALOG for row in seed_rows(t)}
    cited |= {key.partition("#")[0] for key in tool_note_refs()}
    cited |= {ref["id"] for _, result in checked_results() for ref in result["citations"]}
    cited |= set(GLOSSARY.values()) | _cited_by_other_notes()
    uncited = sorted(set(shipped_notes().notes) - cited)
    assert not uncited, ("notes nothing cites (no catalog row, tool step, glossary or note):\n"
                         + "\n".join(uncited))
