"""A LAN on one machine, for benchmarks: each node process gets its own share of the CPU.

On a LAN every node checks and proves on its own CPU; on one machine four nodes share two
cores, and whoever is busy slows everyone.  A Linux cgroup with a CPU quota (the `cpu`
controller: v1's ``cpu.cfs_quota_us``, v2's ``cpu.max``) caps a process at a fraction of a
core whether or not the others are idle: four nodes capped at half a core each behave like
four machines at half this machine's speed.  Time the yardstick (the crypto) under the same
cap and the ratio of the two is what it would be on such a LAN, less its wire latency.

Needs the right to create cgroups (root, or a delegated subtree); `CpuCaps.open` says why not.
A quota is enforced per period, so a capped process may wait up to one period when it has
used its share: the period is short to keep that artefact small.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

PERIOD_US = 10_000  # the kernel enforces quotas in ~5 ms slices: shorter buys nothing


class CapError(Exception):
    """This machine will not let us cap a process's CPU."""


class CpuCaps:
    """Cgroups named ``creepnet-bench-<pid>-<k>``, each capped at ``cores`` CPUs."""

    def __init__(self, root: Path, version: int, cores: float) -> None:
        self.root, self.version, self.cores = root, version, cores
        self.owner = os.getpid()  # names stay this process's in a child about to exec
        self.made: list[Path] = []

    @classmethod
    def open(cls, cores: float) -> CpuCaps:
        v1 = Path("/sys/fs/cgroup/cpu")
        v2 = Path("/sys/fs/cgroup")
        if (v1 / "cpu.cfs_quota_us").exists():
            caps = cls(v1, 1, cores)
        elif "cpu" in _read(v2 / "cgroup.subtree_control").split():
            caps = cls(v2, 2, cores)
        else:
            raise CapError("no cgroup cpu controller to cap a process with (Linux cgroups)")
        try:
            caps.path(0)
        except OSError as exc:
            raise CapError(f"cannot create a cgroup under {caps.root}: {exc}") from None
        return caps

    def path(self, k: int) -> Path:
        """Cgroup k, made and capped on first use (make them before forking: a child's
        record of what it made is lost with it)."""
        path = self.root / f"creepnet-bench-{self.owner}-{k}"
        if path not in self.made:
            path.mkdir(exist_ok=True)
            self.made.append(path)
            quota = int(PERIOD_US * self.cores)
            if self.version == 1:
                (path / "cpu.cfs_period_us").write_text(str(PERIOD_US))
                (path / "cpu.cfs_quota_us").write_text(str(quota))
            else:
                (path / "cpu.max").write_text(f"{quota} {PERIOD_US}")
        return path

    def enter(self, k: int, pid: int = 0) -> None:
        """Move process pid (0: the caller) into cgroup k."""
        (self.path(k) / "cgroup.procs").write_text(str(pid or os.getpid()))

    def leave(self) -> None:
        """Move this process back to the root cgroup (uncapped)."""
        (self.root / "cgroup.procs").write_text(str(os.getpid()))

    def close(self) -> None:
        self.leave()
        for path in self.made:
            with contextlib.suppress(OSError):  # only once its processes have exited
                path.rmdir()


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""
