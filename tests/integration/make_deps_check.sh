# A machine without the build's Debian packages: plain `make` names them
# and how to install them, before any compiler runs (scripts/deps.sh
# missing, read by the Makefile); the targets that install packages
# themselves (demo, test, ...) are not stopped by it. A stand-in dpkg-query
# first on PATH says libhdf5-dev (and, for the BPF path, clang) are not
# installed; the real make reads a copy of the Makefile and scripts/.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_cmd make
mkdir -p fake src tree/scripts
cat >fake/dpkg-query <<'EOF'
#!/bin/sh
# dpkg-query -W -f='${Status}' PKG
for a; do pkg=$a; done
case $pkg in
libhdf5-dev|clang) exit 1 ;;
*) printf 'install ok installed' ;;
esac
EOF
chmod +x fake/dpkg-query
cp "$FEEDSCOPE_TOP/Makefile" tree/ && cp "$FEEDSCOPE_TOP/scripts/deps.sh" tree/scripts/ || fail "copy"
cd tree || fail "cd"
PATH=$TEST_TMP/fake:$PATH make -n all >out 2>err
rc=$?
[ $rc -eq 2 ] || fail "make with packages missing exited $rc: $(cat err)"
grep -q 'missing Debian packages: libhdf5-dev clang' err || fail "the message does not name them: $(cat err)"
grep -q 'sudo make deps' err || fail "the message does not say how to install them: $(cat err)"
grep -q 'cc ' out && fail "make ran the compiler anyway"
# HAVE_BPF=0 needs no clang
PATH=$TEST_TMP/fake:$PATH make -n all HAVE_BPF=0 >/dev/null 2>err
grep -q 'missing Debian packages: libhdf5-dev\.' err || fail "HAVE_BPF=0: $(cat err)"
# the targets that install their packages first are not stopped: they would
# run deps.sh first (-n prints it; their own make of the build, which -n
# does run, then stops on the stand-in's packages, as it should where
# deps.sh did not install them)
for goal in demo test; do
	PATH=$TEST_TMP/fake:$PATH make -n $goal >out 2>err
	grep -q '^scripts/deps.sh test' out || fail "make -n $goal was stopped before deps.sh: $(cat err)"
done
PATH=$TEST_TMP/fake:$PATH make -n clean >/dev/null 2>err || fail "make -n clean was stopped: $(cat err)"
# NO_DEPS_CHECK=1 (another distribution), and everything installed: no
# word of packages (this copy has no sources: make then stops for want of them)
PATH=$TEST_TMP/fake:$PATH make -n all NO_DEPS_CHECK=1 >/dev/null 2>err
grep -q 'missing Debian packages' err && fail "NO_DEPS_CHECK=1 was stopped: $(cat err)"
grep -q 'main.o' err || fail "NO_DEPS_CHECK=1: not the make expected: $(cat err)"
printf '#!/bin/sh\nprintf "install ok installed"\n' >"$TEST_TMP/fake/dpkg-query"
PATH=$TEST_TMP/fake:$PATH make -n all >/dev/null 2>err
grep -q 'missing Debian packages' err && fail "all installed, make stopped: $(cat err)"
grep -q 'main.o' err || fail "all installed: not the make expected: $(cat err)"
exit 0
