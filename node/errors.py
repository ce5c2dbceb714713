"""Errors the node raises for the user to read (the CLI prints them as one line)."""

from __future__ import annotations


class NodeError(Exception):
    """A node operation failed; the message is meant for the user."""


class JoinRefused(NodeError):
    """The host refused our join request; the message carries its reason."""
