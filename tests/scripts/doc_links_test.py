#!/usr/bin/python3
"""Every relative link of README.md, results/README.md and docs/*.md leads to a file or folder
inside the repository (a heading's anchor, where it names one, to a heading of that page), and
every study they, the configs and the code cite by its folder (results/published/<study>) is
there: a moved page or a pruned study breaks this test, not a reader's click.

    doc_links_test.py SOURCE_DIR"""
import pathlib
import re
import subprocess
import sys
import unittest

SOURCE = pathlib.Path(sys.argv[1]).resolve()
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
STUDY = re.compile(r"results/published/(\d{4}-\d\d-\d\d-[A-Za-z0-9-]+)")


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page):
    return {slug(line.lstrip("#")) for line in page.read_text().splitlines() if line.startswith("#")}


def pages():
    return [SOURCE / "README.md", SOURCE / "results" / "README.md", *sorted((SOURCE / "docs").glob("*.md"))]


class DocLinks(unittest.TestCase):
    def test_every_relative_link_leads_inside_the_repository(self):
        broken = []
        for page in pages():
            for target in LINK.findall(page.read_text()):
                if re.match(r"[a-z]+:", target):
                    continue  # https:, mailto:
                path, _, anchor = target.partition("#")
                resolved = (page.parent / path).resolve() if path else page
                if SOURCE not in resolved.parents and resolved != SOURCE:
                    broken.append(f"{page.relative_to(SOURCE)}: {target} leaves the repository")
                elif not resolved.exists():
                    broken.append(f"{page.relative_to(SOURCE)}: {target} does not exist")
                elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
                    broken.append(f"{page.relative_to(SOURCE)}: {target}: no such heading")
        self.assertEqual(broken, [])

    def test_every_cited_study_is_there(self):
        tracked = subprocess.run(["git", "-C", str(SOURCE), "ls-files"], capture_output=True, text=True)
        files = tracked.stdout.splitlines() if tracked.returncode == 0 else []
        if not files:  # not a git checkout (an unpacked archive): read the tree instead
            files = [str(p.relative_to(SOURCE)) for p in SOURCE.rglob("*") if p.is_file()]
        missing = []
        for name in files:
            if name.startswith("results/published/") or not name.endswith((".md", ".json", ".cpp", ".h", ".glsl",
                                                                               ".sh", ".py", ".comp")):
                continue
            text = (SOURCE / name).read_text(errors="replace")
            for study in STUDY.findall(text):
                if not (SOURCE / "results" / "published" / study).is_dir():
                    missing.append(f"{name}: results/published/{study}")
        self.assertEqual(missing, [])

    def test_every_study_is_indexed_and_cited(self):
        """A study in results/published/ is in results/README.md's index and cited by the README,
        a page of docs/, a config or the code; one that is neither leaves the tree."""
        studies = sorted(p.name for p in (SOURCE / "results" / "published").iterdir() if p.is_dir())
        index = (SOURCE / "results" / "README.md").read_text()
        cited = set()
        for path in [SOURCE / "README.md", *(SOURCE / "docs").glob("*.md"), *(SOURCE / "configs").glob("*.json"),
                     *(p for folder in ("core", "cli", "shaders", "scripts", "tests") for p in (SOURCE / folder).rglob("*")
                       if p.is_file() and p.suffix in (".cpp", ".h", ".glsl", ".comp", ".py", ".sh"))]:
            cited.update(STUDY.findall(path.read_text(errors="replace")))
        unindexed = [s for s in studies if f"(published/{s}/)" not in index]
        uncited = [s for s in studies if s not in cited]
        self.assertEqual(unindexed, [], "not in results/README.md's index")
        self.assertEqual(uncited, [], "cited by nothing but the index: it leaves the tree")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
