# hanglib.sh - the hang scenarios' part (s_hang_*.sh, s_nohook_hang_*.sh,
# after lib.sh): the job is hangjob.py, whose DataLoader worker hangs once
# and says when and on what; feedscope runs it with --hang-after HANG_AFTER
# and --export, the exporter is read every half second while it runs, and
# hangcheck.py holds the run file, feedscope's stderr and the exporter's
# readings against the job's own account. A scenario's line in run.sh:
# expected=stall got=stall (or what was wrong) truth=LAG, the seconds from
# the job's own block to the stall's finding.
LAUNCH=("$PY" "$SCEN_DIR/hangjob.py")
HANG_AFTER=${HANG_AFTER:-6}  # the bound (s): --hang-after
HANG_S=${HANG_S:-15}         # how long the worker hangs (s): over twice the bound

# hang_run MODE [JOB_OPTIONS...]: record hangjob.py --mode MODE into
# $S/run.db, reading the exporter into $S/scrape meanwhile.
hang_run() {
	local mode=$1 port scraper
	shift
	port=$((20000 + RANDOM % 20000))
	record_start run "${HOOK_OPTS[@]}" --hang-after "$HANG_AFTER" --export "127.0.0.1:$port" -- \
		--mode "$mode" --dir "$S/job" --hang-s "$HANG_S" "$@"
	# the exporter's stall gauges, every half second, while feedscope runs
	( while kill -0 "$RECORD_PID" 2>/dev/null; do
		printf 'at %s\n' "$(date +%s.%N)"
		curl -s -m 1 "http://127.0.0.1:$port/metrics" | grep -E '^feedscope_(stalled|stall_seconds|stalls_total)[{ ]'
		sleep 0.5
	done ) >"$S/scrape" 2>/dev/null &
	scraper=$!
	wait "$RECORD_PID"
	local rc=$?
	wait "$scraper"
	[ $rc -eq 0 ] || { tail -5 "$S/run.err" >&2; die "feedscope run exited $rc"; }
	grep -q '^hangjob: done' "$S/run.out" || die "the job did not finish: $(tail -2 "$S/run.out")"
}

# hang_check MODE: hangcheck.py on the run; its key=value lines become the
# scenario's results (expected, got, truth) and are said.
hang_check() {
	local mode=$1 hook=on k v
	[ "${NOHOOK:-0}" = 1 ] && hook=off
	declare -gA HC=()
	while IFS='=' read -r k v; do HC[$k]=$v; done < <("$PY" "$SCEN_DIR/hangcheck.py" --db "$S/run.db" \
		--out "$S/run.out" --err "$S/run.err" --scrape "$S/scrape" --mode "$mode" --hook "$hook" \
		--bound "$HANG_AFTER")
	[ -n "${HC[got]:-}" ] || die "hangcheck.py failed"
	say "stall: found ${HC[lag_s]:-?} s after the job blocked (bound $HANG_AFTER s), ${HC[loop_lag_s]:-?} s after its loop's last progress; ${HC[what]:-?}"
	[ -n "${HC[why]:-}" ] && say "wrong: ${HC[why]}"
	grep '^feedscope: stall' "$S/run.err" | cut -c1-400 | sed 's/^/    /' >&2
	result expected stall
	result got "${HC[got]}"
	result truth "${HC[lag_s]:-nan}"
	result hang_row "$FS_SCEN $hook ${HC[lag_s]:-nan} ${HC[loop_lag_s]:-nan} ${HC[bound_s]:-nan} ${HC[stall_s]:-nan} ${HC[block_s]:-nan} ${HC[gauge]:-no} ${HC[got]}"
}
