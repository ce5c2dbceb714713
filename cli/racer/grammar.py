"""What a person types at the Creepy Racer console, resolved against the legal actions.

Hand cards are named by number (``3``), Creeps by seat and letter (``1b``), or by the letter
alone when only one legal target has it; command words may be shortened to an unambiguous
prefix.  ``resolve`` matches the typed words against the *spelling* of every legal action, so
the console accepts, and suggests, legal actions only.  ``split_steps`` cuts a one-line attack
(``attack 1b with a c go 2``) into the steps the engine asks for one at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from string import ascii_lowercase

from creepnet.engine import racer
from creepnet.engine.racer import Observation, SeatAction

COMMANDS = (
    "attack",
    "with",
    "go",
    "withdraw",
    "stop",
    "pass",
    "ask",
    "force",
    "yes",
    "no",
    "discard",
    "play",
    "moves",
    "board",
    "help",
    "quit",
)
ALIASES = {
    "?": "help",
    "launch": "go",
    "accept": "yes",
    "refuse": "no",
    "decline": "no",
    "exit": "quit",
    "add": "with",
    "on": "",
    "card": "",
}
STEP_WORDS = {"with", "go"}  # words that start the next step of a one-line attack

Step = tuple[str, ...]


def hand_names(obs: Observation) -> list[tuple[int, str]]:
    return [(n, obs.catalogue[card].name) for n, (_, card) in enumerate(obs.hand, start=1)]


def creep_labels(obs: Observation) -> dict[int, str]:
    """Each Creep's typed name: its seat and its letter in the line (``1b``)."""
    return {
        creep.slot: f"{player.seat}{letter}"
        for player in obs.players
        for letter, creep in zip(ascii_lowercase, player.line, strict=False)
    }


# --- typed lines -> legal actions ---------------------------------------------------------------


def split_words(line: str) -> list[str]:
    """Lower-cased words with commands expanded from prefixes and filler words dropped."""
    words = []
    for word in line.lower().replace(",", " ").split():
        if word[0].isdigit():
            words.append(word)
            continue
        if word in ALIASES:
            word = ALIASES[word]
        elif word not in COMMANDS and (len(word) > 1 or word not in ascii_lowercase):
            matches = [c for c in COMMANDS if c.startswith(word)]
            if len(matches) != 1:
                choices = f": {' or '.join(matches)}?" if matches else ""
                raise ValueError(f"'{word}' is not a command{choices}")
            word = matches[0]
        if word and word != "play":
            words.append(word)
    return words


def split_steps(words: list[str]) -> list[Step]:
    """``attack 1b with a c go 2`` → (attack 1b) (with a) (with c) (go 2)."""
    steps: list[list[str]] = [[]]
    for word in words:
        if word in STEP_WORDS and steps[-1]:
            steps.append([word])
        elif steps[-1] and steps[-1][0] == "with" and len(steps[-1]) == 2:
            steps.append(["with", word])  # several Creeps after one 'with'
        else:
            steps[-1].append(word)
    return [tuple(s) for s in steps]


def spelling(obs: Observation, action: SeatAction) -> Step:
    """How a person types ``action``: the words ``resolve`` accepts for it."""
    labels = creep_labels(obs)
    number = {slot: str(n) for n, (slot, _) in enumerate(obs.hand, start=1)}
    if isinstance(action, racer.PlayCalamity | racer.PlayGoodFortune):
        return (number.get(action.slot, "?"), labels.get(action.target, "?"))
    if isinstance(action, racer.PlayHero | racer.PlayMonster | racer.Discard):
        return (number.get(action.slot, "?"),)
    if isinstance(action, racer.DeclareAttack):
        return ("attack", labels.get(action.target, "?"))
    if isinstance(action, racer.AddAttacker):
        return ("with", labels.get(action.creep, "?"))
    if isinstance(action, racer.Launch):
        return ("go",) if action.slot is None else ("go", number.get(action.slot, "?"))
    if isinstance(action, racer.AskHostage | racer.ForceHostage):
        return ("ask" if isinstance(action, racer.AskHostage) else "force", str(action.seat))
    simple = {
        racer.Pass: "pass",
        racer.Withdraw: "withdraw",
        racer.StopHeroes: "stop",
        racer.DeclineMonster: "no",
        racer.AcceptHostage: "yes",
        racer.RefuseHostage: "no",
        racer.PlaceCreep: "place",
        racer.KeepDrawn: "keep",
    }
    return (simple[type(action)],)


def _same_word(obs: Observation, typed: str, spelled: str) -> bool:
    if typed == spelled:
        return True
    if len(typed) == 1 and typed.isalpha():  # a bare Creep letter
        return spelled[:-1].isdigit() and spelled[-1] == typed
    if typed.isdigit() and spelled.isdigit() and typed != spelled:  # an identical copy in hand
        names = dict(hand_names(obs))
        return 0 < int(typed) <= len(obs.hand) and names.get(int(typed)) == names.get(int(spelled))
    return False


def resolve(obs: Observation, legal: Sequence[SeatAction], typed: Step) -> SeatAction | str:
    """The one legal action ``typed`` names, or what to say when it names none or several."""
    if typed[0] == "discard":
        typed = typed[1:]
        if not typed:  # 'discard' alone (or a word that reads as nothing after it)
            return "discard which card? type its number, e.g. discard 1"
    for word in typed if typed[0] not in ("ask", "force") else ():  # those name a seat
        if word.isdigit() and not 0 < int(word) <= len(obs.hand):
            count = len(obs.hand)
            return f"you hold {count} card{'s' if count != 1 else ''}: type 1 to {count}"
    spelled = [(action, spelling(obs, action)) for action in legal]
    matches = [
        action
        for action, words in spelled
        if len(words) == len(typed)
        and all(_same_word(obs, t, s) for t, s in zip(typed, words, strict=True))
    ]
    if len({spelling(obs, a) for a in matches}) == 1:
        return matches[0]
    said = " ".join(typed)
    if matches:
        return f"'{said}' could be " + " or ".join(
            sorted({" ".join(spelling(obs, a)) for a in matches})
        )
    near = [" ".join(w) for _, w in spelled if w[0] == typed[0]]
    if typed[0].isdigit():
        near = [
            " ".join(w) for _, w in spelled if w[0].isdigit() and _same_word(obs, typed[0], w[0])
        ]
        name = dict(hand_names(obs))[int(typed[0])]
        if not near:
            return f"card {typed[0]} ({name}) cannot be played now; type 'moves' for your options"
        return f"card {typed[0]} ({name}): type one of " + ", ".join(sorted(set(near))[:12])
    if near:
        return f"'{said}' is not possible now; try " + ", ".join(sorted(set(near))[:12])
    return f"'{said}' is not possible now; type 'moves' for your options"
