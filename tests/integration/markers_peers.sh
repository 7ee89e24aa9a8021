# The marker channel takes records from the job's own uid only. A stranger
# (uid 65534, through setpriv) finds the job's socket in /proc/net/unix,
# sends fake steps, a fake 5 s checkpoint and fake meta, and holds 300
# connections while the job (tests/markers/steps_job.py, the real Python
# API) sends its 200 steps: all 200 are recorded, nothing of the stranger's.
# Then a job that sends meta with terminal escapes, control bytes, invalid
# UTF-8 and huge values: stored cleaned and cut.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_root
need_cmd setpriv
py=/usr/bin/python3
[ -x $py ] || py=$(command -v python3) || fail "needs python3"

# the stranger cannot read $TEST_TMP (0700): its script goes where it can
sdir=$(mktemp -d /tmp/fs-stranger.XXXXXX) || fail "mktemp"
trap 'rm -rf "$sdir"' EXIT
chmod 755 "$sdir"
cp "$FEEDSCOPE_TOP/tests/markers/stranger.py" "$sdir/" && chmod 644 "$sdir/stranger.py" || fail "copy"

"$FEEDSCOPE" run -q -o p.db -- $py "$FEEDSCOPE_TOP/tests/markers/steps_job.py" "$TEST_TMP/ready" 200 >job.out &
fs=$!
setpriv --reuid=65534 --regid=65534 --clear-groups $py "$sdir/stranger.py" $fs 300 60 >stranger.out 2>&1 &
stranger=$!
for _ in $(seq 150); do
	grep -q '^held' stranger.out && break
	kill -0 $stranger 2>/dev/null || break
	sleep 0.1
done
grep -q '^held 300' stranger.out || { kill $fs; fail "the stranger did not get going: $(cat stranger.out)"; }
touch ready # the job starts its steps while the stranger holds its 300 connections
wait $fs || fail "feedscope exited $?"
wait $stranger
[ "$(cat job.out)" = "steps_job: 200 steps, markers on" ] || fail "job: $(cat job.out)"
steps=$(q p.db "SELECT count(*) FROM steps")
[ "$steps" = 200 ] || fail "$steps steps recorded, expected the job's 200: $(q p.db 'SELECT loader, pid, count(*) FROM steps GROUP BY 1, 2')"
job=$(q p.db "SELECT value FROM meta WHERE key='pid'")
[ "$(q p.db "SELECT count(*) FROM steps WHERE loader = 'job' AND pid = $job")" = 200 ] || fail "steps not all the job's"
[ "$(q p.db "SELECT count(*) FROM phases WHERE name = 'checkpoint'")" = 0 ] || fail "the stranger's checkpoint was recorded"
[ "$(q p.db "SELECT value FROM meta WHERE key='user.owner'")" = job ] || fail "user.owner: $(q p.db "SELECT value FROM meta WHERE key='user.owner'" | cat -v)"
[ -z "$(q p.db "SELECT value FROM meta WHERE key='loader.train.num_workers'")" ] || fail "the stranger's meta was recorded"
refused=$(q p.db "SELECT value FROM meta WHERE key='markers.refused_peers'")
[ "${refused:-0}" -ge 301 ] || fail "markers.refused_peers = '$refused', expected at least 301"
[ -z "$(q p.db "SELECT value FROM meta WHERE key='markers.refused_connections'")" ] || fail "a connection of the job was refused"

# Meta from the job itself: cleaned, bounded, keys checked.
cat >meta_job.py <<'EOF'
import os, socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(b"\0" + os.environ["FEEDSCOPE_MARKERS"][1:].encode())
pid = b"%d" % os.getpid()
for rec in [b"M1 " + pid + b" user.esc \x1b[31mred\x1b[0m \x1b]0;title\x07",
            b"M1 " + pid + b" user.ctl a\tb\rc\x7fd\x08e",
            b"M1 " + pid + b" user.utf8 caf\xc3\xa9 \xff\xfe \xc3(",
            b"M1 " + pid + b" user.bidi \xe2\x80\xaeexe.txt",
            b"M1 " + pid + b" user.huge " + b"x" * 1000,
            b"M1 " + pid + b" user.k\x1bey v",
            b"S1 " + pid + b" lo\x1bader 0 0 1 1 1"]:
    s.send(rec)
EOF
"$FEEDSCOPE" run -q -o m.db -- $py meta_job.py || fail "meta job"
m() { q m.db "SELECT value FROM meta WHERE key='$1'"; }
[ "$(m user.esc)" = '?[31mred?[0m ?]0;title?' ] || fail "user.esc: $(m user.esc | cat -v)"
[ "$(m user.ctl)" = 'a?b?c?d?e' ] || fail "user.ctl: $(m user.ctl | cat -v)"
[ "$(m user.utf8)" = "$(printf 'caf\303\251 ?? ?(')" ] || fail "user.utf8: $(m user.utf8 | cat -v)"
[ "$(m user.bidi)" = '?exe.txt' ] || fail "user.bidi: $(m user.bidi | cat -v)"
[ "$(q m.db "SELECT length(value) FROM meta WHERE key='user.huge'")" = 512 ] || fail "user.huge not cut to 512 bytes"
[ "$(q m.db "SELECT count(*) FROM meta WHERE key LIKE 'user.k%'")" = 0 ] || fail "a key with ESC was stored"
[ "$(q m.db "SELECT loader FROM steps")" = 'lo?ader' ] || fail "loader name: $(q m.db 'SELECT loader FROM steps' | cat -v)"
[ "$(m markers.bad_records)" = 1 ] || fail "bad_records: $(m markers.bad_records)"
[ "$(m markers.cleaned_records)" = 6 ] || fail "cleaned_records: $(m markers.cleaned_records)"
# nothing that reaches a terminal from the run file carries an escape
q m.db "SELECT key || value FROM meta" | LC_ALL=C grep -q "$(printf '\033')" && fail "an ESC byte in meta"
exit 0
