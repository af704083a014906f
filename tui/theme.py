"""Choosing a light or dark theme to match the terminal the app starts in."""

from __future__ import annotations

from collections.abc import Mapping

DARK = "textual-dark"
LIGHT = "textual-light"

# COLORFGBG is "foreground;background" in the 16 ANSI colours (set by rxvt, Konsole,
# iTerm2 and others); 7 (white) and 9-15 (bright colours) are light backgrounds.
_LIGHT_BACKGROUNDS = {7, 9, 10, 11, 12, 13, 14, 15}


def terminal_theme(environ: Mapping[str, str]) -> str:
    """The Textual theme that matches the terminal: CLUSTERPLAN_THEME, else COLORFGBG, else dark."""
    chosen = environ.get("CLUSTERPLAN_THEME", "").strip()
    if chosen:
        return chosen
    background = environ.get("COLORFGBG", "").rsplit(";", 1)[-1]
    if background.isdigit() and int(background) in _LIGHT_BACKGROUNDS:
        return LIGHT
    return DARK
