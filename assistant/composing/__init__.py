"""The answer as people read it: Markdown, the trace and the citations."""
