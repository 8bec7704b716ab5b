#!/usr/bin/env python3
"""Checks the deployment files of deploy/ offline, as far as a machine without a cluster
or a container engine can:

- every Kubernetes manifest of deploy/kubernetes/ against the Kubernetes API's schema
  (kubernetes-validate, strict: an unknown or misspelt key fails, as does a wrong type);
- every manifest says at its top what a user fills in, and names what is to be replaced;
- every `zerosum` command a container runs names a subcommand and options the binary has;
- deploy/Dockerfile installs the PyTorch that scripts/setup.sh does (the one zerosum links)
  and builds the package that exists.

Usage: scripts/check-deploy.py [--binary target/fast/zerosum]
"""

import argparse
import glob
import os
import re
import subprocess
import sys

import kubernetes_validate
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KUBERNETES_VERSION = "1.37.0"


def containers(document):
    """The containers of a Job's pod template (none for other kinds)."""
    spec = document.get("spec", {}).get("template", {}).get("spec", {})
    return spec.get("containers", [])


def command_line(container):
    """The words a container runs: its command (the image's entrypoint, zerosum, where it
    gives none) and args."""
    command = container.get("command", ["zerosum"])
    return list(command) + list(container.get("args", []))


def check_command(binary, words, where):
    """The subcommand and every --option of a zerosum command line exist."""
    if len(words) < 2 or words[0] != "zerosum":
        return [f"{where}: runs {' '.join(words) or 'nothing'}, not a zerosum command"]
    help_text = subprocess.run(
        [binary, words[1], "--help"], capture_output=True, text=True, check=False
    )
    if help_text.returncode != 0:
        return [f"{where}: zerosum has no subcommand {words[1]}"]
    known = set(re.findall(r"--[a-z][a-z0-9-]*", help_text.stdout))
    return [
        f"{where}: zerosum {words[1]} has no option {word}"
        for word in words[2:]
        if word.startswith("--") and word.split("=")[0] not in known
    ]


def check_manifest(path, binary):
    problems = []
    with open(os.path.join(ROOT, path), encoding="utf-8") as file:
        text = file.read()
    header = "".join(line for line in text.splitlines(True) if line.startswith("#"))
    if "Fill in:" not in header:
        problems.append(f"{path}: no 'Fill in:' comment saying what a user replaces")
    for document in yaml.safe_load_all(text):
        if document is None:
            continue
        kind = f"{document.get('kind')}/{document.get('metadata', {}).get('name')}"
        try:
            kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)
        except kubernetes_validate.ValidationError as error:
            problems.append(f"{path} {kind}: {error.message} at {'.'.join(map(str, error.path))}")
        for container in containers(document):
            where = f"{path} {kind} container {container.get('name')}"
            problems.extend(check_command(binary, command_line(container), where))
    return problems


def check_dockerfile(path):
    problems = []
    with open(path, encoding="utf-8") as file:
        text = file.read()
    with open(os.path.join(ROOT, "scripts", "setup.sh"), encoding="utf-8") as file:
        setup = file.read()
    wanted = re.search(r"^TORCH_VERSION=(\S+)", setup, re.M).group(1)
    found = re.findall(r"torch==(\S+)", text)
    if found != [wanted]:
        problems.append(f"{path}: installs torch {found}, scripts/setup.sh links {wanted}")
    for package in re.findall(r"cargo build [^\n]*-p (\S+)", text):
        with open(os.path.join(ROOT, "crates", "cli", "Cargo.toml"), encoding="utf-8") as file:
            cargo = file.read()
        if f'name = "{package}"' not in cargo:
            problems.append(f"{path}: builds package {package}, which crates/cli is not")
    for source in re.findall(r"^COPY --from=build /src/(\S+)", text, re.M):
        top = source.split("/")[0]
        if top not in (".venv", "target") and not os.path.exists(os.path.join(ROOT, top)):
            problems.append(f"{path}: copies {source}, which the repository lacks")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, "target", "fast", "zerosum"))
    args = parser.parse_args()
    manifests = sorted(glob.glob(os.path.join(ROOT, "deploy", "kubernetes", "*.yaml")))
    if not manifests:
        sys.exit("check-deploy: no manifests in deploy/kubernetes/")
    problems = []
    for path in manifests:
        problems.extend(check_manifest(os.path.relpath(path, ROOT), args.binary))
    problems.extend(check_dockerfile(os.path.join(ROOT, "deploy", "Dockerfile")))
    for problem in problems:
        print(f"FAILED {problem}")
    print(f"check-deploy: {len(manifests)} manifests, the Dockerfile: {len(problems)} problems")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
