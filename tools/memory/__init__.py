"""Calculator `memory`: the bytes a training or inference job needs on each GPU."""
