// What the browser scripts share: TAP-like checks, launching Debian's Chromium through
// playwright-core, collecting a page's errors, and waiting for the play page to settle.
import { chromium } from 'playwright-core';

// Counts checks; each prints `ok - NAME` or `not ok - NAME: DETAIL`.
export function checker(prefix = '') {
  const tally = { passed: 0, failed: 0 };
  const check = (ok, name, detail = '') => {
    if (ok) {
      tally.passed += 1;
      console.log(`ok - ${prefix}${name}`);
    } else {
      tally.failed += 1;
      console.log(`not ok - ${prefix}${name}${detail ? `: ${detail}` : ''}`);
    }
    return ok;
  };
  // Prints the `N passed, N failed` line and exits, non-zero on any failure.
  const finish = () => {
    console.log(`${tally.passed} passed, ${tally.failed} failed`);
    process.exit(tally.failed === 0 ? 0 : 1);
  };
  return { check, finish };
}

export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
}

// Console errors, page errors and failed requests of `page`, as they happen.
export function collectProblems(page) {
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
  return problems;
}

// Waits until the play page has no request in flight and its state satisfies `predicate`
// (the body of a function of `s`, the state, and `a`, the argument), and returns the state.
export async function settle(page, predicate, arg, timeout = 30_000) {
  await page.waitForFunction(
    ([source, a]) => {
      const s = window.zerosum && window.zerosum.state;
      // eslint-disable-next-line no-new-func
      return s && !document.body.classList.contains('busy') && new Function('s', 'a', source)(s, a);
    },
    [predicate, arg],
    { timeout },
  );
  return page.evaluate(() => window.zerosum.state);
}

// The server's own record of game `id` (its JSON API), to check the page against.
export async function serverState(url, id) {
  const response = await fetch(new URL(`api/games/${id}`, url));
  return response.json();
}
