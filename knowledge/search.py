"""Full-text search over the notes: SQLite FTS5 in memory, ranked by bm25, with snippets."""

from __future__ import annotations

from functools import cache

from pydantic import BaseModel
from sqlite_utils import Database

from clusterplan.knowledge.notes import NoteSet, shipped_notes


class Hit(BaseModel):
    """One note that matches a search, with the passage that matched."""

    id: str
    title: str
    address: str
    snippet: str
    score: float


@cache
def _index() -> Database:
    return build_index(shipped_notes())


def build_index(notes: NoteSet) -> Database:
    """An in-memory FTS5 index of every note's title, claims and body."""
    db = Database(memory=True)
    rows = [
        {
            "id": n.id,
            "title": n.title,
            "claims": "\n".join(c.text for c in n.claims),
            "body": n.body,
        }
        for n in notes.notes.values()
    ]
    db["notes"].insert_all(rows, pk="id")
    db["notes"].enable_fts(["title", "claims", "body"], fts_version="FTS5", tokenize="porter")
    return db


def search(text: str, limit: int = 5, db: Database | None = None) -> list[Hit]:
    """Notes matching any of the words in `text`, best first."""
    words = [w for w in _words(text) if w not in _STOPWORDS]
    if not words:
        return []
    query = " OR ".join(f'"{w}"' for w in words)
    db = db or _index()
    sql = (
        "select notes.id, notes.title, "
        "snippet(notes_fts, -1, '**', '**', '…', 16) as snippet, "
        "bm25(notes_fts, 10.0, 3.0, 1.0) as score "
        "from notes_fts join notes on notes.rowid = notes_fts.rowid "
        "where notes_fts match ? order by score limit ?"
    )
    notes = shipped_notes().notes
    return [
        Hit(id=r[0], title=r[1], address=notes[r[0]].address if r[0] in notes else "",
            snippet=r[2], score=-r[3])
        for r in db.execute(sql, [query, limit]).fetchall()
    ]


def _words(text: str) -> list[str]:
    cleaned = "".join(ch.lower() if ch.isalnum() else " " for ch in text)
    return [w for w in cleaned.split() if len(w) > 1]


_STOPWORDS = frozenset(
    "a an and are as at be by can do does for from how i in is it of on or should the to "
    "use what when where which who why will with you your".split()
)
