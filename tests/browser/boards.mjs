// The drawn boards of Oware, chess and Push Fight in headless Chromium, driven by
// playwright-core. Run by scripts/browser-test.sh, which starts one server per game:
//
//     node tests/browser/boards.mjs GAME URL SCREENSHOT
//
// For each game it checks the board's drawing, then plays by the hand a person would use:
// Oware by clicking a house, chess by clicking a piece and then its square (e2 to e4), Push
// Fight by clicking its placements and then dragging a pusher onto the piece it pushes. It
// waits for the agent's replies, checks each move against the server's JSON API and saves
// a screenshot. Output as in connect4.mjs: `ok`/`not ok` lines, then `N passed, N failed`.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { checker, collectProblems, launch, serverState, settle } from './harness.mjs';

const [game, url, screenshot] = process.argv.slice(2);
if (!game || !url || !screenshot) {
  console.error('usage: node boards.mjs oware|chess|pushfight URL SCREENSHOT');
  process.exit(2);
}

const { check, finish } = checker(`${game}: `);

const cellSelector = (cell) => `#board .cell[data-cell="${cell}"]`;

// Plays `move` (from state.legal) by clicking its cells: one click, or first then last.
async function clickMove(page, move) {
  await page.click(cellSelector(move.cells[0]));
  if (move.cells.length > 1) await page.click(cellSelector(move.cells[move.cells.length - 1]));
}

// Drags from the first cell of `move` to its last, with the mouse held down in between.
async function dragMove(page, move) {
  const centre = async (cell) => {
    const box = await page.locator(cellSelector(cell)).boundingBox();
    return [box.x + box.width / 2, box.y + box.height / 2];
  };
  const [x0, y0] = await centre(move.cells[0]);
  const [x1, y1] = await centre(move.cells[move.cells.length - 1]);
  await page.mouse.move(x0, y0);
  await page.mouse.down();
  await page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, { steps: 4 });
  await page.mouse.move(x1, y1, { steps: 4 });
  await page.mouse.up();
}

// Waits for the person's next turn (or the end) after `ply` moves, and checks that the
// server's record of the game starts with `played`.
async function afterMove(page, id, ply, played, how) {
  const state = await settle(page, `return s.ply > ${ply} && s.status !== "agent_to_move" && !s.thinking;`);
  const server = await serverState(url, id);
  check(server.moves[ply] === played && state.moves[ply] === played,
    `${how} plays ${played}`, `server has ${JSON.stringify(server.moves)}`);
  return state;
}

const EXPECTED = {
  oware: { rows: 2, cols: 6, style: 'style-houses' },
  chess: { rows: 8, cols: 8, style: 'style-checkers' },
  pushfight: { rows: 4, cols: 8, style: 'style-tiles' },
};

const browser = await launch();

try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 760 } });
  const problems = collectProblems(page);

  await page.goto(url);
  let state = await settle(page, 'return s.status === "human_to_move";');
  const id = await page.evaluate(() => document.body.dataset.session);
  const expected = EXPECTED[game];
  check(state.board.rows === expected.rows && state.board.cols === expected.cols,
    `the board is ${expected.rows}x${expected.cols}`);
  check(await page.locator(`#board.${expected.style}`).count() === 1, `it is drawn as ${expected.style}`);
  check(await page.locator('#board .cell').count() === expected.rows * expected.cols,
    'every cell is drawn');
  check(await page.locator('#text-board').isHidden(), 'the text board is hidden');
  check(await page.locator('#move-buttons button').count() === 0, 'no move needs a button');

  if (game === 'oware') {
    check(await page.locator('#board .cell.legal').count() === 6, 'your six houses are marked legal');
    const seeds = await page.locator('#board .piece').allTextContents();
    check(seeds.length === 12 && seeds.every((t) => t === '4'), 'every house shows 4 seeds');
    const move = state.legal.find((m) => m.notation === 'C');
    await page.click(cellSelector(move.cells[0]));
    state = await afterMove(page, id, 0, 'C', 'a click on house C');
    const onBoard = (await page.locator('#board .piece').allTextContents())
      .reduce((sum, t) => sum + Number(t), 0);
    const won = (await page.locator('#board .row-label').allTextContents())
      .reduce((sum, t) => sum + parseInt(t, 10), 0);
    check(onBoard + won === 48, 'the seeds drawn and the seeds won add up to 48',
      `${onBoard} + ${won}`);
  } else if (game === 'chess') {
    check(await page.locator('#board .cell.dark').count() === 32, '32 dark squares');
    check(await page.locator('#board .piece').count() === 32, '32 pieces');
    const move = state.legal.find((m) => m.notation === 'e2e4');
    await page.click(cellSelector(move.cells[0]));
    check(await page.locator('#board .cell.legal').count() === 2, 'clicking e2 marks e3 and e4');
    await page.click(cellSelector(move.cells[1]));
    state = await afterMove(page, id, 0, 'e2e4', 'clicking e2 then e4');
  } else if (game === 'pushfight') {
    check(await page.locator('#board .cell.off').count() === 6, 'six cells are off the board');
    check(await page.locator('#board .cell.rail-top, #board .cell.rail-bottom').count() === 10,
      'ten squares have a rail');
    // Setup: place on the first legal square each time until the first push is ours.
    let placements = 0;
    while (state.status === 'human_to_move' && state.legal.every((m) => m.cells.length === 1)
           && placements < 5) {
      const move = state.legal[0];
      await page.click(cellSelector(move.cells[0]));
      state = await afterMove(page, id, state.ply, move.notation, `placement ${placements + 1}`);
      placements += 1;
    }
    check(placements === 5, 'five placements by click', `${placements}`);
    const push = state.legal.find((m) => m.notation.includes('>'));
    if (check(push !== undefined, 'a push is legal once both sides are set up')) {
      const ply = state.ply;
      await dragMove(page, push);
      state = await afterMove(page, id, ply, push.notation, 'a drag from the pusher');
      check(await page.locator('#board .piece.kind-anchor').count() === 1, 'one piece carries the anchor');
    }
  }

  check(await page.locator('#board .heat').count() > 0, 'the agent\'s search shows as a heat map');
  mkdirSync(dirname(screenshot), { recursive: true });
  await page.screenshot({ path: screenshot, fullPage: true });
  check(true, `screenshot saved to ${screenshot}`);
  check(problems.length === 0, 'no console errors, page errors or failed requests', problems.join('; '));
} catch (e) {
  check(false, 'the script ran to the end', e.message);
} finally {
  await browser.close();
}
finish();
