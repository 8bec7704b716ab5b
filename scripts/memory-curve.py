#!/usr/bin/env python3
"""Samples a command's resident memory (with its child processes) every minute while it
runs, writes the samples as CSV and draws them as an SVG line chart.

    scripts/memory-curve.py --out docs/images/memory-connect4 -- \\
        target/release/zerosum train --game connect4 --run runs/mem --set max_minutes=120
    scripts/memory-curve.py --plot runs/memory.csv --out docs/images/memory-connect4

--every sets the interval in seconds (60). The CSV has `minutes,rss_mib`; the SVG is
OUT.svg beside OUT.csv. The last line printed gives the first, last and highest sample and
the growth over the second half of the run.
"""
import argparse
import os
import subprocess
import sys
import time


def rss_kib(pid):
    """The resident memory of `pid` and its children, in KiB (0 once it has ended)."""
    total = 0
    pids = [pid]
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as children:
            pids += [int(p) for p in children.read().split()]
    except OSError:
        pass
    for p in pids:
        try:
            with open(f"/proc/{p}/status") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def sample(command, every):
    process = subprocess.Popen(command)
    start = time.monotonic()
    samples = []
    while process.poll() is None:
        kib = rss_kib(process.pid)
        if kib:
            samples.append(((time.monotonic() - start) / 60, kib / 1024))
            print(f"{samples[-1][0]:7.1f} min {samples[-1][1]:8.1f} MiB", file=sys.stderr)
        deadline = time.monotonic() + every
        while process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.5)
    if process.returncode != 0:
        print(f"the command failed with {process.returncode}", file=sys.stderr)
    return samples


def svg(samples, title):
    width, height, left, bottom, top, right = 640, 320, 60, 40, 30, 20
    xmax = max(m for m, _ in samples) or 1
    ymax = max(r for _, r in samples) * 1.1 or 1
    x = lambda m: left + (width - left - right) * m / xmax  # noqa: E731
    y = lambda r: height - bottom - (height - top - bottom) * r / ymax  # noqa: E731
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="sans-serif" font-size="12">',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<text x="{left}" y="18" font-size="14">{title}</text>']
    for k in range(6):
        value = ymax * k / 5
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y(value):.1f}" '
                     f'y2="{y(value):.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 6}" y="{y(value) + 4:.1f}" text-anchor="end">'
                     f'{value:.0f}</text>')
    for k in range(6):
        minutes = xmax * k / 5
        parts.append(f'<text x="{x(minutes):.1f}" y="{height - bottom + 16}" '
                     f'text-anchor="middle">{minutes:.0f}</text>')
    parts.append(f'<text x="{(left + width - right) / 2}" y="{height - 6}" '
                 f'text-anchor="middle">minutes</text>')
    parts.append(f'<text x="14" y="{(top + height - bottom) / 2}" text-anchor="middle" '
                 f'transform="rotate(-90 14 {(top + height - bottom) / 2})">resident MiB</text>')
    points = " ".join(f"{x(m):.1f},{y(r):.1f}" for m, r in samples)
    parts.append(f'<polyline points="{points}" fill="none" stroke="#1f77b4" stroke-width="2"/>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="OUT.csv and OUT.svg are written")
    parser.add_argument("--every", type=float, default=60.0)
    parser.add_argument("--plot", help="draw this CSV instead of running a command")
    parser.add_argument("--title", default="resident memory of the training process")
    parser.add_argument("command", nargs="*")
    args = parser.parse_args()
    if args.plot:
        with open(args.plot) as f:
            rows = [line.strip().split(",") for line in f if line.strip()]
        samples = [(float(m), float(r)) for m, r in rows[1:]]
    elif args.command:
        samples = sample(args.command, args.every)
        with open(args.out + ".csv", "w") as f:
            f.write("minutes,rss_mib\n")
            f.writelines(f"{m:.2f},{r:.1f}\n" for m, r in samples)
    else:
        parser.error("give a command after --, or --plot CSV")
    if not samples:
        sys.exit("no samples")
    with open(args.out + ".svg", "w") as f:
        f.write(svg(samples, args.title))
    half = [r for m, r in samples if m >= samples[-1][0] / 2]
    print(f"{len(samples)} samples: first {samples[0][1]:.0f} MiB, last {samples[-1][1]:.0f} MiB, "
          f"highest {max(r for _, r in samples):.0f} MiB, second half {min(half):.0f} to "
          f"{max(half):.0f} MiB")


if __name__ == "__main__":
    main()
