"""The two search engines, each over its SQLite tables and, for a big vault
in a long-lived process, an in-memory copy of them:

* ``lexical``: the full-text leg (FTS5 trigram table, the short-CJK bigram
  table, and the numpy word index that ranks as FTS5 does, ADR 0132);
* ``vectors``: the in-memory copy of the sqlite-vec tables (ADR 0121).

They take a connection and read tables by name; the storage package
(``groove.storage``) creates those tables and holds the engines' copies on
its ``Index``. Neither engine imports storage, the index layer or the
pipeline.
"""
