# The ranks table: each job process's rank variables from its environment
# (precedence, ugly values ignored, re-read when a process runs another
# program), under run and attach; nothing else of the environment reaches
# the run file; a process feedscope may not read is said once in meta.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
if ! command -v sqlite3 >/dev/null 2>&1; then
	[ "$(id -u)" -eq 0 ] && apt-get install -y -qq sqlite3 >/dev/null 2>&1
	command -v sqlite3 >/dev/null 2>&1 || fail "needs sqlite3 (apt-get install sqlite3)"
fi

# This test's own environment must carry none of the variables: "${clean[@]}" CMD
# (an array, not a function, so that a job started in the background is CMD's pid).
clean=(env -u RANK -u OMPI_COMM_WORLD_RANK -u PMIX_RANK -u PMI_RANK -u SLURM_PROCID -u HOROVOD_RANK
	-u LOCAL_RANK -u OMPI_COMM_WORLD_LOCAL_RANK -u MPI_LOCALRANKID -u SLURM_LOCALID
	-u HOROVOD_LOCAL_RANK -u WORLD_SIZE -u OMPI_COMM_WORLD_SIZE -u PMI_SIZE -u SLURM_NTASKS
	-u HOROVOD_SIZE -u GROUP_RANK -u NODE_RANK -u SLURM_NODEID)
# latest DB PID: that process's last row, "ppid rank local_rank world_size node_rank var"
latest() {
	q "$1" "SELECT quote(ppid)||' '||quote(rank)||' '||quote(local_rank)||' '||quote(world_size)||' '||
		quote(node_rank)||' '||quote(var) FROM ranks WHERE pid = $2 ORDER BY t DESC LIMIT 1"
}
rows() { q "$1" "SELECT count(*) FROM ranks WHERE pid = $2"; }
root_of() { q "$1" "SELECT value FROM meta WHERE key = 'pid'"; }
# children DB PID: the pids of PID's children in proc, by first appearance
children() { q "$1" "SELECT pid FROM proc WHERE ppid = $2 GROUP BY pid ORDER BY min(t)"; }

# The brief's tree: the root (sh) is rank 3 of 4; its first child inherits
# that; the second runs a program whose environment says OMPI rank 7.
"${clean[@]}" "$FEEDSCOPE" run -q -o a.db -- env RANK=3 LOCAL_RANK=1 WORLD_SIZE=4 sh -c \
	'sleep 0.5; env -u RANK -u LOCAL_RANK -u WORLD_SIZE OMPI_COMM_WORLD_RANK=7 sleep 0.5' ||
	fail "run a.db"
root=$(root_of a.db)
got=$(latest a.db "$root")
[ "${got#* }" = "3 1 4 NULL 'RANK'" ] || fail "root: '$got', wanted rank 3, local 1, of 4, from RANK"
set -- $(children a.db "$root")
[ $# -eq 2 ] || fail "expected 2 children of $root in proc, got: $*"
got=$(latest a.db "$1")
[ "$got" = "$root 3 1 4 NULL 'RANK'" ] || fail "first child: '$got', wanted what it inherited"
got=$(latest a.db "$2")
[ "$got" = "$root 7 NULL NULL NULL 'OMPI_COMM_WORLD_RANK'" ] || fail "second child: '$got', wanted rank 7 from OMPI"
[ "$(q a.db "SELECT count(DISTINCT pid) FROM ranks")" -eq 3 ] || fail "ranks rows of other pids: $(q a.db 'SELECT * FROM ranks')"
q a.db "SELECT t FROM ranks WHERE pid = $2" | awk '$1 < 0.3 || $1 > 5 { bad = 1 } END { exit bad }' ||
	fail "second child's t should be when it was first seen (~0.5 s): $(q a.db "SELECT t FROM ranks WHERE pid = $2")"

# None of the variables, or only unusable ones: no row.
"${clean[@]}" "$FEEDSCOPE" run -q -o b.db -- env RANKING=5 XRANK=1 RANK=-1 WORLD_SIZE=1e3 SLURM_PROCID=99999999999 \
	NODE_RANK= sh -c 'sleep 0.5' || fail "run b.db"
[ "$(q b.db "SELECT count(*) FROM ranks")" -eq 0 ] || fail "rows from unusable values: $(q b.db 'SELECT * FROM ranks')"
[ "$(q b.db "SELECT count(DISTINCT pid) FROM proc")" -ge 1 ] || fail "b.db recorded no process"

# Precedence: an unusable RANK does not count, OMPI precedes SLURM.
"${clean[@]}" "$FEEDSCOPE" run -q -o p.db -- env RANK=x SLURM_PROCID=5 OMPI_COMM_WORLD_RANK=2 SLURM_NTASKS=8 \
	SLURM_NODEID=1 GROUP_RANK=0 sh -c 'sleep 0.5' || fail "run p.db"
got=$(latest p.db "$(root_of p.db)")
[ "${got#* }" = "2 NULL 8 0 'OMPI_COMM_WORLD_RANK'" ] || fail "precedence: '$got'"

# A process that runs another program is read again: the same comm (sh),
# a new environment; and one whose new program has none gets a row of NULLs.
"${clean[@]}" "$FEEDSCOPE" run -q -o c.db -- sh -c 'sleep 0.5; exec env RANK=5 SLURM_NODEID=2 sh -c "sleep 0.5; :"' ||
	fail "run c.db"
root=$(root_of c.db)
[ "$(rows c.db "$root")" -eq 1 ] || fail "exec: $(rows c.db "$root") rows for the root, wanted 1"
got=$(latest c.db "$root")
[ "${got#* }" = "5 NULL NULL 2 'RANK'" ] || fail "exec: '$got', wanted rank 5 on node 2"
"${clean[@]}" "$FEEDSCOPE" run -q -o n.db -- env RANK=2 sh -c 'sleep 0.5; exec env -u RANK sh -c "sleep 0.5; :"' ||
	fail "run n.db"
root=$(root_of n.db)
[ "$(rows n.db "$root")" -eq 2 ] || fail "no longer: $(rows n.db "$root") rows for the root, wanted 2"
got=$(latest n.db "$root")
[ "${got#* }" = "NULL NULL NULL NULL NULL" ] || fail "no longer: '$got', wanted a row of NULLs"

# A secret in the environment appears nowhere: not in the run file's bytes,
# not in its dump, not on stderr. It is inherited, not on the command line.
secret="s3cr3t-$$-x7"
MY_TOKEN=$secret RANK_TOKEN=$secret "${clean[@]}" "$FEEDSCOPE" run -o s.db -- env RANK=1 sh -c 'sleep 0.5' 2>s.err ||
	fail "run s.db: $(cat s.err)"
[ "$(latest s.db "$(root_of s.db)" | cut -d' ' -f2-)" = "1 NULL NULL NULL 'RANK'" ] ||
	fail "secret case: no rank row: $(q s.db 'SELECT * FROM ranks')"
ls s.db* >/dev/null || fail "no run file"
for f in s.db*; do
	grep -a -q -e "$secret" -e MY_TOKEN -e RANK_TOKEN "$f" && fail "the secret or its name is in $f"
done
sqlite3 -readonly s.db .dump >s.dump || fail "dump"
grep -q RANK s.dump || fail "the dump has no ranks row: the check below would prove nothing"
grep -q -e "$secret" -e MY_TOKEN -e RANK_TOKEN s.dump && fail "the secret is in the dump"
grep -q -e "$secret" -e MY_TOKEN s.err && fail "the secret is on stderr"

# attach reads a running process's environment.
"${clean[@]}" RANK=4 WORLD_SIZE=8 sleep 3 &
job=$!
sleep 0.3
expect_status 0 "$FEEDSCOPE" attach -q -o e.db -i 0.1 -d 1 "$job"
got=$(latest e.db "$job")
[ "${got#* }" = "4 NULL 8 NULL 'RANK'" ] || fail "attach: '$got'"

# attach as another, non-root user: environ is not readable; said once, no row.
if [ "$(id -u)" -eq 0 ]; then
	dir=$(mktemp -d /tmp/feedscope-ranks.XXXXXX) || fail "mktemp"
	trap 'rm -rf "$dir"' EXIT
	chmod 755 "$dir"
	cp "$FEEDSCOPE" "$dir/feedscope" && chmod 755 "$dir/feedscope" || fail "copy feedscope"
	mkdir "$dir/out" && chown 65534:65534 "$dir/out" || fail "out dir"
	(cd "$dir/out" && setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$dir/feedscope" attach -q -o f.db -i 0.1 -d 1 "$job") || fail "attach as nobody failed"
	[ "$(q "$dir/out/f.db" "SELECT count(*) FROM ranks")" -eq 0 ] || fail "a row from an unreadable environment"
	note=$(q "$dir/out/f.db" "SELECT value FROM meta WHERE key = 'job.ranks'")
	case $note in
	"cannot read /proc/$job/environ: Permission denied;"*) ;;
	*) fail "meta job.ranks: '$note'" ;;
	esac
else
	kill "$job"
	skip "the unreadable-environment part needs root (to run feedscope as another user)"
fi
kill "$job" 2>/dev/null
wait "$job" 2>/dev/null
exit 0
