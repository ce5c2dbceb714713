"""`creepnet` with the test-only dice race registered: what a node process of these tests runs
(`python dicerace_cli.py demo dicerace …`); a demo's bot nodes are started the same way."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import dicerace  # noqa: E402

from creepnet.cli.commands import demo  # noqa: E402
from creepnet.cli.main import main  # noqa: E402

COMMAND = [sys.executable, str(Path(__file__).resolve())]

if __name__ == "__main__":
    dicerace.register()
    demo.NODE = COMMAND
    sys.exit(main())
