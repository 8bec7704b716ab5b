// End-to-end test of `zerosum serve --game connect4` in headless Chromium, driven by
// playwright-core. Run by scripts/browser-test.sh, which starts the server:
//
//     node tests/browser/connect4.mjs URL [SCREENSHOT]
//
// It plays a whole game by clicking columns (always the leftmost legal one), waits for
// the agent's replies, checks the result the page shows against the server's JSON API,
// takes the screenshot docs/web.md shows, then tries undo, new game and the side choice.
// Every check prints `ok - ...` or `not ok - ...`; the last line is `N passed, N failed`
// and the exit code is non-zero on any failure.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { checker, collectProblems, launch, serverState, settle } from './harness.mjs';

const url = process.argv[2];
const screenshot = process.argv[3] || 'docs/images/web-connect4.png';
if (!url) {
  console.error('usage: node connect4.mjs URL [SCREENSHOT]');
  process.exit(2);
}

const { check, finish } = checker();

const browser = await launch();

try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 760 } });
  const problems = collectProblems(page);
  const foreign = [];
  page.on('request', (r) => { if (!r.url().startsWith(url)) foreign.push(r.url()); });

  await page.goto(url);
  let state = await settle(page, 'return s.status === "human_to_move";');
  check(state.ply === 0 && state.board.rows === 6 && state.board.cols === 7,
    'the page loads with an empty 6x7 board and the person to move');
  const id = await page.evaluate(() => document.body.dataset.session);
  check(/^[0-9a-f]{32}$/.test(id), 'the game has a session id', id);
  check(await page.locator('#board .cell').count() === 42, 'the board draws 42 cells');
  check(await page.locator('#board .cell.legal').count() === 7,
    'the seven legal columns are highlighted');

  // A whole game: click the top cell of the leftmost legal column, wait for the reply.
  let clicks = 0;
  let sawHeat = false;
  let sawValue = false;
  while (state.status !== 'over' && clicks < 42) {
    const columns = await page.$$eval('#board .cell.legal', (cells) =>
      cells.map((c) => Number(c.dataset.col)));
    const column = Math.min(...columns);
    await page.click(`#board .cell[data-row="0"][data-col="${column}"]`);
    clicks += 1;
    state = await settle(page,
      'return s.status === "over" || (s.status === "human_to_move" && s.ply >= a + 2);',
      state.ply);
    if (state.status !== 'over') {
      sawHeat ||= await page.locator('#board .heat').count() > 0;
      sawValue ||= /value [+-]\d\.\d\d for the agent/.test(await page.textContent('#value-text'));
    }
  }
  check(state.status === 'over', `the game ends (after ${clicks} clicks, ${state.ply} moves)`);
  check(sawHeat, "the agent's search is shown as a heat map over the board");
  check(sawValue, "the agent's value estimate is shown");

  const statusText = await page.textContent('#status');
  const shownResult = await page.getAttribute('#status', 'data-result');
  const server = await serverState(url, id);
  check(server.status === 'over' && server.result !== null, 'the server says the game is over',
    JSON.stringify(server.result));
  const expected = { win: 'You win!', loss: 'The agent wins.', draw: 'A draw.' }[server.result.for_human];
  check(shownResult === server.result.for_human && statusText.includes(expected),
    `the page shows the server's result: "${statusText}"`,
    `server: ${JSON.stringify(server.result)}`);
  check(server.moves.length === state.ply && server.ply === state.ply,
    'the server and the page agree on the moves');
  const discs = await page.locator('#board .piece').count();
  check(discs === server.ply, `the board shows one disc per move (${discs})`);
  check(await page.locator('#history li').count() === server.ply, 'the move list shows every move');
  check(await page.locator('#board .cell.legal').count() === 0,
    'no move is offered once the game is over');

  mkdirSync(dirname(screenshot), { recursive: true });
  await page.screenshot({ path: screenshot, fullPage: true });
  check(true, `screenshot saved to ${screenshot}`);

  // Undo takes the game back to the person's previous turn.
  await page.click('#undo');
  state = await settle(page, 'return s.status === "human_to_move";');
  const undone = state.ply;
  check(undone < server.ply && undone % 2 === 0, `undo goes back to your turn (move ${undone})`);

  // New game, then the other side: the agent opens.
  await page.click('#new-game');
  state = await settle(page, 'return s.status === "human_to_move" && s.ply === 0;');
  check(state.id !== id && await page.locator('#board .piece').count() === 0,
    'new game starts an empty board in a new session');
  await page.selectOption('#side', 'second');
  state = await settle(page, 'return s.status === "human_to_move" && s.human === 1;');
  check(state.ply === 1 && await page.locator('#board .piece').count() === 1,
    'playing second, the agent moves first');
  const first = await serverState(url, id);
  check(first.ply === undone && first.status === 'human_to_move',
    'the first game is still on the server, untouched by the new ones');

  check(await page.isHidden('#error'), 'no error is shown', await page.textContent('#error'));
  check(problems.length === 0, 'no console errors, page errors or failed requests', problems.join('; '));
  check(foreign.length === 0, 'every asset comes from the server itself (no CDN)', foreign.join(' '));
} catch (e) {
  check(false, 'the test ran to its end', e.stack || String(e));
} finally {
  await browser.close();
}

finish();
