# memlib.sh - the memory scenarios' part (s_mem_*.sh, after lib.sh): the
# job is memjob.py (its own account of its memory), the check memcheck.py
# (the report's memory findings against that account). A scenario's line
# in run.sh: expected=<finding or none> got=<the findings, or the expected
# one marked "(off N%)" when its figure is more than 30% off the job's>.
LAUNCH=("$PY" "$SCEN_DIR/memjob.py")

# mem_verdict NAME EXPECT: report NAME.db as JSON and text, check it
mem_verdict() {
	local name=$1 expect=$2 k v
	"$FEEDSCOPE" report --format json "$S/$name.db" >"$S/$name.json" 2>"$S/$name.report.err" ||
		die "feedscope report failed: $(tail -1 "$S/$name.report.err")"
	"$FEEDSCOPE" report "$S/$name.db" >"$S/$name.txt" 2>/dev/null
	declare -gA MEM=()
	while IFS='=' read -r k v; do MEM[$k]=$v; done < <("$PY" "$SCEN_DIR/memcheck.py" "$S/$name.json" "$S/$name.out" "$expect")
	[ -n "${MEM[got]:-}" ] || die "memcheck.py failed"
	say "memory: expected $expect, got ${MEM[got]}; feedscope ${MEM[fs_bytes]:-${MEM[fs_growth]:-?}} B, the job's own ${MEM[truth_bytes]:-${MEM[truth_growth]:-?}} B${MEM[err]:+ (off $(awk -v e="${MEM[err]}" 'BEGIN { printf "%.0f%%", 100 * e }'))}"
	grep -A6 '^  memory:' "$S/$name.txt" | sed 's/^/    /' >&2
	result expected "$expect"
	if [ "${MEM[ok]}" = yes ]; then
		result got "$expect"
	elif [ "$expect" != none ] && [[ ",${MEM[got]}," == *",$expect,"* ]]; then
		result got "$expect(off $(awk -v e="${MEM[err]}" 'BEGIN { printf "%.0f%%", 100 * e }'))"
	else
		result got "${MEM[got]}"
	fi
	result truth "${MEM[err]:-nan}"
}
