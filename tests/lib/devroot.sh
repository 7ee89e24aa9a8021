#!/usr/bin/env bash
# devroot.sh - run a command inside a root like a container's or a chroot's,
# made of this machine's own files (no download), for the device tests.
#
#   tests/lib/devroot.sh chroot|overlay|container TREE WORK CMD [ARGS...]
#
# chroot:  WORK/root is a plain directory (not a mount point) holding
#          read-only binds of /usr and /etc (and /bin, /lib... as the host
#          has them: links or binds), /proc, /sys and /dev, a writable /tmp
#          that is a directory of the root's file system, and TREE bound
#          writable at its own path; then chroot into it.
# overlay: an overlay mount at WORK/root (lowerdir = a bind of /, upperdir and
#          workdir on a tmpfs), with /proc, /sys, /dev and TREE as above;
#          then pivot_root into it (the old root is detached); the layer
#          directories stay reachable at their own paths inside (as with
#          docker's /var/lib/docker bound into a container).
# container: overlay, but the layers are not reachable from inside (as in
#          most containers: the upper and lower dirs are host paths).
# CMD runs with cwd TREE, PATH and HOME set, the rest of the environment
# cleared but CI and the sanitizers' options. Everything is mounted inside a private mount namespace
# (unshare -m): the mounts go with it when CMD ends, on failure too. Exits
# with CMD's status; 2 on bad usage, 3 when the root cannot be built.
set -u
if [ "${1:-}" != --inside ]; then
	[ $# -ge 4 ] && case $1 in chroot | overlay | container) true ;; *) false ;; esac || {
		echo "usage: devroot.sh chroot|overlay|container TREE WORK CMD [ARGS...]" >&2
		exit 2
	}
	exec unshare -m --propagation private "$0" --inside "$@"
fi
shift
mode=$1 tree=$(cd "$2" && pwd) work=$3
shift 3
die() { echo "devroot: $*" >&2; exit 3; }
mkdir -p "$work" || die "mkdir $work"
work=$(cd "$work" && pwd)
root=$work/root
mkdir -p "$root" || die "mkdir $root"

if [ "$mode" != chroot ]; then
	mkdir -p "$work/lower" "$work/rw" || die "mkdir"
	mount --bind / "$work/lower" || die "bind / on $work/lower"
	mount -t tmpfs -o size=4g devroot-rw "$work/rw" || die "tmpfs"
	mkdir "$work/rw/upper" "$work/rw/work"
	mount -t overlay devroot-overlay \
		-o "lowerdir=$work/lower,upperdir=$work/rw/upper,workdir=$work/rw/work" "$root" ||
		die "overlay mount"
	if [ "$mode" = overlay ]; then
		mkdir -p "$root$work/lower" "$root$work/rw" || die "mkdir in $root"
		mount --bind "$work/lower" "$root$work/lower" && mount --bind "$work/rw" "$root$work/rw" ||
			die "bind the layers"
	fi
else
	for d in usr etc; do
		mkdir -p "$root/$d"
		mount --bind "/$d" "$root/$d" && mount -o remount,bind,ro "$root/$d" || die "bind /$d"
	done
	for d in bin sbin lib lib32 lib64 libx32; do
		if [ -L "/$d" ]; then
			ln -s "$(readlink "/$d")" "$root/$d"
		elif [ -d "/$d" ]; then
			mkdir -p "$root/$d"
			mount --bind "/$d" "$root/$d" && mount -o remount,bind,ro "$root/$d" || die "bind /$d"
		fi
	done
	mkdir -p "$root/tmp" "$root/root" "$root/run" "$root/var/tmp"
	chmod 1777 "$root/tmp" "$root/var/tmp"
fi
mkdir -p "$root/proc" "$root/sys" "$root/dev" "$root$tree" || die "mkdir in $root"
mount -t proc proc "$root/proc" || die "mount proc"
mount --rbind /sys "$root/sys" || die "bind /sys"
mount --rbind /dev "$root/dev" || die "bind /dev"
mount --bind "$tree" "$root$tree" || die "bind $tree"

env=(/usr/bin/env -i "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" HOME=/root
	"CI=${CI:-}" LANG=C.UTF-8 "ASAN_OPTIONS=${ASAN_OPTIONS:-}" "UBSAN_OPTIONS=${UBSAN_OPTIONS:-}")
# shellcheck disable=SC2016
run=(/bin/bash -c 'cd "$0" && exec "$@"' "$tree" "$@")
if [ "$mode" != chroot ]; then
	mkdir -p "$root/.oldroot"
	cd "$root" && pivot_root . .oldroot || die "pivot_root"
	umount -l /.oldroot || die "detach the old root"
	exec chroot / "${env[@]}" "${run[@]}"
fi
exec chroot "$root" "${env[@]}" "${run[@]}"
