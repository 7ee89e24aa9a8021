# stagelib.sh - the loader-stage scenarios' check (s_stage_*.sh, sourced
# after lib.sh; issue 39, item 1).

# stage_check SLOW: with the hook, the report's stages against the job's
# own (evidence.py's stage_* keys): the job's slowest stage is SLOW (else
# the scenario was not built), every stage's share within 5 points, the
# verdict's evidence names it. Without the hook: no stage in the report,
# and its signals_missing says the stages were not timed. The outcome goes
# to the result (stages_ok, stages_why) for run.sh; the figures too.
stage_check() {
	local slow=$1 why=""
	result stages_expected yes
	for k in stage_slow job_stage_share fs_stage_share stage_err_pts job_stage_shares fs_stage_shares; do
		result "$k" "${EV[$k]:-nan}"
	done
	if [ "${NOHOOK:-0}" = 1 ]; then
		[ "${EV[fs_stages_timed]:-}" = 0 ] || why="stages reported without the hook"
		"$PY" -c 'import json, sys
m = json.load(open(sys.argv[1]))
sys.exit(0 if any(s.startswith("stages:") for s in m.get("signals_missing") or []) else 1)' "$S/run.json" ||
			why="${why:+$why; }the report does not say the stages were not timed"
	else
		[ "${EV[stage_slow]:-none}" = "$slow" ] || die "the job's slowest stage is ${EV[stage_slow]:-none}, not $slow"
		awk -v e="${EV[stage_err_pts]:-nan}" 'BEGIN { exit !(e != "nan" && e + 0 <= 5) }' ||
			why="shares off by ${EV[stage_err_pts]:-nan} points"
		[ "${EV[stage_named]:-0}" = 1 ] || why="${why:+$why; }the verdict does not name $slow"
	fi
	if [ -z "$why" ]; then
		result stages_ok yes
	else
		result stages_ok no
		result stages_why "$why"
		say "stages: $why"
	fi
}
