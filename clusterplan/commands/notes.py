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
    from clusterplan.knowledge.notes import shipped_notes

    note = shipped_notes().notes.get(note_id)
    if note is None:
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
    from clusterplan.knowledge.search import search

    hits = search(" ".join(text), limit)
    if not hits:
        click.echo("no note matches; try fewer or other words")
    for hit in hits:
        click.echo(f"{hit.id}: {hit.title}\n    {hit.snippet}")
