"""Questions over time: the session that remembers, its stored history, batch files, and
slash commands."""
