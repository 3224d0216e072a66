"""The lexical engine: ``fts.fts_search`` (one ``fts.LexicalSearch`` per
search) ranks chunks by bm25 over the trigram table, then the short-CJK
bigram table; ``query_coverage`` and ``excluded_ids`` answer the pipeline's
other full-text questions. ``word_index``/``word_postings``/``word_runs``/
``bm25_topk`` give the same rows faster in a big vault."""
