"""The assistant: a plain question in, tool calls, a traced and cited Answer out."""
