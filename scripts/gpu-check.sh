#!/usr/bin/env bash
# gpu-check.sh - on a machine with an NVIDIA GPU and driver: build feedscope,
# run its gpu source against the real libnvidia-ml.so.1 for ~3 s and print
# what it records next to what nvidia-smi reports, then the source's cost
# per sample. If PyTorch with CUDA is importable, a matmul loop loads the GPU
# meanwhile so the numbers move; then feedscope's verdict on a real
# asynchronous device is checked against the device's own clock (below).
# Needs no root. Not yet timed on a GPU: estimated under 2 minutes (the
# NVML part ~20 s, calibration ~10 s, three recorded loops of ~10 s plus
# torch's and CUDA's start each; each run is cut at 90 s).
#
#   scripts/gpu-check.sh          BUILD=DIR for another build directory
#                                 PYTHON=INTERPRETER (python3) with torch
#                                 LOOP=0 to skip the PyTorch loop part;
#                                 LOOP=cpu runs it on the CPU (small
#                                 matmuls, no truth): a smoke test of this
#                                 script on a machine without a GPU
#
# Compare: util_pct ~ utilization.gpu, mem_util_pct ~ utilization.memory,
# mem_used_bytes/2^20 ~ memory.used [MiB], power_w ~ power.draw,
# sm_clock_mhz ~ clocks.sm, temp_c ~ temperature.gpu. NVML and nvidia-smi
# sample at slightly different instants, so expect close, not equal, values.
# pcie_* are NVML 20 ms spot measurements, refreshed about once a second
# (pcie_age_s says how old).
#
# The loop part (issue 35; needs PyTorch with CUDA, else it says so and is
# skipped): scripts/gpu_loop.py, an input-bound DataLoader (a sleep per
# sample, 2 workers) feeding a chain of 4096x4096 matmuls a step on cuda:0,
# calibrated first so that a batch comes every 1.6x the device's step (any
# GPU; about 10 s of loop), recorded by `feedscope run` three times:
#   sync every step, hook   loss.item() each step (the host waits for the
#                           device every step): the easy case
#   never sync, hook        the losses read once after the loop: the host
#                           runs ahead, and its time in next() is NOT the
#                           device's idle; the hook's CUDA events say how
#                           much of it was (accounting.processes[].
#                           device_clock "events")
#   never sync, --no-hook   the same loop, NVML alone (device_clock "gpu")
# The job records its own truth with CUDA events and prints a "truth:" line;
# then one table, a run a line: feedscope's input-bound fraction, predicted
# speedup, verdict and basis, the trainer's device_clock, device idle inside
# the waits and host wait (s), NVML's busy share, beside the truth's device
# idle-in-wait share, busy share, ideal speedup, step and device ms a step.
# Compare: input bound ~ truth idle_in_wait (issue 35: within 5 points),
# speedup ~ truth ideal_speedup (within 15%), NVML busy ~ truth busy; with
# about 1.6x input-bound by construction, expect ~0.37 and ~1.6x. The
# truth's events_idle (its own wait events, the hook's method) should
# match its idle_in_wait (host waits against the device's busy intervals). The
# run files, the reports (JSON) and the job's output stay in
# $BUILD/gpu-check/ (feedscope report FILE.db to read one again).
#
# Exit status: 0, or 1 if the source could not open (its reason is printed:
# no driver, nvmlInit failed, no GPUs); the loop part never changes it.
set -u
cd "$(dirname "$0")/.."
build=${BUILD:-build}
py=${PYTHON:-python3}
# the real driver, not the tests' stand-in
unset FEEDSCOPE_NVML_LIB FAKE_NVML_SCRIPT FAKE_NVML_LOG

echo "== build ($build)"
make -s BUILD="$build" all "$build/tests/gpu_probe" || exit 1

tmp=$(mktemp -d /tmp/feedscope-gpu-check.XXXXXX)
load_pid='' smi_pid=''
cleanup() {
	[ -n "$load_pid" ] && kill "$load_pid" 2>/dev/null
	[ -n "$smi_pid" ] && kill "$smi_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

have_torch=0
if command -v "$py" >/dev/null &&
	timeout 60 "$py" -c 'import sys, torch; sys.exit(not torch.cuda.is_available())' 2>/dev/null; then
	have_torch=1
	echo "== load: PyTorch matmul loop on cuda:0 for ~10 s"
	timeout 20 "$py" -c '
import time, torch
a = torch.randn(4096, 4096, device="cuda")
t = time.time()
while time.time() - t < 10:
    b = a @ a
    torch.cuda.synchronize()
' >/dev/null 2>&1 &
	load_pid=$!
	sleep 3 # CUDA context creation
else
	echo "== load: none (no PyTorch with CUDA); figures will be idle ones"
fi

have_smi=0
if command -v nvidia-smi >/dev/null; then
	have_smi=1
	nvidia-smi -L
	timeout 10 nvidia-smi --format=csv -lms 1000 \
		--query-gpu=timestamp,index,utilization.gpu,utilization.memory,memory.used,memory.total,power.draw,clocks.sm,temperature.gpu \
		>"$tmp/smi.csv" 2>&1 &
	smi_pid=$!
fi

echo "== feedscope gpu source: 3 samples, 1 s apart"
"$build/tests/gpu_probe" -n 3 -i 1
rc=$?

if [ "$have_smi" = 1 ]; then
	sleep 0.5
	kill "$smi_pid" 2>/dev/null
	wait "$smi_pid" 2>/dev/null
	smi_pid=''
	echo "== nvidia-smi over the same seconds"
	cat "$tmp/smi.csv"
else
	echo "== nvidia-smi: not installed, nothing to compare with"
fi

if [ $rc -eq 0 ]; then
	echo "== cost: 50 samples, 100 ms apart (max includes the ~40 ms PCIe refresh)"
	"$build/tests/gpu_probe" -q -n 50 -i 0.1
fi

# The loop part: feedscope's verdict against the device's own clock.
loop_args=() cal_args=()
if [ "${LOOP:-1}" = cpu ] && timeout 60 "$py" -c 'import torch' 2>/dev/null; then
	have_torch=1
	loop_args=(--device cpu --matmuls 4)
	cal_args=(--seconds 3)
fi
if [ "${LOOP:-1}" = 0 ]; then
	echo "== loop: skipped (LOOP=0)"
elif [ "$have_torch" != 1 ]; then
	echo "== loop: skipped (no PyTorch with CUDA for $py)"
else
	[ -n "$load_pid" ] && wait "$load_pid" 2>/dev/null
	load_pid=''
	out=$build/gpu-check
	mkdir -p "$out"
	rm -f "$out"/*.db "$out"/*.json "$out"/*.log "$out"/*.err
	echo "== loop: calibrate (the device's time for one step's matmuls)"
	cal=$(timeout 120 "$py" scripts/gpu_loop.py --calibrate "${loop_args[@]}" "${cal_args[@]}" 2>&1 | tee "$out/calibrate.log" | grep '^calibrate:')
	cat "$out/calibrate.log"
	sleep_ms=$(printf '%s\n' "$cal" | sed -n 's/.* item_sleep_ms=\([0-9.]*\).*/\1/p')
	steps=$(printf '%s\n' "$cal" | sed -n 's/.* steps=\([0-9]*\).*/\1/p')
	if [ -z "$sleep_ms" ] || [ -z "$steps" ]; then
		echo "== loop: calibration failed; skipped"
	else
		table=()
		# label, file name, feedscope option, --sync
		for run in "sync every step, hook|every|--pytorch|every" \
			"never sync, hook|end|--pytorch|end" \
			"never sync, --no-hook|end-nohook|--no-hook|end"; do
			IFS='|' read -r label name opt sync <<<"$run"
			echo "== loop: $label ($steps steps, $sleep_ms ms a sample)"
			timeout 90 "$build/feedscope" run "$opt" -q -f -o "$out/$name.db" -- \
				"$py" scripts/gpu_loop.py --sync "$sync" --steps "$steps" \
				--item-sleep-ms "$sleep_ms" "${loop_args[@]}" \
				>"$out/$name.log" 2>&1
			echo "   feedscope run: exit $?"
			cat "$out/$name.log"
			"$build/feedscope" report --json "$out/$name.db" >"$out/$name.json" 2>"$out/$name.report.err" ||
				cat "$out/$name.report.err"
			"$build/feedscope" report "$out/$name.db" 2>/dev/null |
				grep -E '^verdict:|where the loop' | sed 's/^/   /'
			table+=("$label" "$out/$name.json" "$out/$name.log")
		done
		echo "== loop: feedscope beside the job's truth"
		"$py" scripts/gpu_loop.py --table "${table[@]}"
		echo "   run files, reports and logs in $out/"
	fi
fi
exit $rc
