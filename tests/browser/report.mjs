// Opens the page `zerosum report` wrote, in headless Chromium, and checks that it loads
// with no console errors, page errors or requests for anything outside the file, and that
// its plots are there. Usage: node report.mjs PATH/TO/report/index.html
// The last line is `N passed, N failed`; the exit code is non-zero on failure.
import { pathToFileURL } from 'node:url';
import { checker, collectProblems, launch } from './harness.mjs';

const file = process.argv[2];
if (!file) {
  console.error('usage: node report.mjs REPORT_HTML');
  process.exit(2);
}
const url = pathToFileURL(file).href;
const { check, finish } = checker();

const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  const problems = collectProblems(page);
  page.on('request', (r) => { if (r.url() !== url && !r.url().startsWith('data:')) problems.push(`request: ${r.url()}`); });
  const response = await page.goto(url);
  check(response === null || response.ok(), 'the report page loads');
  const svgs = await page.locator('svg').count();
  check(svgs >= 5, 'the page shows its plots', `${svgs} svg elements`);
  const text = await page.locator('body').innerText();
  check(/loss/i.test(text), 'the page names the losses');
  check(problems.length === 0, 'no console errors, page errors or outside requests', problems.join('; '));
} catch (e) {
  check(false, 'the report page could be checked', String(e));
} finally {
  await browser.close();
}
finish();
