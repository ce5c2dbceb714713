"""One module per `creepnet` subcommand.

Each module defines ``register(subparsers) -> None``, which adds its parser and sets
``func=run`` where ``run(args) -> int`` returns the exit code. The CLI discovers the modules,
so adding a command never means editing a shared list.
"""
