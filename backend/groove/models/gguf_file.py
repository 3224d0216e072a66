"""Just enough of the GGUF format to read a model's header and write a trimmed copy.

The ``gguf`` package's reader builds a numpy view per array element, so a
250,000-token vocabulary takes it seconds and hundreds of MB; here the header
is walked once with ``struct`` and every key keeps the raw bytes it came
from, so a copy can carry keys over without re-encoding them.
Format: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md
"""

from __future__ import annotations

import mmap
import os
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from groove.models import ModelError

MAGIC = b"GGUF"
DEFAULT_ALIGNMENT = 32

# value type -> struct code (scalars); 8 = string, 9 = array
_SCALAR = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
STRING, ARRAY, UINT32 = 8, 9, 4

# ggml type -> (elements per block, bytes per block), for the types groove copies or reads
BLOCKS = {0: (1, 4), 1: (1, 2), 2: (32, 18), 8: (32, 34), 30: (1, 2)}  # F32, F16, Q4_0, Q8_0, BF16


@dataclass
class Tensor:
    name: str
    dims: list[int]  # ggml order: dims[0] is the row length
    type: int
    offset: int  # from the start of the data section

    @property
    def nbytes(self) -> int:
        if self.type not in BLOCKS:
            raise ModelError(f"tensor {self.name}: ggml type {self.type} is not one groove can copy")
        per_block, block_bytes = BLOCKS[self.type]
        n = 1
        for d in self.dims:
            n *= d
        return n // per_block * block_bytes


@dataclass
class Header:
    """A GGUF's keys and tensor directory. ``raw[key]`` is the key's whole
    encoded entry (name, type, value), for copying it verbatim."""

    path: Path
    version: int
    values: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, bytes] = field(default_factory=dict)
    tensors: list[Tensor] = field(default_factory=list)
    data_start: int = 0

    @property
    def alignment(self) -> int:
        return int(self.values.get("general.alignment", DEFAULT_ALIGNMENT))

    def tensor(self, name: str) -> Tensor | None:
        return next((t for t in self.tensors if t.name == name), None)


class _Cursor:
    def __init__(self, buf: Any) -> None:
        self.buf, self.pos = buf, 0

    def take(self, code: str) -> Any:
        (v,) = struct.unpack_from("<" + code, self.buf, self.pos)
        self.pos += struct.calcsize("<" + code)
        return v

    def string(self) -> bytes:
        n = self.take("Q")
        s = bytes(self.buf[self.pos : self.pos + n])
        if len(s) != n:
            raise ModelError("GGUF header ends inside a string")
        self.pos += n
        return s

    def value(self, vtype: int, keep: bool) -> Any:
        if vtype in _SCALAR:
            return self.take(_SCALAR[vtype])
        if vtype == STRING:
            return self.string().decode("utf-8", "replace")
        if vtype == ARRAY:
            etype, count = self.take("I"), self.take("Q")
            if etype in _SCALAR and not keep:  # skip numbers we do not need without decoding them
                self.pos += struct.calcsize("<" + _SCALAR[etype]) * count
                return None
            if etype == STRING:
                if not keep:  # walked, not copied: a 250,000-token vocabulary in a few ms
                    for _ in range(count):
                        self.pos += 8 + self.take("Q")
                    if self.pos > len(self.buf):
                        raise ModelError("GGUF header ends inside a string")
                    return None
                return [self.string() for _ in range(count)]
            if etype in _SCALAR:
                code = f"<{count}{_SCALAR[etype]}"
                v = struct.unpack_from(code, self.buf, self.pos)
                self.pos += struct.calcsize(code)
                return list(v)
            raise ModelError(f"GGUF array of type {etype} is not supported")
        raise ModelError(f"unknown GGUF value type {vtype}")


def read_header(path: str | os.PathLike[str], keep_arrays: frozenset[str] = frozenset()) -> Header:
    """Parse ``path``'s header. Array values are decoded only for keys in
    ``keep_arrays`` (string arrays as lists of bytes); the rest are None."""
    p = Path(path)
    try:
        with p.open("rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            return _parse(p, mm, keep_arrays)
    except (OSError, ValueError, struct.error) as exc:
        raise ModelError(f"cannot read the GGUF header of {p}: {exc}") from exc


def _parse(path: Path, mm: Any, keep_arrays: frozenset[str]) -> Header:
    c = _Cursor(mm)
    if bytes(mm[:4]) != MAGIC:
        raise ModelError(f"not a GGUF model file: {path}")
    c.pos = 4
    version = c.take("I")
    if version < 2:
        raise ModelError(f"{path}: GGUF version {version} is too old")
    n_tensors, n_kv = c.take("Q"), c.take("Q")
    h = Header(path, version)
    for _ in range(n_kv):
        start = c.pos
        key = c.string().decode("utf-8", "replace")
        vtype = c.take("I")
        h.values[key] = c.value(vtype, key in keep_arrays)
        h.raw[key] = bytes(mm[start : c.pos])
    for _ in range(n_tensors):
        name = c.string().decode("utf-8", "replace")
        n_dims = c.take("I")
        dims = [c.take("Q") for _ in range(n_dims)]
        h.tensors.append(Tensor(name, dims, c.take("I"), c.take("Q")))
    align = h.alignment
    h.data_start = (c.pos + align - 1) // align * align
    return h


# ggml type -> (elements per block, bytes per block) for every type llama.cpp
# writes: what a file's tensor directory says its data section must hold.
TYPE_SIZES = {
    0: (1, 4), 1: (1, 2), 2: (32, 18), 3: (32, 20), 6: (32, 22), 7: (32, 24), 8: (32, 34), 9: (32, 36),
    10: (256, 84), 11: (256, 110), 12: (256, 144), 13: (256, 176), 14: (256, 210), 15: (256, 292),
    16: (256, 66), 17: (256, 74), 18: (256, 98), 19: (256, 50), 20: (32, 18), 21: (256, 110), 22: (256, 82),
    23: (256, 136), 24: (1, 1), 25: (1, 2), 26: (1, 4), 27: (1, 8), 28: (1, 8), 29: (256, 56), 30: (1, 2),
    34: (256, 54), 35: (256, 66),
}


def needed_bytes(h: Header) -> int:
    """The file size the tensor directory implies: the data section's start
    plus the end of its furthest tensor (a type not listed counts from its
    offset only, so the check never refuses a file it cannot size)."""
    end = 0
    for t in h.tensors:
        size = 0
        if t.type in TYPE_SIZES:
            per_block, block_bytes = TYPE_SIZES[t.type]
            n = 1
            for d in t.dims:
                n *= d
            size = n // per_block * block_bytes
        end = max(end, t.offset + size)
    return h.data_start + end


def check_complete(path: str | os.PathLike[str]) -> None:
    """Raise ModelError when ``path`` is shorter than its own header says (a
    download or copy cut off): llama.cpp would fail on it later, mid-search."""
    h = read_header(path)
    have, need = os.path.getsize(path), needed_bytes(h)
    if have < need:
        raise ModelError(f"the model file {Path(path)} is truncated: {have:,} bytes, its header needs {need:,}; "
                         "delete it and download or convert it again (`groove models list` shows how)")


def check_gguf(path: str | os.PathLike[str]) -> Path:
    """Raise ModelError unless ``path`` is an existing, complete GGUF file
    (the magic, and as many bytes as its tensors need)."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise ModelError(f"model file not found: {p}")
    try:
        with p.open("rb") as fh:
            magic = fh.read(4)
    except OSError as exc:
        raise ModelError(f"cannot read model file {p}: {exc}") from exc
    if magic != MAGIC:
        raise ModelError(f"not a GGUF model file: {p}")
    check_complete(p)
    return p


def encode_kv(key: str, vtype: int, value: Any) -> bytes:
    """One key's entry, for scalar and string values."""
    name = key.encode()
    head = struct.pack("<Q", len(name)) + name + struct.pack("<I", vtype)
    if vtype == STRING:
        v = str(value).encode()
        return head + struct.pack("<Q", len(v)) + v
    return head + struct.pack("<" + _SCALAR[vtype], value)


def write_copy(
    src: Header,
    out: str | os.PathLike[str],
    *,
    drop_keys: set[str],
    add_kv: list[bytes],
    replace_tensors: dict[str, tuple[list[int], int, bytes]],
) -> None:
    """Write a GGUF made of ``src`` minus ``drop_keys`` plus ``add_kv``, with
    the tensors named in ``replace_tensors`` swapped for (dims, type, data)."""
    kvs = [raw for key, raw in src.raw.items() if key not in drop_keys] + add_kv
    align = src.alignment
    infos: list[bytes] = []
    plan: list[tuple[int, int, bytes | None]] = []  # (source offset, nbytes, replacement)
    offset = 0
    for t in src.tensors:
        dims, ttype, data = (t.dims, t.type, None)
        if t.name in replace_tensors:
            dims, ttype, data = replace_tensors[t.name]
        nbytes = len(data) if data is not None else t.nbytes
        name = t.name.encode()
        infos.append(struct.pack("<Q", len(name)) + name + struct.pack("<I", len(dims))
                     + struct.pack(f"<{len(dims)}Q", *dims) + struct.pack("<IQ", ttype, offset))
        plan.append((t.offset, nbytes, data))
        offset = (offset + nbytes + align - 1) // align * align
    with open(src.path, "rb") as fin, open(out, "wb") as fout:
        fout.write(MAGIC + struct.pack("<IQQ", 3, len(src.tensors), len(kvs)))
        for chunk in (*kvs, *infos):
            fout.write(chunk)
        fout.write(b"\0" * (-fout.tell() % align))
        for src_off, nbytes, data in plan:
            if data is None:
                fin.seek(src.data_start + src_off)
                data = fin.read(nbytes)
                if len(data) != nbytes:
                    raise ModelError(f"{src.path} ends inside a tensor")
            fout.write(data)
            fout.write(b"\0" * (-fout.tell() % align))
