#!/usr/bin/env python3
"""report.html in a real browser.

For the bundled example, a trace whose names are HTML/script injection
attempts (tests/data/html/hostile_names.json) and, where the corpus is
there, XLA profiles: `mlprof report` writes report.html, then

  * the file: under 5 MB, a Content-Security-Policy that lets no request
    leave the page, no element that loads anything, and no trace string in
    raw (unescaped) form;
  * headless Chromium (Debian `chromium`) loads it: no console errors and no
    script errors (the page counts them in <body data-errors>), every chart
    asked for holds drawn SVG shapes (data-charts == data-drawn), the
    hostile names show as text and no element of theirs exists; a screenshot
    of each page is saved next to it (build/html_test/*.png);
  * a negative control: a copy of the example's page with a planted script
    error must fail the same checks.

Without Chromium the browser part says SKIPPED loudly (exit 77); under
CI=true it fails instead.

  tests/html_test.py MLPROF SOURCE_DIR OUT_DIR
"""
import os
import re
import shutil
import subprocess
import sys

MLPROF, SRC, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
CI = os.environ.get("CI") == "true"
CORPUS = os.path.join(SRC, "..", "shared", "corpus")
failures = []
checks = 0


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        failures.append(what)
        print("FAIL:", what)


HOSTILE = ["<script>alert(1)</script>", '"><img src=x onerror=alert(2)>', "</script><script>alert(3)</script>",
           "<b>bold</b>"]

cases = [
    ("example", [os.path.join(SRC, "examples", "two_rank")], 5),
    ("hostile", [os.path.join(SRC, "tests", "data", "html", "hostile_names.json")], 4),
]
xla = [("xla_gemm", "xla/tracelens_mi300x_jax08_gemm.xplane.pb", 3),
       ("xla_tpu", "xla/xprof_tpu_v6e_x4_psum_hostoffload.xplane.pb", 3)]
if os.path.isdir(CORPUS):
    for name, rel, n in xla:
        cases.append((name, [os.path.join(CORPUS, rel)], n))
elif CI:
    check(False, f"corpus missing at {CORPUS} (CI=true)")
else:
    print(f"SKIPPED: the XLA cases: no corpus at {CORPUS}")

os.makedirs(OUT, exist_ok=True)
pages = {}
for name, paths, min_charts in cases:
    d = os.path.join(OUT, name)
    r = subprocess.run([MLPROF, "report", *paths, "-o", d, "--force", "--no-perfetto", "--no-sqlite", "--no-xlsx"],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"{name}: mlprof report exit {r.returncode}: {r.stderr.strip()}")
    page = os.path.join(d, "report.html")
    if not os.path.exists(page):
        check(False, f"{name}: no report.html")
        continue
    pages[name] = (page, min_charts)
    html = open(page, encoding="utf-8").read()
    check(os.path.getsize(page) < 5 * 1024 * 1024, f"{name}: report.html is {os.path.getsize(page)} bytes (>= 5 MB)")
    check("default-src 'none'" in html, f"{name}: no Content-Security-Policy")
    # Nothing that loads a resource: no src/href attributes, no <link>, no CSS url() outside data:.
    markup = re.sub(r"<script\b[^>]*>.*?</script>", "", html, flags=re.S)
    check(not re.search(r"<(img|link|iframe|object|embed|source|audio|video)\b", markup, re.I),
          f"{name}: an element that loads a resource")
    check(not re.search(r"\s(src|href)\s*=", markup, re.I), f"{name}: a src/href attribute")
    check(not re.search(r"url\((?!\s*['\"]?data:)", markup, re.I), f"{name}: a CSS url()")
    # The page's markup outside its scripts is the template's: three scripts.
    check(len(re.findall(r"<script\b", html)) == 3, f"{name}: {len(re.findall(r'<script', html))} <script> tags, not 3")
    for s in HOSTILE:
        check(s not in html, f"{name}: the raw string {s!r} is in the page")

CHROME = shutil.which("chromium") or shutil.which("chromium-browser")
if not CHROME:
    msg = "headless Chromium not found (apt-get install chromium; scripts/setup.sh installs it)"
    if CI:
        check(False, msg + " and CI=true")
    else:
        print(f"SKIPPED: the browser checks of report.html: {msg}", file=sys.stderr)
        print(f"html_test: {checks - len(failures)} of {checks} static checks passed; browser checks SKIPPED")
        sys.exit(1 if failures else 77)

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--virtual-time-budget=8000"]


def chromium(page, *extra):
    profile = os.path.join(OUT, "chromium-profile")
    shutil.rmtree(profile, ignore_errors=True)
    # #probe-tooltips: the page runs every chart's tooltip formatter into a
    # hidden element (tooltips otherwise render only on hover).
    return subprocess.run([CHROME, *FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", *extra,
                           "file://" + os.path.abspath(page) + "#probe-tooltips"], capture_output=True, text=True,
                          timeout=180)


def browser_problems(name, page, min_charts):
    """What is wrong with the page in Chromium (empty: nothing)."""
    problems = []
    r = chromium(page, "--dump-dom")
    if r.returncode != 0:
        return [f"{name}: chromium exit {r.returncode}: {r.stderr[-500:]}"]
    # The page without its scripts' source (the chart library's code holds
    # markup in strings).
    dom = re.sub(r"<script\b[^>]*>.*?</script>", "<script></script>", r.stdout, flags=re.S)
    body = re.search(r"<body([^>]*)>", dom)
    attrs = dict(re.findall(r'data-(\w+)="([^"]*)"', body.group(1))) if body else {}
    if attrs.get("ready") != "1":
        problems.append(f"{name}: the page's script did not finish (body {attrs})")
    if attrs.get("errors") != "0":
        err = re.search(r'<pre id="mlprof-errors">(.*?)</pre>', dom, re.S)
        problems.append(f"{name}: script errors: {attrs.get('errors')}: {err.group(1)[:300] if err else ''}")
    charts, drawn = int(attrs.get("charts", "0")), int(attrs.get("drawn", "0"))
    if charts < min_charts or drawn != charts:
        problems.append(f"{name}: {drawn} of {charts} charts drawn (expected at least {min_charts}, all drawn)")
    console = [l for l in r.stderr.splitlines() if "CONSOLE" in l or "Uncaught" in l or "Content Security" in l]
    if console:
        problems.append(f"{name}: console messages: {console[:3]}")
    return problems, dom


for name, (page, min_charts) in pages.items():
    result = browser_problems(name, page, min_charts)
    if isinstance(result, list):
        check(False, "; ".join(result))
        continue
    problems, dom = result
    for p in problems:
        check(False, p)
    check(not problems, f"{name}: loads in Chromium with every chart drawn and no errors")
    if name == "hostile":
        # Shown as text (the DOM serialises text with < and > escaped) ...
        check("&lt;script&gt;alert(1)&lt;/script&gt;" in dom, "hostile: <script> name not shown as text")
        check("onerror=alert(2)&gt;" in dom, "hostile: onerror name not shown as text")
        # ... and never as elements.
        check(not re.search(r"<img\b", dom), "hostile: an <img> element was created")
        check(not re.search(r"<script>alert", dom), "hostile: a <script> element from a trace name")
        check(not re.search(r"<b>bold", dom), "hostile: a <b> element from a trace name")
        # The tooltips (markup by design) hold the names escaped: the heatmap's
        # rows carry the hostile thread name.
        at = dom.find('<div id="mlprof-tooltip-probe"')
        check(at >= 0 and "&lt;/script&gt;&lt;script&gt;alert(3)" in dom[at:],
              "hostile: the tooltips did not show the thread name escaped")
    shot = os.path.join(OUT, name + ".png")
    if os.path.exists(shot):
        os.remove(shot)
    r = chromium(page, "--window-size=1400,6000", "--hide-scrollbars", f"--screenshot={shot}")
    check(os.path.exists(shot) and os.path.getsize(shot) > 50000,
          f"{name}: screenshot {shot} missing or blank ({os.path.getsize(shot) if os.path.exists(shot) else 0} bytes)")

# Negative control: the same checks must catch a script error and a chart
# that does not draw.
if "example" in pages:
    page, min_charts = pages["example"]
    broken = os.path.join(OUT, "broken.html")
    html = open(page, encoding="utf-8").read()
    html = html.replace("</body>", "<script>console.error('planted'); notAFunction();</script>\n</body>")
    open(broken, "w", encoding="utf-8").write(html)
    result = browser_problems("broken", broken, min_charts)
    problems = result if isinstance(result, list) else result[0]
    check(any("script errors" in p for p in problems) and any("console" in p for p in problems),
          f"negative control: a planted script error was not caught ({problems})")
    empty = os.path.join(OUT, "no_charts.html")
    html = open(page, encoding="utf-8").read().replace("echarts.init(", "(function(){throw 0})(")
    open(empty, "w", encoding="utf-8").write(html)
    result = browser_problems("no_charts", empty, min_charts)
    problems = result if isinstance(result, list) else result[0]
    check(any("charts drawn" in p for p in problems), f"negative control: undrawn charts were not caught ({problems})")

print(f"html_test: {checks - len(failures)} of {checks} checks passed; screenshots in {OUT}")
sys.exit(1 if failures else 0)
