"""Page-cache control for the checkpoint benchmarks (bench/compare_saver.py), without root:
how many of a file's pages the cache holds (mmap + mincore, which reads nothing), evicting
whole files (fsync, then posix_fadvise(POSIX_FADV_DONTNEED), which drops clean pages only:
hence the fsync) and warming them (a plain read through the cache). evict() and warm() return
the share of pages resident afterwards, so a caller can check that they did what they say.
"""
import ctypes
import mmap
import os

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                       ctypes.c_int, ctypes.c_long]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
_MAP_FAILED = ctypes.c_void_p(-1).value
_LOW_BIT = bytes(i & 1 for i in range(256))  # mincore: bit 0 = resident, others reserved


def resident_pages(path):
    """(pages in the page cache, pages of the file)."""
    size = os.path.getsize(path)
    if size == 0:
        return 0, 0
    pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
    fd = os.open(path, os.O_RDONLY)
    try:
        addr = _libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if addr in (None, _MAP_FAILED):
            raise OSError(ctypes.get_errno(), "mmap of %s failed" % path)
        try:
            vec = (ctypes.c_ubyte * pages)()
            if _libc.mincore(ctypes.c_void_p(addr), size, vec) != 0:
                raise OSError(ctypes.get_errno(), "mincore of %s failed" % path)
            return bytes(vec).translate(_LOW_BIT).count(1), pages
        finally:
            _libc.munmap(ctypes.c_void_p(addr), size)
    finally:
        os.close(fd)


def resident_share(paths):
    """The share of all the files' pages that the cache holds (1.0 for no pages at all)."""
    resident = total = 0
    for p in paths:
        r, t = resident_pages(p)
        resident += r
        total += t
    return resident / total if total else 1.0


def sync(paths):
    for p in paths:
        fd = os.open(p, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def evict(paths, tries=3):
    """Drops the files' pages from the cache; returns the share still resident."""
    for _ in range(tries):
        for p in paths:
            fd = os.open(p, os.O_RDONLY)
            try:
                os.fsync(fd)  # dirty pages are not dropped
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)
        left = resident_share(paths)
        if left == 0.0:
            break
    return left


def warm(paths, chunk=8 << 20):
    """Reads the files through the cache; returns the share resident afterwards."""
    buffer = bytearray(chunk)
    for p in paths:
        with open(p, "rb", buffering=0) as f:
            while f.readinto(buffer):
                pass
    return resident_share(paths)
