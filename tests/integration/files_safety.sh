# Nothing of anyone else's is removed or overwritten: a link planted in
# /dev/shm under a stale region directory's name, and -o naming a device, a
# FIFO, a link, a directory or another user's file, are refused and left as
# they were; -f replaces only a regular file of the caller's, atomically;
# default run-file names never collide when many runs start at once.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_root
for c in setpriv mknod mkfifo timeout; do need_cmd $c; done
id nobody >/dev/null 2>&1 || fail "no user 'nobody' to plant files as"
marker=$TEST_TMP/started

# 1. A root-only directory, and links to it planted in /dev/shm by another
# user under names like a killed recorder's region directories.
mkdir victim && echo one >victim/a && echo two >victim/b && chmod 700 victim
planted="/dev/shm/feedscope-trace-3999999-T$$ /dev/shm/feedscope-trace-3999998-T$$"
trap 'rm -rf $planted' EXIT
kill -0 3999999 2>/dev/null && fail "pid 3999999 exists: pick another stale pid"
setpriv --reuid=nobody --regid=nogroup --clear-groups ln -s "$TEST_TMP/victim" /dev/shm/feedscope-trace-3999999-T$$ ||
	fail "cannot plant a link as nobody"
mkdir /dev/shm/feedscope-trace-3999998-T$$ && echo x >/dev/shm/feedscope-trace-3999998-T$$/1
chown -R nobody /dev/shm/feedscope-trace-3999998-T$$
expect_status 0 "$FEEDSCOPE" run -q -o planted.db -- true
[ "$(cat victim/a victim/b 2>/dev/null | tr '\n' ' ')" = "one two " ] || fail "the planted link's target was emptied: $(ls -A victim)"
[ -L /dev/shm/feedscope-trace-3999999-T$$ ] || fail "another user's link in /dev/shm was removed"
[ -f /dev/shm/feedscope-trace-3999998-T$$/1 ] || fail "another user's directory in /dev/shm was emptied"
rm -rf $planted

# 2. -o that is not a new file or a regular file of ours: exit 2 before the
# job starts, one line, no "--force" hint, with or without -f; left as it was.
refused() { # PATH [-f]
	rm -f "$marker"
	timeout 20 "$FEEDSCOPE" run -q $2 -o "$1" -- touch "$marker" 2>err.txt
	rc=$?
	[ $rc -eq 124 ] && fail "run $2 -o $1 hung"
	[ $rc -eq 2 ] || fail "run $2 -o $1 exited $rc, expected 2 ($(cat err.txt))"
	[ "$(wc -l <err.txt)" -eq 1 ] || fail "run $2 -o $1: expected one line, got: $(cat err.txt)"
	grep -q 'use --force' err.txt && fail "run $2 -o $1 suggests --force: $(cat err.txt)"
	[ -e "$marker" ] && fail "run $2 -o $1: the job was started"
	return 0
}
mknod null c 1 3 && mknod zero c 1 5 || fail "mknod"
echo "precious" >target && ln -s target link.db && ln -s nowhere dangling.db
mkfifo fifo.db && mkdir dir.db
echo theirs >theirs.db && chown nobody theirs.db
for f in "" -f; do
	refused null $f
	refused zero $f
	refused link.db $f
	refused dangling.db $f
	refused fifo.db $f
	refused dir.db $f
	refused theirs.db $f
done
[ -c null ] && [ "$(stat -c %t,%T null)" = 1,3 ] || fail "the mknod'd null is gone or changed"
[ -c zero ] || fail "the mknod'd char device is gone"
[ -L link.db ] && [ "$(cat target)" = precious ] || fail "the link or its target changed: $(head -c 20 target)"
[ -L dangling.db ] && [ ! -e nowhere ] || fail "the dangling link was followed"
[ -p fifo.db ] && [ -d dir.db ] || fail "the FIFO or the directory changed"
[ "$(cat theirs.db)" = theirs ] && [ "$(stat -c %U theirs.db)" = nobody ] || fail "another user's file changed"
ls ./*.partial-* >/dev/null 2>&1 && fail "a temporary was left: $(ls ./*.partial-*)"
# the real /dev/null, only once the copy above proved it is refused
refused /dev/null -f
[ -c /dev/null ] && [ "$(stat -c %t,%T /dev/null)" = 1,3 ] || fail "/dev/null is no longer the null device"

# 3. -f over a regular file of ours: replaced by rename (a hard link to the
# old file keeps the old contents), nothing left beside it; a job that
# cannot start leaves the old file as it was.
echo old >r.db && ln r.db r-link.db && echo stale >r.db-wal
expect_status 0 "$FEEDSCOPE" run -q -f -o r.db -- touch "$marker"
[ "$(q r.db "SELECT value FROM meta WHERE key='exit_code'")" = 0 ] || fail "-f: r.db is not the new run file"
[ "$(cat r-link.db)" = old ] || fail "-f wrote through the old file instead of replacing it"
[ -e r.db-wal ] && fail "-f left the old file's -wal (it would be applied to the new file)"
ls ./r.db.partial-* >/dev/null 2>&1 && fail "-f left its temporary: $(ls ./r.db.partial-*)"
echo old >s.db
"$FEEDSCOPE" run -q -f -o s.db -- /nonexistent/cmd 2>/dev/null
[ "$(cat s.db)" = old ] || fail "a job that never started replaced s.db"
ls ./s.db.partial-* >/dev/null 2>&1 && fail "a temporary was left after exec failure"

# 4. Runs started together in one directory: each gets its own run file.
mkdir many && cd many || fail "mkdir"
n=10
for i in $(seq 1 $n); do
	("$FEEDSCOPE" run -q -- touch "started.$i" 2>"err.$i"; echo $? >"rc.$i") &
done
wait
for i in $(seq 1 $n); do
	[ "$(cat "rc.$i")" = 0 ] || fail "concurrent run $i exited $(cat "rc.$i"): $(cat "err.$i")"
	[ -e "started.$i" ] || fail "concurrent run $i: the job never started"
done
[ "$(ls feedscope-*.db | wc -l)" -eq $n ] || fail "expected $n run files, got: $(ls)"
for f in feedscope-*.db; do
	[ "$(q "$f" "SELECT value FROM meta WHERE key='exit_code'")" = 0 ] || fail "$f is not a complete run file"
done
dup=$(for f in feedscope-*.db; do q "$f" "SELECT value FROM meta WHERE key='command'"; done | sort | uniq -d)
[ -z "$dup" ] || fail "two run files hold the same job: $dup"
exit 0
