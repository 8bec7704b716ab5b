#!/usr/bin/env bash
# Measures zerosum on this machine's GPU against the GPU's own ceiling, in one go, and
# prints one table (docs/results.md, "On a GPU", keeps them):
#   - `zerosum bench` on the Go 9x9 and connect-four models and on a network of the size GPU
#     users train (resnet, 128 channels x 10 blocks): the bare forward rate in fp32 and bf16,
#     self-play's evaluations/s through the inference server with the mean batch it saw and
#     its share of the bare rate at the largest batch, the learner's samples/s in fp32 and
#     in bf16 (mixed precision), and one
#     search's simulations/s at 1 and 8 leaves a call, on the GPU and on the cores; each
#     on the GPU with and without CUDA graphs where the binary has their shim (beside it:
#     scripts/build-for-torch.sh builds both), with how far the graphs' outputs and
#     weights were from the passes and steps run as they are;
#   - Go 9x9's self-play without graphs, and its learner at batches of 1,024;
#   - then Go 9x9 trained on the GPU from the shipped model for 3 minutes (--train-minutes).
# Made for a GPU lent for a short while and cut off from the network: it needs nothing but
# the binary (built for that machine's PyTorch: scripts/build-for-torch.sh) and the
# repository's models/ and configs/, and finishes in under 8 minutes at the defaults.
#
#   scripts/gpu-check.sh [--zerosum BIN] [--train-minutes M] [--networks go9,connect4,resnet128x10] [--out DIR]
set -uo pipefail
cd "$(dirname "$0")/.."

bin=target/release/zerosum
train_minutes=3
networks=go9,connect4,resnet128x10
out=runs/gpu-check
while [ $# -gt 0 ]; do
  case "$1" in
    --zerosum) bin="$2"; shift 2 ;;
    --train-minutes) train_minutes="$2"; shift 2 ;;
    --networks) networks="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "gpu-check: unknown argument $1" >&2; exit 2 ;;
  esac
done

if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu-check: no NVIDIA GPU on this machine (nvidia-smi finds none): nothing to measure"
  exit 0
fi
# A machine's own PyTorch, where the binary was built for it with --rpath elsewhere.
if torch_lib=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))' 2>/dev/null); then
  export LD_LIBRARY_PATH="$torch_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
[ -x "$bin" ] || { echo "gpu-check: no zerosum binary at $bin (--zerosum BIN)" >&2; exit 2; }
mkdir -p "$out"
gpu=$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)
echo "gpu-check: $gpu; $(nproc) cores; zerosum $("$bin" --version 2>/dev/null)"

# GPU self-play settings: 16 threads of 128 games keep twice the largest batch in flight,
# so one batch gathers while the other is on the device.
gpu_play=(--set self_play.threads=16 --set self_play.batch_games=128)
sizes=1,64,256,512,1024,2048
bench() { # NAME ARGS...: one bench on the GPU, its output kept
  local name=$1; shift
  echo "== $name"
  # As many games as the time allows: none of them finishing leaves the batches full.
  "$bin" bench "$@" --device cuda --batch-sizes "$sizes" --seconds 1 \
    --games 1000000 --self-play-seconds 20 "${gpu_play[@]}" 2>&1 | grep -v 'Warning: The argument' \
    | tee "$out/$name.txt"
}
cpu_search() { # NAME ARGS...: the interactive search on the cores, for comparison
  local name=$1; shift
  "$bin" bench "$@" --device cpu --sections interactive 2>&1 | tee "$out/$name-cpu.txt"
}
wants() { [[ ",$networks," == *",$1,"* ]]; }
# A binary whose CUDA graphs fail outright (a crash, not a warning) is measured without them.
if ! "$bin" bench --checkpoint models/go-9x9 --device cuda --sections forward,learner \
    --batch-sizes 1,8,1000 --seconds 0.2 --set learner.batch_size=64 > "$out/graphs-smoke.txt" 2>&1; then
  echo "gpu-check: the bench failed with CUDA graphs (last lines below): measuring without them"
  tail -n 5 "$out/graphs-smoke.txt"
  export ZEROSUM_CUDA_GRAPHS=/nonexistent
fi
if wants go9; then
  bench go9 --checkpoint models/go-9x9
  cpu_search go9 --checkpoint models/go-9x9
  echo "== go9, self-play without CUDA graphs"
  "$bin" bench --checkpoint models/go-9x9 --device cuda --batch-sizes 1024 --precisions fp32 \
    --seconds 1 --games 1000000 --self-play-seconds 20 "${gpu_play[@]}" --set cuda_graphs=off \
    --sections self-play 2>&1 | tee "$out/go9-eager.txt"
  echo "== go9, the learner at batches of 1,024"
  "$bin" bench --checkpoint models/go-9x9 --device cuda --seconds 1 --set learner.batch_size=1024 \
    --sections learner 2>&1 | tee "$out/go9-batch1024.txt"
fi
if wants connect4; then
  bench connect4 --checkpoint models/connect4
  cpu_search connect4 --checkpoint models/connect4
fi
if wants resnet128x10; then
  bench resnet128x10 --config configs/go-9x9.toml --set model.channels=128 --set model.blocks=10 \
    --set model.value_hidden=128
fi

echo "== training Go 9x9 on the GPU for $train_minutes minutes"
rm -rf "$out/go9-run"
# A generation of 2,048 games keeps the 2,048 games in flight busy to its end.
"$bin" train --config configs/go-9x9.toml --init models/go-9x9 --run "$out/go9-run" --device cuda \
  "${gpu_play[@]}" --set self_play.games_per_generation=2048 --set replay.window_positions=600000 \
  --set arena.every=0 --set "max_minutes=$train_minutes" 2>&1 | grep -v 'Warning: The argument' \
  | grep -v '^\s*$' | tee "$out/go9-train.txt" | tail -n 12

field() { # FILE KEY: a value of the bench's summary line
  sed -n 's/^summary: //p' "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p"
}
echo
echo "gpu-check: $gpu"
echo
echo "| network | bare fp32 at 1,024: as run / graph | bare bf16 at 1,024: as run / graph | bare bf16 at 2,048 | self-play evals/s (mean batch), graphs $(field "$out/go9.txt" selfplay_graphs) | of the bare rate | learner samples/s, fp32: as run / graph (bare fwd+bwd) | bf16: as run / graph (bare) | search sims/s, leaves 1 / 8: GPU, graphs / as run | CPU |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for name in ${networks//,/ }; do
  f="$out/$name.txt"; c="$out/$name-cpu.txt"
  echo "| $name | $(sed -n 's/^ *1024 *\([0-9]*\) *[0-9]* *\([0-9]*\).*/\1 \/ \2/p' "$f" | head -1) | $(sed -n 's/^ *1024 *[0-9]* *\([0-9]*\) *[0-9]* *\([0-9]*\).*/\1 \/ \2/p' "$f" | head -1) | $(sed -n 's/^ *2048 *[0-9]* *\([0-9]*\).*/\1/p' "$f" | head -1) | $(field "$f" selfplay_evals) ($(field "$f" selfplay_mean_batch)) | $(field "$f" selfplay_ratio) of batch $(field "$f" selfplay_ceiling_batch) | $(field "$f" learner_samples) / $(field "$f" learner_samples_graph) ($(field "$f" learner_bare)) | $(field "$f" learner_samples_bf16) / $(field "$f" learner_samples_bf16_graph) ($(field "$f" learner_bare_bf16)) | $(field "$f" interactive_1) / $(field "$f" interactive_8); $(field "$f" interactive_1_eager) / $(field "$f" interactive_8_eager) | $(field "$c" interactive_1) / $(field "$c" interactive_8) |"
done
echo
for name in ${networks//,/ }; do
  f="$out/$name.txt"
  echo "$name: graphs' outputs apart, fp32 $(field "$f" graph_apart_fp32), bf16 $(field "$f" graph_apart_bf16); 16 learner steps' weights apart, recorded against as run (as run twice): Adam $(field "$f" learner_graph_drift_adam) ($(field "$f" learner_drift_floor_adam)), SGD $(field "$f" learner_graph_drift_sgd) ($(field "$f" learner_drift_floor_sgd))"
done
if wants go9; then
  e="$out/go9-eager.txt"; l="$out/go9-batch1024.txt"
  echo "go9 self-play without graphs: $(field "$e" selfplay_evals) evals/s (mean batch $(field "$e" selfplay_mean_batch)), $(field "$e" selfplay_ratio) of the bare fp32 rate at $(field "$e" selfplay_ceiling_batch)"
  echo "go9 learner at 1,024: fp32 $(field "$l" learner_samples) / graph $(field "$l" learner_samples_graph) (bare $(field "$l" learner_bare)); bf16 $(field "$l" learner_samples_bf16) / graph $(field "$l" learner_samples_bf16_graph) (bare $(field "$l" learner_bare_bf16))"
fi
echo
echo "Go 9x9 training on the GPU ($train_minutes minutes from models/go-9x9):"
grep -E 'self-play|learn ' "$out/go9-train.txt" | tail -n 6
