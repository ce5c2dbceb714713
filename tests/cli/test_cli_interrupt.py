"""Ctrl-C stops a command wherever the signal lands (cli/network.py ``until_interrupted``)."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

# A command whose running task, when SIGINT arrives, sits inside a nursery whose exception
# group is caught and logged, as Hypercorn does with an app's errors (its ``_handle``) and with
# a KeyboardInterrupt in its accept loop.  The signal is sent from inside that task, so it lands
# there: trio's own delivery would raise KeyboardInterrupt in it, and the command would go on.
COMMAND = textwrap.dedent(
    """
    import os, signal, sys, trio
    from creepnet.cli.network import until_interrupted

    async def page_task():
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(200_000):  # the signal lands while this task's own code runs
            pass
        await trio.sleep_forever()

    async def app(args):
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(page_task)
        except BaseExceptionGroup as group:
            _, errors = group.split(trio.Cancelled)  # as Hypercorn's _handle does
            if errors is None:
                raise
            print("swallowed", flush=True)  # as Hypercorn logs it, and serves on
        await trio.sleep_forever()

    try:
        trio.run(until_interrupted, app, None)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        sys.exit(130)
    """
)


def test_a_ctrl_c_landing_in_a_task_that_swallows_errors_still_stops_the_command():
    done = subprocess.run(
        [sys.executable, "-c", COMMAND], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 130, done.stderr
    assert done.stdout.split() == ["interrupted"]  # nothing was raised inside the task


def test_a_command_that_ends_by_itself_returns_its_code_and_leaves_sigint_as_it_was():
    import trio

    from creepnet.cli.network import until_interrupted

    async def command(args: object) -> int:
        return 7

    before = signal.getsignal(signal.SIGINT)
    assert trio.run(until_interrupted, command, None) == 7
    assert signal.getsignal(signal.SIGINT) is before
