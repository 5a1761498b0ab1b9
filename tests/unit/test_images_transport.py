"""`generator.images.transport`: the scheme a registry is spoken to with, and the
challenges an anonymous client refuses."""

from __future__ import annotations

import pytest

from generator.imageref.reference import parse_reference
from generator.images.transport import RegistryError, Transport, base_url


@pytest.mark.parametrize("registry", ["localhost:5000", "127.0.0.1:5000", "[::1]:5000"])
def test_a_loopback_registry_is_spoken_to_over_plain_http(registry: str) -> None:
    assert base_url(registry) == f"http://{registry}"


@pytest.mark.parametrize("registry", ["docker.io", "ghcr.io", "10.0.0.1:5000"])
def test_every_other_registry_is_spoken_to_over_https(registry: str) -> None:
    assert base_url(registry) == f"https://{registry}"


def test_a_challenge_for_credentials_is_refused_without_a_request() -> None:
    ref = parse_reference("ghcr.io/org/image:tag")
    with pytest.raises(RegistryError) as caught:
        Transport()._token(ref, 'Basic realm="registry"')
    assert caught.value.message == (
        "ghcr.io asks for credentials (Basic); only anonymous pulls are supported"
    )


def test_a_bearer_challenge_without_a_realm_is_refused() -> None:
    ref = parse_reference("ghcr.io/org/image:tag")
    with pytest.raises(RegistryError) as caught:
        Transport()._token(ref, 'Bearer service="ghcr.io"')
    assert caught.value.message == "ghcr.io names no token realm in its challenge"
