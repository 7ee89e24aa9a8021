# http: the samples come over HTTP from a server (Python's http.server,
# http_samples.py) in a network namespace of its own, joined by a veth pair
# to a second namespace; the server's end is shaped by tc tbf to 40 mbit/s
# (5 MB/s). The DataLoader workers join the second namespace (setns) before
# their first request; the main process, and so the hook's channel, stays
# where feedscope is. Each sample is 192 KiB (~39 ms of the link), batch 4,
# 2 workers, 20 ms step: the link is the limit, and more workers would not
# help. Addresses exist only inside the two namespaces; the ledger ends the
# server and deletes both (which removes the pair).
# Prediction check (hook on only): the same job on the same link made 10x
# wider (400 mbit/s, the tbf qdisc changed in place), then a fix the report
# must not recommend: 8 workers instead of 2 on the original 40 mbit/s link
# (~1.0x: the link is full), and whether the first run's report recommended
# num_workers (no_useless_rec; reported, not checked).
# Run with the hook off by its twin s_nohook_http.sh.
. "$FS_TOP/tests/scenarios/lib.sh"
expect network job_b_input
twin

shaped_link 40mbit
http_server 192
job=(--data "$DATA_URL" --format http --netns "/run/netns/$NS_JOB" --samples 200 --batch 4 --compute-ms 20)
# job_mbps NAME: the job's own download rate over its loop (it fetched
# samples x 192 KiB)
job_mbps() {
	grep '^train: ' "$S/$1.out" | tail -1 | awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "%.2f", v["samples"] * 192 * 1024 / v["total_s"] / 1e6 }'
}
record run "${HOOK_OPTS[@]}" -- "${job[@]}" --workers 2
verdict run
EV[job_mbps]=$(job_mbps run)
show job_b_busy job_b_input job_mbps gpu_util wk_D wk_R cpu_busy input_bound
twin_check
need "job_b_input >= 0.6" "input-bound"
need "job_mbps <= 5.3" "no faster than the 40 mbit/s link"
need "job_mbps >= 3.5" "the link busy most of the time"
finish
if [ "${NOHOOK:-0}" = 1 ]; then exit 0; fi # the fix runs compare step times (the hook's)
before=${EV[step_mean_s]}
knobs=$(report_knobs run)
knob_list=$(printf '%s' "$knobs" | paste -sd '|' | sed 's/|/, /g')
say "the first run's report recommends: ${knob_list:-nothing}"
result recommended "${knob_list:-nothing}"
if grep -qx num_workers <<<"$knobs"; then result no_useless_rec no; else result no_useless_rec yes; fi

# The cause removed: the same link, 10x wider (burst 10x too: the same
# burst time).
link_rate 400mbit 320kbit
record fixed -- "${job[@]}" --workers 2
verdict fixed
EV[job_mbps]=$(job_mbps fixed)
show job_b_input job_mbps gpu_util step_mean_s
result fixed_by "the link 10x wider (400 mbit/s)"
result fixed_step_mean_s "${EV[step_mean_s]}"
result obtained_speedup "$(speedup "$before" "${EV[step_mean_s]}")"

# A fix the report must not recommend: more workers on the full link.
link_rate 40mbit
record more_workers -- "${job[@]}" --workers 8
verdict more_workers
EV[job_mbps]=$(job_mbps more_workers)
show job_b_input job_mbps gpu_util step_mean_s
result workers_by "8 workers instead of 2 (40 mbit/s link)"
result workers_step_mean_s "${EV[step_mean_s]}"
result workers_speedup "$(speedup "$before" "${EV[step_mean_s]}")"
