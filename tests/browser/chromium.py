"""Headless Chromium (Debian's `chromium` and `chromium-driver`) driven by selenium, for
tests that open a page: the charts it drew and the errors it logged.

Tests that use it fail, never skip, when the browser is missing, unless
SGLANG_CI_NO_BROWSER=1 (`make test` installs both packages).
"""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from typing import Any, cast

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

NO_BROWSER = "SGLANG_CI_NO_BROWSER"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,1600",
)
# Per chart: its id, title, vertical lines (their x) and annotations (their text) and, per
# trace, its name, type, number of points, x and y values, texts, z rows and visibility.
_CHARTS = """
return Array.from(document.querySelectorAll('.js-plotly-plot')).map(el => ({
  id: el.id,
  title: ((el.layout || {}).title || {}).text || '',
  lines: ((el.layout || {}).shapes || []).filter(s => s.yref === 'paper').map(s => s.x0),
  notes: ((el.layout || {}).annotations || []).map(a => a.text),
  traces: (el.data || []).map(t => ({
    name: t.name || '', type: t.type || 'scatter', points: (t.x || []).length,
    x: Array.from(t.x || []), y: Array.from(t.y || []),
    text: Array.isArray(t.text) ? Array.from(t.text) : [],
    z: Array.from(t.z || []).map(r => Array.from(r)),
    visible: t.visible === undefined ? true : t.visible
  }))
}));
"""


def skipped() -> bool:
    return os.environ.get(NO_BROWSER) == "1"


@contextmanager
def chromium(profile: Path) -> Iterator[webdriver.Chrome]:
    """A headless Chromium with a new, empty profile under `profile`."""
    browser, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if browser is None or driver is None:
        msg = (
            "chromium and chromedriver are needed: apt-get install chromium chromium-driver "
            f"(or set {NO_BROWSER}=1 to leave the browser tests out)"
        )
        raise RuntimeError(msg)
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    session = webdriver.Chrome(service=Service(driver), options=options)
    try:
        yield session
    finally:
        session.quit()


def charts(session: webdriver.Chrome) -> list[dict[str, Any]]:
    return cast("list[dict[str, Any]]", session.execute_script(_CHARTS))


def errors(session: webdriver.Chrome) -> list[str]:
    """The console's errors and uncaught exceptions since the last call."""
    logs = cast("list[dict[str, Any]]", session.get_log("browser"))  # type: ignore[no-untyped-call]
    return [str(entry["message"]) for entry in logs if entry["level"] == "SEVERE"]
