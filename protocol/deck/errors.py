"""The one error every deck check raises, naming the seat at fault."""

from __future__ import annotations


class DeckError(Exception):
    """A deck check failed.

    `seat` is the seat whose message (or revealed secret) is wrong; it is None
    only when the fault cannot be attributed yet (e.g. a card decodes to a point
    outside the table: some shuffle was dishonest and only the audit can say
    whose).  The message is signed evidence against `seat`.
    """

    def __init__(
        self,
        seat: int | None,
        operation: str,
        message: str,
        position: int | None = None,
    ) -> None:
        self.seat = seat
        self.operation = operation
        self.position = position
        self.message = message
        who = "unattributed" if seat is None else f"seat {seat}"
        where = "" if position is None else f" at position {position}"
        super().__init__(f"{who}: {operation}{where}: {message}")
