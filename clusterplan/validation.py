"""Pydantic validation errors as plain sentences a user can act on."""

from __future__ import annotations

from pydantic import ValidationError


def describe(exc: ValidationError) -> str:
    """One clause per problem: the field and the reason, joined with semicolons."""
    parts = []
    for err in exc.errors():
        field = ".".join(str(p) for p in err["loc"]) or "input"
        message = err["msg"].removeprefix("Value error, ")
        parts.append(f"{field}: {message}")
    return "; ".join(parts)
