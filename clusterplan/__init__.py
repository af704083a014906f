"""clusterplan: size, lay out and price GPU clusters with traced, cited arithmetic."""

__version__ = "0.1.0"
