"""`clusterplan notes`: the source notes behind every figure."""

from __future__ import annotations

import click

from clusterplan.commands.common import UsageFailure


@click.group("notes")
def notes_group() -> None:
    """List, show and search the source notes."""


@notes_group.command("list")
def list_notes() -> None:
    """One line per note: its id, its title and how many claims it makes."""
    # lazy: loaded when this command runs, so `--help` and the others start fast
    from clusterplan.knowledge.notes import shipped_notes

    loaded = shipped_notes()
    for note in loaded.notes.values():
        click.echo(f"{note.id:<34} {note.title} ({len(note.claims)} claims)")
    for problem in loaded.problems:
        click.echo(f"skipped: {problem}", err=True)


@notes_group.command("show")
@click.argument("note_id")
def show(note_id: str) -> None:
    """Print one note: title, sources, claims and body."""
    # lazy: loaded when this command runs, so `--help` and the others start fast
    from clusterplan.knowledge.notes import shipped_notes

    note = shipped_notes().notes.get(note_id)
    if note is None:
        # lazy: loaded when this command runs, so `--help` and the others start fast
        from clusterplan.tools.registry import invoke

        try:
            invoke("notes", {"id": note_id})
        except ValueError as exc:
            raise UsageFailure(str(exc)) from None
        return
    click.echo(f"# {note.title}  [{note.id}]\n")
    for src in note.sources:
        where = f", {src.where}" if src.where else ""
        click.echo(f"Source: {src.title} ({src.publisher}{where}), {src.address}, "
                   f"reviewed {src.reviewed}")
    click.echo("\nClaims:")
    for claim in note.claims:
        click.echo(f"  {claim.id}: {claim.text}")
    click.echo(f"\n{note.body}")


@notes_group.command("search")
@click.argument("text", nargs=-1, required=True)
@click.option("--limit", default=5, show_default=True, help="Most notes to show.")
def search_notes(text: tuple[str, ...], limit: int) -> None:
    """Find the notes that best match TEXT, with the passage that matched."""
    # lazy: loaded when this command runs, so `--help` and the others start fast
    from clusterplan.commands.terminal import emphasis
    from clusterplan.knowledge.search import search

    hits = search(" ".join(text), limit)
    if not hits:
        click.echo("no note matches; try fewer or other words")
    for hit in hits:
        click.echo(f"{hit.id}: {hit.title}\n    {emphasis(hit.snippet)}")


@notes_group.command("check")
@click.argument("note_ids", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print the verdicts as JSON.")
@click.pass_context
def check(ctx: click.Context, note_ids: tuple[str, ...], as_json: bool) -> None:
    """Run every numeric claim (or those of NOTE_IDS) through the calculators.

    Prints claim, source value, computed value, verdict (agrees, disagrees, not checkable) and
    the reason. A disagreement is a finding about a source, so the exit status stays 0; it is 1
    when a check could not run (tool missing, input refused, output absent), since that is a
    defect in a note or a tool.
    """
    # lazy: loaded when this command runs, so `--help` and the others start fast
    from clusterplan.assistant.notes.check import check_all
    from clusterplan.commands.common import echo_json, store
    from clusterplan.knowledge.notes import NoteSet, shipped_notes

    store(ctx)
    loaded = shipped_notes()
    unknown = [n for n in note_ids if n not in loaded.notes]
    if unknown:
        raise UsageFailure(f"unknown note {unknown[0]!r}; `clusterplan notes list` shows them")
    chosen = NoteSet({n: loaded.notes[n] for n in note_ids}) if note_ids else loaded
    outcomes = check_all(chosen)
    if as_json:
        echo_json([o.model_dump(mode="json") for o in outcomes])
    else:
        click.echo(_table(outcomes))
    if any(o.verdict == "not checkable" for o in outcomes):
        ctx.exit(1)


def _table(outcomes: list) -> str:
    """Aligned columns: claim, source value, computed value, verdict, reason; then a tally."""
    rows = [("claim", "source", "computed", "verdict", "reason")]
    for o in outcomes:
        rows.append((o.key, _value(o.source_value, o.unit), _value(o.computed_value, o.unit),
                     o.verdict, o.reason))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r[:4], widths, strict=False)) + "  " + r[4]
             for r in rows]
    tally = {v: sum(o.verdict == v for o in outcomes)
             for v in ("agrees", "disagrees", "not checkable")}
    lines.append(", ".join(f"{n} {v}" for v, n in tally.items()))
    return "\n".join(line.rstrip() for line in lines)


def _value(value: float | bool | None, unit: str) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{value:,.6g} {unit}".strip()
