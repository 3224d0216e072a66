"""groove: local semantic search over a Markdown knowledge base."""

import os

# OpenBLAS (numpy's BLAS in the Linux and Windows wheels) keeps its worker
# threads spinning for 2**28 cycles, ~0.1 s, after every threaded call. One
# vector scan a search thus burnt ~120 ms of a core after it, and on 2 cores
# the next search's query embedding and full-text leg shared theirs with the
# spinner (bench/scale.py at 100k chunks: R 1.55 -> 0.78-1.19, ADR 0135).
# 2**22 cycles (1-2 ms) still spans one search's back-to-back calls. Read
# once, when numpy loads OpenBLAS: so set here, before any groove module
# imports numpy; a value the user set wins.
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "22")

__version__ = "0.1.0"

__all__ = ["__version__"]
