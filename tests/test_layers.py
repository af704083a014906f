"""Dependencies flow one way: db <- knowledge <- tools <- assistant <- tui, commands, mcp.

Every import counts, the ones inside functions too: a lazy import still ties the layers
together, it only hides the tie from a reader. The few shared helpers at the package root
(validation messages, file locations, how figures are written, the version) sit below every
layer.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Folder on disk -> the package it installs as (pyproject's package-dir).
FOLDERS = {"db": "clusterplan.db", "knowledge": "clusterplan.knowledge",
           "tools": "clusterplan.tools", "assistant": "clusterplan.assistant",
           "tui": "clusterplan.tui", "clusterplan": "clusterplan"}

BASE = ("clusterplan.validation", "clusterplan.locations", "clusterplan.text",
        "clusterplan.figures")
RANK = {"base": 0, "clusterplan.db": 1, "clusterplan.knowledge": 2, "clusterplan.tools": 3,
        "clusterplan.assistant": 4, "front": 5}


def layer(module: str) -> str:
    """The layer a clusterplan module belongs to."""
    if module == "clusterplan" or module.startswith(BASE):
        return "base"
    for package in ("clusterplan.db", "clusterplan.knowledge", "clusterplan.tools",
                    "clusterplan.assistant"):
        if module == package or module.startswith(package + "."):
            return package
    return "front"  # tui, cli, commands, launch, mcp_server


def module_name(path: Path) -> str:
    relative = path.relative_to(ROOT).with_suffix("")
    parts = list(relative.parts)
    parts[0] = FOLDERS[parts[0]]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every clusterplan import in a file, at any depth."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] if node.module != "clusterplan" else \
                [f"clusterplan.{a.name}" if not a.name.startswith("_") else "clusterplan"
                 for a in node.names]
            found += [(node.lineno, n) for n in names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
    return [(line, m) for line, m in found if m == "clusterplan" or m.startswith("clusterplan.")]


def source_files() -> list[Path]:
    return sorted(p for folder in FOLDERS for p in (ROOT / folder).rglob("*.py"))


def upward_imports() -> list[str]:
    bad = []
    for path in source_files():
        here = module_name(path)
        for line, target in imports_of(path):
            if RANK[layer(target)] > RANK[layer(here)]:
                bad.append(f"{path.relative_to(ROOT)}:{line} ({layer(here)}) imports {target} "
                           f"({layer(target)})")
    return bad


def test_no_module_imports_a_layer_above_its_own():
    assert not upward_imports(), "\n".join(upward_imports())


def test_the_app_reaches_the_calculators_and_the_store_only_through_the_assistant():
    bad = [f"{path.relative_to(ROOT)}:{line} imports {target}"
           for path in sorted((ROOT / "tui").rglob("*.py"))
           for line, target in imports_of(path)
           if layer(target) in ("clusterplan.db", "clusterplan.knowledge", "clusterplan.tools")]
    assert not bad, "\n".join(bad)


def test_the_check_sees_every_layer():
    layers = {layer(module_name(p)) for p in source_files()}
    assert layers == set(RANK)


@pytest.mark.parametrize("module, expected", [
    ("clusterplan.db.store", "clusterplan.db"),
    ("clusterplan.tools.memory.tool", "clusterplan.tools"),
    ("clusterplan.assistant.notes.check", "clusterplan.assistant"),
    ("clusterplan.tui.app", "front"),
    ("clusterplan.commands.tool", "front"),
    ("clusterplan.validation", "base"),
])
def test_modules_fall_in_their_layer(module, expected):
    assert layer(module) == expected


def test_an_upward_import_inside_a_function_is_caught(tmp_path):
    hidden = tmp_path / "x.py"
    hidden.write_text("def f():\n    from clusterplan.assistant import respond\n")
    assert imports_of(hidden) == [(2, "clusterplan.assistant")]



def unexplained_lazy_imports(path: Path) -> list[int]:
    """Lines of imports inside functions that no `# lazy:` comment explains. One comment
    covers a block of imports that follow it, blank lines included."""
    lines = path.read_text(encoding="utf-8").splitlines()
    tree = ast.parse("\n".join(lines))
    inner = sorted({node.lineno for fn in ast.walk(tree)
                    if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
                    for node in ast.walk(fn) if isinstance(node, (ast.Import, ast.ImportFrom))})
    bad = []
    for line in inner:
        above = line - 2
        while above >= 0 and (not lines[above].strip()
                              or lines[above].strip().startswith(("from ", "import ", ")"))
                              or lines[above].startswith(" " * 8) and "import" not in lines[above]
                              and lines[above].rstrip().endswith(",")):
            above -= 1
        if "# lazy:" not in lines[line - 1] and not lines[above].strip().startswith("# lazy:"):
            bad.append(line)
    return bad


def test_every_import_inside_a_function_says_why_it_is_there():
    # Imports belong at the top of a module; one inside a function is for a library that must
    # load late (Textual, pint, the MCP SDK, sqlite-utils) or a command's work that `--help`
    # should not pay for, and it says so.
    bad = [f"{path.relative_to(ROOT)}:{line}" for path in source_files()
           for line in unexplained_lazy_imports(path)]
    assert not bad, "imports inside functions without a `# lazy:` reason:\n" + "\n".join(bad)
