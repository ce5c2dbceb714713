"""Which text a log may carry in names: one rule that never changes with a Unicode database.

``str.isprintable()`` depends on the Unicode version of the Python running it (a code point
assigned in a later version turns from "unprintable" to "printable"), so two verifiers on two
Pythons could disagree about one log.  Instead, a name is valid when it is 1..N **code points**
(not bytes) long and none of them is in ``FORBIDDEN``: a fixed table of ranges, written out here and
in docs/PROTOCOL.md §5.1, that covers the controls (C0, DEL, C1), the separators and spaces other
than U+0020, the invisible and bidirectional format characters, the private-use planes, the tag
characters and the noncharacters.  Every other code point, assigned today or not, is allowed:
the table, not the runtime's idea of Unicode, decides.  (Surrogates cannot occur: names are
decoded from valid UTF-8.)
"""

from __future__ import annotations

from bisect import bisect_right

# Inclusive ranges, sorted and disjoint.  Changing this table changes which logs are valid.
FORBIDDEN: tuple[tuple[int, int], ...] = (
    (0x0000, 0x001F),  # C0 controls
    (0x007F, 0x00A0),  # DEL, C1 controls, no-break space
    (0x00AD, 0x00AD),  # soft hyphen
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x061C, 0x061C),  # Arabic letter mark
    (0x115F, 0x1160),  # Hangul fillers
    (0x1680, 0x1680),  # Ogham space mark
    (0x180B, 0x180F),  # Mongolian variation selectors and vowel separator
    (0x2000, 0x200F),  # spaces, zero-width characters, LRM/RLM
    (0x2028, 0x202F),  # line/paragraph separators, bidi embeddings, narrow no-break space
    (0x205F, 0x206F),  # math space, invisible operators, bidi isolates, deprecated formats
    (0x3000, 0x3000),  # ideographic space
    (0x3164, 0x3164),  # Hangul filler
    (0xD800, 0xF8FF),  # surrogates, private use area
    (0xFDD0, 0xFDEF),  # noncharacters
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFEFF, 0xFEFF),  # byte order mark
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xFFF0, 0xFFFB),  # specials, interlinear annotation
    (0x1BCA0, 0x1BCA3),  # shorthand format controls
    (0x1D173, 0x1D17A),  # musical format controls
    (0xE0000, 0xE0FFF),  # tags, variation selectors supplement
    (0xF0000, 0x10FFFF),  # supplementary private use planes
)
_STARTS = [start for start, _ in FORBIDDEN]


def forbidden(char: str) -> bool:
    """True for a code point in FORBIDDEN or a noncharacter U+xxFFFE / U+xxFFFF."""
    point = ord(char)
    if point & 0xFFFE == 0xFFFE:
        return True
    index = bisect_right(_STARTS, point) - 1
    return index >= 0 and point <= FORBIDDEN[index][1]


def valid_name(text: object, max_length: int) -> bool:
    """1..max_length code points, none forbidden (the rule for player and game names)."""
    return (
        type(text) is str
        and 0 < len(text) <= max_length
        and (text.isascii() and text.isprintable() or not any(map(forbidden, text)))
    )
