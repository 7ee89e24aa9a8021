#!/usr/bin/env bash
# tests/tools/same_reports.sh - prove that a change of code changed no
# report: every run file given is reported by two builds of feedscope, and
# each output must be the same bytes (and the same exit status).
#
#   tests/tools/same_reports.sh [-b BASE] [-n NEW] PATH...
#
#   BASE, NEW  a commit (anything git rev-parse takes) or a feedscope
#              binary; BASE defaults to HEAD, NEW to the work tree as it
#              is (built here with make). A commit is built in a worktree
#              of its own under a temporary directory, removed at the end.
#   PATH       run files (*.db), or directories searched for them (a
#              scenario suite's kept run directory, FS_KEEP=1; the tests'
#              kept temporary directory, tests/run.sh with FS_KEEP=1).
#
# For each run file, each of these is compared:
#   report (text), report --format json, report --format html -o -,
#   report --format json --resolution minute, report --window 1: (text);
# for each pair of run files in a row, diff A B (text) and --format json;
# for each directory holding two or more run files, report --format json
# DIR (several files as one job).
# Each command runs on a private copy of its run files (a report may
# fold a WAL), with NO_COLOR=1, stdout a file, in the same directory,
# so that paths printed are the same for both builds.
#
# Prints one line per difference and a last line
#   same_reports: N run files, K outputs compared, D differ
# and exits 0 when D is 0, 1 otherwise, 2 on bad usage.
set -u
cd "$(dirname "$0")/../.."
top=$PWD
base=HEAD new=""
while getopts b:n: o; do
	case $o in
	b) base=$OPTARG ;;
	n) new=$OPTARG ;;
	*) echo "usage: $0 [-b BASE] [-n NEW] PATH..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-b BASE] [-n NEW] PATH..." >&2; exit 2; }

tmp=$(mktemp -d /tmp/same-reports.XXXXXX)
worktrees=()
cleanup() {
	for w in "${worktrees[@]}"; do git -C "$top" worktree remove --force "$w" >/dev/null 2>&1; done
	rm -rf "$tmp"
}
trap cleanup EXIT

# binary_of SPEC NAME: a feedscope binary for SPEC (a binary, a commit, or
# "" for the work tree), built when needed; prints its path.
binary_of() {
	local spec=$1 name=$2
	if [ -z "$spec" ]; then
		make -s -j"$(nproc)" build/feedscope >&2 || return 1
		echo "$top/build/feedscope"
	elif [ -x "$spec" ] && [ -f "$spec" ]; then
		readlink -f "$spec"
	else
		local rev w
		rev=$(git rev-parse --verify -q "$spec^{commit}") || { echo "same_reports: no such commit or binary: $spec" >&2; return 2; }
		w=$tmp/$name
		git worktree add -q --detach "$w" "$rev" >&2 || return 1
		worktrees+=("$w")
		make -s -C "$w" -j"$(nproc)" build/feedscope >&2 || return 1
		echo "$w/build/feedscope"
	fi
}

A=$(binary_of "$base" base) || exit $?
B=$(binary_of "$new" new) || exit $?
echo "same_reports: base $base ($A), new ${new:-work tree} ($B)" >&2

files=()
for p in "$@"; do
	if [ -d "$p" ]; then
		while IFS= read -r f; do files+=("$(readlink -f "$f")"); done < <(find "$p" -name '*.db' -type f | sort)
	elif [ -f "$p" ]; then
		files+=("$(readlink -f "$p")")
	else
		echo "same_reports: no such file or directory: $p" >&2
		exit 2
	fi
done

compared=0 differ=0
# run_both LABEL FILES... -- ARGS...: ARGS run by both builds on private
# copies of FILES (in one directory, the same path for both), outputs and
# statuses compared. A literal @1, @2 ... in ARGS is the copy of the Nth file;
# @D is the directory of the copies.
run_both() {
	local label=$1 shift_n i bin out rc
	shift
	local srcs=()
	while [ "$1" != -- ]; do srcs+=("$1"); shift; done
	shift
	for bin in A B; do
		rm -rf "$tmp/w"
		mkdir -p "$tmp/w"
		local args=() n=0
		for i in "${!srcs[@]}"; do
			n=$((i + 1))
			local f=${srcs[$i]} c=$tmp/w/$n-$(basename "${srcs[$i]}")
			cp "$f" "$c"
			for x in -wal -shm; do [ -f "$f$x" ] && cp "$f$x" "$c$x"; done
		done
		for a in "$@"; do
			case $a in
			@D) args+=("$tmp/w") ;;
			@[0-9]*) args+=("$tmp/w/${a#@}-$(basename "${srcs[$((${a#@} - 1))]}")") ;;
			*) args+=("$a") ;;
			esac
		done
		local exe=$A
		[ $bin = B ] && exe=$B
		(cd "$tmp/w" && NO_COLOR=1 "$exe" "${args[@]}" >"$tmp/out.$bin" 2>"$tmp/err.$bin")
		echo $? >"$tmp/rc.$bin"
	done
	compared=$((compared + 1))
	if ! cmp -s "$tmp/out.A" "$tmp/out.B" || ! cmp -s "$tmp/rc.A" "$tmp/rc.B" ||
		! cmp -s "$tmp/err.A" "$tmp/err.B"; then
		differ=$((differ + 1))
		echo "DIFFER  $label (exit $(cat "$tmp/rc.A") / $(cat "$tmp/rc.B"))"
		diff "$tmp/out.A" "$tmp/out.B" | head -10
		diff "$tmp/err.A" "$tmp/err.B" | head -4
	fi
}

prev=""
for f in "${files[@]}"; do
	run_both "report text $f" "$f" -- report @1
	run_both "report json $f" "$f" -- report --format json @1
	run_both "report html $f" "$f" -- report --format html -o - @1
	run_both "report json minute $f" "$f" -- report --format json --resolution minute @1
	run_both "report text window 1: $f" "$f" -- report --window 1: @1
	if [ -n "$prev" ]; then
		run_both "diff $prev $f" "$prev" "$f" -- diff @1 @2
		run_both "diff json $prev $f" "$prev" "$f" -- diff --format json @1 @2
	fi
	prev=$f
done
# directories with several run files: one job
for d in $(for f in "${files[@]}"; do dirname "$f"; done | sort | uniq -d); do
	mapfile -t group < <(find "$d" -maxdepth 1 -name '*.db' -type f | sort)
	run_both "report json (${#group[@]} files) $d" "${group[@]}" -- report --format json @D
done

echo "same_reports: ${#files[@]} run files, $compared outputs compared, $differ differ"
[ $differ -eq 0 ]
