#!/usr/bin/env bash
# gpu-check.sh - on a machine with an NVIDIA GPU and driver: build feedscope,
# run its gpu source against the real libnvidia-ml.so.1 for ~3 s and print
# what it records next to what nvidia-smi reports, then the source's cost
# per sample. If PyTorch with CUDA is importable, a matmul loop loads the GPU
# meanwhile so the numbers move. Needs no root; takes well under 2 minutes.
#
#   scripts/gpu-check.sh          BUILD=DIR for another build directory
#
# Compare: util_pct ~ utilization.gpu, mem_util_pct ~ utilization.memory,
# mem_used_bytes/2^20 ~ memory.used [MiB], power_w ~ power.draw,
# sm_clock_mhz ~ clocks.sm, temp_c ~ temperature.gpu. NVML and nvidia-smi
# sample at slightly different instants, so expect close, not equal, values.
# pcie_* are NVML 20 ms spot measurements, refreshed about once a second
# (pcie_age_s says how old). Exit status: 0, or 1 if the source could not
# open (its reason is printed: no driver, nvmlInit failed, no GPUs).
set -u
cd "$(dirname "$0")/.."
build=${BUILD:-build}
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

if command -v python3 >/dev/null &&
	timeout 60 python3 -c 'import sys, torch; sys.exit(not torch.cuda.is_available())' 2>/dev/null; then
	echo "== load: PyTorch matmul loop on cuda:0 for ~10 s"
	timeout 20 python3 -c '
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
exit $rc
