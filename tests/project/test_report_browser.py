"""report.html and index.html in a real browser: headless Chromium (Debian's chromium + chromium-driver,
driven by selenium) loads the pages of a real build from disk and the test reads the DOM.

Screenshots are kept as test artifacts in $HCLBUILD_TEST_ARTIFACTS (default: test-artifacts/ in the
repository, which git ignores). With HCLBUILD_UPDATE_DOCS_SCREENSHOT=1 the laptop screenshot also
replaces docs/images/report-html.png, the picture the README shows.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from browser_helpers import chromium, console_errors, needs_chromium, open_page

from hclbuild.cli import main

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("HCLBUILD_TEST_ARTIFACTS", REPO / "test-artifacts"))
DOCS_SCREENSHOT = REPO / "docs" / "images" / "report-html.png"
pytestmark = [pytest.mark.slow, needs_chromium]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real `hclbuild report` of the stream pipeline (3 outlined functions, 2 streams) and two_mm."""
    root = tmp_path_factory.mktemp("browser")
    for name in ("stream_pipeline", "two_mm"):
        shutil.copytree(REPO / "projects" / name, root / name)
    assert main(["report", str(root / "stream_pipeline"), str(root / "two_mm")]) == 0
    return root / "build"


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory):
    yield from chromium(tmp_path_factory.mktemp("chromium-profile"))


def keep_screenshot(driver, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    # the whole page, not only the window: resize to the document's height first
    height = driver.execute_script("return document.documentElement.scrollHeight")
    width = driver.execute_script("return window.innerWidth")
    driver.set_window_size(width, min(height + 120, 4000))
    assert driver.save_screenshot(str(path))
    return path


def test_report_html_in_chromium(built: Path, browser) -> None:
    from selenium.webdriver.common.by import By

    started = time.perf_counter()
    page = built / "stream_pipeline" / "reports" / "report.html"
    open_page(browser, page, 1280, 900)
    functions = ["top", "Stage_gray", "Stage_blur", "Stage_binarize"]
    rows = browser.find_elements(By.CSS_SELECTOR, "#function-table tbody tr")
    assert [row.get_attribute("data-function") for row in rows] == functions
    assert [row.find_element(By.CSS_SELECTOR, "td").text for row in rows] == ["pass"] * 4
    nodes = browser.find_elements(By.CSS_SELECTOR, "svg.function-graph g.fn")
    assert sorted(node.get_attribute("data-function") for node in nodes) == sorted(functions)
    assert {node.get_attribute("data-csim") for node in nodes} == {"pass"}
    # the node is drawn in the colour of its verdict (the page's CSS, as the browser computed it)
    fill = browser.execute_script(
        "return getComputedStyle(document.querySelector('svg g.fn.pass rect')).fill"
    )
    assert fill == "rgb(227, 244, 229)"
    streams = browser.find_elements(By.CSS_SELECTOR, "svg.function-graph g.edge.stream path")
    assert len(streams) == 2
    assert {s.get_attribute("stroke-dasharray") for s in streams} == {"6 4"}
    # a click on a header sorts by that column, a second click the other way
    header = browser.find_element(By.CSS_SELECTOR, "#function-table thead th[data-column='0'] button")
    header.click()
    names = [
        r.get_attribute("data-function")
        for r in browser.find_elements(By.CSS_SELECTOR, "#function-table tbody tr")
    ]
    assert names == sorted(functions)
    header.click()
    names = [
        r.get_attribute("data-function")
        for r in browser.find_elements(By.CSS_SELECTOR, "#function-table tbody tr")
    ]
    assert names == sorted(functions, reverse=True)
    # each function's section links its HLS project files, which exist
    links = browser.find_elements(By.CSS_SELECTOR, "#fn-Stage_blur ul.files a")
    hrefs = [link.get_attribute("href") for link in links]
    assert any(href.endswith("/hls/Stage_blur/Stage_blur.cpp") for href in hrefs)
    assert all(Path(href.removeprefix("file://")).is_file() for href in hrefs)
    assert console_errors(browser) == []
    shot = keep_screenshot(browser, "report-html-laptop.png")
    if os.environ.get("HCLBUILD_UPDATE_DOCS_SCREENSHOT") == "1":
        shutil.copyfile(shot, DOCS_SCREENSHOT)
    print(f"report.html checked in Chromium in {time.perf_counter() - started:.2f} s")


def test_report_html_fits_a_phone(built: Path, browser) -> None:
    open_page(browser, built / "two_mm" / "reports" / "report.html", 390, 844)
    # wide tables and the graph scroll inside their own boxes; the page itself does not
    overflow = browser.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    assert console_errors(browser) == []
    keep_screenshot(browser, "report-html-phone.png")


def test_index_html_in_chromium(built: Path, browser) -> None:
    from selenium.webdriver.common.by import By

    open_page(browser, built / "index.html", 1024, 700)
    rows = browser.find_elements(By.CSS_SELECTOR, "#project-table tbody tr")
    assert [row.get_attribute("data-project") for row in rows] == ["stream_pipeline", "two_mm"]
    counts = [[cell.text for cell in row.find_elements(By.CSS_SELECTOR, "td")][:4] for row in rows]
    assert counts == [["4", "4", "0", "0"], ["3", "3", "0", "0"]]
    rows[1].find_element(By.CSS_SELECTOR, "a").click()
    assert browser.current_url.endswith("/two_mm/reports/report.html")
    assert len(browser.find_elements(By.CSS_SELECTOR, "svg.function-graph g.fn")) == 3
    assert console_errors(browser) == []
    keep_screenshot(browser, "index-html.png")
