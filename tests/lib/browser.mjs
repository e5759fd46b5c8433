// browser.mjs: headless Debian chromium driven by playwright-core, for the
// browser tests. Never downloads a browser: $CHROMIUM or /usr/bin/chromium.
// The flags keep chromium off the network (this machine has none but
// loopback) and run it as root in a sandbox-less container.
import { existsSync } from 'node:fs';

export const VIEWPORT = { width: 1366, height: 768 };
export const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

export async function launchChromium() {
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch {
    throw new Error('playwright-core is missing: run `npm ci` in tests/');
  }
  if (!existsSync(chromiumPath)) throw new Error(`no chromium at ${chromiumPath} (set $CHROMIUM)`);
  return chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

// A page at the test viewport whose page errors and console errors are
// pushed to `problems` (each browser test ends by asserting it is empty).
export async function watchedPage(browser, problems) {
  const page = await browser.newPage({ viewport: VIEWPORT });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  return page;
}

// The elements of `page` whose right edge passes the viewport's (what a user
// would have to scroll to), leaving out those inside `scrollers` (a CSS
// selector list of containers that scroll on purpose): at most 5, described.
export function overflowingElements(page, scrollers) {
  return page.evaluate((skip) => {
    const vw = document.documentElement.clientWidth;
    return [...document.querySelectorAll('body *')].filter((e) => {
      const r = e.getBoundingClientRect();
      return r.width > 0 && r.right > vw + 1 && !e.closest(skip);
    }).slice(0, 5).map((e) => `${e.tagName} ${e.className?.baseVal ?? e.className} right=${Math.round(e.getBoundingClientRect().right)}`);
  }, scrollers);
}
