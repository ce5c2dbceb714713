"""Attacks on the page in a real browser (headless Chromium): what the browser itself lets
another web page do to ours."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from playwright.sync_api import expect
from web_support import Process, chromium


@contextmanager
def other_page(html: str) -> Iterator[str]:
    """Another web server on 127.0.0.1 (another port: the same site as ours, to a browser),
    serving one page; its address."""

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = html.encode()
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()


def test_a_page_on_another_loopback_port_cannot_frame_ours_with_its_session(tmp_path):
    """Clickjacking: a page on 127.0.0.1:OTHER frames our lobby.  The browser sends our
    SameSite=Strict cookie with it (same site: ports do not count), so the framed lobby was live
    and clickable under whatever the framing page laid over it.  Now the browser refuses to
    show it in the frame."""
    ui = Process(["ui", "--no-browser", "--iface", "127.0.0.1", "--player", "alice"], tmp_path)
    try:
        url = ui.url
        ours = url.split("/?")[0]
        with (
            other_page(f'<!doctype html><iframe id="f" src="{ours}/"></iframe>') as evil,
            chromium(tmp_path / "profile") as browser,
        ):
            page = browser.new_page()
            page.goto(url)  # the player's own tab: it holds the session
            expect(page.locator("#host-button")).to_be_enabled()
            page.goto(evil)
            frame = page.locator("#f").element_handle().content_frame()
            assert frame is not None
            frame.wait_for_load_state()
            assert not frame.url.startswith(ours), frame.url  # chrome-error://: refused
            assert frame.locator("#host-button").count() == 0
    finally:
        ui.stop()
