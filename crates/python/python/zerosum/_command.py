"""The `zerosum` command of an installed wheel: runs the binary that ships inside the package.

The wheel holds the release binary as `zerosum/bin/zerosum` and the shipped models as
`zerosum/models/`. The binary links the libtorch of the torch package installed beside this one,
which it finds through LD_LIBRARY_PATH, and the models through ZEROSUM_MODELS. An install made
from a clone (scripts/setup.sh, `maturin develop`) has no `bin/`: there the command runs the
clone's own release build, target/release/zerosum.
"""

import importlib.util
import os
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def binary() -> Path:
    """The zerosum executable this package runs."""
    inside = PACKAGE / "bin" / "zerosum"
    if inside.exists():
        return inside
    return PACKAGE.parents[3] / "target" / "release" / "zerosum"


def torch_lib() -> Path:
    """The folder of libtorch's shared libraries, found without importing torch (seconds)."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("zerosum: the torch package is not installed here (pip install torch)")
    return Path(list(spec.submodule_search_locations)[0]) / "lib"


def environment() -> dict:
    """The binary's environment: this one, with libtorch and the shipped models found."""
    env = dict(os.environ)
    paths = [str(torch_lib())] + [p for p in env.get("LD_LIBRARY_PATH", "").split(":") if p]
    env["LD_LIBRARY_PATH"] = ":".join(paths)
    models = PACKAGE / "models"
    if models.is_dir() and not env.get("ZEROSUM_MODELS"):
        env["ZEROSUM_MODELS"] = str(models)
    return env


def main() -> None:
    executable = binary()
    if not executable.exists():
        raise SystemExit(
            f"zerosum: no binary at {executable}: build it with scripts/setup.sh "
            "or install the wheel that scripts/wheel.sh builds"
        )
    os.execve(executable, [str(executable)] + sys.argv[1:], environment())
