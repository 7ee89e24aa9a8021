# A real PyTorch DataLoader under the tracer (tests/trace/loader_job.py,
# /usr/bin/python3, 2 workers, forked and spawned): the job prints the
# same with and without the tracer, and every one of the N files it reads
# is in exactly one worker's region (never the main process's) with its
# exact size as bytes read, one open and one read call returning the data
# (workers leave through os._exit: nothing is lost).
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
. "$FEEDSCOPE_TOP/tests/trace/lib.sh"
need_torch

N=200
data=$PWD/data
mkdir -p "$data"
for i in $(seq 0 $((N - 1))); do
	head -c $((1000 + 97 * i)) /dev/urandom >"$data/$(printf 'sample%04d.bin' "$i")"
done
total=$(( (1000 * N) + 97 * N * (N - 1) / 2 ))

for ctx in fork spawn; do
	untraced "$PY" "$TRACE_DATA/loader_job.py" "$data" $ctx 2 >plain_$ctx.out 2>plain_$ctx.err ||
		fail "$ctx: the job failed without the tracer: $(tail -3 plain_$ctx.err)"
	traced regions_$ctx "$PY" "$TRACE_DATA/loader_job.py" "$data" $ctx 2 "$PWD/pid_$ctx" \
		>traced_$ctx.out 2>traced_$ctx.err || fail "$ctx: the job failed under the tracer: $(tail -3 traced_$ctx.err)"
	grep -qx "files $N bytes $total check [0-9]*" plain_$ctx.out || fail "$ctx: the job printed $(cat plain_$ctx.out)"
	cmp -s plain_$ctx.out traced_$ctx.out || fail "$ctx: stdout differs: $(cat plain_$ctx.out traced_$ctx.out)"
	# multiprocessing's resource tracker sometimes warns of a leaked semaphore
	# at shutdown, traced or not (a race in its spawn machinery): not compared
	for x in plain traced; do
		grep -v -e 'resource_tracker' -e "warnings.warn('resource_tracker" ${x}_$ctx.err >${x}_$ctx.err.f
	done
	cmp -s plain_$ctx.err.f traced_$ctx.err.f || fail "$ctx: stderr differs: $(diff plain_$ctx.err.f traced_$ctx.err.f | head)"

	main=$(cat pid_$ctx)
	dump regions_$ctx dump_$ctx.txt "$data/"
	# the data files' records, region by region: in workers only, each once,
	# all of its bytes in one open and one data-carrying read (Python's
	# readall: one read of the whole file, one more that finds EOF)
	awk -v main="$main" -v n=$N '
	function v(k,   i, a) { for (i = 3; i <= NF; i++) { split($i, a, "="); if (a[1] == k) return a[2] } return "" }
	$1 == "region" { pid[$2] = v("pid") }
	$1 == "file" && $NF ~ /^path=sample[0-9]+\.bin$/ {
		f = substr($NF, 6); i = substr(f, 7, 4) + 0; size = 1000 + 97 * i
		if (pid[$2] == main) { print "main process read " f; bad = 1 }
		if (v("read_bytes") != size || v("opens") != 1 || v("reads") != 2 || v("seq_reads") != 1) {
			print "worker " pid[$2] ": " f " size " size ": " $0; bad = 1 }
		seen[f]++; workers[pid[$2]] = 1
	}
	END { for (f in seen) if (seen[f] != 1) { print f " in " seen[f] " regions"; bad = 1 }
		if (length(seen) != n) { print length(seen) " of " n " files seen"; bad = 1 }
		if (length(workers) != 2) { print length(workers) " worker processes read files"; bad = 1 }
		exit bad }' dump_$ctx.txt || fail "$ctx: files not attributed exactly to the workers"
	totals_add_up dump_$ctx.txt 0
done
exit 0
