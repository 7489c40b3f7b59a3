"""bench/page_cache.py does what the saver comparison relies on: evict() leaves none of a
file's pages in the page cache (checked by mincore, and by /proc/meminfo's Cached falling),
warm() brings them all back, and resident_pages counts pages exactly."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import page_cache  # noqa: E402

MIB = 1 << 20


def cached_kib():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("Cached:"):
                return int(line.split()[1])
    raise AssertionError("no Cached: line in /proc/meminfo")


def write_file(path, size):
    with open(path, "wb") as f:
        f.write(os.urandom(size))


def test_evict_drops_every_page_and_warm_reads_them_back(tmp_path):
    path = str(tmp_path / "f")
    size = 64 * MIB + 123
    write_file(path, size)  # dirty in the cache: evict must sync before dropping
    pages = (size + 4095) // 4096
    assert page_cache.resident_pages(path) == (pages, pages)
    page_cache.sync([path])  # the slow part first, so that little else moves Cached meanwhile
    before = cached_kib()
    assert page_cache.evict([path]) == 0.0
    assert page_cache.resident_pages(path) == (0, pages)
    # The kernel agrees: the cache shrank by (about) the file's size. Other processes move
    # Cached too, so only most of it is asked for.
    assert before - cached_kib() > 32 * 1024
    assert page_cache.warm([path]) == 1.0
    assert page_cache.resident_pages(path) == (pages, pages)


def test_share_over_several_files_and_empty_ones(tmp_path):
    a, b, empty = (str(tmp_path / n) for n in ("a", "b", "empty"))
    write_file(a, 4 * MIB)
    write_file(b, 4 * MIB)
    write_file(empty, 0)
    assert page_cache.resident_pages(empty) == (0, 0)
    page_cache.evict([a])
    assert page_cache.resident_share([a, b, empty]) == 0.5
    assert page_cache.evict([a, b, empty]) == 0.0
    assert page_cache.resident_share([empty]) == 1.0  # no pages: nothing to miss
