"""The plan tool: the GPUs, count, layout and offer that meet a goal."""
