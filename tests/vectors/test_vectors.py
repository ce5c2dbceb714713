"""The conformance vectors (vectors/README.md) hold for our own code, and are exactly what the
generator writes: they can never drift from the implementation they describe."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from proof_memo import memoized_proofs

from creepnet.protocol import codec, onion, retirement
from creepnet.protocol.deck import escrow, group
from creepnet.protocol.deck.classproof import verify_class
from creepnet.protocol.deck.dleq import verify as verify_dleq
from creepnet.protocol.deck.errors import DeckError
from creepnet.protocol.deck.keys import DeckKeys, commit_secret
from creepnet.protocol.deck.noneof import NoneOfRejected, verify_none_of
from creepnet.protocol.deck.shuffleproof import ShuffleRejected, verify_shuffle
from creepnet.protocol.event import parse_event, sign_event
from creepnet.protocol.identity import Identity, fingerprint, verify_signature
from creepnet.protocol.lobby import JoinRequest, derive_game_id
from creepnet.protocol.log import iter_log
from creepnet.protocol.rules import GameRuleError
from creepnet.protocol.verify import replay

VECTORS = Path(__file__).resolve().parents[2] / "vectors"


@cache
def generator() -> Any:
    spec = importlib.util.spec_from_file_location("vectors_generate", VECTORS / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def load(name: str) -> dict[str, Any]:
    data = json.loads((VECTORS / name).read_text(encoding="utf-8"))
    assert data["format"] == 1
    return data


def unhex(entry: dict[str, Any]) -> bytes:
    if "hex" in entry:
        return bytes.fromhex(entry["hex"])
    return b"".join(bytes.fromhex(piece) * count for piece, count in entry["hex_runs"])


# --- primitives ---------------------------------------------------------------------------


def test_canonical_encodings_round_trip():
    vectors = load("codec.json")
    assert len(vectors["valid"]) > 30
    for case in vectors["valid"]:
        value = generator().untyped(case["value"])
        assert codec.encode(value) == unhex(case), case["name"]
        assert codec.decode(unhex(case)) == value, case["name"]
    for case in vectors["accepted"]:
        codec.decode(unhex(case))


def test_every_rejected_encoding_is_refused():
    cases = load("codec.json")["rejected"]
    assert len(cases) > 25
    for case in cases:
        with pytest.raises(codec.CodecError):
            codec.decode(unhex(case))


def test_identities_signatures_and_event_bytes():
    vectors = load("identity.json")
    for key in vectors["keys"]:
        identity = Identity.from_seed(bytes.fromhex(key["seed"]))
        assert identity.public_key.hex() == key["public"]
        assert fingerprint(identity.public_key) == key["fingerprint"]
    verdicts = [
        verify_signature(bytes.fromhex(c["key"]), bytes.fromhex(c["message"]),
                         bytes.fromhex(c["sig"]))
        for c in vectors["signatures"]
    ]  # fmt: skip
    assert verdicts == [c["valid"] for c in vectors["signatures"]]
    assert True in verdicts and False in verdicts
    gid = vectors["game_id"]
    assert hashlib.sha256(bytes.fromhex(gid["input"])).digest()[:16].hex() == gid["game"]
    assert (
        derive_game_id(bytes.fromhex(gid["host"]), bytes.fromhex(gid["nonce"])).hex()
        == (gid["game"])
    )
    ev = vectors["event"]
    unsigned = generator().untyped(ev["unsigned"])
    event = sign_event(
        Identity.from_seed(bytes.fromhex(ev["seed"])),
        **{k: unsigned[k] for k in ("game", "seq", "prev", "type", "body")},
    )
    assert event.signed.hex() == ev["signed_bytes"]
    assert event.sig.hex() == ev["sig"] and event.raw.hex() == ev["raw"]
    assert hashlib.sha256(event.raw).hexdigest() == ev["id"] == event.id.hex()
    assert parse_event(bytes.fromhex(ev["raw"])).signature_valid()
    join = vectors["join_request"]
    request = JoinRequest.from_map(generator().untyped(join["map"]))
    assert request.sig.hex() == join["sig"]
    assert request.to_bytes().hex() == join["bytes"]
    assert verify_signature(request.key, bytes.fromhex(join["signed_bytes"]), request.sig)


def test_onion_chains_and_draws():
    v = load("onion.json")
    game, secret = bytes.fromhex(v["game"]), bytes.fromhex(v["secret"])
    assert [onion.layer(game, secret, d).hex() for d in range(v["length"] + 1)] == v["chain"]
    assert onion.anchor(game, secret, v["length"]).hex() == v["anchor"] == v["chain"][-1]
    for draw in v["draws"]:
        pres = [bytes.fromhex(p) for p in draw["preimages"]]
        entropy = onion.draw_entropy(game, draw["draw"], pres)
        assert hashlib.sha256(bytes.fromhex(draw["input"])).digest() == entropy
        assert entropy.hex() == draw["entropy"]
        assert onion.uniform(entropy, draw["bound"]) == draw["value"]
    assert len(v["rejection_sampling"]) == 2
    for case in v["rejection_sampling"]:
        bound = int(case["bound"])
        first = int(case["words"][0], 16)
        assert first >= int(case["limit"])  # the first word is rejected
        assert onion.uniform(bytes.fromhex(case["entropy"]), bound) == int(case["value"])


def test_deck_frames_points_and_derivations():
    v = load("deck.json")
    for case in v["frame"]:
        assert group.frame(*generator().unframed(case["parts"])).hex() == case["hex"]
    for card, point in v["card_points"]["points"].items():
        assert group.card_point(card).hex() == point
    assert [p.hex() for p in group.generators("shuffle", 6)] == v["generators"]["points"]
    d = v["derivations"]
    game, seat_key, secret = (bytes.fromhex(d[k]) for k in ("game", "seat_key", "secret"))
    keys = DeckKeys(game, seat_key, secret)
    assert commit_secret(game, seat_key, secret).hex() == d["commitment"]
    example = d["example_scalar"]
    assert group.scalar_from_wide(bytes.fromhex(example["okm"])).hex() == example["scalar"]
    assert keys.lock_key("deck:0", 3).hex() == example["scalar"]
    for case in d["layer"]:
        assert keys.layer(case["family"], case["depth"]).hex() == case["scalar"]
        assert keys.layer_commit(case["family"], case["depth"]).hex() == case["commit"]
    for case in d["lock"]:
        assert keys.lock_key(case["pool"], case["position"]).hex() == case["scalar"]
    for case in d["blind"]:
        scalar = keys.blind_key(case["pool"], case["position"], case["transfer"])
        assert scalar.hex() == case["scalar"]
    stream = keys._stream("perm", d["permutation_stream"]["pool"], 1)
    words = [next(stream) for _ in d["permutation_stream"]["first_words"]]
    assert words == d["permutation_stream"]["first_words"]
    for case in d["permutations"]:
        assert keys.permutation(case["pool"], case["shuffle_index"], case["n"]) == case["perm"]


def test_dleq_proofs_per_use():
    proofs = load("deck.json")["dleq"]["proofs"]
    assert [p["op"] for p in proofs] == ["open", "lock", "blind", "unblind"]
    for p in proofs:
        points = [bytes.fromhex(p[k]) for k in ("g1", "h1", "g2", "h2")]
        ctx = bytes.fromhex(p["context"])
        assert verify_dleq(bytes.fromhex(p["proof"]), *points, ctx)
        assert not verify_dleq(bytes.fromhex(p["tampered_proof"]), *points, ctx)
        digest = hashlib.sha512(bytes.fromhex(p["challenge_input"])).digest()
        assert group.scalar_from_wide(digest).hex() == p["proof"][:64]


def test_shuffle_none_of_and_class_proofs():
    v = load("deck.json")
    s = v["shuffle"]
    proof = {k: [bytes.fromhex(x) for x in val] if isinstance(val, list) else bytes.fromhex(val)
             for k, val in s["proof"].items()}  # fmt: skip
    inputs = [bytes.fromhex(p) for p in s["inputs"]]
    args = (bytes.fromhex(s["base"]), bytes.fromhex(s["commit"]), bytes.fromhex(s["context"]))
    verify_shuffle(proof, inputs, [bytes.fromhex(p) for p in s["outputs"]], *args)
    with pytest.raises(ShuffleRejected):
        verify_shuffle(proof, inputs, [bytes.fromhex(p) for p in s["invalid_outputs"]], *args)
    points = {c: bytes.fromhex(p) for c, p in v["card_points"]["points"].items()}
    for kind, check in (("none_of", _none_of_holds), ("class", _class_holds)):
        block = v[kind]
        statement = (bytes.fromhex(block["commit"]), bytes.fromhex(block["core"]), points)
        outcomes = [check(case, statement, bytes.fromhex(block["context"]))
                    for case in block["cases"]]  # fmt: skip
        assert outcomes == [case["valid"] for case in block["cases"]]


def _none_of_holds(case: dict, statement: tuple, ctx: bytes) -> bool:
    try:
        verify_none_of(bytes.fromhex(case["proof"]), *statement, case["excluded"], ctx)
    except NoneOfRejected:
        return False
    return True


def _class_holds(case: dict, statement: tuple, ctx: bytes) -> bool:
    proof = [bytes.fromhex(p) for p in case["proof"]]
    return verify_class(proof, *statement, case["allowed"], ctx)


def test_deck_bookkeeping_face_up_and_depths():
    """deck.json `bookkeeping` (DECKS.md "Face up, exactly"): every message is accepted and
    leaves exactly the face-up sets, depths and lock counts the vector states."""
    from creepnet.protocol.deck.state import DeckState

    v = load("deck.json")["bookkeeping"]
    state = DeckState(bytes.fromhex(v["game"]), [bytes.fromhex(k) for k in v["seat_keys"]],
                      v["cards"])  # fmt: skip
    for step in v["messages"]:
        state.apply(step["seat"], step["seq"], generator().untyped(step["message"]))
        kept = {
            "families": {f: sorted(c, key=int) for f, c in state.public_cards.items()},
            "pools": {
                name: {"family": pool.family, "depth": pool.depth, "locks": pool.locks,
                       "face_up": {str(j): c for j, c in sorted(pool.public.items())}}
                for name, pool in state.pools.items()
            },
        }  # fmt: skip
        assert kept == step["after"], step["seq"]
    opened = [s for s in v["messages"] if s["after"]["families"].get("d") == [v["opened_twice"]]]
    assert opened and state.pools["a"].locks == 2


def test_retirement_votes_objections_and_leave_notices():
    v = load("retire.json")
    keys = [Identity.from_seed(bytes.fromhex(k["seed"])) for k in v["keys"]]
    assert [k.public_key.hex() for k in keys] == [k["public"] for k in v["keys"]]
    pos = v["position"]
    where = retirement.Position(bytes.fromhex(pos["game"]), pos["seq"], bytes.fromhex(pos["prev"]),
                                pos["seat"])  # fmt: skip
    publics = [k.public_key for k in keys]
    for vote in v["vote"]["votes"]:
        assert where.vote_message(vote["voter"]).hex() == vote["message"]
        signed = [vote["voter"], bytes.fromhex(vote["sig"])]
        assert retirement.check_vote(where, publics, signed) == vote["voter"]
    body = generator().untyped(v["vote"]["retire_body"])
    assert [vote[0] for vote in body["votes"]] == [0, 1, 3] and body["seat"] == pos["seat"]
    moved = v["vote"]["wrong_position"]  # a valid vote, but for seq + 1: not for this position
    with pytest.raises(GameRuleError, match="not its signature"):
        retirement.check_vote(where, publics, [moved["voter"], bytes.fromhex(moved["sig"])])
    objection = v["objection"]
    message = where.objection_message(objection["objector"], bytes.fromhex(objection["event_id"]))
    assert message.hex() == objection["message"]
    assert verify_signature(publics[1], message, bytes.fromhex(objection["sig"]))
    leave = v["leave"]
    sig = bytes.fromhex(leave["sig"])
    assert retirement.check_leave(where.game, publics, leave["seat"], sig)
    assert verify_signature(publics[leave["seat"]], bytes.fromhex(leave["message"]), sig)


def test_escrow_bundle_recovery_and_complaint():
    v = load("escrow.json")
    game = bytes.fromhex(v["game"])
    deck = [DeckKeys(game, bytes.fromhex(s["seat_key"]), bytes.fromhex(s["deck_secret"]))
            for s in v["seats"]]  # fmt: skip
    mine = [escrow.EscrowKeys(k, s) for s, k in enumerate(deck)]
    for s, seat in enumerate(v["seats"]):
        published = mine[s].published()
        assert [p.hex() for p in published["keys"]] == [seat["deal"]["point"],
                                                        seat["receive"]["point"]]  # fmt: skip
        for role in ("deal", "receive"):
            point, ctx = bytes.fromhex(seat[role]["point"]), bytes.fromhex(seat[role]["context"])
            assert verify_dleq(bytes.fromhex(seat[role]["proof"]), group.BASE, point, group.BASE,
                               point, ctx)  # fmt: skip
    table = escrow.directory(
        game,
        [k.seat_key for k in deck],
        [
            (bytes.fromhex(s["deal"]["point"]), bytes.fromhex(s["receive"]["point"]))
            for s in v["seats"]
        ],
    )
    e = v["escrow"]
    what = escrow.ScalarId(*e["scalar"])
    escrowed = escrow.Escrowed(e["dealer"], what, e["epoch"], tuple(e["recipients"]),
                               bytes.fromhex(e["K"]))  # fmt: skip
    bundle = escrow.make_bundle(
        table, mine[e["dealer"]], escrowed, bytes.fromhex(e["scalar_value"])
    )
    assert bundle.message() == generator().untyped(e["bundle"])
    for i, share in enumerate(e["shares"]):
        assert (
            escrow.open_share(table, mine[share["recipient"]], escrowed, bundle).hex()
            == (share["share"])
        )
        receive = bytes.fromhex(v["seats"][share["recipient"]]["receive"]["scalar"])
        channel = group.mul(receive, table.deal_keys[e["dealer"]])
        assert channel.hex() == share["channel"]
        okm = HKDF(hashes.SHA512(), 44, b"creepnet/deck/escrow/key/v1",
                   bytes.fromhex(share["hkdf_info"])).derive(channel)  # fmt: skip
        assert okm.hex() == share["key"] + share["nonce"]
        cipher = ChaCha20Poly1305(bytes.fromhex(share["key"]))
        box = cipher.encrypt(bytes.fromhex(share["nonce"]), bytes.fromhex(share["share"]),
                             bytes.fromhex(share["aad"]))  # fmt: skip
        assert box.hex() == share["box"] == bundle.boxes[i].hex()
    for case in v["recovery"]:
        assert _deck_verdict(
            lambda c=case: escrow.check_recovery_share(
                escrowed, bundle, c["recipient"], bytes.fromhex(c["share"])
            )
        ) == _verdict(case)
    shares = {c["recipient"]: bytes.fromhex(c["share"]) for c in v["recovery"] if c["valid"]}
    assert escrow.combine(escrowed, shares).hex() == v["recovered"]
    for case in v["bad_bundles"]:
        value = generator().untyped(case["bundle"])
        got = _deck_verdict(lambda value=value: escrow.check_bundle(escrowed, value))
        assert got == _verdict(case) and not case["valid"]
    c = v["complaint"]
    d = c["dleq"]
    points = [bytes.fromhex(d[k]) for k in ("g1", "h1", "g2", "h2")]
    assert verify_dleq(bytes.fromhex(d["proof"]), *points, bytes.fromhex(d["context"]))
    digest = hashlib.sha512(bytes.fromhex(d["challenge_input"])).digest()
    assert group.scalar_from_wide(digest).hex() == d["proof"][:64]
    complaint = {"point": bytes.fromhex(c["point"]), "proof": bytes.fromhex(d["proof"])}
    honest = _deck_verdict(
        lambda: escrow.judge_complaint(table, escrowed, bundle, c["complainer"], complaint)
    )
    assert honest == _verdict(c["on_honest_bundle"])
    broken = escrow.Bundle(bundle.commits, (bytes.fromhex(c["broken_box_0"]), bundle.boxes[1]))
    conviction = escrow.judge_complaint(table, escrowed, broken, c["complainer"], complaint)
    assert conviction.dealer == c["on_broken_bundle"]["convicted"]


def _deck_verdict(check: Any) -> dict[str, Any]:
    try:
        check()
    except DeckError as err:
        return {"valid": False, "seat": err.seat, "operation": err.operation,
                "position": err.position, "reason": err.message}  # fmt: skip
    return {"valid": True}


def _verdict(case: dict[str, Any]) -> dict[str, Any]:
    return {k: case[k] for k in ("valid", "seat", "operation", "position", "reason") if k in case}


# --- logs ---------------------------------------------------------------------------------


def log_bytes(vector: dict[str, Any], bases: dict[str, str]) -> bytes:
    if "log" in vector:
        return base64.b64decode(vector["log"])
    base = base64.b64decode(bases[vector["base"]])
    events = list(iter_log(base))
    assert len(events) >= vector["prefix_events"]
    return b"".join(events[: vector["prefix_events"]]) + base64.b64decode(vector["append"])


def log_cases() -> list[tuple[str, dict[str, Any], dict[str, str]]]:
    cases = []
    for name in ("creeper.json", "racer.json"):
        data = load(name)
        cases += [(name, vector, data["bases"]) for vector in data["logs"]]
    return cases


@pytest.mark.parametrize(
    "vector,bases", [case[1:] for case in log_cases()], ids=[c[1]["name"] for c in log_cases()]
)
def test_log_verdict(vector: dict[str, Any], bases: dict[str, str]):
    data = log_bytes(vector, bases)
    verdict = generator().verified(data)  # verify_file_bytes, shared with the generator's run
    expect = vector["expect"]
    assert verdict.valid == expect["valid"] and verdict.events == expect["events"]
    if verdict.error is not None:
        error = verdict.error
        author = error.author.hex() if error.author else None
        got = {"kind": error.kind, "seq": error.seq, "author": author, "reason": error.reason}
        assert got == expect["error"]
    else:
        assert verdict.finished == expect["finished"] and verdict.outcome == expect["outcome"]
        assert verdict.notes == expect["notes"]
    if "turns" in vector:  # the per-event annotations, from the replay that gives the result
        session, notes = generator().annotate(data)
        assert {k: vector[k] for k in notes} == notes
    elif "result" in expect:
        session, _ = replay(data)
    if "result" in expect:
        assert generator().result_of(session) == expect["result"]


def test_every_event_type_and_verdict_kind_is_covered():
    kinds = {c[1]["expect"].get("error", {}).get("kind") for c in log_cases()} - {None}
    assert kinds >= {
        "malformed", "signature", "game", "sequence", "chain", "genesis", "entitlement",
        "finished", "illegal", "audit", "torn-tail", "empty", "proof",
    }  # fmt: skip
    types: set[str] = set()
    for _, vector, _ in log_cases():
        for turn in vector.get("turns", []):
            types.add(turn["type"])
    assert types >= {"genesis", "seat", "start", "reveal", "move", "accept", "decline",
                     "resign", "deck", "act", "retire", "abandon"}  # fmt: skip
    racer = load("racer.json")
    long = base64.b64decode(racer["bases"]["racer-long"])
    words = set()
    for raw in iter_log(long):
        event = parse_event(raw)
        if event.type == "act":
            words.add(event.body["action"].split()[0])
        elif event.type == "deck":
            words.add("deck " + event.body["op"])
    assert words >= {
        "place-creep", "keep-drawn", "pass", "play-calamity", "play-good-fortune",
        "declare-attack", "add-attacker", "launch", "withdraw", "play-hero", "stop-heroes",
        "play-monster", "decline-monster", "ask-hostage", "force-hostage", "accept-hostage",
        "refuse-hostage", "discard", "deck join", "deck shuffle", "deck lock", "deck release",
        "deck blind", "deck unblind", "deck reveal",
    }  # fmt: skip
    escrowed = base64.b64decode(racer["bases"]["racer-escrow-retire"])
    ops = {parse_event(raw).body.get("op") for raw in iter_log(escrowed)}
    assert ops >= {"join", "shuffle", "lock", "recover", "release", "reveal"}
    four = base64.b64decode(racer["bases"]["racer-escrow-refresh"])
    assert "refresh" in {parse_event(raw).body.get("op") for raw in iter_log(four)}
    bodies = [parse_event(raw).body for raw in iter_log(escrowed)]
    assert {b["op"] for b in bodies if "escrow" in b} == {"join", "shuffle", "lock"}


def test_every_file_says_what_it_holds():
    for path in sorted(VECTORS.glob("*.json")):
        assert load(path.name)["about"], path.name


def test_the_annotations_are_what_the_session_used():
    """``draws[]`` numbers every draw the session used up, in order (a retirement completes or
    spends one too); ``cards`` names each card once, at a live slot."""
    for _, vector, _ in log_cases():
        if "turns" not in vector:
            continue
        by_seq = {turn["seq"]: turn["type"] for turn in vector["turns"]}
        draws = vector["draws"]
        assert [d["draw"] for d in draws] == list(range(len(draws))), vector["name"]
        for draw in draws:
            assert by_seq[draw["completed_at"]] in ("reveal", "retire"), vector["name"]
            value = draw["value"]
            assert value is None or 0 <= value < draw["bound"], vector["name"]
            if value is None:  # spent unused: only by a retirement
                assert by_seq[draw["completed_at"]] == "retire", vector["name"]
        cards = vector.get("cards", {})
        assert len(set(cards.values())) == len(cards), vector["name"]
        assert set(cards) <= set(vector.get("slots", {})), vector["name"]


def test_a_seat_retired_in_each_situation_has_every_card_decoded():
    """Item by item of docs/spec-racer.md §5.9: a valid, finished log, the retired seat's cards
    decoded from its escrow (its hand and draw deck from share sums, ESCROW.md step 4)."""
    racer = {v["name"]: v for v in load("racer.json")["logs"]}
    situations = ("turn", "exchange", "react", "hostage-answer", "hostage-blind-first",
                  "hostage-unblind-first", "hostage-blind-second", "draw-spent", "declaring",
                  "game-over-reveal")  # fmt: skip
    others = {"racer-retire-set-up-own-pools": 1, "racer-retire-second-departure": 2}
    retired = {**{f"racer-retire-at-{s}": 1 for s in situations}, **others}
    for name, count in retired.items():
        vector = racer[name]
        assert vector["expect"]["valid"] and vector["expect"]["result"]["finished"], name
        assert sorted(vector["cards"].values()) == list(range(135)), name
        assert [t["type"] for t in vector["turns"]].count("retire") == count, name
    spent = [d for d in racer["racer-retire-at-draw-spent"]["draws"] if d["value"] is None]
    assert len(spent) == 1


def test_a_second_departure_that_loses_a_share_ends_the_game_abandoned_in_the_vectors():
    """docs/PROTOCOL.md §5.5: seat 1 retired before its recover of seat 3's keys, or before its
    refresh: the retire is valid and the game ends there, abandoned by seat 1."""
    racer = {v["name"]: v for v in load("racer.json")["logs"]}
    for op in ("recover", "refresh"):
        vector = racer[f"racer-retire-during-{op}"]
        expect = vector["expect"]
        assert expect["valid"] and not expect["result"]["finished"], vector["name"]
        claim = expect["result"]["abandoned"]
        assert (claim["seat"], claim["claimant"]) == (1, 0), vector["name"]
        turns = [t["type"] for t in vector["turns"]]
        assert turns.count("retire") == 2 and turns[-1] == "retire", vector["name"]


def test_no_recovery_in_the_vectors_publishes_a_layer_nobody_strips():
    """The retired seat's layer on `box` (never locked) is never recovered (PROTOCOL.md §5.5):
    no `recover` of a racer vector names the dealt family's depth-1 layer once play is on."""
    racer = load("racer.json")
    for vector in racer["logs"]:
        if vector["name"] not in ("racer-retire-at-turn", "racer-retire-at-declaring"):
            continue
        events = [parse_event(raw) for raw in iter_log(log_bytes(vector, racer["bases"]))]
        bodies = [e.body for e in events if e.type == "deck"]
        recovered = [tuple(sc) for b in bodies if b.get("op") == "recover" for sc in b["scalars"]]
        assert recovered and ("layer", "cards", 1) not in recovered, vector["name"]


def real_verdicts() -> None:
    """What test_log_verdict asks the generator's shared caches for, taken un-memoized: every
    committed log's verdict, and the annotations of those that carry them.  In a run of the
    whole file the verdict tests have taken them already (then this costs nothing)."""
    for _, vector, bases in log_cases():
        data = log_bytes(vector, bases)
        generator().verified(data)
        if "turns" in vector:
            generator().annotate(data)


def test_the_generator_writes_exactly_the_committed_files():
    """Deterministic from seeds: the files are its output, byte for byte.  Its in-memory tables
    check every proof once per replica: here a repeat of a check that passed on exactly those
    bytes returns that success (tests/proof_memo.py), which changes no byte written (nonces are
    drawn only by provers; a failure always runs for real).  The verdicts and annotations the
    verdict tests read from the generator's caches are taken for real first, so the memo
    never stands behind a verdict test."""
    real_verdicts()
    with memoized_proofs():
        built = generator().build()
    assert sorted(built) == sorted(p.name for p in VECTORS.glob("*.json"))
    for name, text in built.items():
        assert (VECTORS / name).read_text(encoding="utf-8") == text, name
