"""A game picked by its advert (`creepnet join NAME`, `watch NAME`, the page's list) is dialled
only within the node's scope, as a "host moved" advert is (node/relocation.py).

`join NAME` dialled whatever address the advert of that name gave: anyone on the LAN could
advertise a game under a name a player was about to type, and make the player's node connect
across the Internet, or to a service of its own machine (a LAN advert naming 127.0.0.1).
Nothing here leaves the machine: a dial off loopback is refused by the test itself.
"""

from __future__ import annotations

import pytest
import trio
from conftest import next_update

from creepnet.cli.commands.join import _join_or_resume
from creepnet.cli.main import build_parser
from creepnet.cli.network import leaf_error
from creepnet.node import connections, updates
from creepnet.node.discovery import GameAd, open_discovery, parse_advert
from creepnet.node.errors import NodeError
from creepnet.node.mesh import Scope
from creepnet.node.node import Node
from creepnet.node.transport import TransportError

GAME = bytes.fromhex("0123456789abcdef0123456789abcdef")


def advert(*addresses: str) -> GameAd:
    return GameAd(GAME, "friday", "creeper", "abcd-efgh", 4100, 1, 2, "lobby", addresses)


async def test_a_game_joined_by_name_is_not_dialled_outside_the_nodes_scope(tmp_path, monkeypatch):
    dialled: list[str] = []
    real_connect = connections.connect

    async def loopback_only(address, timeouts):
        dialled.append(address)
        if not address.startswith("127."):
            raise TransportError(f"test: refused to dial {address}")
        return await real_connect(address, timeouts)

    monkeypatch.setattr(connections, "connect", loopback_only)
    home = str(tmp_path / "joiner")
    args = build_parser("join").parse_args(
        ["join", "friday", "--home", home, "--iface", "127.0.0.1", "--wait", "20"]
    )
    with trio.fail_after(30):
        async with open_discovery(["127.0.0.1"]) as zeroconf:  # multicast on loopback only
            await zeroconf.advertise(advert("192.0.2.7"))  # TEST-NET-1: never reached
            with pytest.raises(BaseException) as raised:  # in the node's nursery's group
                await _join_or_resume(args, [])
    refused = leaf_error(raised.value)
    assert isinstance(refused, NodeError), refused
    assert "not dialling 192.0.2.7:4100" in str(refused)
    assert "not a loopback address" in str(refused)
    assert "--addr 192.0.2.7:4100" in str(refused)  # what to do if it is meant
    assert dialled == []


def found(address: str):
    info = advert(address).info()
    return parse_advert(info.name, dict(info.properties), info.port, [address])


@pytest.mark.parametrize(
    ("interfaces", "address", "refusal"),
    [
        (None, "192.168.1.5", None),  # a host on the LAN
        (None, "10.1.2.3", None),
        (None, "8.8.8.8", "is not a LAN address"),  # the Internet
        (None, "127.0.0.1", "is a loopback address"),  # a LAN advert: our own services
        (["192.168.1.2"], "127.0.0.1", "is a loopback address"),
        (["127.0.0.1"], "127.0.0.1", None),  # zeroconf on loopback alone: this machine
    ],
)
async def test_an_advert_is_dialled_only_within_the_scope_of_a_lan_node(
    tmp_path, interfaces, address, refusal
):
    async with (
        Node.open(tmp_path / "n", mesh=Scope.LAN, iface=interfaces) as node,
        node.updates() as news,
    ):
        if refusal is None:
            assert node.advert_address(found(address)) == f"{address}:4100"
            return
        with pytest.raises(NodeError, match=refusal):
            node.advert_address(found(address))
        said = await next_update(news, lambda u: u.kind == updates.ADVERT_REFUSED)
        assert said.data["address"] == f"{address}:4100" and refusal in said.text
