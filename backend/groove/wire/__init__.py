"""The wire shapes: pydantic models of every socket method's params and
result (``models.py``), and ``protocol.json`` generated from them
(``generate.py``), which the daemon validates requests against."""
