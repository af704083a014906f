"""From an intent to tool calls: one module per kind of question, and the dispatch between them."""
