"""Evict files from the page cache, and nothing else: for `make demo`, so the
recording starts with the demo's dataset cold without dropping the whole
machine's cache (which `echo 3 > /proc/sys/vm/drop_caches` does, as root).

    /usr/bin/python3 examples/evict_cache.py PATH...

Each regular file given, or found under a directory given, is fsync()ed
(dirty pages are not evicted) and then posix_fadvise(POSIX_FADV_DONTNEED)d.
Needs no privilege beyond reading the files; standard library only. Prints
one line: how many files and bytes were evicted. A file that cannot be
opened is reported once on stderr and skipped. Exit status 2 for a PATH
that does not exist (before anything is evicted), else 0.
"""
import os
import sys


def files(paths):
    for p in paths:
        if os.path.isdir(p):
            for d, _, names in os.walk(p):
                for n in sorted(names):
                    f = os.path.join(d, n)
                    if os.path.isfile(f) and not os.path.islink(f):
                        yield f
        elif os.path.isfile(p):
            yield p


def evict(path):
    """fsync, then drop the file's cached pages. Returns its size; raises OSError."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        return os.fstat(fd).st_size
    finally:
        os.close(fd)


def main(argv):
    if not argv:
        print("usage: evict_cache.py PATH...", file=sys.stderr)
        return 2
    missing = [p for p in argv if not os.path.exists(p)]
    if missing:
        print(f"evict_cache: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return 2
    n = size = 0
    for f in files(argv):
        try:
            size += evict(f)
            n += 1
        except OSError as e:
            print(f"evict_cache: {f}: {e.strerror} (left in the cache)", file=sys.stderr)
    print(f"evict_cache: {n} files, {size} bytes evicted from the page cache")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
