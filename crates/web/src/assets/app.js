// zerosum's play page. It knows no game: the server describes the board (a grid of
// cells, each empty or holding a piece), the legal moves (their notation and the cells
// they involve) and the agent's last search, and this script draws them and sends clicks.
//
// A move with one cell is played by a click on any cell of its `hit` list; a move with
// several cells (from ... to) by a click on its first cell, then on its last; a move with
// no cell (a pass, or any move of a game drawn as text) is a button under the board.
// A several-cell move can also be dragged from its first cell to its last.
'use strict';

const $ = (id) => document.getElementById(id);
const SIMS_PRESETS = [10, 25, 50, 100, 200, 400, 800, 1600, 3200, 6400, 12800];

let info = null;      // GET /api/info
let state = null;     // the current game's state
let busy = false;     // a request is in flight
let selected = null;  // the first cell of a several-cell move, once clicked
let choices = null;   // moves that share the clicked cells, offered as buttons

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers['Content-Type'] = 'application/json';
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const data = await response.json();
  if (!response.ok) {
    throw new Error(data.error || `${response.status} ${response.statusText}`);
  }
  return data;
}

function showError(message) {
  const box = $('error');
  box.textContent = message || '';
  box.hidden = !message;
}

// Runs one request at a time; the page ignores clicks meanwhile.
async function exclusive(work) {
  if (busy) return;
  busy = true;
  document.body.classList.add('busy');
  try {
    showError('');
    await work();
  } catch (e) {
    showError(e.message);
  } finally {
    busy = false;
    document.body.classList.remove('busy');
    render();
  }
}

function storageKey() {
  return `zerosum-game-${info.game}`;
}

function setState(next) {
  state = next;
  selected = null;
  choices = null;
  sessionStorage.setItem(storageKey(), state.id);
  document.body.dataset.session = state.id;
  window.zerosum.state = state;
  render();
}

async function agentTurn() {
  while (state && state.status === 'agent_to_move') {
    state.thinking = true;
    render();
    setState(await api('POST', `/api/games/${state.id}/agent`, { sims: chosenSims() }));
  }
}

function chosenSims() {
  return Number($('sims').value) || info.default_sims;
}

function newGame() {
  return exclusive(async () => {
    setState(await api('POST', '/api/games', { human: $('side').value, sims: chosenSims() }));
    await agentTurn();
  });
}

function play(move) {
  return exclusive(async () => {
    setState(await api('POST', `/api/games/${state.id}/move`, { move: move.notation }));
    await agentTurn();
  });
}

function undo() {
  return exclusive(async () => {
    setState(await api('POST', `/api/games/${state.id}/undo`));
  });
}

function hint() {
  return exclusive(async () => {
    setState(await api('POST', `/api/games/${state.id}/analyse`, { sims: chosenSims() }));
  });
}

function humanCanMove() {
  return state && state.status === 'human_to_move' && !state.thinking && !busy;
}

// The one-cell moves a click on `cell` plays, and the several-cell moves it starts.
function movesAt(cell) {
  const legal = humanCanMove() ? state.legal : [];
  return {
    single: legal.filter((m) => m.cells.length <= 1 && m.hit.includes(cell)),
    starting: legal.filter((m) => m.cells.length > 1 && m.cells[0] === cell),
    ending: selected === null ? [] :
      legal.filter((m) => m.cells.length > 1 && m.cells[0] === selected &&
                          m.cells[m.cells.length - 1] === cell),
  };
}

function clickCell(cell) {
  if (!humanCanMove()) return;
  const { single, starting, ending } = movesAt(cell);
  choices = null;
  if (ending.length === 1) return play(ending[0]);
  if (ending.length > 1) {
    choices = ending;
    return render();
  }
  if (single.length === 1) return play(single[0]);
  if (starting.length > 0) {
    selected = selected === cell ? null : cell;
  } else {
    selected = null;
  }
  render();
}

function moveButton(move) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'move';
  button.textContent = move.notation;
  button.dataset.action = move.action;
  button.addEventListener('click', () => play(move));
  return button;
}

// Each move's share of the search, summed on the last cell of the move.
function heatByCell() {
  const heat = new Map();
  const a = state.analysis;
  // The search of the position now (a hint) or of the one before the agent's move.
  if (!a || !$('show-heat').checked || a.ply < state.ply - 1) return heat;
  for (const m of a.moves) {
    if (m.cells.length === 0) continue;
    const cell = m.cells[m.cells.length - 1];
    heat.set(cell, (heat.get(cell) || 0) + m.share);
  }
  return heat;
}

function percent(x) {
  return `${Math.round(100 * x)}%`;
}

function renderBoard() {
  const board = state.board;
  const root = $('board');
  root.replaceChildren();
  root.className = `style-${board.style}`;
  $('text-board').hidden = board.style !== 'text' && board.rows > 0;
  $('text-board').textContent = board.text;
  if (board.rows === 0) return;
  const size = Math.max(24, Math.min(72, Math.floor(
    Math.min(560, window.innerWidth - 48) / Math.max(board.rows, board.cols))));
  root.style.setProperty('--cell', `${size}px`);
  const hasRowLabels = board.row_labels.length === board.rows;
  root.style.gridTemplateColumns =
    `${hasRowLabels ? 'auto ' : ''}repeat(${board.cols}, var(--cell))`;

  const canMove = humanCanMove();
  const targets = new Set();
  const clickable = new Set();
  if (canMove) {
    for (const m of state.legal) {
      if (m.cells.length > 1) {
        if (selected === null) clickable.add(m.cells[0]);
        else if (m.cells[0] === selected) {
          targets.add(m.cells[m.cells.length - 1]);
          clickable.add(m.cells[m.cells.length - 1]);
        }
      } else {
        for (const c of m.cells) targets.add(c);
        for (const c of m.hit) clickable.add(c);
      }
    }
  }
  const heat = heatByCell();
  const maxHeat = Math.max(0, ...heat.values());
  const last = new Set(state.last);

  if (board.top_labels.length === board.cols) {
    if (hasRowLabels) root.append(label('', 'col-label'));
    for (const text of board.top_labels) root.append(label(text, 'col-label'));
  }
  for (let row = 0; row < board.rows; row++) {
    if (hasRowLabels) root.append(label(board.row_labels[row], 'row-label'));
    for (let col = 0; col < board.cols; col++) {
      const index = row * board.cols + col;
      const cell = document.createElement('div');
      cell.className = 'cell';
      cell.dataset.cell = index;
      cell.dataset.row = row;
      cell.dataset.col = col;
      // Edges, where a Go board's lines stop.
      if (row === 0) cell.classList.add('top');
      if (row === board.rows - 1) cell.classList.add('bottom');
      if (col === 0) cell.classList.add('left');
      if (col === board.cols - 1) cell.classList.add('right');
      // Per-game decoration: dark chess squares, Push Fight's rails and missing corners.
      for (const name of (board.decor[index] || '').split(' ')) {
        if (name) cell.classList.add(name);
      }
      const piece = board.cells[index];
      if (piece) {
        const p = document.createElement('div');
        p.className = `piece p${piece.player}`;
        for (const kind of (piece.kind || '').split(' ')) {
          if (kind) p.classList.add(`kind-${kind}`);
        }
        p.textContent = piece.label;
        cell.append(p);
      }
      if (targets.has(index)) cell.classList.add('legal');
      if (clickable.has(index)) cell.classList.add('clickable');
      if (selected === index) cell.classList.add('selected');
      if (last.has(index)) cell.classList.add('last');
      const share = heat.get(index);
      if (share !== undefined && share > 0) {
        const h = document.createElement('div');
        h.className = 'heat';
        h.style.setProperty('--heat', (0.12 + 0.6 * share / maxHeat).toFixed(3));
        if (share >= 0.005) h.textContent = percent(share);
        cell.append(h);
      }
      root.append(cell);
    }
  }
  if (board.col_labels.length === board.cols) {
    if (hasRowLabels) root.append(label('', 'col-label'));
    for (const text of board.col_labels) root.append(label(text, 'col-label'));
  }
}

function label(text, className) {
  const span = document.createElement('span');
  span.className = className;
  span.textContent = text;
  return span;
}

// Hovering a cell previews the move a click would play (a whole connect-four column).
function hover(cell) {
  for (const el of document.querySelectorAll('#board .hover')) el.classList.remove('hover');
  if (cell === null) return;
  const { single } = movesAt(cell);
  if (single.length !== 1) return;
  for (const c of single[0].hit.concat(single[0].cells)) {
    const el = document.querySelector(`#board .cell[data-cell="${c}"]`);
    if (el) el.classList.add('hover');
  }
}

function renderButtons() {
  const box = $('move-buttons');
  box.replaceChildren();
  if (!humanCanMove()) return;
  if (choices) {
    // Several moves share the clicked cells (a promotion's pieces): the person picks one.
    for (const m of choices) box.append(moveButton(m));
    return;
  }
  const heat = new Map();
  if (state.analysis && state.analysis.ply === state.ply && $('show-heat').checked) {
    for (const m of state.analysis.moves) heat.set(m.action, m.share);
  }
  for (const m of state.legal) {
    if (m.cells.length > 0) continue;
    const button = moveButton(m);
    const share = heat.get(m.action);
    if (share !== undefined) {
      button.style.setProperty('--heat', share.toFixed(3));
      button.classList.add('heated');
      button.title = `${percent(share)} of the search`;
    }
    box.append(button);
  }
}

function playerName(index) {
  return state.board.player_names[index];
}

function renderStatus() {
  const status = $('status');
  status.dataset.status = state.status;
  delete status.dataset.result;
  const you = `you play ${playerName(state.human)}`;
  if (state.status === 'over') {
    const r = state.result;
    status.dataset.result = r.for_human;
    const text = r.resigned
      ? 'The agent resigns. You win!'
      : { win: 'You win!', loss: 'The agent wins.', draw: 'A draw.' }[r.for_human];
    status.textContent = `Game over: ${text} (${r.score})`;
  } else if (state.thinking || state.status === 'agent_to_move') {
    status.textContent = `The agent is thinking… (${you})`;
  } else {
    const pick = selected === null ? '' : ' — now click where it goes';
    status.textContent = `Your move, ${you}${pick}.`;
  }
}

function renderPanel() {
  const a = state.analysis;
  const text = $('value-text');
  const bar = $('value-bar');
  const top = $('top-moves');
  top.replaceChildren();
  if (!a) {
    text.textContent = 'No search yet.';
    bar.style.width = '50%';
  } else {
    const forAgent = -a.value_for_human;
    const sign = (x) => (x >= 0 ? '+' : '') + x.toFixed(2);
    const what = a.played ? `Its search for move ${a.ply + 1} (played ${a.played})`
      : a.mover !== state.human ? `Its search for move ${a.ply + 1}, after which it resigned`
      : `Its search of your position (move ${a.ply + 1})`;
    text.textContent = `${what}, ${a.sims} simulations: value ${sign(forAgent)} for the agent, ` +
      `your expected score ${percent((a.value_for_human + 1) / 2)}.`;
    bar.style.width = percent((a.value_for_human + 1) / 2);
    const best = a.moves.slice().sort((x, y) => y.share - x.share).slice(0, 5);
    for (const m of best) {
      const li = document.createElement('li');
      li.textContent = `${m.notation}: ${percent(m.share)} (${m.visits} visits)`;
      if (m.notation === a.played) li.className = 'played';
      top.append(li);
    }
  }
  const history = $('history');
  history.replaceChildren();
  state.moves.forEach((move, ply) => {
    const li = document.createElement('li');
    li.textContent = move;
    li.className = ply % 2 === 0 ? 'p0' : 'p1';
    history.append(li);
  });
  $('undo').disabled = busy || !state.can_undo || state.thinking;
  $('hint').disabled = busy || state.status !== 'human_to_move';
  $('new-game').disabled = busy;
  $('side').value = state.human === 0 ? 'first' : 'second';
}

function render() {
  if (!state) return;
  renderBoard();
  renderButtons();
  renderStatus();
  renderPanel();
}

function fillSims() {
  const select = $('sims');
  const counts = new Set(SIMS_PRESETS.filter((n) => n <= info.max_sims));
  counts.add(info.default_sims);
  for (const n of [...counts].sort((a, b) => a - b)) {
    const option = document.createElement('option');
    option.value = n;
    option.textContent = `${n} simulations`;
    if (n === info.default_sims) option.selected = true;
    select.append(option);
  }
}

async function start() {
  window.zerosum = { state: null, info: null };
  info = await api('GET', '/api/info');
  window.zerosum.info = info;
  document.title = `zerosum: ${info.short_name}`;
  $('game-name').textContent = info.game;
  $('agent-name').textContent = `against ${info.agent}`;
  fillSims();
  const board = $('board');
  board.addEventListener('click', (e) => {
    const cell = e.target.closest('.cell');
    if (cell) clickCell(Number(cell.dataset.cell));
  });
  board.addEventListener('mouseover', (e) => {
    const cell = e.target.closest('.cell');
    hover(cell ? Number(cell.dataset.cell) : null);
  });
  board.addEventListener('mouseleave', () => hover(null));
  // Drag and drop: pressing on a piece that can move and letting go on another cell is the
  // same as clicking both. (The click after a drag lands on the board, not on a cell.)
  let dragFrom = null;
  const cellUnder = (e) => {
    const el = document.elementFromPoint(e.clientX, e.clientY);
    const cell = el && el.closest('#board .cell');
    return cell ? Number(cell.dataset.cell) : null;
  };
  board.addEventListener('pointerdown', (e) => {
    const from = cellUnder(e);
    dragFrom = from !== null && movesAt(from).starting.length > 0 ? from : null;
  });
  board.addEventListener('pointerup', (e) => {
    const from = dragFrom;
    dragFrom = null;
    const to = cellUnder(e);
    if (from === null || to === null || to === from || !humanCanMove()) return;
    selected = from;
    clickCell(to);
  });
  $('new-game').addEventListener('click', newGame);
  $('undo').addEventListener('click', undo);
  $('hint').addEventListener('click', hint);
  $('side').addEventListener('change', newGame);
  $('show-heat').addEventListener('change', render);
  window.addEventListener('resize', render);

  const saved = sessionStorage.getItem(storageKey());
  if (saved) {
    try {
      setState(await api('GET', `/api/games/${saved}`));
      return exclusive(agentTurn);
    } catch (e) {
      sessionStorage.removeItem(storageKey());
    }
  }
  return newGame();
}

start().catch((e) => showError(e.message));
