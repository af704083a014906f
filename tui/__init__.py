"""The terminal app: chat, trace, sources and plan over the assistant (the only Textual user)."""
