"""Token storage: the keyring when a usable backend exists, else a 0600 file;
the same token across daemon restarts; detection of "no keyring"."""

from __future__ import annotations

import os
import stat

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail

from groove.daemon import auth


class DictKeyring(KeyringBackend):
    """A real (in-memory) keyring backend, standing in for the OS keychain."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.items.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.items[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.items.pop((service, username), None)


@pytest.fixture
def vault(tmp_path, monkeypatch):
    monkeypatch.setenv("GROOVE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv(auth.ENV_STORE, raising=False)
    v = tmp_path / "vault"
    v.mkdir()
    yield v
    keyring.set_keyring(fail.Keyring())


def test_without_a_keyring_backend_the_token_goes_to_a_0600_file(vault):
    keyring.set_keyring(fail.Keyring())
    info = auth.store_info()
    assert info.store == "file" and "no keyring" in info.reason
    tok, used = auth.get_or_create_token(vault)
    assert used.store == "file" and len(tok) == 64
    f = auth.token_file(vault)
    assert stat.S_IMODE(os.stat(f).st_mode) == 0o600 and f.read_text().strip() == tok
    assert auth.get_or_create_token(vault)[0] == tok, "stable across restarts"
    assert auth.load_token(vault, "file")[0] == tok


def test_with_a_usable_keyring_the_token_is_stored_there_and_no_file_is_written(vault):
    kr = DictKeyring()
    keyring.set_keyring(kr)
    assert auth.store_info().store == "keyring"
    tok, used = auth.get_or_create_token(vault)
    assert used.store == "keyring"
    assert kr.items[("groove", auth.vault_key(vault))] == tok
    assert not auth.token_file(vault).exists()
    assert auth.load_token(vault, "keyring")[0] == tok


def test_env_var_forces_the_file_store_even_with_a_keyring(vault, monkeypatch):
    keyring.set_keyring(DictKeyring())
    monkeypatch.setenv(auth.ENV_STORE, "file")
    tok, used = auth.get_or_create_token(vault)
    assert used.store == "file" and auth.token_file(vault).read_text().strip() == tok


def test_token_comparison_rejects_non_strings_and_near_misses():
    assert auth.token_matches("ab" * 32, "ab" * 32)
    assert not auth.token_matches("ab" * 32, "ab" * 31 + "ac")
    assert not auth.token_matches("ab" * 32, None)
    assert not auth.token_matches("ab" * 32, 12)
