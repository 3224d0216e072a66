"""How many threads a llama.cpp decode uses.

All physical cores for a long decode (passages while indexing), one for a
short one (a query): a short decode's ops are too small to share, and with
passive OpenMP waiting (``groove.models``) each op's hand-off between
threads costs more than it saves (ADR 0127).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# A decode of at most this many tokens runs on one thread. Measured on 2
# cores, p50 of 1 vs 2 threads: 8 tokens 6.7 vs 16.3 ms, 32: 20.9 vs 32.0,
# 64: 44.6 vs 46.5, 128: 107 vs 78. The vectors are the same bits either way.
SHORT_DECODE_TOKENS = 48


def decode_threads(n_tokens: int, n_threads: int) -> int:
    """Threads for a decode of ``n_tokens`` (its longest sequence)."""
    return 1 if n_tokens <= SHORT_DECODE_TOKENS else n_threads


def physical_cores() -> int:
    """Physical cores usable by this process; llama.cpp gains nothing from SMT siblings."""
    try:
        allowed = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        allowed = list(range(os.cpu_count() or 1))
    cores: set[tuple[str, str]] = set()
    for cpu in allowed:
        topo = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology")
        try:
            cores.add(((topo / "physical_package_id").read_text().strip(), (topo / "core_id").read_text().strip()))
        except OSError:
            cores = set()
            break
    if cores:
        return len(cores)
    if sys.platform == "darwin":
        try:
            import subprocess

            out = subprocess.run(["sysctl", "-n", "hw.perflevel0.physicalcpu"], capture_output=True, text=True,
                                 timeout=2)
            if out.returncode == 0 and out.stdout.strip().isdigit():
                return int(out.stdout.strip())
        except (OSError, subprocess.SubprocessError):
            pass
    return max(1, len(allowed))
