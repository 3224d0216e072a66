"""groove: local semantic search over a Markdown knowledge base."""

__version__ = "0.1.0"

__all__ = ["__version__"]
