#!/usr/bin/env node
// Browser test of GET /docs (npm run test:browser): starts `wrangler dev` on a
// free port, opens /docs in headless Chromium (Debian's /usr/bin/chromium,
// driven by playwright-core), and checks that
//   - the page is served with a Content-Security-Policy that allows no other origin,
//   - every operation's summary of the OpenAPI document is shown on the page,
//   - there are no console errors, page errors, failed requests or HTTP errors,
//   - no request goes to an origin other than the local server (no CDN, no fonts),
// then saves a screenshot to docs/api-docs.png and stops Chromium and the server.
// (Chromium is playwright's child: closing the context ends it, and playwright
// also ends it should this script exit early.)
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { chromium } from "playwright-core";
import { exitOnHelp, logProgress as log } from "../tools/lib/cli.mjs";
import { withLocalServer } from "../tools/lib/local-state.mjs";
import { HTTP_METHODS } from "../tools/lib/openapi-facts.mjs";
import { tempDir } from "../tools/lib/process-end.mjs";
import { ROOT } from "../tools/lib/wrangler.mjs";

exitOnHelp(`usage: npm run test:browser
Opens /docs under wrangler dev in headless Chromium (CHROMIUM_PATH, default
/usr/bin/chromium) and saves docs/api-docs.png when it passes.`);

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const SCREENSHOT = join(ROOT, "docs", "api-docs.png");

if (!existsSync(CHROMIUM)) {
  console.error(`FAIL: ${CHROMIUM} is missing; install Debian's chromium package (apt-get install -y chromium).`);
  process.exit(1);
}
if (!existsSync(join(ROOT, "public", "docs", "swagger-ui-bundle.js"))) {
  console.error("FAIL: public/docs/swagger-ui-bundle.js is missing; run `node scripts/docs-assets.mjs` (npm's prepare does).");
  process.exit(1);
}

const failures = [];
let screenshot;
const profile = tempDir("museum-docs-chromium-");
const userDataDir = profile.path;
let context;

/** Opens /docs in Chromium: what is wrong goes to `failures`, the page's picture to `screenshot`. */
async function checkDocsPage(server) {
  const { origin } = server;

  // What the page must show: every operation's summary of the served document.
  const doc = await (await fetch(`${origin}/v1.1/openapi.json`)).json();
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, op]) => ({ method, path, summary: op.summary, operationId: op.operationId })),
  );
  for (const op of operations) {
    if (!op.summary) failures.push(`${op.method.toUpperCase()} ${op.path} has no summary`);
  }
  // The page's own headers.
  const pageResponse = await fetch(`${origin}/docs`);
  const csp = pageResponse.headers.get("content-security-policy") ?? "";
  if (pageResponse.status !== 200) failures.push(`GET /docs answered ${pageResponse.status}`);
  if (!/script-src 'self'(;|$)/.test(csp)) failures.push(`/docs CSP does not restrict scripts to 'self': "${csp}"`);
  if (/https?:|\*/.test(csp)) failures.push(`/docs CSP allows other origins: "${csp}"`);

  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: { width: 1440, height: 900 },
    deviceScaleFactor: 1,
    colorScheme: "light",
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const requests = [];
  page.on("console", (message) => {
    if (message.type() === "error") failures.push(`console error: ${message.text()} (${message.location().url ?? ""})`);
  });
  page.on("pageerror", (error) => failures.push(`page error: ${error.message}`));
  page.on("request", (request) => {
    const url = request.url();
    requests.push(url);
    if (url.startsWith("data:") || url.startsWith("blob:")) return;
    if (new URL(url).origin !== origin) failures.push(`request to another origin: ${url}`);
  });
  page.on("requestfailed", (request) => failures.push(`request failed: ${request.url()} (${request.failure()?.errorText})`));
  page.on("response", (response) => {
    if (response.status() >= 400) failures.push(`HTTP ${response.status()} for ${response.url()}`);
  });

  log(`opening ${origin}/docs in ${CHROMIUM}`);
  const response = await page.goto(`${origin}/docs`, { waitUntil: "networkidle", timeout: 60_000 });
  if (response?.status() !== 200) failures.push(`page answered ${response?.status()}`);

  // Every summary on the page (sidebar and operation headings).
  const summaries = operations.map((op) => op.summary);
  try {
    await page.waitForFunction(
      (wanted) => wanted.every((text) => document.body.innerText.includes(text)),
      summaries,
      { timeout: 30_000, polling: 250 },
    );
  } catch {
    // Reported one by one below.
  }
  const text = await page.evaluate(() => document.body.innerText);
  const missing = summaries.filter((summary) => !text.includes(summary));
  for (const summary of missing) failures.push(`summary not found on the page: "${summary}"`);
  log(`found ${summaries.length - missing.length} of ${summaries.length} operation summaries on the page`);
  for (const title of [doc.info.title]) {
    if (!text.includes(title)) failures.push(`the document title "${title}" is not on the page`);
  }
  await page.waitForTimeout(500); // let the layout settle before the screenshot
  screenshot = await page.screenshot();
  log(`${requests.length} requests, all to ${origin}: ${[...new Set(requests.map((u) => new URL(u).pathname))].join(", ")}`);
}

try {
  const options = { database: "empty", onStopFailure: (error) => failures.push(String(error)) };
  await withLocalServer(options, async (server) => {
    try {
      await checkDocsPage(server);
    } finally {
      if (context) await context.close().catch((error) => failures.push(`closing Chromium: ${error}`));
    }
  });
} catch (error) {
  failures.push(`error: ${error?.stack ?? error}`);
} finally {
  profile.remove();
}

// The committed screenshot is replaced only by a passing run; a failing run's
// goes to a temporary file for a look at what went wrong.
if (screenshot) {
  const target = failures.length === 0 ? SCREENSHOT : join(tmpdir(), `museum-api-docs-failed-${process.pid}.png`);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, screenshot);
  log(`screenshot saved to ${target}`);
}
if (failures.length > 0) {
  console.error(`FAIL: the /docs browser test found ${failures.length} problem(s):`);
  for (const failure of failures) console.error(`  - ${failure}`);
  process.exit(1);
}
log("PASS: /docs renders every operation, loads nothing from other origins, logs no errors");
