"""Deterministic calculators: pydantic in, pydantic out, every step cited."""
