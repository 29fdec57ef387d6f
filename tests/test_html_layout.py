"""The HTML report fits its page in a real headless Chromium (1280 and 1920 px wide, long names and
paths), and its status colours stay apart for colour-blind readers with readable badge text."""
from __future__ import annotations

import itertools
import json
import re
from html import unescape
from pathlib import Path

import pytest

from portkit.cli import main
from test_report import chromium

# Deep directories, a long file name and long C++ names: what pushed the tables out of their cards.
LONG_NAMES = """#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void reduce_with_tiles(int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  out[0] = cooperative_groups::thread_block_tile<32>::meta_group_size();
  out[1] = tile.meta_group_rank() + tile.thread_rank();
  out[2] = cg::reduce(tile, out[3], cg::plus<int>());
  unsigned mask = __ballot_sync(0xffffffff, out[0] > 0);
  out[4] = threadIdx.x % 32 + mask;
}
void capture_the_graph_of_the_whole_reduction(cudaStream_t stream) {
  cudaStreamBeginCaptureToGraph(stream, 0, 0, 0, 0, cudaStreamCaptureModeGlobal);
  cudaGraphInstantiateWithParams(0, 0, 0);
}
"""
STATUSES = ("supported", "partial", "unsupported", "removed", "unavailable", "none")
# Opens every library, then writes what it measured into the DOM for --dump-dom.
_PROBE = """<script>
(function () {
  var each = function (list, fn) { Array.prototype.forEach.call(list, fn); };
  each(document.querySelectorAll("details"), function (d) { d.open = true; });
  var root = document.documentElement;
  var seen = {width: window.innerWidth, scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, tables: [], badges: {}};
  each(document.querySelectorAll("table"), function (table) {
    var card = table.closest("section"), t = table.getBoundingClientRect(), c = card.getBoundingClientRect();
    seen.tables.push({card: card.querySelector("h2").textContent, left: t.left, right: t.right,
                      cardLeft: c.left, cardRight: c.right, rows: table.rows.length});
  });
  STATUSES.forEach(function (status) {
    var badge = document.createElement("span");
    badge.className = "status status-" + status;
    document.body.appendChild(badge);
    var style = getComputedStyle(badge);
    seen.badges[status] = [style.backgroundColor, style.color];
  });
  var out = document.createElement("pre");
  out.id = "probe";
  out.textContent = JSON.stringify(seen);
  document.body.appendChild(out);
})();
</script>""".replace("STATUSES", json.dumps(STATUSES))


@pytest.fixture(scope="module")
def long_report(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("layout")
    source = tmp / "src" / "some_really_long_directory_name_for_the_layout_test" / "another_level_of_nesting_here"
    source.mkdir(parents=True)
    (source / "cooperative_groups_reduction_kernels_with_a_long_name.cu").write_text(LONG_NAMES)
    page = tmp / "r.html"
    assert main(["report", "--rocm-version", "5.2", str(tmp / "src"), "-o", str(page)]) == 0
    assert "cooperative_groups::thread_block_tile::meta_group_size" in page.read_text()
    return page


def measure(tmp_path: Path, page: Path, width: int) -> dict:
    probed = tmp_path / f"probed-{width}.html"
    probed.write_text(page.read_text().replace("</body>", _PROBE + "\n</body>"))
    dom = chromium(tmp_path, f"--window-size={width},1000", "--virtual-time-budget=5000", "--dump-dom", probed.as_uri()).stdout
    return json.loads(unescape(re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S).group(1)))


@pytest.mark.parametrize("width", [1280, 1920])
def test_the_page_never_scrolls_sideways_and_tables_stay_in_their_cards(long_report: Path, tmp_path: Path, width: int) -> None:
    seen = measure(tmp_path, long_report, width)
    assert seen["width"] == width
    assert seen["scrollWidth"] <= seen["clientWidth"], f"the page scrolls sideways: {seen['scrollWidth']} > {seen['clientWidth']}"
    cards = {table["card"] for table in seen["tables"]}
    assert {"Findings", "Where the work is", "Dependency inventory", "Status by library"} <= cards
    for table in seen["tables"]:
        assert table["cardLeft"] <= table["left"] and table["right"] <= table["cardRight"], table


def _linear(channel: float) -> float:
    channel /= 255
    return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4


def _rgb(css: str) -> tuple[float, ...]:
    return tuple(_linear(float(v)) for v in re.findall(r"[\d.]+", css)[:3])


# Machado, Oliveira and Fernandes (2009), severity 1: linear-RGB matrices of what each dichromat sees.
_VISION = {
    "normal": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}


def _lab(linear: tuple[float, ...]) -> tuple[float, float, float]:
    """CIELAB (D65) of a linear-RGB colour."""
    r, g, b = (min(1.0, max(0.0, v)) for v in linear)
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883
    fx, fy, fz = (t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116 for t in (x, y, z))
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def seen_as(css: str, vision: str) -> tuple[float, float, float]:
    linear = _rgb(css)
    return _lab(tuple(sum(m * c for m, c in zip(row, linear)) for row in _VISION[vision]))


def _contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio."""
    light, dark = sorted((0.2126 * r + 0.7152 * g + 0.0722 * b for r, g, b in (_rgb(a), _rgb(b))), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_status_colours_stay_apart_for_colour_blind_readers(long_report: Path, tmp_path: Path) -> None:
    """Every pair of status colours at least 15 CIELAB units apart for normal vision and simulated
    protanopia, deuteranopia and tritanopia (the old "partial" and "unavailable" oranges: 7.7 with
    deuteranopia); every badge's text at least 4.5:1 on its colour (WCAG AA)."""
    badges = measure(tmp_path, long_report, 1280)["badges"]
    assert set(badges) == set(STATUSES)
    for vision in _VISION:
        for a, b in itertools.combinations(STATUSES, 2):
            distance = sum((x - y) ** 2 for x, y in zip(seen_as(badges[a][0], vision), seen_as(badges[b][0], vision))) ** 0.5
            assert distance >= 15, f"{a} and {b} look alike with {vision}: {distance:.1f}"
    for status, (background, ink) in badges.items():
        assert _contrast(background, ink) >= 4.5, (status, background, ink)


def test_the_old_oranges_fail_the_colour_test() -> None:
    """The test can fail: the palette before (#e0a526 partial, #e67e22 unavailable) is too close with deuteranopia."""
    partial, unavailable = "rgb(224, 165, 38)", "rgb(230, 126, 34)"
    distance = sum((x - y) ** 2 for x, y in zip(seen_as(partial, "deuteranopia"), seen_as(unavailable, "deuteranopia"))) ** 0.5
    assert distance < 15
