// Checks flame graphs from calltree.flamegraph() in a real browser: Debian's
// chromium, driven by playwright-core.  Run by test/t_flamegraph_browser.sh.
//
//   node flamegraph_browser.js SPEC.json [SCREENSHOT.png]
//
// SPEC.json lists the graphs with what SQL says about them: the number of
// visible boxes, whether it is an icicle graph, a box to zoom on (its index among the boxes, in preorder)
// and how many boxes stay visible, and search terms with the number of
// matching boxes and the percentage they cover; for a differential graph,
// each box's color and its weights in base and test.  Exits 1 on any failure.
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");
const { chromium } = require("playwright-core");

const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];
const PLOT_WIDTH = 1180;

let failures = 0;

function check(ok, what) {
  console.log(`${ok ? "ok" : "FAILED"}: ${what}`);
  if (!ok) failures++;
}

// Boxes not hidden by a zoom.
function visibleBoxes(page) {
  return page.locator("#frames > g.frame:not(.hide)").count();
}

// Clicks the Search control and answers its prompt.
async function search(page, term) {
  page.once("dialog", (dialog) => dialog.accept(term));
  await page.click("#search");
  return page.textContent("#matched");
}

// A differential graph: every box has the color SQL expects, and its
// tooltip gives its weights in base and in test; a legend explains the
// colors.
async function checkColors(page, graph) {
  const name = graph.name;
  const drawn = await page.evaluate(() =>
    Array.from(document.querySelectorAll("#frames > g.frame"), (g) => ({
      fill: getComputedStyle(g.querySelector("rect")).fill,
      tip: g.querySelector("title").textContent,
    })));
  let wrongFills = 0, wrongTips = 0;
  for (const c of graph.colors) {
    const box = drawn[c.index];
    if (!box || box.fill !== c.fill) {
      if (wrongFills++ < 3) console.log(`  box ${c.index}: ${box && box.fill}, expected ${c.fill}`);
    }
    const stats = box ? box.tip.substring(box.tip.lastIndexOf("\n") + 1) : "";
    if (!stats.startsWith(`base ${c.base} (`) || !stats.includes(`, test ${c.test} (`) ||
        !/delta [-+]?\d+ \([-+]\d+\.\d\d points\); self: base \d+, test \d+$/.test(stats)) {
      if (wrongTips++ < 3) console.log(`  box ${c.index}: tooltip "${stats}", expected base ${c.base}, test ${c.test}`);
    }
  }
  check(wrongFills === 0, `${name}: every box has the color of its change of share (${wrongFills} wrong)`);
  check(wrongTips === 0, `${name}: every tooltip gives base, test and the delta (${wrongTips} wrong)`);
  const kinds = new Set(graph.colors.map((c) =>
    c.fill === "rgb(255, 255, 255)" ? "white" : c.fill.startsWith("rgb(255,") ? "red" : "blue"));
  check(kinds.size === 3, `${name}: the graph has red, blue and white boxes (${[...kinds].join(", ")})`);
  const legend = await page.textContent("#legend");
  check(/Red: a larger share/.test(legend), `${name}: a legend explains the colors`);

  // hovering shows the tooltip's line at the bottom
  const first = page.locator("#frames > g.frame").nth(graph.colors[graph.colors.length - 1].index);
  await first.hover();
  const details = await page.textContent("#details");
  const last = graph.colors[graph.colors.length - 1];
  check(details.includes(`: base ${last.base} (`), `${name}: hovering shows "${details}"`);
}

async function checkGraph(context, graph, screenshot) {
  const page = await context.newPage();
  const problems = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console error: ${msg.text()}`);
  });
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  // No request may leave the file: the SVG is self-contained.
  page.on("request", (req) => {
    if (!req.url().startsWith("file:")) problems.push(`request to ${req.url()}`);
  });

  const name = graph.name;
  await page.goto("file://" + path.resolve(graph.file));
  await page.waitForLoadState("load");

  const boxes = page.locator("#frames > g.frame");
  check(await boxes.count() === graph.boxes,
    `${name}: ${graph.boxes} boxes, one per visible node (found ${await boxes.count()})`);

  // A flame graph stands on its root; an icicle graph hangs from it.
  const rootY = Number(await boxes.nth(0).locator("rect").getAttribute("y"));
  const childY = Number(await boxes.nth(1).locator("rect").getAttribute("y"));
  check(graph.icicle ? rootY < childY : rootY > childY,
    `${name}: the root is at the ${graph.icicle ? "top" : "bottom"} (its y ${rootY}, its first child's ${childY})`);

  // Labels stay inside their boxes, and every box has its tooltip.
  const overflow = await page.evaluate(() => {
    let worst = 0;
    document.querySelectorAll("#frames > g.frame").forEach((g) => {
      const rect = g.querySelector("rect"), text = g.querySelector("text");
      if (text.textContent === "") return;
      const room = Number(rect.getAttribute("width")) - 3;
      worst = Math.max(worst, text.getComputedTextLength() - room);
    });
    return worst;
  });
  check(overflow <= 0, `${name}: labels fit their boxes (worst overflow ${overflow.toFixed(1)} px)`);
  const tooltips = await page.locator("#frames > g.frame > title").count();
  check(tooltips === graph.boxes, `${name}: a tooltip per box`);

  if (graph.diff) await checkColors(page, graph);

  if (screenshot) {
    // fullPage hangs on an SVG document: size the viewport to the image.
    const height = Number(await page.getAttribute("svg", "height"));
    await page.setViewportSize({ width: 1200, height });
    await page.screenshot({ path: screenshot });
    console.log(`screenshot: ${screenshot}`);
  }

  // Zoom: the box fills the width, only it, its ancestors and its
  // descendants stay visible; Reset Zoom brings every box back.
  const target = boxes.nth(graph.zoom.index);
  await target.click();
  const rect = target.locator("rect");
  const x = Number(await rect.getAttribute("x"));
  const width = Number(await rect.getAttribute("width"));
  check(x === 10 && width === PLOT_WIDTH,
    `${name}: a click zooms on box ${graph.zoom.index} (now x ${x}, width ${width})`);
  check(await visibleBoxes(page) === graph.zoom.visible,
    `${name}: ${graph.zoom.visible} boxes visible when zoomed (found ${await visibleBoxes(page)})`);
  check(await page.isVisible("#unzoom"), `${name}: Reset Zoom shows when zoomed`);
  // the label is cut again for the new width: the whole name fits now
  const tip = await target.locator("title").textContent();
  const fullName = tip.substring(0, tip.lastIndexOf("\n"));
  check(await target.locator("text").textContent() === fullName,
    `${name}: the zoomed box shows its whole name "${fullName}"`);
  // hovering a box shows its tooltip's line at the bottom
  await target.hover();
  const details = await page.textContent("#details");
  check(details.startsWith(fullName + (graph.diff ? ": base " : ": running ")),
    `${name}: hovering shows "${details}"`);
  // Escape resets the zoom too
  await page.keyboard.press("Escape");
  check(await visibleBoxes(page) === graph.boxes, `${name}: Escape shows every box again`);
  await target.click();
  await page.click("#unzoom");
  check(await visibleBoxes(page) === graph.boxes, `${name}: Reset Zoom shows every box again`);
  check(Number(await rect.getAttribute("width")).toFixed(2) === graph.zoom.width,
    `${name}: Reset Zoom restores the box's width ${graph.zoom.width}`);

  // Search: matching boxes are highlighted and their share shown, each
  // sample counted once.
  for (const s of graph.searches) {
    const matched = await search(page, s.term);
    const found = await page.locator("#frames > g.frame.match").count();
    check(found === s.matches, `${name}: /${s.term}/ highlights ${s.matches} boxes (found ${found})`);
    const pct = Number((matched.match(/Matched: ([0-9.]+)%/) || [])[1]);
    check(Math.abs(pct - s.percent) < 0.0051,
      `${name}: /${s.term}/ matches ${s.percent.toFixed(2)}% (shown "${matched}")`);
    if (found > 0) {
      const fill = await page.locator("#frames > g.frame.match rect").first()
        .evaluate((r) => getComputedStyle(r).fill);
      check(fill === "rgb(230, 0, 230)", `${name}: matches are drawn highlighted (${fill})`);
    }
    await page.click("#search"); // "Reset Search"
    check(await page.locator("#frames > g.frame.match").count() === 0,
      `${name}: Reset Search clears the highlight`);
    if (graph.diff && found > 0) {
      const fills = await page.evaluate(() =>
        Array.from(document.querySelectorAll("#frames > g.frame rect"), (r) => getComputedStyle(r).fill));
      check(graph.colors.every((c) => fills[c.index] === c.fill),
        `${name}: the colors of the change come back after the search`);
    }
  }

  check(problems.length === 0, `${name}: no console error, page error or request` +
    (problems.length ? `:\n  ${problems.join("\n  ")}` : ""));
  await page.close();
}

async function main() {
  const [specFile, screenshot] = process.argv.slice(2);
  const spec = JSON.parse(fs.readFileSync(specFile, "utf8"));
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "calltree-chromium-"));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM, headless: true, args: ARGS,
      viewport: { width: 1220, height: 800 },
    });
    for (const [i, graph] of spec.entries())
      await checkGraph(context, graph, i === spec.length - 1 ? screenshot : null);
  } finally {
    if (context) await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  console.log(failures ? `${failures} check(s) failed` : "all checks passed");
  process.exit(failures ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
