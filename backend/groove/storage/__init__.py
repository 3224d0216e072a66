"""The index file's storage: its schema and every migration (``migrations``),
the connection and transactions (``db.Index``), the writes (``store``) and
the row reads the pipeline and the browse operations make (``chunks``,
``listing``).

Every table, index and trigger of the file is created in ``migrations`` and
nowhere else (tests/test_migrations.py checks the source). The search
engines (``groove.engines``) sit below this package: they read the tables by
name and never open, migrate or write the file.
"""
