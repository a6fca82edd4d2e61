"""TLS for the venue network: a local certificate authority and the service's certificate.

``feltcast tls init`` (or the first start with ``[server] tls = "auto"``) makes, in
``<data>/tls/``, a certificate authority of the show's own (``ca.pem``; its key ``ca.key``,
mode 0600) and a server certificate it signed (``server.pem``, ``server.key``) for
``localhost``, 127.0.0.1, this machine's name and the names and addresses given. The tablet and
the OBS machine trust ``ca.pem`` once (or check the fingerprint printed here); nothing is
fetched from anywhere. ``[server] tls_cert`` and ``tls_key`` name a certificate of the venue's
own instead.

Without TLS, the live channels with hole cards, the operator channel and every command are
refused to peers outside ``[server] local_networks`` (loopback by default): a token or a hole
card never crosses the venue network in clear text, unless ``allow_plaintext = true`` says so.
"""

from __future__ import annotations

import datetime
import ipaddress
import socket
import ssl
from dataclasses import dataclass
from pathlib import Path

from overlay.auth import write_private
from overlay.startup import StartupError

TLS_DIR = "tls"
CA_DAYS = 3650
SERVER_DAYS = 825
"""What browsers accept for a server certificate's lifetime."""


@dataclass(frozen=True, slots=True)
class TlsFiles:
    """The certificate and key the service serves with, and the CA that signed them."""

    cert: Path
    key: Path
    ca: Path | None = None

    def context(self) -> ssl.SSLContext:
        """A server context (TLS 1.2 or newer) with the certificate loaded.

        :raises StartupError: a file missing, unreadable, or not a matching pair.
        """
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        try:
            context.load_cert_chain(self.cert, self.key)
        except (OSError, ssl.SSLError) as error:
            raise StartupError(f"cannot load the TLS certificate {self.cert} with its key "
                               f"{self.key}: {error}") from None
        return context


def tls_dir(data_dir: Path) -> Path:
    return data_dir / TLS_DIR


def local_files(data_dir: Path) -> TlsFiles:
    directory = tls_dir(data_dir)
    return TlsFiles(directory / "server.pem", directory / "server.key", directory / "ca.pem")


def names_for(extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The names and addresses a server certificate covers."""
    names = ["localhost", "127.0.0.1", "::1", socket.gethostname(), *extra]
    return tuple(dict.fromkeys(name for name in names if name))


def make_local_ca(data_dir: Path, names: tuple[str, ...] = (), *,
                  now: datetime.datetime | None = None) -> TlsFiles:
    """Create the CA (if there is none yet) and a new server certificate signed by it."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = now or datetime.datetime.now(datetime.UTC)
    directory = tls_dir(data_dir)
    directory.mkdir(parents=True, exist_ok=True)
    files = local_files(data_dir)
    ca_key_path = directory / "ca.key"
    assert files.ca is not None
    if files.ca.exists() and ca_key_path.exists():
        ca_cert = x509.load_pem_x509_certificate(files.ca.read_bytes())
        loaded = serialization.load_pem_private_key(ca_key_path.read_bytes(), None)
        assert isinstance(loaded, ec.EllipticCurvePrivateKey)
        ca_key = loaded
    else:
        ca_key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name([
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Feltcast"),
            x509.NameAttribute(NameOID.COMMON_NAME,
                               f"Feltcast local CA ({socket.gethostname()})")])
        ca_cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
                   .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(minutes=5))
                   .not_valid_after(now + datetime.timedelta(days=CA_DAYS))
                   .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
                   .add_extension(x509.KeyUsage(
                       digital_signature=True, key_cert_sign=True, crl_sign=True,
                       content_commitment=False, key_encipherment=False,
                       data_encipherment=False, key_agreement=False, encipher_only=False,
                       decipher_only=False), critical=True)
                   .add_extension(x509.SubjectKeyIdentifier.from_public_key(
                       ca_key.public_key()), critical=False)
                   .sign(ca_key, hashes.SHA256()))
        write_private(ca_key_path, ca_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption()))
        files.ca.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    key = ec.generate_private_key(ec.SECP256R1())
    alternative: list[x509.GeneralName] = []
    for name in names_for(names):
        try:
            alternative.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            alternative.append(x509.DNSName(name))
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME,
                                                        socket.gethostname() or "feltcast")]))
            .issuer_name(ca_cert.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=SERVER_DAYS))
            .add_extension(x509.SubjectAlternativeName(alternative), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]),
                           critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    write_private(files.key, key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()))
    files.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return files


@dataclass(frozen=True, slots=True)
class CertificateInfo:
    path: Path
    subject: str
    names: tuple[str, ...]
    not_after: datetime.datetime
    sha256: str
    """The certificate's SHA-256 fingerprint, colon-separated (as browsers show it)."""
    spki_sha256: str
    """The base64 SHA-256 of its public key (Chromium's ``--ignore-certificate-errors-spki-list``
    and HTTP public key pinning take this form)."""


def describe(path: Path) -> CertificateInfo:
    import base64

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization

    cert = x509.load_pem_x509_certificate(path.read_bytes())
    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        names = tuple(str(v) for v in san.get_values_for_type(x509.DNSName)) + tuple(
            str(v) for v in san.get_values_for_type(x509.IPAddress))
    except x509.ExtensionNotFound:
        names = ()
    digest = cert.fingerprint(hashes.SHA256()).hex().upper()
    spki = cert.public_key().public_bytes(serialization.Encoding.DER,
                                          serialization.PublicFormat.SubjectPublicKeyInfo)
    hasher = hashes.Hash(hashes.SHA256())
    hasher.update(spki)
    return CertificateInfo(path, cert.subject.rfc4514_string(), names,
                           cert.not_valid_after_utc,
                           ":".join(digest[i:i + 2] for i in range(0, len(digest), 2)),
                           base64.b64encode(hasher.finalize()).decode())


def server_files(server_tls_cert: str, server_tls_key: str,
                 data_dir: Path) -> tuple[TlsFiles, bool]:
    """The files to serve with: the configured certificate, else the local CA's (made now, on
    the first start, when there is none); and whether they were made now."""
    if server_tls_cert:
        return TlsFiles(Path(server_tls_cert), Path(server_tls_key)), False
    files = local_files(data_dir)
    if files.cert.exists() and files.key.exists():
        return files, False
    return make_local_ca(data_dir), True


def tls_lines(files: TlsFiles, made: bool) -> list[str]:
    """What the start-up list says about TLS: the certificate and what to trust."""
    server = describe(files.cert)
    lines = [f"TLS: {'made now: ' if made else ''}{files.cert} for {', '.join(server.names)} "
             f"(SHA-256 {server.sha256}, until {server.not_after:%Y-%m-%d})"]
    if files.ca is not None and files.ca.exists():
        ca = describe(files.ca)
        lines.append(f"  tablets and the OBS machine trust {files.ca} once "
                     f"(SHA-256 {ca.sha256}); `feltcast tls show` repeats this")
    return lines
