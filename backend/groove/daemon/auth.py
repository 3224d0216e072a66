"""The per-vault connection token: generated on the daemon's first start,
kept in the OS keyring (service "groove", username = vault key) or, when no
usable keyring exists (headless Linux, CI), in a 0600 file in the private
runtime dir.

``GROOVE_TOKEN_STORE=file|keyring`` forces a store (tests use ``file`` so
they never touch the developer's real keyring).
"""

from __future__ import annotations

import hmac
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from ..paths import runtime_dir, vault_key

SERVICE = "groove"
TOKEN_BYTES = 32  # 64 hex characters
ENV_STORE = "GROOVE_TOKEN_STORE"


@dataclass(frozen=True)
class StoreInfo:
    store: str  # "keyring" | "file"
    detail: str  # backend name, or the file path
    reason: str = ""  # why the file is used, when it is

    def to_json(self) -> dict[str, str]:
        return {"store": self.store, "detail": self.detail, "reason": self.reason}


def token_file(vault: Path) -> Path:
    return runtime_dir() / f"{vault_key(vault)}.token"


def _usable_keyring() -> tuple[object | None, str]:
    """The keyring backend if one can really store secrets, else (None, why)."""
    try:
        import keyring
        from keyring.backends import chainer, fail
    except Exception as e:  # pragma: no cover - keyring is a dependency
        return None, f"keyring not importable ({e})"
    try:
        kr = keyring.get_keyring()
    except Exception as e:
        return None, f"keyring backend failed to initialise ({e})"
    if isinstance(kr, fail.Keyring):
        return None, "no keyring backend available"
    if isinstance(kr, chainer.ChainerBackend) and not kr.backends:
        return None, "no keyring backend available"
    name = f"{type(kr).__module__}.{type(kr).__name__}"
    if float(getattr(kr, "priority", 1) or 0) <= 0:
        return None, f"keyring backend {name} has priority 0 (not usable)"
    return kr, name


def store_info() -> StoreInfo:
    """Which store a token would be read from / written to, and why (for
    `groove doctor` and `groove serve --status`)."""
    forced = os.environ.get(ENV_STORE, "").strip().lower()
    if forced == "file":
        return StoreInfo("file", "", f"{ENV_STORE}=file")
    kr, detail = _usable_keyring()
    if kr is not None:
        return StoreInfo("keyring", detail)
    if forced == "keyring":
        return StoreInfo("keyring", detail, f"{ENV_STORE}=keyring but {detail}")
    return StoreInfo("file", "", detail)


def _read_file(path: Path) -> str | None:
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text or None


def _write_file(path: Path, token: str) -> None:
    # O_EXCL-free but created 0600 from the start: the token never sits in a
    # readable file, even briefly.
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, (token + "\n").encode("ascii"))
    finally:
        os.close(fd)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def load_token(vault: Path, store: str | None = None) -> tuple[str | None, StoreInfo]:
    """The stored token (None if never generated). ``store`` pins the store
    the daemon reported in its state file."""
    info = store_info() if store is None else StoreInfo(store, "")
    key = vault_key(vault)
    if info.store == "keyring":
        try:
            import keyring

            tok = keyring.get_password(SERVICE, key)
            if tok:
                return tok, info
        except Exception as e:
            _log().warning("keyring read failed (%s); trying the token file", e)
    path = token_file(vault)
    tok = _read_file(path)
    return tok, StoreInfo("file", str(path), info.reason) if tok else info


def get_or_create_token(vault: Path) -> tuple[str, StoreInfo]:
    """The vault's token, generating and storing it on first use."""
    tok, info = load_token(vault)
    if tok:
        return tok, info
    tok = secrets.token_hex(TOKEN_BYTES)
    if info.store == "keyring":
        try:
            import keyring

            keyring.set_password(SERVICE, vault_key(vault), tok)
            if keyring.get_password(SERVICE, vault_key(vault)) == tok:
                return tok, info
            reason = "keyring did not return the stored token"
        except Exception as e:
            reason = f"keyring write failed ({e})"
        _log().warning("%s; storing the token in a 0600 file instead", reason)
        info = StoreInfo("file", "", reason)
    path = token_file(vault)
    _write_file(path, tok)
    return tok, StoreInfo("file", str(path), info.reason)


def token_matches(expected: str, given: object) -> bool:
    """Constant-time comparison (no timing oracle on the token)."""
    if not isinstance(given, str):
        return False
    return hmac.compare_digest(expected.encode("utf-8"), given.encode("utf-8", "surrogatepass"))


def token_store_name() -> str:
    """One line for `groove doctor`: which store holds tokens, and why."""
    info = store_info()
    if info.store == "keyring":
        return f"keyring ({info.detail})" + (f" — {info.reason}" if info.reason else "")
    return f"0600 file in {runtime_dir()}" + (f" ({info.reason})" if info.reason else "")


def _log():  # logging is imported only when there is something to say (3 ms of a cold CLI start)
    import logging

    return logging.getLogger("groove.daemon.auth")
