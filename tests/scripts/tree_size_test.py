#!/usr/bin/python3
"""The tracked tree stays under 30 MB (30,000,000 bytes): what a clone downloads, and what must
fit, with a build, in what can be carried to a GPU machine. A study that would pass it keeps its
report (.json.gz), summary, a few plots and one report.html; the rest stays out of the tree.

    tree_size_test.py SOURCE_DIR

Exit 77 (CTest's skip) with the reason when SOURCE_DIR is not a git checkout."""
import pathlib
import subprocess
import sys

LIMIT = 30_000_000


def main():
    source = pathlib.Path(sys.argv[1]).resolve()
    listed = subprocess.run(["git", "-C", str(source), "ls-files", "-z"], capture_output=True)
    if listed.returncode != 0:
        print(f"SKIPPED: {source} is not a git checkout, so nothing is tracked to measure")
        return 77
    sizes = {}
    for name in listed.stdout.decode().split("\0"):
        path = source / name
        if name and path.is_file() and not path.is_symlink():
            sizes[name] = path.stat().st_size
    total = sum(sizes.values())
    print(f"tracked: {len(sizes)} files, {total:,} bytes (limit {LIMIT:,})")
    if total < LIMIT:
        return 0
    print("the largest:")
    for name, size in sorted(sizes.items(), key=lambda item: -item[1])[:15]:
        print(f"  {size:>10,}  {name}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
