#!/usr/bin/env python3
"""Runs the examples of README.md and docs/*.md and checks the names they use, so that the
pages cannot drift from the program.

    scripts/docs-test.py [--binary target/release/zerosum] [--page docs/web.md ...] [--list]

Every code block is one of:
  - run: a shell block (fenced `sh`/`bash`/`console`, or indented) runs line by line, each
    command (`\\`-continued lines joined) in a scratch folder that has the repository's
    models/, configs/, scripts/, docs/, target/ and .venv/, `zerosum` on the PATH, and a
    runs/ folder with small runs made first: runs/tictactoe (the default tic-tac-toe run);
    runs/connect4, also runs/c4 and runs/other (two generations of connect four, evaluated
    at the second); runs/hex5 and runs/mine (one generation of OpenSpiel's hex and of a
    tic-tac-toe written in Python, the `MyGame` of the pages' Python). Each command must exit
    0 (`zerosum serve` must still be running after a few seconds). A fenced `python` block
    runs in .venv's Python there, with `zerosum`, `torch`, `MyGame` and a `state` of it
    given. Every block starts from the same runs.
  - checked: `<!-- doc-test: transcript: gtp -->` or `transcript: uci` before a block of
    `$ COMMAND` followed by a session: the protocol's commands are fed to COMMAND (which ends
    when its input does) and every line it answers is compared with the page's, in order.
  - not run: `<!-- doc-test: skip: REASON -->` (the reason, the rest of the marker, is
    required); `<!-- doc-test: output -->` before a block that shows what a program prints
    or writes, or another listing that is not a command; a fenced block whose language is
    not a shell or Python (`text`, `toml`, `rust`, `yaml`). Inside a run block, a line whose
    comment says `not run: REASON` is not run.
Markers may also say `stdin: TEXT` (the line fed to every command of the block), `until
stopped` (a server, as `zerosum serve` always is: it must still be running after a few
seconds), `without: runs/NAME` (a fixture run the block makes itself) and `timeout: SECONDS`
(default 300), separated by `;`.

Every page is also checked for names that do not exist, in code blocks and inline code:
`zerosum SUBCOMMAND` must be a subcommand and its `--flags` its own (`zerosum SUB --help`); a
path under crates/, scripts/, configs/, docs/, models/, deploy/ or tests/ must exist; a config
key (`search.num_simulations`, `--set generations=2`) must be one that a run's config.toml
has; a relative link must reach a file, and its `#anchor` a heading there.

It prints a count of examples per page (a command line, a Python block, a transcript or a
block that is not code is one: run, checked, not run) and exits 1 naming each failure by
page and line.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHELLS = {"sh", "bash", "console", "shell", ""}
NOT_CODE = {"text", "toml", "rust", "yaml", "json", "jsonl", "ini", "diff", "dockerfile"}
LINKED = ["models", "configs", "scripts", "docs", "target", ".venv", "crates", "deploy"]
PATH_ROOTS = ("crates/", "scripts/", "configs/", "docs/", "models/", "deploy/", "tests/")
CONFIG_SECTIONS = ("model", "search", "self_play", "replay", "learner", "arena", "play")
MARKER = re.compile(r"^\s*<!--\s*doc-test:\s*(.*?)\s*-->\s*$")
DEFAULT_TIMEOUT = 300


class Block:
    """One code block of a page: where it starts, its language, its lines and its marker."""

    def __init__(self, page, line, language, lines, marker):
        self.page, self.line, self.language, self.lines = page, line, language, lines
        self.options = parse_marker(marker) if marker is not None else {}
        self.marked = marker is not None

    def where(self, offset=0):
        return f"{self.page}:{self.line + offset}"


def parse_marker(text):
    """`stdin: quit; timeout: 60` as {'stdin': 'quit', 'timeout': '60'}; `skip:` takes the
    rest of the marker as its reason."""
    options = {}
    head, skip, reason = text.partition("skip:")
    if skip:
        options["skip"] = reason.strip()
        text = head
    for part in filter(str.strip, text.split(";")):
        key, _, value = part.strip().partition(":")
        options[key.strip()] = value.strip()
    return options


def code_blocks(page, text):
    """The fenced and indented code blocks of a markdown page, with the marker before each."""
    lines = text.split("\n")
    blocks, i, fenced_at = [], 0, None

    def marker_before(index):
        j = index - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        match = MARKER.match(lines[j]) if j >= 0 else None
        return match.group(1) if match else None

    while i < len(lines):
        line = lines[i]
        fence = re.match(r"^\s*(```+|~~~+)\s*([\w+-]*)", line)
        if fence:
            end = i + 1
            while end < len(lines) and not lines[end].strip().startswith(fence.group(1)):
                end += 1
            indent = len(line) - len(line.lstrip())
            body = [l[indent:] if l[:indent].strip() == "" else l for l in lines[i + 1:end]]
            blocks.append(Block(page, i + 2, fence.group(2).lower(), body, marker_before(i)))
            i = end + 1
            continue
        previous_blank = i == 0 or not lines[i - 1].strip()
        in_list = previous_blank and i >= 2 and re.match(r"^\s*([-*]|\d+\.)\s", lines[i - 2] or "")
        if line.startswith("    ") and line.strip() and previous_blank and not in_list:
            end = i
            while end < len(lines) and (lines[end].startswith("    ") or not lines[end].strip()):
                end += 1
            body = [l[4:] for l in lines[i:end]]
            while body and not body[-1].strip():
                body.pop()
            blocks.append(Block(page, i + 1, "", body, marker_before(i)))
            i = end
            continue
        i += 1
    return blocks


def commands(block):
    """`(offset, command, run)` for each command line of a shell block, continuations
    joined and comments left out; `run` is false for a line whose comment says `not run:`.
    A `$ ` prompt is dropped."""
    out, pending, start = [], "", 0
    for offset, raw in enumerate(block.lines):
        line = raw.rstrip()
        if not pending:
            start = offset
            if not line.strip() or line.lstrip().startswith("#"):
                continue
        text = line[:-1] if line.endswith("\\") else line
        pending += text.removeprefix("$ ") + (" " if line.endswith("\\") else "")
        if not line.endswith("\\"):
            out.append((start, pending.strip(), not re.search(r"#.*\bnot run:\s*\S", pending)))
            pending = ""
    return out


# ---------------------------------------------------------------------------------------
# The scratch folder and its runs


def scratch_folder(binary):
    """A folder that looks like a clone with runs in it, and the PATH that finds `zerosum`."""
    folder = tempfile.mkdtemp(prefix="zerosum-docs-")
    for name in LINKED:
        if os.path.exists(os.path.join(ROOT, name)):
            os.symlink(os.path.join(ROOT, name), os.path.join(folder, name))
    bin_dir = os.path.join(folder, ".bin")
    os.makedirs(bin_dir)
    os.symlink(os.path.abspath(binary), os.path.join(bin_dir, "zerosum"))
    os.makedirs(os.path.join(folder, "runs"))
    env = dict(os.environ)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env.pop("ZEROSUM_MODELS", None)
    return folder, env


# What a page's Python may take as given: the package, PyTorch, and `MyGame`, the reader's own
# game (here the tests' tic-tac-toe written in Python) with a `state` of it.
PRELUDE = f"""import sys
sys.path.insert(0, {os.path.join(ROOT, "crates", "python", "tests")!r})
import torch, zerosum
from games import TicTacToe as MyGame
state = MyGame().new_initial_state()
"""


FIXTURES = [
    ["zerosum", "train", "--game", "tictactoe", "--run", "runs/tictactoe"],
    ["zerosum", "train", "--game", "connect4", "--run", "runs/connect4", "--set", "mode=sync",
     "--set", "generations=2", "--set", "max_minutes=0", "--set",
     "self_play.games_per_generation=32", "--set", "self_play.threads=1",
     "--set", "arena.every=2", "--set", "arena.games=2"],
]


PYTHON_RUNS = """
import pyspiel
few = {"generations": 1, "self_play.games_per_generation": 16, "arena.every": 0}
zerosum.train(pyspiel.load_game("hex(board_size=5)"), run="runs/hex5", overrides=few)
zerosum.train(MyGame(), run="runs/mine", overrides=few)
"""


def make_runs(folder, env):
    """The runs every block starts with, kept in .fixtures/runs."""
    python = os.path.join(ROOT, ".venv", "bin", "python")
    for command in FIXTURES + [[python, "-c", PRELUDE + PYTHON_RUNS]]:
        started = time.time()
        done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
        name = command[5] if command[0] == "zerosum" else "runs/hex5 and runs/mine (Python)"
        if done.returncode != 0:
            sys.exit(f"docs-test: making {name} failed:\n{done.stderr[-2000:]}")
        print(f"docs-test: made {name} in {time.time() - started:.0f} s", flush=True)
    for alias in ("c4", "other"):
        os.symlink("connect4", os.path.join(folder, "runs", alias))
    os.makedirs(os.path.join(folder, ".fixtures"))
    os.rename(os.path.join(folder, "runs"), os.path.join(folder, ".fixtures", "runs"))


def reset_runs(folder, block):
    """runs/ as the fixtures left it, less what the block's `without:` names."""
    runs = os.path.join(folder, "runs")
    shutil.rmtree(runs, ignore_errors=True)
    shutil.copytree(os.path.join(folder, ".fixtures", "runs"), runs, symlinks=True)
    for name in block.options.get("without", "").split():
        shutil.rmtree(os.path.join(folder, name), ignore_errors=True)


# ---------------------------------------------------------------------------------------
# Running blocks


def run_command(command, folder, env, options):
    """Runs one command line; the failure as a string, or None."""
    timeout = int(options.get("timeout", DEFAULT_TIMEOUT))
    stdin = options.get("stdin")
    if "until stopped" in options or re.match(r"^(\S*/)?zerosum serve\b", command):
        process = subprocess.Popen(["bash", "-c", command], cwd=folder, env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   text=True, start_new_session=True)
        time.sleep(4)
        if process.poll() is not None:
            return f"stopped by itself (exit {process.returncode}): {process.stderr.read()[-800:]}"
        os.killpg(process.pid, signal.SIGTERM)
        process.wait()
        return None
    try:
        done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=folder, env=env,
                              input=(stdin + "\n") if stdin else "", capture_output=True,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"still running after {timeout} s"
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-6:]
        return f"exit {done.returncode}: " + " | ".join(tail)
    return None


def run_python(block, folder, env):
    python = os.path.join(ROOT, ".venv", "bin", "python")
    timeout = int(block.options.get("timeout", DEFAULT_TIMEOUT))
    source = PRELUDE + "\n".join(block.lines)
    try:
        done = subprocess.run([python, "-"], input=source, cwd=folder, env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"still running after {timeout} s"
    if done.returncode != 0:
        return "python: " + " | ".join(done.stderr.strip().splitlines()[-4:])
    return None


def is_input(protocol, line):
    """Whether a transcript line is sent to the engine rather than answered by it."""
    if protocol == "gtp":
        return bool(line.strip()) and not line.startswith(("=", "?"))
    words = ("uci", "isready", "position", "go", "stop", "quit", "setoption", "ucinewgame")
    return line.split(" ", 1)[0] in words


def check_transcript(block, folder, env):
    """Feeds a `$ COMMAND` session's input to COMMAND and compares what it answers."""
    protocol = block.options["transcript"]
    if protocol not in ("gtp", "uci"):
        return f"transcript of unknown protocol '{protocol}' (gtp or uci)"
    if not block.lines or not block.lines[0].startswith("$ "):
        return "a transcript starts with `$ COMMAND`"
    command = block.lines[0][2:]
    session = block.lines[1:]
    sent = [line for line in session if is_input(protocol, line)]
    want = [line for line in session if not is_input(protocol, line)]
    try:
        done = subprocess.run(["bash", "-c", command], cwd=folder, env=env,
                              input="\n".join(sent) + "\n", capture_output=True,
                              text=True, timeout=int(block.options.get("timeout", 120)))
    except subprocess.TimeoutExpired:
        return "the session did not end"
    got = done.stdout.rstrip("\n").split("\n")
    while want and not want[-1].strip():
        want.pop()
    while got and not got[-1].strip():
        got.pop()
    for n, (w, g) in enumerate(zip(want, got)):
        if w != g:
            return f"answer {n + 1} differs: the page says {w!r}, the program {g!r}"
    if len(want) != len(got):
        return f"the page shows {len(want)} answer lines, the program gave {len(got)}: {got[len(want):][:3]}"
    return None


def run_block(block, folder, env):
    """`(examples, failures)`: how many examples of the block were run, checked and not run
    (a command line, a Python block, a transcript or a block that is not code is one), and
    what failed."""
    options = block.options
    shell = block.language in SHELLS and "transcript" not in options
    size = max(1, len(commands(block))) if shell else 1
    if "skip" in options:
        if not options["skip"]:
            return {"not run": size}, [f"{block.where()}: `skip` needs a reason (`skip: why`)"]
        return {"not run": size}, []
    if "output" in options or block.language in NOT_CODE:
        return {"not run": 1}, []
    if block.language not in SHELLS | {"python"}:
        return {"not run": 1}, [f"{block.where()}: a `{block.language}` block needs a doc-test marker"]
    reset_runs(folder, block)
    if "transcript" in options:
        failure = check_transcript(block, folder, env)
        return {"checked": 1}, [f"{block.where()}: {failure}"] if failure else []
    if block.language == "python":
        started = time.time()
        failure = run_python(block, folder, env)
        print(f"  {block.where()} {time.time() - started:5.1f} s  (Python)", flush=True)
        return {"run": 1}, [f"{block.where()}: {failure}"] if failure else []
    counts, failures = {"run": 0, "not run": 0}, []
    for offset, command, run in commands(block):
        if not run:
            counts["not run"] += 1
            continue
        started = time.time()
        failure = run_command(command, folder, env, options)
        counts["run"] += 1
        print(f"  {block.where(offset)} {time.time() - started:5.1f} s  {command[:90]}", flush=True)
        if failure:
            failures.append(f"{block.where(offset)}: `{command}`: {failure}")
    return counts, failures


# ---------------------------------------------------------------------------------------
# Names


class Names:
    """What exists: subcommands and their flags, config keys."""

    def __init__(self, binary, config_toml):
        self.binary = binary
        self.flags = {}
        top = self.help([])
        self.subcommands = set(re.findall(r"^  ([a-z][a-z-]+)\s", top, re.M)) - {"help"}
        with open(config_toml, "rb") as f:
            config = tomllib.load(f)
        self.keys = set()
        for key, value in config.items():
            if isinstance(value, dict):
                self.keys.update(f"{key}.{inner}" for inner in value)
            else:
                self.keys.add(key)

    def help(self, words):
        done = subprocess.run([self.binary, *words, "--help"], capture_output=True, text=True)
        return done.stdout

    def flags_of(self, words):
        key = tuple(words)
        if key not in self.flags:
            text = self.help(words)
            self.flags[key] = set(re.findall(r"(--[a-z][a-z0-9-]*)", text)) | {"--help"}
        return self.flags[key]

    def check_command(self, text):
        """Problems with a `zerosum ...` command line: its subcommand, flags and --set keys."""
        problems = []
        for match in re.finditer(r"(?:^|[\s/`(])zerosum\s+([a-z][a-z-]*)((?:[^`|;&]*))", text):
            sub, rest = match.group(1), match.group(2)
            if sub not in self.subcommands:
                if not re.match(r"^[a-z]+$", sub) or sub in ("is", "the", "and", "as", "to", "with", "on", "learns"):
                    continue
                problems.append(f"`zerosum {sub}`: no such subcommand")
                continue
            words = [sub]
            after = rest.split()
            if sub == "models" and after and after[0] == "add":
                words.append("add")
            flags = self.flags_of(words)
            for flag in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", rest):
                if flag not in flags:
                    problems.append(f"`zerosum {' '.join(words)} {flag}`: no such option")
            for key in re.findall(r"--set[ =]([a-z_][a-z_.]*)=", rest):
                if key not in self.keys:
                    problems.append(f"`--set {key}=`: no such config key")
        return problems

    def check_key(self, text):
        if re.search(r"\.(sbatch|toml|json|jsonl|md|sh|py|rs|yaml|png|svg)$", text):
            return []
        match = re.fullmatch(r"((?:%s)\.[a-z_]+)(?:\s*=.*)?" % "|".join(CONFIG_SECTIONS), text)
        if match and match.group(1) not in self.keys:
            return [f"`{match.group(1)}`: no such config key"]
        return []


def exists(path):
    """Whether `path` names a file or folder, the files that start with it (a shipped model
    `models/NAME`, an output prefix), or something a script makes that git ignores (such as
    tests/browser/node_modules, which a fresh clone has not made yet)."""
    full = os.path.join(ROOT, path)
    if os.path.exists(full):
        return True
    folder, prefix = os.path.split(full)
    if os.path.isdir(folder) and any(name.startswith(prefix + ".") for name in os.listdir(folder)):
        return True
    ignored = subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT)
    return ignored.returncode == 0


def check_path(text):
    problems = []
    for token in re.findall(r"(?<![\w./-])((?:%s)[\w./-]*)" % "|".join(map(re.escape, PATH_ROOTS)), text):
        token = token.rstrip(".,:)")
        if re.search(r"[A-Z]{3,}|NNNN|\*|\{|<", token):
            continue
        if not exists(token.split(":")[0]):
            problems.append(f"`{token}`: no such file")
    return problems


def slug(heading):
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path):
    with open(path) as f:
        return {slug(m.group(1)) for m in re.finditer(r"^#+\s+(.*)$", f.read(), re.M)}


def check_links(page, text):
    problems = []
    base = os.path.dirname(os.path.join(ROOT, page))
    for n, line in enumerate(text.split("\n"), 1):
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"^[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            path = os.path.join(base, file) if file else os.path.join(ROOT, page)
            if not os.path.exists(path):
                problems.append(f"{page}:{n}: link to {target}: no such file")
            elif anchor and path.endswith(".md") and anchor not in anchors(path):
                problems.append(f"{page}:{n}: link to {target}: no such heading")
    return problems


def check_names(page, text, blocks, names):
    problems = check_links(page, text)
    in_block = set()
    for block in blocks:
        # Output is the program's words; a transcript's commands are the engine's.
        shows = "output" in block.options or block.language in NOT_CODE
        for offset, line in enumerate(block.lines):
            in_block.add(block.line + offset)
            found = check_path(line)
            if not shows and ("transcript" not in block.options or offset == 0):
                found += names.check_command(line)
            problems += [f"{block.where(offset)}: {p}" for p in found]
    for n, line in enumerate(text.split("\n"), 1):
        if n in in_block:
            continue
        for span in re.findall(r"`([^`]+)`", line):
            found = names.check_command(span) + check_path(span) + names.check_key(span)
            problems += [f"{page}:{n}: {p}" for p in found]
    return problems


# ---------------------------------------------------------------------------------------


def pages(chosen):
    if chosen:
        return chosen
    docs = sorted(f"docs/{name}" for name in os.listdir(os.path.join(ROOT, "docs")) if name.endswith(".md"))
    return ["README.md"] + docs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "zerosum"))
    parser.add_argument("--page", action="append", help="only this page (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the blocks and what each is")
    args = parser.parse_args()
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"docs-test: no binary at {args.binary} (run scripts/setup.sh)")
    folder, env = scratch_folder(args.binary)
    failures, table = [], []
    try:
        if not args.list:
            make_runs(folder, env)
        config = os.path.join(folder, ".fixtures", "runs", "tictactoe", "config.toml")
        names = None if args.list else Names(args.binary, config)
        for page in pages(args.page):
            with open(os.path.join(ROOT, page)) as f:
                text = f.read()
            blocks = code_blocks(page, text)
            counts = {"run": 0, "checked": 0, "not run": 0}
            print(f"{page}: {len(blocks)} blocks", flush=True)
            for block in blocks:
                if args.list:
                    print(f"  {block.where()} {block.language or 'indented'} {block.options} {block.lines[0][:70] if block.lines else ''}")
                    continue
                examples, found = run_block(block, folder, env)
                for kind, n in examples.items():
                    counts[kind] += n
                failures += found
            if not args.list:
                failures += check_names(page, text, blocks, names)
            table.append((page, counts))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if args.list:
        return 0
    print(f"\n{'page':28} {'run':>5} {'checked':>8} {'not run':>8}")
    for page, counts in table:
        print(f"{page:28} {counts['run']:5} {counts['checked']:8} {counts['not run']:8}")
    total = {k: sum(c[k] for _, c in table) for k in ("run", "checked", "not run")}
    print(f"{'all':28} {total['run']:5} {total['checked']:8} {total['not run']:8}")
    for failure in failures:
        print(f"FAILED {failure}")
    print(f"docs-test: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
