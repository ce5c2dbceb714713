"""Play beyond the LAN: a libp2p carrier under our own handshake (optional extra ``wan``).

Importing ``creepnet.node.wan`` needs nothing beyond creepnet; its submodules that touch libp2p
(``carrier``, ``attach``, ``relay``) are imported only when the internet is asked for, and
``require()`` says plainly how to install the extra when it is missing.
"""

from __future__ import annotations

INSTALL_HINT = "pip install 'creepnet[wan]'"


class WanUnavailable(Exception):
    """The optional internet carrier is not installed."""


def require() -> None:
    """Raise WanUnavailable, with how to install it, unless libp2p can be imported."""
    try:
        import libp2p  # noqa: F401
    except ImportError as exc:
        raise WanUnavailable(
            f"playing over the internet needs the optional extra: {INSTALL_HINT} ({exc})"
        ) from None
