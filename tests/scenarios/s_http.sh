# http: the samples come over HTTP from a server (Python's http.server,
# http_samples.py) in a network namespace of its own, joined by a veth pair
# to a second namespace; the server's end is shaped by tc tbf to 40 mbit/s
# (5 MB/s). The DataLoader workers join the second namespace (setns) before
# their first request; the main process, and so the hook's channel, stays
# where feedscope is. Each sample is 192 KiB (~39 ms of the link), batch 4,
# 2 workers, 20 ms step: the link is the limit, and more workers would not
# help. Addresses exist only inside the two namespaces; the ledger ends the
# server and deletes both (which removes the pair).
# Run with the hook off by its twin s_nohook_http.sh.
. "$FS_TOP/tests/scenarios/lib.sh"
expect network job_b_input
twin

shaped_link 40mbit
http_server 192
record run "${HOOK_OPTS[@]}" -- --data "$DATA_URL" --format http --netns "/run/netns/$NS_JOB" \
	--samples 200 --batch 4 --workers 2 --compute-ms 20
verdict run
# the job's own download rate over its loop (it fetched samples x 192 KiB)
job_mbps=$(grep '^train: ' "$S/run.out" | tail -1 | awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	printf "%.2f", v["samples"] * 192 * 1024 / v["total_s"] / 1e6 }')
EV[job_mbps]=$job_mbps
show job_b_busy job_b_input job_mbps gpu_util wk_D wk_R cpu_busy input_bound
twin_check
need "job_b_input >= 0.6" "input-bound"
need "job_mbps <= 5.3" "no faster than the 40 mbit/s link"
need "job_mbps >= 3.5" "the link busy most of the time"
finish
