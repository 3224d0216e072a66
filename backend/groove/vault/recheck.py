"""Is a file still what was read from it? Asked at write time, inside the
index's write transaction, so an older text never lands over a newer one
another writer stored meanwhile (issue 50 R8)."""

from __future__ import annotations

import os
import time

from .scan import NoteFile, content_hash

# A file written this recently may have changed again within one mtime tick
# (coarse clocks, same-size saves): its bytes are compared, not its stat.
RECENT_S = 2.0


def file_moved_on(nf: NoteFile, read_hash: str) -> bool:
    """True when ``nf``'s file is gone or differs from the bytes read
    (``nf`` holds their stat, ``read_hash`` their ``content_hash``)."""
    try:
        st = os.stat(nf.abspath)
    except OSError:
        return True
    if (st.st_size, st.st_mtime_ns) != (nf.size, nf.mtime_ns):
        return True
    if time.time() - st.st_mtime_ns / 1e9 > RECENT_S:
        return False
    try:
        data = nf.abspath.read_bytes()
    except OSError:
        return True
    return content_hash(data) != read_hash
