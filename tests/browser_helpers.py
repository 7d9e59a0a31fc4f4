"""Headless Chromium for the tests that check hclbuild's pages in a real browser (Debian's chromium and
chromium-driver, driven by selenium; .ci/run installs them): finding it, starting it, reading a page's
console errors."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
NO_CHROMIUM = "headless Chromium is not installed (apt-get install chromium chromium-driver; .ci/run does)"
needs_chromium = pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None, reason=NO_CHROMIUM)
# what the brief of these tests found to work in a container: no sandbox, GPU, network or first run
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)


def chromium(profile: Path) -> Iterator[Any]:
    """A headless Chromium driven by selenium, its browser log kept, quit afterwards (a fixture's body)."""
    webdriver = pytest.importorskip(
        "selenium.webdriver", reason="selenium (the [test] extra) is not installed"
    )
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    yield driver
    driver.quit()


def console_errors(driver: Any) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def open_page(driver: Any, path: Path, width: int, height: int) -> None:
    driver.set_window_size(width, height)
    driver.get(path.resolve().as_uri())
