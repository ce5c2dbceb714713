"""creepnet.node: all I/O on trio (TCP, handshake, gossip, storage, zeroconf) driving sessions."""

from creepnet.node.bot import run_bot
from creepnet.node.errors import JoinRefused, NodeError
from creepnet.node.node import Node
from creepnet.node.storage import StorageError
from creepnet.node.transport import Timeouts
from creepnet.node.updates import Update

__all__ = ["JoinRefused", "Node", "NodeError", "StorageError", "Timeouts", "Update", "run_bot"]
