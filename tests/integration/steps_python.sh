# feedscope-binary: unused (the sanitizer pass skips this test)
# The feedscope Python package against a receiving socket bound by the test
# (tests/python/test_markers.py): record formats, epochs and steps counted
# exactly (early break, empty iterables, exceptions), phases (nested, failing,
# decorators), meta, the no-op path without FEEDSCOPE_MARKERS, feedscope going
# away mid-run, fork; and the device timeline's ring (tests/python/test_device.py:
# a fake timeline whose events complete when the test says: figures in step
# order once complete, never before, the rest without at epoch end, close,
# exit; events reused, never read or recorded again unless complete). Runs
# with Debian's python3 and with the python3 on PATH when that is another
# interpreter (the package is stdlib-only, Python >= 3.8).
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"

pythons=()
for py in /usr/bin/python3 "$(command -v python3 2>/dev/null)" "$(command -v python3.8 2>/dev/null)"; do
	[ -n "$py" ] && [ -x "$py" ] || continue
	"$py" -c 'import sys; sys.exit(sys.version_info < (3, 8))' 2>/dev/null || continue
	v=$("$py" -c 'import sys; print(sys.version)')
	case " ${seen:-} " in *" $v "*) continue ;; esac
	seen="${seen:-} $v"
	pythons+=("$py")
done
[ ${#pythons[@]} -gt 0 ] || skip "needs python3 >= 3.8"

for py in "${pythons[@]}"; do
	echo "== $py ($("$py" -c 'import platform; print(platform.python_version())'))"
	"$py" "$FEEDSCOPE_TOP/tests/python/test_markers.py" || fail "test_markers.py with $py"
	"$py" "$FEEDSCOPE_TOP/tests/python/test_device.py" || fail "test_device.py with $py"
done
exit 0
