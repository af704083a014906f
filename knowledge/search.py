"""Full-text search over the notes: SQLite FTS5 in memory, ranked by bm25, with snippets.

Ranking: bm25 over title, topics, claims and body (title and topics weigh most), then a boost
for each two-word phrase of the question ("pipeline parallelism", "node boundary") that a note
names in its title or topics, so the note about a concept outranks notes that merely mention it.
"""

from __future__ import annotations

import sqlite3
import threading
from functools import cache

from pydantic import BaseModel, Field

from clusterplan.knowledge.notes import NoteSet, shipped_notes

Counts = dict[str, int]  # note or claim key -> matches

# bm25 column weights: title, topics, claims, body.
_WEIGHTS = (8.0, 8.0, 2.0, 1.0)
# Score multiplier per question phrase found in a note's title or topics, and anywhere in it.
_PHRASE_IN_TITLE = 1.0
_PHRASE_ANYWHERE = 0.25
# Score multiplier for a claim that opens with a question phrase ("Pipeline parallelism gives...").
_CLAIM_OPENS = 1.5
_CANDIDATES = 50


class ClaimHit(BaseModel):
    """One claim that matches a search, best first."""

    note: str
    claim: str
    text: str
    snippet: str
    score: float


class Hit(BaseModel):
    """One note that matches a search, with the passage that matched and its best claims."""

    id: str
    title: str
    address: str
    snippet: str
    score: float
    claims: list[str] = Field(default_factory=list)


# The shipped index is built once and read from any thread (the app searches in workers);
# one connection shared across threads needs its queries taken in turn.
_LOCK = threading.RLock()


@cache
def _index() -> sqlite3.Connection:
    return build_index(shipped_notes())


def build_index(notes: NoteSet) -> sqlite3.Connection:
    """An in-memory FTS5 index of every note (title, topics, claims, body) and every claim.

    Each FTS table reads its text from a plain table (content=) by rowid, so a hit joins back
    to the note or claim it came from."""
    db = sqlite3.connect(":memory:", check_same_thread=False)
    db.executescript(_SCHEMA)
    db.executemany("insert into notes values (?, ?, ?, ?, ?, ?)", (
        (n.id, n.title, "\n".join(n.topics), "\n".join(c.text for c in n.claims), n.body,
         n.address) for n in notes.notes.values()))
    db.executemany("insert into claims values (?, ?, ?, ?)", (
        (f"{n.id}#{c.id}", n.id, c.id, c.text) for n in notes.notes.values() for c in n.claims))
    db.executescript(_FILL)
    return db


_SCHEMA = """
create table notes (id text primary key, title text, topics text, claims text, body text,
                    address text);
create virtual table notes_fts using fts5 (title, topics, claims, body, tokenize='porter',
                                           content='notes');
create table claims (key text primary key, note text, claim text, text text);
create virtual table claims_fts using fts5 (text, tokenize='porter', content='claims');
"""
_FILL = """
insert into notes_fts (rowid, title, topics, claims, body)
    select rowid, title, topics, claims, body from notes;
insert into claims_fts (rowid, text) select rowid, text from claims;
"""


def search(text: str, limit: int = 5, db: sqlite3.Connection | None = None) -> list[Hit]:
    """Notes matching the words of `text`, best first, each with its best-matching claims."""
    words = content_words(text)
    if not words:
        return []
    with _LOCK:
        db = db or _index()
        ranked = _rank(db, words)[:limit]
        best_claims = _claims_by_note(db, words, [r[0] for r in ranked])
    hits = []
    for note_id, title, address, body_snippet, score in ranked:
        claims = best_claims.get(note_id, [])
        snippet = claims[0].snippet if claims else body_snippet
        hits.append(Hit(id=note_id, title=title, address=address, snippet=_flat(snippet),
                        score=round(score, 4), claims=[c.claim for c in claims[:3]]))
    return hits


def search_claims(text: str, note_ids: list[str] | None = None, limit: int = 5,
                  db: sqlite3.Connection | None = None) -> list[ClaimHit]:
    """Claims matching the words of `text` (within `note_ids` when given), best first."""
    words = content_words(text)
    if not words:
        return []
    with _LOCK:
        db = db or _index()
        found = _claims_by_note(db, words, note_ids)
    flat = sorted((c for claims in found.values() for c in claims), key=lambda c: -c.score)
    return flat[:limit]


def _rank(db: sqlite3.Connection, words: list[str]) -> list[tuple[str, str, str, str, float]]:
    """Candidates by bm25, re-scored by the question's phrases found in titles and topics."""
    sql = (
        "select notes.id, notes.title, notes.address, "
        "snippet(notes_fts, 3, '**', '**', '…', 20), bm25(notes_fts, ?, ?, ?, ?) "
        "from notes_fts join notes on notes.rowid = notes_fts.rowid "
        "where notes_fts match ? order by 5 limit ?"
    )
    rows = db.execute(sql, [*_WEIGHTS, _any_of(words), _CANDIDATES]).fetchall()
    in_title, anywhere = _phrase_counts(db, words)
    scored = [
        (r[0], r[1], r[2], r[3],
         -r[4] * (1 + _PHRASE_IN_TITLE * in_title.get(r[0], 0)
                  + _PHRASE_ANYWHERE * anywhere.get(r[0], 0)))
        for r in rows
    ]
    return sorted(scored, key=lambda r: -r[4])


def _phrase_counts(db: sqlite3.Connection, words: list[str]) -> tuple[Counts, Counts]:
    """Per note: how many of the question's word pairs its title or topics name, and it names."""
    in_title: dict[str, int] = {}
    anywhere: dict[str, int] = {}
    sql = ("select notes.id from notes_fts join notes on notes.rowid = notes_fts.rowid "
           "where notes_fts match ?")
    for first, second in zip(words, words[1:], strict=False):
        # NEAR allows the small words a question drops ("H100 versus H200").
        phrase = f'NEAR("{first}" "{second}", 2)'
        for (note_id,) in db.execute(sql, [f"{{title topics}} : {phrase}"]).fetchall():
            in_title[note_id] = in_title.get(note_id, 0) + 1
        for (note_id,) in db.execute(sql, [phrase]).fetchall():
            anywhere[note_id] = anywhere.get(note_id, 0) + 1
    return in_title, anywhere


def _claims_by_note(db: sqlite3.Connection, words: list[str],
                    note_ids: list[str] | None) -> dict[str, list[ClaimHit]]:
    """Matching claims grouped by note, best first within each note.

    A claim that opens with a word pair of the question is about that concept (its definition),
    so it is boosted above claims that only mention it.
    """
    sql = (
        "select claims.key, claims.note, claims.claim, claims.text, "
        "snippet(claims_fts, 0, '**', '**', '…', 24), bm25(claims_fts) "
        "from claims_fts join claims on claims.rowid = claims_fts.rowid "
        "where claims_fts match ?"
    )
    opens, mentions = _claim_phrases(db, words)
    wanted = set(note_ids) if note_ids is not None else None
    found = []
    for key, note, claim, text, snippet, bm25 in db.execute(sql, [_any_of(words)]).fetchall():
        if wanted is None or note in wanted:
            boost = 1 + _CLAIM_OPENS * opens.get(key, 0) + _PHRASE_ANYWHERE * mentions.get(key, 0)
            found.append(ClaimHit(note=note, claim=claim, text=text, snippet=_flat(snippet),
                                  score=round(-bm25 * boost, 4)))
    grouped: dict[str, list[ClaimHit]] = {}
    for hit in sorted(found, key=lambda c: -c.score):
        grouped.setdefault(hit.note, []).append(hit)
    return grouped


def _claim_phrases(db: sqlite3.Connection, words: list[str]) -> tuple[Counts, Counts]:
    """Per claim: how many question word pairs it opens with, and how many it contains."""
    opens: dict[str, int] = {}
    mentions: dict[str, int] = {}
    sql = ("select claims.key from claims_fts join claims on claims.rowid = claims_fts.rowid "
           "where claims_fts match ?")
    for first, second in zip(words, words[1:], strict=False):
        for query, counts in ((f'^"{first} {second}"', opens),
                              (f'NEAR("{first}" "{second}", 2)', mentions)):
            for (key,) in db.execute(sql, [query]).fetchall():
                counts[key] = counts.get(key, 0) + 1
    return opens, mentions


def content_words(text: str) -> list[str]:
    """The words of a question that carry meaning, in order, lower-cased."""
    cleaned = "".join(ch.lower() if ch.isalnum() else " " for ch in text)
    return [w for w in cleaned.split() if len(w) > 1 and w not in _STOPWORDS]


def _any_of(words: list[str]) -> str:
    return " OR ".join(f'"{w}"' for w in dict.fromkeys(words))


def _flat(text: str) -> str:
    return " ".join(text.split())


_STOPWORDS = frozenset(
    "a about an and are as at be by can could difference do does doesn don for from get give had "
    "has have how i if in instead into is it its me much my need of on or over should shouldn so "
    "than that the their then there these this those to up use using was we what whats when where "
    "which who why will with would you your".split()
)
