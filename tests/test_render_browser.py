"""The HTML replay in a real browser: headless Chromium driven by Playwright.

Skipped, saying why, only when no browser can be had (Playwright or Debian's
chromium missing); .ci/run installs both when it can.
"""
from __future__ import annotations

import io
import os
import shutil

import pytest

from babasolver import render
from babasolver.game import replay
from babasolver.level import load_level
from babasolver.notation import parse_solution

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is absent: pip install playwright")
Image = pytest.importorskip("PIL.Image", reason="Pillow is absent: pip install '.[render]'")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    pytest.skip("no browser: Debian's chromium is not installed (apt-get install chromium)",
                allow_module_level=True)

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def page_file(repo_root, tmp_path_factory):
    level = load_level(repo_root / "levels" / "01")
    actions = parse_solution((repo_root / "levels" / "01" / "solution.txt").read_text(encoding="utf-8"))
    frames = replay(level, actions, keep_frames=True).frames
    path = tmp_path_factory.mktemp("replay") / "01.html"
    render.write_html(level, frames, path, title="levels/01")
    return path, len(frames)


def colours(png: bytes) -> int:
    with Image.open(io.BytesIO(png)) as image:
        return len(image.convert("RGB").getcolors(1 << 16) or [])


def test_the_replay_plays_in_chromium(page_file):
    path, n_frames = page_file
    shots = os.environ.get("BABA_SCREENSHOTS")      # a folder to keep the screenshots in
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = browser.new_page()
            errors = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(path.as_uri())
            board = page.locator("#board")
            first = board.screenshot()
            assert colours(first) > 4                        # a board is drawn, not a blank canvas
            page.keyboard.press("ArrowRight")
            assert page.locator("#turn").inner_text().startswith("turn 1 of")
            second = board.screenshot()
            assert second != first                           # another turn, another picture
            for _ in range(n_frames + 2):                    # past the end: it stops there
                page.keyboard.press("ArrowRight")
            assert page.locator("#status").inner_text() == "won"
            assert page.locator("#moves .now").count() == 1
            page.keyboard.press("ArrowLeft")
            assert page.locator("#status").inner_text() == ""
            if shots:
                page.screenshot(path=os.path.join(shots, "page.png"))
                with open(os.path.join(shots, "turn0.png"), "wb") as f:
                    f.write(first)
                with open(os.path.join(shots, "turn1.png"), "wb") as f:
                    f.write(second)
            assert errors == []
        finally:
            browser.close()
