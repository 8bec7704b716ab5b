"""The `zerosum` command of an installed wheel: runs the binary that ships inside the package.

The wheel holds the release binary as `zerosum/bin/zerosum` and the shipped models as
`zerosum/models/`, which the binary finds beside its own folder. It links the libtorch of the
torch package installed beside this one, found through LD_LIBRARY_PATH (the binary's own rpath
points into a clone's .venv). An install made from a clone (scripts/setup.sh, `maturin
develop`) has no `bin/`: there the command runs the clone's own release build,
target/release/zerosum.
"""

import importlib.util
import os
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def binary() -> Path:
    """The zerosum executable this package runs."""
    inside = PACKAGE / "bin" / "zerosum"
    # A clone's crates/python/python/zerosum: the repository is three folders up.
    clone = PACKAGE.parent.parent.parent.parent
    if inside.exists() or not (clone / "Cargo.toml").exists():
        return inside
    return clone / "target" / "release" / "zerosum"


def torch_lib() -> Path:
    """The folder of libtorch's shared libraries, found without importing torch (seconds)."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("zerosum: the torch package is not installed here (pip install torch)")
    return Path(list(spec.submodule_search_locations)[0]) / "lib"


def environment() -> dict:
    """The binary's environment: this one, with libtorch found."""
    env = dict(os.environ)
    paths = [str(torch_lib())] + [p for p in env.get("LD_LIBRARY_PATH", "").split(":") if p]
    env["LD_LIBRARY_PATH"] = ":".join(paths)
    return env


def main() -> None:
    executable = binary()
    if not executable.exists():
        raise SystemExit(
            f"zerosum: no binary at {executable}: install the wheel that scripts/wheel.sh "
            "builds, or in a clone build it with scripts/setup.sh"
        )
    os.execve(executable, [str(executable)] + sys.argv[1:], environment())
