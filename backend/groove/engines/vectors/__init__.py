"""The vector engine: ``knn.nearest`` and ``knn.similarities`` answer from
sqlite-vec's vec0 tables, or from ``cache.VectorCache``, a big vault's rows
kept in numpy, with the same distances (ADR 0121, 0133)."""
