# feedscope report of a run file it cannot read all of (a damaged page, a
# file that is not a database): one message on stderr, exit 1, nothing on
# stdout. A failed query is never read as "not recorded" (the verdict would
# be built from whatever was left readable). A run file from an older
# feedscope (a table or column it lacks) is still reported: exit 0.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
command -v sqlite3 >/dev/null 2>&1 || apt-get install -y -q sqlite3 >/dev/null 2>&1 ||
	fail "needs sqlite3 (apt-get install sqlite3 failed)"
"$FEEDSCOPE_BUILD/tests/synth_run" s.db 60 >/dev/null || fail "synth_run"
cp s.db old.db
"$FEEDSCOPE" report s.db >/dev/null 2>err.txt || fail "report of the intact file: $(cat err.txt)"

unreadable() { # WHAT MESSAGE FILE [OPTIONS]: report fails with MESSAGE in any format, any window
	what=$1 msg=$2 f=$3
	shift 3
	for opts in "--format text" "--format json" "--window 10:20"; do
		# shellcheck disable=SC2086
		"$FEEDSCOPE" report $opts "$f" >out.txt 2>err.txt
		rc=$?
		[ $rc -eq 1 ] || fail "report $opts of $what: exit $rc, expected 1 (stderr: $(cat err.txt))"
		grep -qF "$msg" err.txt || fail "report $opts of $what: expected '$msg' on stderr, got: $(cat err.txt)"
		[ "$(wc -l <err.txt)" -eq 1 ] || fail "report $opts of $what: expected one line on stderr: $(cat err.txt)"
		[ -s out.txt ] && fail "report $opts of $what: wrote to stdout: $(head -3 out.txt)"
	done
	return 0
}

# A leaf page in the middle of proc overwritten with 0xff (no page type).
ps=$(q s.db "PRAGMA page_size")
pg=$(q s.db "SELECT pageno FROM dbstat WHERE name = 'proc' AND pagetype = 'leaf' ORDER BY pageno
	LIMIT 1 OFFSET (SELECT count(*) / 2 FROM dbstat WHERE name = 'proc' AND pagetype = 'leaf')")
[ -n "$ps" ] && [ -n "$pg" ] && [ "$pg" -gt 1 ] || fail "no leaf page of proc (page size '$ps', page '$pg')"
head -c "$ps" /dev/zero | tr '\0' '\377' | dd of=s.db bs="$ps" seek=$((pg - 1)) conv=notrunc status=none ||
	fail "dd"
unreadable "a damaged page" "s.db: reading the run file failed: database disk image is malformed (in: " s.db

# The SQLite header overwritten: not a database.
cp old.db n.db
printf 'this is not the SQLite header' | dd of=n.db conv=notrunc status=none || fail "dd"
unreadable "a file that is not a database" "n.db: file is not a database" n.db

# Written before io_classes and mounts.disks: not recorded, not an error.
sqlite3 old.db "DROP TABLE io_classes; ALTER TABLE mounts DROP COLUMN disks" || fail "sqlite3"
"$FEEDSCOPE" report old.db >out.txt 2>err.txt || fail "report of an older run file: exit $? ($(cat err.txt))"
grep -q '^verdict: ' out.txt || fail "report of an older run file: no verdict: $(cat out.txt)"
"$FEEDSCOPE" report --format json old.db >/dev/null 2>err.txt || fail "report --format json of an older run file: $(cat err.txt)"
exit 0
