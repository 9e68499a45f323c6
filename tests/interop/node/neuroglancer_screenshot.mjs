// Screenshots of neuroglancer's own client in headless Chromium, driven by
// playwright-core, for viewers whose data chunkwise serves.
//
// usage: node neuroglancer_screenshot.mjs --url VIEWER_URL --out S.png [--url ... --out ...]
//            [--width 800] [--height 600] [--timeout-ms 90000]
//
// Each URL is a neuroglancer viewer (the client of the PyPI neuroglancer
// package, served by its Python server, which holds the viewer state); its
// data sources live on another origin, chunkwise serve, so every chunk
// request depends on that server's CORS headers. The script hides the UI
// chrome, waits until neuroglancer reports every layer loaded and every
// visible chunk drawn, then saves the screenshot. The page's console is
// printed; a page error, an error in the console or a layer that fails to
// load makes the script exit 1. Beside each screenshot S.png it writes
// S.png.json: the viewer's layers (name, type, source URLs) and its state.
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function parseArgs(argv) {
  const args = { urls: [], outs: [], width: 800, height: 600, timeoutMs: 90000 };
  for (let i = 2; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--url') args.urls.push(value);
    else if (flag === '--out') args.outs.push(value);
    else if (flag === '--width') args.width = Number(value);
    else if (flag === '--height') args.height = Number(value);
    else if (flag === '--timeout-ms') args.timeoutMs = Number(value);
    else throw new Error(`unknown flag ${flag}`);
  }
  if (args.urls.length === 0 || args.urls.length !== args.outs.length) {
    throw new Error('need pairs of --url and --out');
  }
  return args;
}

async function screenshot(context, url, out, args) {
  const page = await context.newPage();
  const problems = [];
  page.on('console', (message) => {
    console.log(`[console.${message.type()}] ${message.text()} (${message.location()?.url ?? ''})`);
    // The browser asks every origin for a favicon; the viewer's server has none.
    const favicon = (message.location()?.url ?? '').endsWith('/favicon.ico');
    if (message.type() === 'error' && !favicon) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => console.log(`[request failed] ${request.url()}: ${request.failure()?.errorText}`));
  context.on('response', (response) => { if (response.status() >= 400) console.log(`[http ${response.status()}] ${response.url()}`); });
  await page.goto(url);
  await page.waitForFunction(() => window.viewer !== undefined, null, { timeout: args.timeoutMs });
  // The UI chrome is hidden again on every poll and before the screenshot: a
  // state pushed after the first hide (the viewer's python state source
  // connecting) can show it again, moving the panel down by the bars' height.
  const hideControls = () => page.evaluate(() => {
    window.viewer.uiConfiguration.showUIControls.value = false;
  });
  await hideControls();
  // Away from the panel's corner, where hovering shows its zoom widget.
  await page.mouse.move(args.width - 2, args.height - 2);
  const start = Date.now();
  let ready = false;
  while (Date.now() - start < args.timeoutMs) {
    await hideControls();
    ready = await page.evaluate(() => {
      const viewer = window.viewer;
      const layers = viewer.layerManager.managedLayers;
      return layers.length > 0 && layers.every((l) => l.isReady()) && viewer.display.isReady();
    });
    if (ready) break;
    await page.waitForTimeout(250);
  }
  await hideControls();
  // Two more frames, so the last chunks drawn are on screen.
  await page.waitForTimeout(500);
  await page.screenshot({ path: out });
  // What the viewer made of its state, beside the screenshot: its layers as
  // neuroglancer holds them (one per managed layer) and the whole state.
  const summary = await page.evaluate(() => ({
    layers: window.viewer.layerManager.managedLayers.map((l) => ({
      name: l.name,
      type: l.layer?.type ?? null,
      sources: (l.layer?.dataSources ?? []).map((s) => s.spec?.url ?? null),
    })),
    state: window.viewer.state.toJSON(),
  }));
  fs.writeFileSync(`${out}.json`, JSON.stringify(summary, null, 1));
  const errors = await page.evaluate(() => window.viewer.layerManager.managedLayers
    .flatMap((l) => (l.layer?.dataSources ?? []).map((s) => s.loadState?.error?.message).filter(Boolean)));
  await page.close();
  return { ready, problems: problems.concat(errors) };
}

async function main() {
  const args = parseArgs(process.argv);
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chunkwise-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: args.width, height: args.height },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync',
           // WebGL without a GPU: the SwiftShader software rasterizer.
           '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  });
  let failed = false;
  try {
    for (let i = 0; i < args.urls.length; ++i) {
      const { ready, problems } = await screenshot(context, args.urls[i], args.outs[i], args);
      console.log(`${args.outs[i]}: ${ready ? 'ready' : 'NOT READY (timed out)'}`);
      for (const problem of problems) console.log(`problem: ${problem}`);
      if (!ready || problems.length > 0) failed = true;
    }
  } finally {
    await context.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
  process.exit(failed ? 1 : 0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
