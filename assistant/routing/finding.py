"""One check of a measured figure against the figure the calculators expect, with its verdict
and the causes that may explain a gap."""

from __future__ import annotations

from dataclasses import dataclass, field

# The verdict bands are this tool's own convention, stated in every answer that uses them.
NORMAL_FROM = 0.8
LOW_FROM = 0.5


@dataclass
class Finding:
    """One check: the figure expected, the figure measured, and why they may differ."""

    what: str
    expected: float
    measured: float | None  # None: the question gave no figure; the expectation alone is shown
    unit: str
    causes: list[tuple[str, str]] = field(default_factory=list)  # (cause, note key)
    note: str = ""  # the note the expected figure rests on
    lower_is_better: bool = False  # times and memory: more than expected is the complaint

    @property
    def ratio(self) -> float | None:
        if self.measured is None:
            return None
        return self.measured / self.expected if self.expected else float("inf")

    @property
    def verdict(self) -> str:
        r = self.ratio
        if r is None:
            return "no measured figure given: the expectation alone"
        if self.lower_is_better:
            r = 1 / r if r else float("inf")
            words = ("less than the estimate", "as expected", "above expected",
                     "far above expected")
        else:
            words = ("above the estimate", "as expected", "below expected",
                     "well below expected")
        if r > 1 / NORMAL_FROM:
            return words[0]
        if r >= NORMAL_FROM:
            return words[1]
        return words[2] if r >= LOW_FROM else words[3]
