# feedscope-binary: unused (reads the source)
# The analysis wing's house rules (tests/tools/rooms.py, docs/architecture.md
# "The analysis wing"): no import circle, data flowing one way between the
# rooms (root table, load, judge, advise, compare, tune), each function
# declared in its own file's header, no function over 80 lines, no file
# over 600. The tree as it is must keep them; and the check must see a
# breach of each kind, made in a copy of the wing.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_cmd /usr/bin/python3
rooms=$FEEDSCOPE_TOP/tests/tools/rooms.py

out=$(/usr/bin/python3 "$rooms" "$FEEDSCOPE_TOP") || { printf '%s\n' "$out"; fail "src/analysis breaks its house rules"; }
printf '%s\n' "$out" | tail -1

# A copy of the wing, broken one way at a time: each must be caught.
copy() {
	rm -rf "$TEST_TMP/t"
	mkdir -p "$TEST_TMP/t/src"
	cp -r "$FEEDSCOPE_TOP/src/analysis" "$TEST_TMP/t/src/"
	w=$TEST_TMP/t/src/analysis
}
breach() { # WHAT PATTERN: the check must fail and print PATTERN
	local got
	got=$(/usr/bin/python3 "$rooms" "$TEST_TMP/t") && fail "$1: not caught"
	printf '%s\n' "$got" | grep -q -- "$2" || { printf '%s\n' "$got"; fail "$1: caught, but not as '$2'"; }
}

copy # judge imports advise: a room above it
printf '#include "analysis/advise/diagnose.h"\n' >>"$w/judge/verdict.c"
breach "judge -> advise" "rooms: judge/verdict (judge) imports advise/diagnose (advise)"

copy # two files of one room import each other
printf '#include "analysis/judge/verdict.h"\n' >>"$w/judge/storage.h"
breach "storage <-> verdict" "circle: judge/storage -> judge/verdict"

copy # a function declared in another file's header
printf 'int fs_judge_extra(void);\n' >>"$w/judge/evidence.h"
printf 'int fs_judge_extra(void)\n{\n\treturn 0;\n}\n' >>"$w/judge/verdict.c"
breach "declared elsewhere" "declaration: fs_judge_extra is defined in judge/verdict.c but declared in judge/evidence.h"

copy # a function of 81 lines
{
	printf 'static int long_one(void)\n{\n\tint x = 0;\n'
	for i in $(seq 76); do printf '\tx += %d;\n' "$i"; done
	printf '\treturn x;\n}\n'
} >>"$w/judge/evidence.c"
breach "long function" "function: long_one in src/analysis/judge/evidence.c spans 81 lines"

copy # a file of 601 lines
for i in $(seq 601); do echo "/* $i */"; done >"$w/load/long.h"
breach "long file" "file: src/analysis/load/long.h has 601 lines"
exit 0
