"""Calculator `parallelism`: the TP x PP x DP (x EP) search, step time, serving layouts."""
