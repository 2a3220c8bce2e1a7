#!/usr/bin/env bash
# The GPU checks in one run, sized for a lent machine's few minutes (benchmarks/README.md, "On a GPU"):
# the CUDA tests, the lock-step evaluator on the GPU beside the same machine's CPU, and paper-size training.
# Each step has its own time limit, so one that hangs leaves the others their time; results go to OUT.
#
#     bash benchmarks/gpu.sh OUT [--quick]      (--quick: tiny budgets, to check the script on a CPU machine)
set -u
out=${1:?usage: bash benchmarks/gpu.sh OUT [--quick]}
quick=${2:-}
mkdir -p "$out"
py=${PYTHON:-python3}
device=cuda
export PYTHONUNBUFFERED=1
if [ "$quick" = --quick ]; then device=cpu; fi

step() {  # step NAME SECONDS COMMAND...: run with a limit, say how it ended
    local name=$1 limit=$2 start=$SECONDS
    shift 2
    echo "== $name (limit ${limit} s)"
    timeout "$limit" "$@"
    echo "== $name: exit $? after $((SECONDS - start)) s"
}

nvidia-smi -L 2>/dev/null || echo "no nvidia-smi"
$py -c "import torch, numba, numpy; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(),
'numba', numba.__version__, 'numpy', numpy.__version__)"
echo "commit ${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)}, $(nproc) cores"

step tests 120 $py -m pytest -q -p no:cacheprovider --noconftest tests/test_cuda.py

if [ "$quick" = --quick ]; then
    sizes=(--sizes small --concurrent 8 --batches 1 8 --simulations 10 --paper-simulations 4 --rounds 1)
    train=(--filters 8 --blocks 1 --games 4 --simulations 8 --iterations 1)
else
    sizes=(--sizes small paper --concurrent 256 512 1024 --batches 1 64 256 1024 4096 --paper-simulations 10)
    train=(--size paper --hours 0.01)
fi
step evaluator-"$device" 110 $py -m benchmarks.evaluator --device "$device" --threads "$(nproc)" \
    --games connect4 othello "${sizes[@]}" --rounds 2 --json "$out/evaluator-$device.json"
step evaluator-cpu 110 $py -m benchmarks.evaluator --device cpu --threads "$(nproc)" \
    --games connect4 "${sizes[@]}" --rounds 1 --json "$out/evaluator-cpu.json"
for games in 30 256; do  # Table A1's N_self, and a pool the GPU's batch can take
    step train-"$games" 80 $py -m tuner.cli train connect4 --out "/tmp/train-$games" --device "$device" \
        --eval-games 0 --games "$games" "${train[@]}"
    cp "/tmp/train-$games/log.jsonl" "$out/train-$games.jsonl" 2>/dev/null
done
