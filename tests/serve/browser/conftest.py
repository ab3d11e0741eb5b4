"""Real-browser fixtures: a real ``turnframe serve`` and the OS package's Chromium.

Each test gets its own server (travel app, tour understanding, SQLite in ``tmp_path``,
a free loopback port, the two-account test authenticator ``browser_accounts``) and its
own browser, driven by Playwright for Python with ``executable_path`` set to the OS
Chromium (never ``playwright install``). Every page is watched: a console error or an
uncaught page error fails the test, except a failed resource load the test said it
expects (``Watch.expect_status``). The tests skip, saying why, only when Playwright or
Chromium is missing (docs/web-chat.md "Tests").
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_kit import CHROMIUM_ARGS, HERE, REPO, Browser, Server, Watch, chromium_path, free_port


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """Start ``turnframe serve`` for one test; stop it afterwards."""
    port = free_port()
    log = tmp_path / "serve.log"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [
            str(REPO / "src"),
            str(HERE),
            *filter(None, [env.get("PYTHONPATH")]),
        ]
    )
    command = [
        sys.executable,
        "-m",
        "turnframe.cli",
        "serve",
        "--app",
        "travel",
        "--store",
        "sqlite",
        "--db",
        str(tmp_path / "serve.db"),
        "--model",
        "tour",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--auth",
        "browser_accounts:authenticate",
    ]
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    running = Server(url=url, process=process, log=log, db=tmp_path / "serve.db")
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                pytest.fail(f"turnframe serve exited {process.returncode}:\n{log.read_text()}")
            try:
                with urllib.request.urlopen(url + "/healthz", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"turnframe serve did not answer /healthz:\n{log.read_text()}")
            time.sleep(0.2)
        yield running
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


@pytest.fixture
def browser(server: Server) -> Iterator[Browser]:
    """The OS Chromium under Playwright; fails the test on any unexpected console error."""
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
    )
    executable = chromium_path()
    if executable is None:
        pytest.skip(
            "Chromium is not installed: apt-get install chromium (.ci/run does), "
            "or set TURNFRAME_CHROMIUM to its path"
        )
    watch = Watch(origin=server.url)
    # launch() gives the browser a fresh, temporary --user-data-dir of its own (removed
    # on close); an account is a context of it, with its own cookies.
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=executable, args=[*CHROMIUM_ARGS], headless=True
        )
        held = Browser(browser=chromium, server=server, watch=watch)
        try:
            yield held
        finally:
            for context in held.contexts:
                context.close()
            chromium.close()
    held.assert_clean()
