"""Calculator `interconnect`: links, collectives, transfers and unit conversions (pint)."""

# multi-node-clusters: an HGX or DGX server holds eight GPUs, the node a question about
# nodes means when it names no GPU (kept here, light to import, for the parser too).
DEFAULT_GPUS_PER_NODE = 8
