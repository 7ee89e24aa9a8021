# browser.sh - a real browser for the tests of feedscope's HTML (sourced
# after tests/lib/integration.sh): headless Chromium, Debian's `chromium`.

# need_chromium: installed here when missing (root), else the test cannot
# run (a skip: a failure under CI=true).
need_chromium() {
	if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
		export DEBIAN_FRONTEND=noninteractive
		apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1 ||
			{ apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1; }
	fi
	command -v chromium >/dev/null 2>&1 || skip "needs chromium (apt-get install chromium, as root)"
}

# browse FILE.html OUT [#FRAGMENT]: its DOM after load in OUT.dom, the
# browser's log in OUT.log; fails on any console message (a script error
# is "Uncaught ..."; feedscope's pages log nothing).
browse() {
	timeout 120 chromium --headless=new --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
		--user-data-dir="$TEST_TMP/chromium-profile" --dump-dom "file://$PWD/$1${3:-}" >"$2.dom" 2>"$2.log" ||
		fail "chromium --dump-dom $1 failed: $(tail -5 "$2.log")"
	! grep -E 'CONSOLE|Uncaught' "$2.log" || fail "$1: console messages in the browser (above)"
}

# shoot FILE.html PNG [WIDTH,HEIGHT]: a screenshot (default 1400,3000),
# kept where PNG says, to be looked at.
shoot() {
	timeout 120 chromium --headless=new --no-sandbox --disable-gpu --user-data-dir="$TEST_TMP/chromium-profile" \
		--screenshot="$2" --window-size="${3:-1400,3000}" "file://$PWD/$1" >/dev/null 2>&1 ||
		fail "chromium --screenshot $1 failed"
	[ "$(stat -c %s "$2")" -gt 20000 ] || fail "$2 is (nearly) empty"
	echo "screenshot: $2"
}
