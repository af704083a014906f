"""How clusterplan starts: the console script's entry point and the terminal app's launch.

A bare `clusterplan` opens the app without loading the command-line parser: click and every
command module cost near 0.1 s before the first screen. Anything else goes to the commands
(clusterplan.cli), imported only then.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clusterplan.assistant.sessions.session import Assistant


def main() -> None:
    """Console-script entry point."""
    # pydantic looks for plugins by reading the entry points of every installed package the
    # first time a model is built (tens of ms of each start); clusterplan's models use none.
    # PYDANTIC_DISABLE_PLUGINS is pydantic's documented switch; a value set by the user wins.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    if len(sys.argv) == 1:
        sys.exit(_bare())
    # lazy: loaded once the first screen is up
    from clusterplan.cli import cli

    cli(prog_name="clusterplan")


def run_app(db_path: str | None, session: str | None) -> None:
    """Run the app until it quits; the assistant (and the store at `db_path`, else
    CLUSTERPLAN_DB or the data directory) is built once the question box is on screen.
    A store that cannot be opened raises StoreError when the app has closed."""
    from clusterplan.tui.app import ClusterplanApp  # lazy: Textual loads only for the app

    def assistant() -> Assistant:
        # lazy: loaded once the first screen is up
        from clusterplan.assistant.sessions.session import Assistant
        from clusterplan.db.active import open_store, use_store

        opened = open_store(db_path)
        use_store(opened)
        return Assistant(opened, session=session)

    app = ClusterplanApp(assistant)
    app.run()
    if app.start_error is not None:
        raise app.start_error


def _bare() -> int:
    """`clusterplan` with no arguments: the app; a store that cannot be opened is one line on
    stderr and exit status 1, as every command reports it."""
    try:
        run_app(os.environ.get("CLUSTERPLAN_DB") or None, None)
    except Exception as exc:
        # lazy: the store's module brings pydantic, which the first screen does without
        from clusterplan.db.store import StoreError

        if not isinstance(exc, StoreError):
            raise
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    return 0
