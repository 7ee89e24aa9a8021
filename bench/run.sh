#!/bin/sh
# make bench: every benchmark, figures printed, nothing asserted.
set -eu
cd "$(dirname "$0")/.."
fs=${1:-build/feedscope}
b=$(dirname "$fs")
echo "== recorder cost"
/usr/bin/python3 bench/recorder_cost.py "$fs" "${BENCH_SECONDS:-20}"
echo
echo "== smaps_rollup (PSS, USS, swap) per process: none, the default, --pss (bench/memory_cost.py)"
/usr/bin/python3 bench/memory_cost.py "$fs" "${BENCH_SECONDS:-20}"
echo
echo "== the job source's BPF programs, each (bench/bpf_progs.py; --bpf-stats)"
/usr/bin/python3 bench/bpf_progs.py "$fs" "${BPF_WINDOW_S:-6}"
echo
echo "== a switch-heavy job alone and under feedscope run (bench/switch_cost.py)"
cc -O2 -Wall -o "$b/switch_job" bench/switch_job.c -lpthread
/usr/bin/python3 bench/switch_cost.py "$fs" "$b/switch_job" "${SWITCH_ROUNDS:-3}"
echo
echo "== step markers"
cc -O2 -Iinclude -o "$b/marker_cost" bench/marker_cost.c "$b/libfeedscope-marker.a" -lpthread
"$b/marker_cost" 200000
"$fs" run -q -f -o "$b/marker_cost.db" -- "$b/marker_cost" 200000
echo "  records received: $(sqlite3 -readonly "$b/marker_cost.db" "SELECT value FROM meta WHERE key='markers.steps'") of 200000 (a loop far faster than any training step: the rest were dropped, never blocked)"
"$fs" run -q -f -o "$b/marker_paced.db" -- "$b/marker_cost" 20000 100
echo "  records received: $(sqlite3 -readonly "$b/marker_paced.db" "SELECT value FROM meta WHERE key='markers.steps'") of 20000 at ~10 000 steps/s"
if [ -f tests/python/bench_hook.py ]; then
	"$fs" run -q -f --no-hook -o "$b/hook_cost.db" -- /usr/bin/python3 tests/python/bench_hook.py
	/usr/bin/python3 tests/python/bench_hook.py
fi
echo
echo "== the hook's time per loader stage (bench/stages_cost.py; issue 39: <= 2% of a worker's time at 10 x 1 ms)"
/usr/bin/python3 bench/stages_cost.py --repeat "${STAGES_REPEAT:-3}"
echo
echo "== feedscope report on a 1-hour run recorded at 0.1 s (synthetic, tests/tools/synth_run)"
"$b/tests/synth_run" "$b/hour.db" 3600
for fmt in text json; do
	start=$(date +%s.%N)
	"$fs" report --format $fmt "$b/hour.db" >/dev/null
	end=$(date +%s.%N)
	echo "  report --format $fmt: $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }') s"
done
echo
echo "== day-long runs (synth_run at 0.1 s): file size, its per-minute and per-second tables, report time"
echo "   (the recorder's retention: raw rows of the first and latest hour and around stalls; --keep-all: every row)"
for hours in 2 24 72; do
	db="$b/long-$hours.db"
	"$b/tests/synth_run" "$db" $((hours * 3600)) >/dev/null
	eval "size_$hours=\$(wc -c <\"\$db\")"
	tier=$(sqlite3 -readonly "$db" "SELECT sum(pgsize) FROM dbstat WHERE name LIKE '%\_1m' ESCAPE '\\'")
	sec=$(sqlite3 -readonly "$db" "SELECT sum(pgsize) FROM dbstat WHERE name = 'series_1s'")
	echo "  $hours h: $(wc -c <"$db") bytes, of which per-minute tables $tier bytes, series_1s $sec bytes"
	if [ "$hours" = 24 ]; then
		"$b/tests/synth_run" --keep-all "$b/long-keep.db" $((hours * 3600)) >/dev/null
		echo "  $hours h --keep-all: $(wc -c <"$b/long-keep.db") bytes"
		start=$(date +%s.%N)
		"$fs" report --format json --resolution raw "$b/long-keep.db" >/dev/null
		end=$(date +%s.%N)
		echo "  $hours h --keep-all: report --format json --resolution raw (every sample): $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }') s"
		rm -f "$b/long-keep.db"
	fi
	[ "$hours" = 2 ] && { rm -f "$db"; continue; }
	for fmt in text json; do
		start=$(date +%s.%N)
		"$fs" report --format $fmt "$db" >/dev/null
		end=$(date +%s.%N)
		echo "  $hours h: report --format $fmt: $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }') s"
	done
	# the HTML: the whole run (per minute) and 2 hours of its middle,
	# whose raw rows are gone (per second, series_1s)
	mid=$((hours * 1800))
	for w in "" "$((mid - 3600)):$((mid + 3600))"; do
		start=$(date +%s.%N)
		"$fs" report --format html ${w:+--window "$w"} -o "$b/long.html" "$db"
		end=$(date +%s.%N)
		echo "  $hours h: report --format html${w:+ --window $w}: $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }') s ($(grep -o 'timelines per [a-z]*' "$b/long.html"))"
	done
	rm -f "$db" "$b/long.html"
done
# a day whose bottleneck changes at 12 h: the report splits it into phases
# and diagnoses each (docs/verdicts.md "Phases"): its cost beside the whole
"$b/tests/synth_run" --change-at 43200 "$b/long-phases.db" 86400 >/dev/null
for fmt in text json; do
	start=$(date +%s.%N)
	"$fs" report --format $fmt "$b/long-phases.db" >/dev/null
	end=$(date +%s.%N)
	echo "  24 h, its bottleneck changed at 12 h: report --format $fmt: $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }') s ($("$fs" report --format json "$b/long-phases.db" | grep -o '"phase_method": "[^"]*"' | grep -o '[0-9]* cuts\?'))"
done
rm -f "$b/long-phases.db"
echo "  growth past the first 2 h (both raw hours): $(awk -v a="$size_2" -v b="$size_24" -v c="$size_72" 'BEGIN { printf "%.1f MB a day (to 24 h), %.1f MB a day (24 h to 72 h)", (b - a) / 22 * 24 / 1e6, (c - b) / 2 / 1e6 }')"
echo
echo "== feedscope export of the same 1-hour run: trace size and time (counters: at most 10 000 points a track)"
start=$(date +%s.%N)
"$fs" export --format perfetto "$b/hour.db" -o "$b/hour.json"
end=$(date +%s.%N)
echo "  export --format perfetto: $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }') s, $(wc -c <"$b/hour.json") bytes ($(gzip -1 -c "$b/hour.json" | wc -c) gzipped)"
rm -rf "$b/hour-csv"
start=$(date +%s.%N)
"$fs" export --format csv "$b/hour.db" -o "$b/hour-csv"
end=$(date +%s.%N)
echo "  export --format csv: $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }') s, $(cat "$b/hour-csv"/*.csv | wc -c) bytes in $(ls "$b/hour-csv" | wc -l) files"
rm -rf "$b/hour.json" "$b/hour-csv"
echo
echo "== feedscope report merging 1-hour run files of 2 and 8 nodes (synth_run HOST RANK: a rank per node, a collective per step)"
mkdir -p "$b/merge-bench"
for r in 0 1 2 3 4 5 6 7; do
	"$b/tests/synth_run" "$b/merge-bench/node$r.db" 3600 "node$r" "$r" >/dev/null
done
for n in 2 8; do
	files=$(for r in $(seq 0 $((n - 1))); do printf '%s ' "$b/merge-bench/node$r.db"; done)
	for fmt in text json; do
		start=$(date +%s.%N)
		# shellcheck disable=SC2086
		"$fs" report --format $fmt $files >/dev/null
		end=$(date +%s.%N)
		echo "  $n files, report --format $fmt: $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }') s"
	done
done
rm -rf "$b/merge-bench"
echo
echo "== I/O tracer (libfeedscope-trace.so): ns added per intercepted call, traced / untraced"
cc -O2 -o "$b/trace_cost" bench/trace_cost.c -lpthread
"$b/trace_cost" "$b/libfeedscope-trace.so" "${TRACE_ROUNDS:-9}"
/usr/bin/python3 bench/trace_loader.py "$b/libfeedscope-trace.so" 10000 "${TRACE_LOADER_ROUNDS:-5}"
echo
echo "== io engines against fio 3.33 (feedscope probe and bench / fio, same machine, same run)"
bench/vs_fio.sh "$fs" || echo "  (failed: exit $?)"
# ---- issue 6, accelerators per client core (bench/accel_per_core.sh) ----
echo
echo "== feedscope bench: emulated resnet50 accelerators one client core sustains at AU >= 90% from page cache (goal >= 64)"
bench/accel_per_core.sh "$fs" || echo "  (failed: exit $?)"
# ---- end of accelerators per client core ----
