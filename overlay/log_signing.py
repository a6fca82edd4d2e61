"""The data directory's key that signs the log's hash chain (``log-signing.key``, Ed25519).

Made on the first start, kept beside the database (mode 0600) and copied by ``feltcast log
backup``; whoever rewrites a log without it cannot sign the new chain
(:mod:`overlay.log_verify`).
"""

from __future__ import annotations

from pathlib import Path

KEY_FILE = "log-signing.key"


class LogSigner:
    """Signs chain heads with one Ed25519 key."""

    def __init__(self, private_bytes: bytes) -> None:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        self._key = Ed25519PrivateKey.from_private_bytes(private_bytes)
        self.public = self._key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()
        """The public key, hex (what ``log_signature.key`` and ``log verify`` name)."""

    def sign(self, head: str) -> str:
        return self._key.sign(head.encode()).hex()

    @classmethod
    def for_data_dir(cls, data_dir: Path) -> LogSigner:
        """The data directory's key, made now if there is none."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        from cryptography.hazmat.primitives.serialization import (
            Encoding,
            NoEncryption,
            PrivateFormat,
        )

        path = data_dir / KEY_FILE
        if path.exists():
            return cls(bytes.fromhex(path.read_text().strip()))
        raw = Ed25519PrivateKey.generate().private_bytes(Encoding.Raw, PrivateFormat.Raw,
                                                         NoEncryption())
        from overlay.auth import write_private

        data_dir.mkdir(parents=True, exist_ok=True)
        write_private(path, (raw.hex() + "\n").encode())
        return cls(raw)

    @classmethod
    def existing(cls, data_dir: Path) -> LogSigner | None:
        """The data directory's key if it has one (nothing is made)."""
        path = data_dir / KEY_FILE
        return cls(bytes.fromhex(path.read_text().strip())) if path.is_file() else None


def signature_valid(public_hex: str, head: str, signature_hex: str) -> bool:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_hex)).verify(
            bytes.fromhex(signature_hex), head.encode())
    except (InvalidSignature, ValueError):
        return False
    return True
