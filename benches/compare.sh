#!/usr/bin/env bash
# Measures jax-runtimes against the tools users would otherwise pick, side by side in one run
# (ratios, since shared machines are noisy), plus start-up time, cost per entry and peak memory.
# Not run in CI. Numbers and targets: docs/performance.md.
#
#   benches/compare.sh                 # all comparisons (the 100,000-entry run takes about a minute)
#   SKIP_100K=1 benches/compare.sh     # without the 100,000-entry render
#   RUNS=15 benches/compare.sh         # timed runs per command (default 7; the median is used)
#   BIN=PATH SKIP_BENCH=1 benches/compare.sh   # a binary built already; no in-process benchmarks
#
# Needs: a release build (made here), python3, /usr/bin/time (GNU time, `apt-get install time`),
# kubectl (kustomize), kpt, and a Python with jsonschema and PyYAML (PYTHON, default .venv/bin/python
# as created by tests/run, else python3). Uses hyperfine when it is installed, else a plain loop that
# alternates the two commands of a pair.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
RUNS=${RUNS:-7}
work=${WORK:-$root/target/bench-work}
py=${PYTHON:-$root/.venv/bin/python}
[[ -x $py ]] || py=python3
crd=${CRD:-$root/../shared/reference/kubeflow-trainer-v2.3.0/crds/trainer.kubeflow.org_clustertrainingruntimes.yaml}

# BIN: a binary built already (e.g. functions/build-static.sh's, the one the image ships and the
# perf gate counts); by default the release build, made here.
if [[ -n ${BIN:-} ]]; then
  bin=$BIN
else
  cargo build --release --quiet
  bin=$root/target/release/jax-runtimes
fi
mkdir -p "$work"
for n in 10 1000 10000 100000; do
  [[ -f $work/catalog-$n.yaml ]] || python3 benches/gen_catalog.py "$n" "$work/catalog-$n.yaml"
done

have() { command -v "$1" >/dev/null 2>&1; }
hyperfine_ok=0
if have hyperfine && [[ ${NO_HYPERFINE:-0} != 1 ]]; then hyperfine_ok=1; fi

# median_pair NAME_A CMD_A NAME_B CMD_B: prints "median_a median_b" in seconds.
median_pair() {
  local a=$2 b=$4
  if [[ $hyperfine_ok == 1 ]]; then
    hyperfine --style none --warmup 1 --runs "$RUNS" --export-json "$work/hf.json" -n "$1" "$a" -n "$3" "$b" >&2
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print(r[0]["median"], r[1]["median"])' "$work/hf.json"
  else
    local ta=() tb=() i s
    bash -c "$a" >/dev/null 2>&1 || true
    bash -c "$b" >/dev/null 2>&1 || true
    for ((i = 0; i < RUNS; i++)); do
      s=$(date +%s%N); bash -c "$a" >/dev/null 2>&1 || true; ta+=($(( $(date +%s%N) - s )))
      s=$(date +%s%N); bash -c "$b" >/dev/null 2>&1 || true; tb+=($(( $(date +%s%N) - s )))
    done
    python3 -c 'import statistics,sys; a,b=sys.argv[1].split(),sys.argv[2].split(); print(statistics.median(map(int,a))/1e9, statistics.median(map(int,b))/1e9)' "${ta[*]}" "${tb[*]}"
  fi
}

# peak_kb CMD: peak resident set size of CMD in KiB (GNU time).
peak_kb() {
  /usr/bin/time -f '%M' -o "$work/time.txt" bash -c "$1" >/dev/null 2>&1 || true
  tail -1 "$work/time.txt"
}

report=$work/report.txt
: >"$report"
say() { echo "$*" | tee -a "$report"; }
verdict() { python3 -c 'import sys; print("PASS" if eval(sys.argv[1]) else "FAIL")' "$1"; }

say "jax-runtimes $("$bin" --version | cut -d' ' -f2), $(nproc) cores, $RUNS runs per command, hyperfine=$hyperfine_ok"
say ""

# 1. render 1,000 entries vs kubectl kustomize building the same 1,000 runtimes from files.
rm -rf "$work/pre"
"$bin" render "$work/catalog-1000.yaml" -o "$work/pre" 2>/dev/null
"$bin" render "$work/catalog-1000.yaml" >"$work/render-1000.yaml" 2>/dev/null
if have kubectl; then
  read -r tk tr < <(median_pair kustomize "kubectl kustomize $work/pre" render "$bin render $work/catalog-1000.yaml")
  ratio=$(python3 -c "print(round($tk/$tr, 1))")
  say "1. render 1,000 entries: $(printf %.3f "$tr") s; kubectl kustomize of the 1,000 pre-rendered files: $(printf %.3f "$tk") s"
  say "   kustomize/render = ${ratio}x (target >= 10x): $(verdict "$ratio >= 10")"
else
  say "1. skipped: kubectl not found"
fi

# 2. validate --crd of 1,000 runtimes vs Python jsonschema against the same CRD.
if [[ -f $crd ]] && "$py" -c 'import jsonschema, yaml' 2>/dev/null; then
  if "$bin" validate --help >/dev/null 2>&1; then
    read -r tp tv < <(median_pair python-jsonschema "$py benches/py_validate.py $crd $work/render-1000.yaml" validate "$bin validate --crd $crd $work/render-1000.yaml")
    ratio=$(python3 -c "print(round($tp/$tv, 1))")
    say "2. validate --crd 1,000 runtimes: $(printf %.3f "$tv") s; Python jsonschema: $(printf %.3f "$tp") s"
    say "   python/validate = ${ratio}x (target >= 30x): $(verdict "$ratio >= 30")"
    # The floor of that comparison: reading the same two files before any check.
    if [[ ${SKIP_BENCH:-0} == 1 ]]; then
      say "   budget for 30x: $(python3 -c "print(round($tp*1000/30, 1))") ms (read floor skipped: SKIP_BENCH=1)"
    else
      say "   budget for 30x: $(python3 -c "print(round($tp*1000/30, 1))") ms; $(JAX_BENCH_READ_FLOOR="$crd,$work/render-1000.yaml" cargo bench --quiet --bench render 2>/dev/null | tail -1)"
    fi
  else
    say "2. skipped: this build has no \`validate\` subcommand"
  fi
else
  say "2. skipped: no CRD at $crd or no jsonschema+PyYAML in $py"
fi

# 3. kpt fn eval on a 10,000-object package: jax-runtimes vs a `cat` passthrough function.
if have kpt; then
  pkg=$work/pkg
  rm -rf "$pkg"
  mkdir -p "$pkg/config"
  python3 - "$pkg" <<'EOF'
import sys
pkg = sys.argv[1]
for f in range(100):
    docs = []
    for j in range(100):
        i = f * 100 + j
        if i >= 9990:
            break
        docs.append(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\ndata:\n  key: value-{i}\n  flag: \"on\"\n")
    if docs:
        open(f"{pkg}/config/cm-{f:03d}.yaml", "w").write("---\n".join(docs))
EOF
  cp "$work/catalog-10.yaml" "$pkg/catalog.yaml"
  printf '#!/bin/sh\nexec cat\n' >"$work/cat-fn.sh"
  chmod +x "$work/cat-fn.sh"
  # First run writes the 10 runtimes; from then on the package is stable (the function is idempotent).
  kpt fn eval "$pkg" --exec "$bin" >/dev/null 2>&1
  objects=$(cat "$pkg"/config/*.yaml "$pkg"/catalog.yaml "$pkg"/runtimes/*.yaml | grep -c '^kind:')
  read -r tc tj < <(median_pair cat-fn "kpt fn eval $pkg --exec $work/cat-fn.sh" jax-runtimes "kpt fn eval $pkg --exec $bin")
  overhead=$(python3 -c "print(round(100*($tj-$tc)/$tc, 1))")
  say "3. kpt fn eval on $objects objects: jax-runtimes $(printf %.3f "$tj") s, cat passthrough $(printf %.3f "$tc") s"
  say "   added time = ${overhead}% (target < 10%): $(verdict "$overhead < 10")"
else
  say "3. skipped: kpt not found"
fi

# 4. render vs the floor (parse the catalog, write the same bytes, same YAML library), in process.
if [[ ${SKIP_BENCH:-0} == 1 ]]; then
  say "4. skipped (SKIP_BENCH=1: no in-process benchmark build)"
else
  say "4. $(JAX_BENCH_FLOOR=1000 cargo bench --quiet --bench render 2>/dev/null | tail -1)"
fi

# Start-up on an empty ResourceList, cost per entry, peak memory.
printf 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n' >"$work/empty.yaml"
read -r tcat tempty < <(median_pair cat "cat < $work/empty.yaml" empty-resource-list "$bin < $work/empty.yaml")
say ""
say "start-up: function on an empty ResourceList $(python3 -c "print(round($tempty*1000, 1))") ms (cat: $(python3 -c "print(round($tcat*1000, 1))") ms)"
sizes="10 1000 10000"
[[ ${SKIP_100K:-0} == 1 ]] || sizes="$sizes 100000"
say "render cost per entry and peak memory (the median of $RUNS runs; memory per entry above the 10-entry run's):"
base_kb=
for n in $sizes; do
  ts=()
  for ((i = 0; i < RUNS; i++)); do
    s=$(date +%s%N)
    "$bin" render "$work/catalog-$n.yaml" >/dev/null 2>&1
    ts+=($(( $(date +%s%N) - s )))
  done
  t=$(python3 -c 'import statistics,sys; print(statistics.median(map(int, sys.argv[1:])))' "${ts[@]}")
  kb=$(peak_kb "$bin render $work/catalog-$n.yaml")
  [[ -n $base_kb ]] || base_kb=$kb
  say "  $n entries: $(python3 -c "print(round($t/1e9, 3))") s, $(python3 -c "print(round($t/1e3/$n, 1))") us/entry, peak RSS $((kb / 1024)) MiB, $(python3 -c "print(round(($kb-$base_kb)/$n, 2))") KiB/entry"
done

# fit: 1,000 runtimes on 5,000 nodes with 50,000 pods, kubectl's JSON read by the binary.
fit=$work/fit-5000
[[ -f $fit/pods.json ]] || python3 benches/gen_fit.py 5000 50000 1000 "$fit"
ts=()
for ((i = 0; i < RUNS; i++)); do
  s=$(date +%s%N)
  "$bin" fit --nodes "$fit/nodes.json" --pods "$fit/pods.json" "$fit/catalog.yaml" >/dev/null 2>&1 || true
  ts+=($(( $(date +%s%N) - s )))
done
t=$(python3 -c 'import statistics,sys; print(statistics.median(map(int, sys.argv[1:])))' "${ts[@]}")
kb=$(peak_kb "$bin fit --nodes $fit/nodes.json --pods $fit/pods.json $fit/catalog.yaml")
say "fit, 5,000 nodes / 50,000 pods / 1,000 runtimes: $(python3 -c "print(round($t/1e9, 3))") s (target < 0.6 s), peak RSS $((kb / 1024)) MiB (target < 200 MB)"
if "$bin" validate --help >/dev/null 2>&1; then
  say "validate --crd 1,000: peak RSS $(( $(peak_kb "$bin validate --crd $crd $work/render-1000.yaml") / 1024 )) MiB"
fi
say ""
say "report: $report"
