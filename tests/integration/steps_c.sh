# The C marker API (include/feedscope.h, libfeedscope-marker): a C loop's
# steps and phases land in the run file, counted exactly; without feedscope
# the program runs the same, markers off.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_cmd cc
b=$FEEDSCOPE_BUILD
# a library from the sanitizer build needs the sanitizer runtimes linked in
san=
nm "$b/libfeedscope-marker.a" 2>/dev/null | grep -q __asan && san=-fsanitize=address,undefined
for kind in static shared; do
	if [ $kind = static ]; then
		cc -O2 $san -I"$FEEDSCOPE_TOP/include" -o loop "$FEEDSCOPE_TOP/tests/markers/c_loop.c" \
			"$b/libfeedscope-marker.a" -lpthread || fail "build ($kind)"
	else
		cc -O2 $san -I"$FEEDSCOPE_TOP/include" -o loop "$FEEDSCOPE_TOP/tests/markers/c_loop.c" \
			-L"$b" -lfeedscope-marker -Wl,-rpath,"$b" || fail "build ($kind)"
	fi
	[ "$(./loop)" = "c_loop: 10 steps, markers off" ] || fail "$kind: without feedscope: $(./loop)"
	out=$("$FEEDSCOPE" run -q -f -o c.db -- ./loop) || fail "$kind: run failed"
	[ "$out" = "c_loop: 10 steps, markers on" ] || fail "$kind: under feedscope: $out"
	db=c.db
	[ "$(q $db "SELECT count(*) FROM steps WHERE loader = 'c_loop'")" = 10 ] || fail "$kind: steps: $(q $db 'SELECT * FROM steps')"
	[ "$(q $db "SELECT group_concat(n) FROM (SELECT count(*) n FROM steps WHERE loader='c_loop' GROUP BY epoch ORDER BY epoch)")" = "5,5" ] ||
		fail "$kind: steps per epoch"
	[ "$(q $db "SELECT group_concat(step) FROM (SELECT step FROM steps WHERE loader='c_loop' AND epoch=1 ORDER BY step)")" = "0,1,2,3,4" ] ||
		fail "$kind: step numbers"
	# nanosleep sleeps at least what it is asked: lower bounds, not timings
	[ "$(q $db "SELECT count(*) FROM steps WHERE loader='c_loop' AND wait_s >= 0.020 AND compute_s >= 0.010")" = 10 ] ||
		fail "$kind: wait/compute below what was slept: $(q $db 'SELECT wait_s, compute_s FROM steps')"
	[ "$(q $db "SELECT count(*) FROM phases WHERE name = 'checkpoint' AND t_end - t_start >= 0.015")" = 2 ] ||
		fail "$kind: phases: $(q $db 'SELECT * FROM phases')"
	main=$(q $db "SELECT value FROM meta WHERE key='pid'")
	[ "$(q $db "SELECT count(*) FROM steps WHERE loader='c_loop' AND pid = $main")" = 10 ] || fail "$kind: main pid"
	[ "$(q $db "SELECT count(*) FROM steps WHERE loader='child' AND pid != $main")" = 1 ] || fail "$kind: forked child's step"
	[ "$(q $db "SELECT value FROM meta WHERE key='markers.bad_records'")" = 0 ] || fail "$kind: bad records"
	# steps are in time order within the run
	[ "$(q $db "SELECT count(*) FROM steps WHERE t < 0 OR t > (SELECT value FROM meta WHERE key='duration_s')")" = 0 ] ||
		fail "$kind: step times outside the run"
done
# not a Python command: the hook stays off and says why
[ "$(q c.db "SELECT value FROM meta WHERE key='hook'")" = "off: not a Python command (--pytorch forces the hook)" ] ||
	fail "hook meta: $(q c.db "SELECT value FROM meta WHERE key='hook'")"
exit 0
