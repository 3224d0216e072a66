"""`groove serve`: one warm daemon per vault behind an authenticated local
socket (server.py), with a file watcher keeping the index live (watcher.py),
lock/state/socket lifecycle (lifecycle.py) and token storage (auth.py)."""
