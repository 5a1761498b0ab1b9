"""generator.launch.sockets: who listens on a port (Linux /proc)."""

from __future__ import annotations

import os
import socket
import sys

import pytest

from generator.launch import sockets

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def test_kernel_addresses_are_read_in_host_byte_order() -> None:
    loopback = (0x7F000001).to_bytes(4, "big")
    word = int.from_bytes(loopback, sys.byteorder)
    assert str(sockets.kernel_address(f"{word:08X}")) == "127.0.0.1"
    assert str(sockets.kernel_address("0" * 32)) == "::"


@linux
def test_a_listening_socket_is_found_with_the_process_that_holds_it() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        inodes = sockets.listening(port)
        assert inodes is not None
        assert len(inodes) == 1
        assert sockets.holders(inodes, [os.getpid()]) == {next(iter(inodes)): os.getpid()}
        assert sockets.holders(inodes, [os.getppid()]) == {}
    assert sockets.listening(port) == set()
