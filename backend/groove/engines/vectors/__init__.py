"""The vector engine's in-memory side: ``cache.VectorCache`` keeps a big
vault's sqlite-vec rows in numpy and answers nearest-neighbour and distance
questions exactly as the vec0 scan would (ADR 0121, 0133)."""
