# A runs directory of 5 000 files (issue 38, case 4; docs/exporter.md, "The
# runs directory"): 5 000 *.db files that are no run files, then two real
# run files added later (the newest), under names the directory lists after
# its first 4 096 *.db names (found beforehand: the listing's order is the
# file system's, a hash of the name on ext4). The newest files are followed
# (4 096 at most), so both real runs are served (before this change: the
# first 4 096 names the listing returned, and these two were left out); a broken file is tried again with a back-off and said once: from
# 15 s on, no new line about them on stderr in the next 10 s (before: the
# refusals were said again and again, thousands of lines a second). The
# exporter's CPU meanwhile is printed (figures, not asserted:
# bench/exporter_http.sh measures it).
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
. "$FEEDSCOPE_TOP/tests/lib/exporter_attack.sh"
mkdir runs
$PY - runs <<'PYEOF'
import os, sys, time
t = time.time() - 3600
for i in range(5000):
    p = "%s/broken%04d.db" % (sys.argv[1], i)
    with open(p, "w") as f:
        f.write("not a run file\n")
    os.utime(p, (t + i * 0.1, t + i * 0.1))
PYEOF
# two names listed after the first 4 096 (where the listing has an order of its own)
read -r late1 late2 < <($PY - runs <<'PYEOF'
import os, sys
d = sys.argv[1]
names = ["late%03d" % k for k in range(200)]
for n in names:
    open("%s/%s.db" % (d, n), "w").close()
order = [e[:-3] for e in os.listdir(d) if e.endswith(".db")]
for n in names:
    os.unlink("%s/%s.db" % (d, n))
late = [n for n in names if order.index(n) >= 4200]
print(*(late + names)[:2])
PYEOF
)
P=$(free_port)
start_exporter "$P" runs
sleep 2
base_run "runs/$late1.db"
base_run "runs/$late2.db"
wait_figure "$P" feedscope_run_file_up "job=\"$late1\"" 1 75
wait_figure "$P" feedscope_run_file_up "job=\"$late2\"" 1 75
cpu() { awk '{ print $14 + $15 }' "/proc/$exppid/stat"; }
sleep 13
l0=$(grep -c broken exp.err)
c0=$(cpu)
sleep 10
l1=$(grep -c broken exp.err)
c1=$(cpu)
echo "stderr lines about the broken files: $l0 in the first 15 s, $((l1 - l0)) in the next 10 s;" \
	"exporter CPU in those 10 s: $(awk -v a="$c0" -v b="$c1" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f%% of a core", (b - a) / hz / 10 * 100 }')"
[ "$l0" -le 5000 ] || fail "$l0 lines about 5000 broken files: more than one each"
[ "$l1" -eq "$l0" ] || fail "$((l1 - l0)) more lines about the broken files between 15 s and 25 s"
exit 0
