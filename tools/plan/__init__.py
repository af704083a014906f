"""Calculator `plan`: the inverse question - the GPUs, count, layout and offer that meet a goal."""
