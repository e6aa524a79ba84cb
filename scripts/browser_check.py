#!/usr/bin/python3
"""Opens an HTML page in headless Chromium and says what a reader would have met: console errors,
uncaught exceptions, network requests, each chart's series and whether it drew, each image's
decoded width, the page's tables; writes a screenshot at 1280 px. Drives Chromium through the
DevTools protocol over a pipe (--remote-debugging-pipe): nothing beyond Python and Chromium.

    scripts/browser_check.py PAGE.html [--screenshot FILE.png [--full-page]] [--width 1280] [--timeout 60]

Prints one JSON object: errors, requests, charts, images, tables, ready. Exit 0 when the page
drew (window.ptbenchReady, or the load event for other pages), 2 when Chromium is missing or the
page never finished; the caller judges the rest."""
import argparse
import base64
import json
import os
import pathlib
import select
import shutil
import subprocess
import sys
import tempfile
import time

# What the page is asked once it has drawn: its charts (Chart.js instances the report lists in
# window.ptbenchCharts), its images and its tables, as plain JSON.
PROBE = r"""
(() => {
  const drawn = (canvas) => {
    const context = canvas.getContext("2d");
    const { width, height } = canvas;
    if (!width || !height) return false;
    const pixels = context.getImageData(0, 0, width, height).data;
    for (let i = 3; i < pixels.length; i += 4) if (pixels[i] !== 0) return true;
    return false;
  };
  const charts = (window.ptbenchCharts || []).map((c) => ({
    name: c.name,
    type: c.chart ? c.chart.config.type : null,
    series: c.chart ? c.chart.data.datasets.length : 0,
    points: c.chart ? c.chart.data.datasets.map((d) => d.data.length) : [],
    drawn: drawn(c.canvas),
  }));
  const canvases = document.querySelectorAll("canvas").length;
  const images = [...document.images].map((img) => ({
    alt: img.alt, src: img.src.startsWith("data:") ? img.src.slice(0, 30) : img.src,
    complete: img.complete, naturalWidth: img.naturalWidth }));
  const tables = {};
  for (const table of document.querySelectorAll("table[id]"))
    tables[table.id] = [...table.querySelectorAll("tbody tr")].map((row) => ({
      data: Object.assign({}, row.dataset),
      cells: [...row.children].map((cell) => cell.textContent.trim()) }));
  return JSON.stringify({ ready: window.ptbenchReady === true, charts, canvases, images, tables,
    sections: [...document.querySelectorAll("section[id]")].map((s) => s.id),
    banner: document.querySelector(".banner") ? document.querySelector(".banner").textContent : null,
    scrollWidth: document.documentElement.scrollWidth });
})()
"""


class Browser:
    def __init__(self, chromium, width):
        self.profile = tempfile.mkdtemp(prefix="ptbench-chromium-")
        to_browser_read, self.to_browser = os.pipe()
        self.from_browser, from_browser_write = os.pipe()
        # The browser reads commands on fd 3 and writes replies and events on fd 4.
        def pipes():
            # Copies first: a pipe's own fd may already be 3 or 4, and dup2 onto itself would
            # leave it close-on-exec.
            reading, writing = os.dup(to_browser_read), os.dup(from_browser_write)
            os.dup2(reading, 3)
            os.dup2(writing, 4)
        self.process = subprocess.Popen(
            [chromium, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-sync",
             "--disable-background-networking", "--disable-component-update", "--mute-audio",
             f"--user-data-dir={self.profile}", f"--window-size={width},900", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=pipes, close_fds=False)
        os.close(to_browser_read)
        os.close(from_browser_write)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        return self.next_id

    def read(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the browser did not answer in time")
            ready, _, _ = select.select([self.from_browser], [], [], left)
            if ready:
                chunk = os.read(self.from_browser, 1 << 20)
                if not chunk:
                    raise RuntimeError("the browser closed its pipe (did it crash?)")
                self.buffer += chunk
        message, _, self.buffer = self.buffer.partition(b"\0")
        return json.loads(message)

    def call(self, method, params=None, session=None, timeout=30):
        wanted = self.send(method, params, session)
        deadline = time.monotonic() + timeout
        while True:
            message = self.read(deadline)
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_event(self, method, timeout):
        deadline = time.monotonic() + timeout
        for i, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(i)
        while True:
            message = self.read(deadline)
            if message.get("method") == method:
                return message
            self.events.append(message)

    def close(self):
        try:
            self.send("Browser.close")
            self.process.wait(timeout=10)
        except Exception:
            self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        if path := shutil.which(name):
            return path
    return None


def check(page, screenshot=None, width=1280, timeout=60, full_page=False, script=None):
    """The probe's findings; `script`, an expression evaluated once the page has drawn, adds its
    (JSON-serialisable) value as "script"."""
    chromium = find_chromium()
    if not chromium:
        raise FileNotFoundError("no Chromium on this machine (Debian's `chromium` package; scripts/setup.sh installs it)")
    browser = Browser(chromium, width)
    try:
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Network", "Page"):
            browser.call(f"{domain}.enable", session=session)
        browser.call("Emulation.setDeviceMetricsOverride",
                     {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session=session)
        browser.call("Page.navigate", {"url": pathlib.Path(page).resolve().as_uri()}, session=session)
        browser.wait_event("Page.loadEventFired", timeout)
        deadline = time.monotonic() + timeout
        probe = None
        while time.monotonic() < deadline:
            result = browser.call("Runtime.evaluate", {"expression": PROBE, "returnByValue": True}, session=session)
            if "exceptionDetails" in result:
                raise RuntimeError(f"the probe failed in the page: {result['exceptionDetails']}")
            probe = json.loads(result["result"]["value"])
            if probe["ready"] and all(image["complete"] for image in probe["images"]):
                break
            time.sleep(0.2)
        if screenshot:
            params = {"format": "png"}
            if full_page:
                size = browser.call("Page.getLayoutMetrics", session=session)["cssContentSize"]
                params.update(captureBeyondViewport=True,
                              clip={"x": 0, "y": 0, "width": width, "height": size["height"], "scale": 1})
            shot = browser.call("Page.captureScreenshot", params, session=session)
            pathlib.Path(screenshot).write_bytes(base64.b64decode(shot["data"]))
        if script:
            result = browser.call("Runtime.evaluate", {"expression": script, "returnByValue": True}, session=session)
            if "exceptionDetails" in result:
                raise RuntimeError(f"the script failed in the page: {result['exceptionDetails']}")
            probe["script"] = result["result"].get("value")
        errors, requests = [], []
        for event in browser.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                errors.append("console: " + " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"]))
            elif method == "Runtime.exceptionThrown":
                details = params["exceptionDetails"]
                errors.append("exception: " + details.get("exception", {}).get("description", details.get("text", "")))
            elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
                errors.append("log: " + params["entry"]["text"])
            elif method == "Network.requestWillBeSent":
                url = params["request"]["url"]
                if not url.startswith(("file:", "data:")):
                    requests.append(url)
        probe["errors"] = errors
        probe["requests"] = requests
        return probe
    finally:
        browser.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page")
    parser.add_argument("--screenshot")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--full-page", action="store_true", help="the whole page in the screenshot, not the first screen")
    parser.add_argument("--timeout", type=float, default=60)
    args = parser.parse_args()
    try:
        result = check(args.page, args.screenshot, args.width, args.timeout, args.full_page)
    except (FileNotFoundError, TimeoutError, RuntimeError) as error:
        print(f"browser_check: {error}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=1))
    return 0 if result["ready"] else 2


if __name__ == "__main__":
    sys.exit(main())
