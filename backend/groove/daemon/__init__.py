"""`groove serve`: one warm daemon per vault behind an authenticated local
socket (server.py, speaking protocol.py), with a file watcher keeping the
index live (watcher.py), finding and starting it (discovery.py), running and
stopping it (lifecycle.py), token storage (auth.py), and the Python client
(client.py)."""
