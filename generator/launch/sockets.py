"""Which processes listen on a TCP port, from /proc (Linux): the LISTEN sockets of
/proc/net/tcp and /proc/net/tcp6 whose address a connection to 127.0.0.1 reaches, and the
processes holding them (`/proc/<pid>/fd/*` links to `socket:[inode]`)."""

from __future__ import annotations

import ipaddress
import sys
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

TABLES = (Path("/proc/net/tcp"), Path("/proc/net/tcp6"))
_LISTEN = "0A"
# Local addresses a connection to 127.0.0.1 can reach.
_REACHED = {
    ipaddress.ip_address("127.0.0.1"),
    ipaddress.ip_address("0.0.0.0"),
    ipaddress.ip_address("::"),
    ipaddress.ip_address("::ffff:127.0.0.1"),
    ipaddress.ip_address("::ffff:0.0.0.0"),
}


def kernel_address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """An address as the kernel prints it: 32-bit words in host byte order, in hex."""
    words = [text[i : i + 8] for i in range(0, len(text), 8)]
    raw = b"".join(int(word, 16).to_bytes(4, sys.byteorder) for word in words)
    return ipaddress.ip_address(raw)


def listening(port: int) -> set[int] | None:
    """Inodes of the LISTEN sockets on `port` that 127.0.0.1 reaches; None when neither
    table can be read (not Linux)."""
    found: set[int] = set()
    read = False
    for table in TABLES:
        try:
            lines = table.read_text(encoding="ascii", errors="replace").splitlines()[1:]
        except OSError:
            continue
        read = True
        for line in lines:
            fields = line.split()
            if len(fields) < 10 or fields[3] != _LISTEN:
                continue
            address, _, port_hex = fields[1].partition(":")
            try:
                if int(port_hex, 16) != port or kernel_address(address) not in _REACHED:
                    continue
                found.add(int(fields[9]))
            except ValueError:
                continue
    return found if read else None


def holders(inodes: set[int], pids: Iterable[int] | None = None) -> dict[int, int]:
    """socket inode -> a pid holding it, among `pids` (None: every process that can be
    read)."""
    if pids is None:
        pids = (int(n) for n in _proc_names() if n.isdigit())
    wanted = {f"socket:[{inode}]": inode for inode in inodes}
    found: dict[int, int] = {}
    for pid in pids:
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                target = str(fd.readlink())
            except OSError:
                continue
            if target in wanted:
                found.setdefault(wanted[target], pid)
    return found


def command(pid: int) -> str:
    """The process's command name, or '?'."""
    try:
        return Path(f"/proc/{pid}/comm").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return "?"


def _proc_names() -> list[str]:
    try:
        return [entry.name for entry in Path("/proc").iterdir()]
    except OSError:
        return []
