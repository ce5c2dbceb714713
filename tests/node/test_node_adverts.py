"""Adverts are hints that never raise: a hostile TXT record is skipped and counted (issue 21.2).

Through the parser itself, and through real zeroconf adverts on 127.0.0.1 under this test's own
service type (tests/conftest.py), with `creepnet games` and `creepnet ui` browsing them in real
processes.
"""

from __future__ import annotations

import functools
import json
import os
import socket
import subprocess
import sys

import pytest
import trio
from conftest import page_key_of
from zeroconf import ServiceInfo

from creepnet.node.discovery import (
    BadAdvert,
    GameAd,
    _parse,
    browse_until_stable,
    open_discovery,
    parse_advert,
    service_type,
)

LOOPBACK_ONLY = ["127.0.0.1"]
GAME = bytes.fromhex("0123456789abcdef0123456789abcdef")
GOOD = GameAd(GAME, "friday", "creeper", "abcd-efgh", 4242, 1, 2, "lobby", player="ann")


def good_fields() -> dict:
    info = GOOD.info()
    return {
        "instance": info.name,
        "properties": dict(info.properties),
        "port": info.port,
        "addresses": info.parsed_addresses(),
    }


def test_a_hosts_own_advert_parses_back_to_what_it_said():
    found = _parse(GOOD.info())
    assert found.title == "friday abcd-efgh 01234567"
    assert (found.kind, found.game, found.state, found.player) == (
        "creeper",
        "01234567",
        "lobby",
        "ann",
    )
    assert (found.seats_taken, found.seats_total, found.address) == (1, 2, "127.0.0.1:4242")


def txt(**changes: bytes | None) -> dict:
    fields = good_fields()
    properties = dict(fields["properties"])
    for key, value in changes.items():
        if value is None:
            properties.pop(key.encode(), None)
        else:
            properties[key.encode()] = value
    return {**fields, "properties": properties}


HOSTILE = {
    "superscript taken": txt(seats="²/2".encode()),
    "superscript total": txt(seats="1/²".encode()),
    "arabic-indic digits": txt(seats="١/٢".encode()),
    "5,000 digits": txt(seats=b"9" * 5000 + b"/2"),
    "5,000 digit version": txt(v=b"9" * 5000),
    "superscript version": txt(v="²".encode()),
    "non-UTF-8 value": txt(player=b"\xff\xfe\xb2"),
    "non-UTF-8 key": {
        **good_fields(),
        "properties": {b"\xb2": b"1", **good_fields()["properties"]},
    },
    "no seats": txt(seats=None),
    "more taken than seats": txt(seats=b"3/2"),
    "no seats at all": txt(seats=b"0/0"),
    "a state we never send": txt(state=b"finished"),
    "a long player name": txt(player=b"p" * 33),
    "game not the instance's id": txt(game=b"ffffffff"),
    "empty game id": txt(game=b""),
    "port 0": {**good_fields(), "port": 0},
    "port 70000": {**good_fields(), "port": 70000},
    "no port": {**good_fields(), "port": None},
    "no address": {**good_fields(), "addresses": []},
    "only 0.0.0.0": {**good_fields(), "addresses": ["0.0.0.0"]},
    "only broadcast": {**good_fields(), "addresses": ["255.255.255.255"]},
    "not an address": {**good_fields(), "addresses": ["localhost"]},
    "a name of another form": {**good_fields(), "instance": f"friday ab 0123.{service_type()}"},
    "a huge instance name": {**good_fields(), "instance": "x" * 5000 + "." + service_type()},
    "too many TXT entries": {
        **good_fields(),
        "properties": {
            **good_fields()["properties"],
            **{f"k{c}".encode(): b"" for c in "abcdefghijklmnop"},
        },
    },
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_advert_is_refused_with_a_reason_never_a_crash(name):
    assert "²".isdigit()  # what the old parser trusted before calling int()
    with pytest.raises(BadAdvert) as refused:
        parse_advert(**HOSTILE[name])
    assert str(refused.value)


def test_unknown_txt_keys_and_bounded_values_are_accepted():
    found = parse_advert(**txt(extra=b"anything", player="Zoë".encode()))
    assert found.player == "Zoë" and found.txt["extra"] == "anything"


def hostile_infos() -> dict[str, ServiceInfo]:
    """What a hostile host on the LAN can really announce (TXT strings are <= 255 bytes)."""

    def info(label: str, *, port: int = 4243, **properties: bytes) -> ServiceInfo:
        game = os.urandom(4).hex()
        return ServiceInfo(
            service_type(),
            f"{label} abcd-efgh {game}.{service_type()}",
            addresses=[socket.inet_aton("127.0.0.1")],
            port=port,
            properties={
                "v": "2",
                "kind": "creeper",
                "game": game,
                "seats": "1/2",
                "state": "lobby",
                **properties,
            },
            server=f"hostile-{game}.local.",
        )

    return {
        "superscript": info("superscript", seats="²/2".encode()),
        "digits": info("digits", seats=b"9" * 240 + b"/2"),
        "utf8": info("utf8", player=b"\xff\xfe"),
        "port0": info("porto", port=0),
    }


async def announce(hostile, infos: dict[str, ServiceInfo]) -> None:
    """Announce every hostile advert at once and without probing, as the node's own adverts do
    (node/discovery.py): an attacker need not probe, and probing each of them in turn only
    delayed the test by 1.2 s per advert."""
    async with trio.open_nursery() as nursery:
        for info in infos.values():
            register = functools.partial(
                hostile.zc.register_service, info, cooperating_responders=True
            )
            nursery.start_soon(trio.to_thread.run_sync, register)


async def test_hostile_adverts_on_the_lan_are_skipped_and_counted_and_the_good_one_shown():
    async with (
        open_discovery(LOOPBACK_ONLY) as hostile,
        open_discovery(LOOPBACK_ONLY) as host,
        open_discovery(LOOPBACK_ONLY) as guest,
    ):
        bad = hostile_infos()
        await announce(hostile, bad)
        await host.advertise(GOOD)
        with trio.fail_after(60):
            games = await browse_until_stable(guest, wait=30)
            # Skipped adverts arrive as the good one does; wait until all four were seen.
            while sum(guest.skipped.values()) < len(bad):
                games += await browse_until_stable(guest, wait=30)
    assert {f.game for f in games} == {"01234567"}
    assert sum(guest.skipped.values()) >= len(bad)
    reasons = " | ".join(guest.skipped)
    assert "seats" in reasons and "UTF-8" in reasons and "port" in reasons


async def test_creepnet_games_lists_the_good_game_while_a_hostile_advert_is_up():
    """`creepnet games` died with a traceback on the superscript digit (issue 21.2)."""
    async with open_discovery(LOOPBACK_ONLY) as hostile, open_discovery(LOOPBACK_ONLY) as host:
        await announce(hostile, hostile_infos())
        await host.advertise(GOOD)
        with trio.fail_after(60):
            result = await trio.run_process(
                [sys.executable, "-m", "creepnet.cli", "games", "--wait", "4", "--json"]
                + ["--iface", "127.0.0.1"],
                capture_stdout=True,
                capture_stderr=True,
                check=False,
            )
    assert result.returncode == 0, result.stderr.decode()
    listed = [json.loads(line) for line in result.stdout.decode().splitlines()]
    assert [item["game"] for item in listed] == ["01234567"]
    assert b"Traceback" not in result.stderr and b"skipped" in result.stderr


def request_head(path: str, host: str, *extra: str) -> str:
    return "\r\n".join([f"GET {path} HTTP/1.1", f"Host: {host}", "Connection: close", *extra])


async def exchange(port: int, head: str) -> str:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        await stream.send_all(head.encode() + b"\r\n\r\n")
        reply = b""
        while chunk := await stream.receive_some(65536):  # Connection: close
            reply += chunk
    return reply.decode("latin-1")


async def test_creepnet_ui_lists_the_good_game_while_hostile_adverts_are_up(tmp_path):
    """`creepnet ui` exited with its node and every game it hosted (and again on restart)."""
    async with open_discovery(["127.0.0.1"]) as hostile, open_discovery(["127.0.0.1"]) as host:
        await announce(hostile, hostile_infos())
        await host.advertise(GOOD)
        process = await trio.lowlevel.open_process(
            [sys.executable, "-m", "creepnet.cli", "ui", "--no-browser", "--iface", "127.0.0.1"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env={**os.environ, "CREEPNET_HOME": str(tmp_path / "home"), "PYTHONUNBUFFERED": "1"},
        )
        try:
            with trio.fail_after(60):
                printed = b""
                while b"?code=" not in printed:
                    chunk = await process.stdout.receive_some(4096)
                    assert chunk, printed.decode()
                    printed += chunk
                link = printed.decode().split("?code=")[0].rsplit("http://127.0.0.1:", 1)[1]
                port = int(link.split("/")[0])
                code = printed.decode().split("?code=")[1].split()[0]
                here = f"127.0.0.1:{port}"
                reply = await exchange(port, request_head(f"/?code={code}", here))
                cookie = reply.split("set-cookie: ", 1)[1].split(";")[0]
                cookie += "\r\n" + page_key_of(reply)  # and the page key, as the page sends
                lan: list = []
                while not any(item["game"] == "01234567" for item in lan):
                    await trio.sleep(0.1)  # the page polls its lobby in the same way
                    reply = await exchange(
                        port, request_head("/api/lobby", here, f"Cookie: {cookie}")
                    )
                    lan = json.loads(reply.partition("\r\n\r\n")[2])["lan"]
            assert [item["game"] for item in lan] == ["01234567"]
            assert process.poll() is None  # still up, with its node
        finally:
            process.terminate()
            with trio.move_on_after(10):
                await process.wait()
            if process.returncode is None:
                process.kill()
