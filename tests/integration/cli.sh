# Bad input: one clear line on stderr, exit 2, and the job is never started.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"

marker=$TEST_TMP/started
# bad ARGS... : feedscope ARGS must exit 2 with exactly one line on stderr and
# must not have run the marker command.
bad() {
	rm -f "$marker"
	"$FEEDSCOPE" "$@" 2>err.txt >out.txt
	rc=$?
	[ $rc -eq 2 ] || fail "feedscope $* exited $rc, expected 2 (stderr: $(cat err.txt))"
	[ "$(wc -l <err.txt)" -eq 1 ] || fail "feedscope $*: expected one line on stderr, got: $(cat err.txt)"
	grep -q '^feedscope: ' err.txt || fail "feedscope $*: message lacks the 'feedscope: ' prefix"
	[ -s out.txt ] && fail "feedscope $*: wrote to stdout: $(cat out.txt)"
	[ -e "$marker" ] && fail "feedscope $*: the job was started"
	ls ./*.db >/dev/null 2>&1 && fail "feedscope $*: left a run file behind: $(ls ./*.db)"
	return 0
}

bad
bad bogus
bad run --bogus -- touch "$marker"
bad run -x -- touch "$marker"
bad run -i 0 -- touch "$marker"
bad run -i -1 -- touch "$marker"
bad run -i abc -- touch "$marker"
bad run -i '' -- touch "$marker"
bad run -i 1e9 -- touch "$marker"
bad run -i nan -- touch "$marker"
bad run -i 0.5x -- touch "$marker"
bad run -i
bad run
bad run --
bad run -o /nonexistent-dir/x.db -- touch "$marker"
bad run -o /proc/x.db -- touch "$marker"
bad run -o "$TEST_TMP/" -- touch "$marker"
bad run -f -o . -- touch "$marker"
bad run -f -o /proc -- touch "$marker"
bad run -f -o /proc/self/cmdline -- touch "$marker"
FEEDSCOPE_HASH_KEY=abc bad run --hash-paths -- touch "$marker"
bad run --sources cpu,bogus -- touch "$marker"
bad attach
bad attach 999999999
bad attach 4194000
bad attach abc
bad attach -- -5
bad attach -i 0 $$
bad attach -d 0 $$
bad attach -d soon $$
bad attach $$ $$
bad watch -i 0
bad watch -n 0
bad watch -n x
bad watch --pid 999999999
bad watch extra

# An existing run file is kept unless --force.
echo keep >existing.db
rm -f "$marker"
"$FEEDSCOPE" run -q -o existing.db -- touch "$marker" 2>err.txt
[ $? -eq 2 ] || fail "run over an existing file should exit 2"
grep -q 'already exists' err.txt || fail "no 'already exists' message: $(cat err.txt)"
[ -e "$marker" ] && fail "job started although -o exists"
[ "$(cat existing.db)" = keep ] || fail "existing file was modified"
expect_status 0 "$FEEDSCOPE" run -q -f -o existing.db -- touch "$marker"
[ -e "$marker" ] || fail "with --force the job did not run"
[ "$(q existing.db "SELECT value FROM meta WHERE key='exit_code'")" = 0 ] || fail "no exit_code in forced run file"
rm -f existing.db
# A FIFO (opening it would block), a link or a directory is no "existing
# file": refused with or without --force, and no --force hint.
mkfifo fifo.db && ln -s elsewhere link.db && mkdir dir.db
for f in fifo.db link.db dir.db; do
	for force in "" -f; do
		rm -f "$marker"
		timeout 20 "$FEEDSCOPE" run -q $force -o $f -- touch "$marker" 2>err.txt
		rc=$?
		[ $rc -eq 2 ] || fail "run $force -o $f exited $rc, expected 2"
		grep -q 'not a regular file' err.txt || fail "run $force -o $f: $(cat err.txt)"
		grep -q 'use --force' err.txt && fail "run $force -o $f suggests --force"
		[ -e "$marker" ] && fail "run $force -o $f started the job"
	done
done
[ -p fifo.db ] && [ -L link.db ] && [ ! -e elsewhere ] && [ -d dir.db ] || fail "a refused -o was changed"
rm -rf fifo.db link.db dir.db

# A command that cannot be executed: 127 (not found) / 126 (not executable), like a shell.
"$FEEDSCOPE" run -q -- /nonexistent/cmd 2>err.txt; rc=$?
[ $rc -eq 127 ] || fail "missing command exited $rc, expected 127"
grep -q "cannot execute '/nonexistent/cmd': No such file or directory" err.txt || fail "bad message: $(cat err.txt)"
printf 'data\n' >notexec; chmod 644 notexec
"$FEEDSCOPE" run -q -- ./notexec 2>err.txt; rc=$?
[ $rc -eq 126 ] || fail "non-executable command exited $rc, expected 126"
grep -q "Permission denied" err.txt || fail "bad message: $(cat err.txt)"
ls ./*.db >/dev/null 2>&1 && fail "a run file was left after exec failure: $(ls ./*.db)"

# Help and version go to stdout and exit 0.
for c in run attach watch; do
	"$FEEDSCOPE" $c --help >out.txt 2>&1 || fail "$c --help failed"
	grep -q "usage: feedscope $c" out.txt || fail "$c --help: no usage line"
done
"$FEEDSCOPE" --help | grep -q 'usage: feedscope COMMAND' || fail "--help"
"$FEEDSCOPE" --version | grep -Eq '^feedscope [0-9]+\.[0-9]+' || fail "--version"
exit 0
