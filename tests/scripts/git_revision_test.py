"""cmake/GitRevision.cmake, which the build runs every time: the revision of a checkout and
whether its tracked files were edited since, read when it runs (a binary built from edited
files once reported itself clean, since the revision was read only at configure time)."""
import pathlib
import subprocess
import sys
import tempfile
import unittest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "cmake" / "GitRevision.cmake"


class GitRevisionTest(unittest.TestCase):
    def written(self, repo: pathlib.Path) -> str:
        template = repo / "version.cpp.in"
        out = repo / "out" / "version.cpp"
        subprocess.run(["cmake", f"-DSOURCE_DIR={repo}", f"-DIN={template}", f"-DOUT={out}",
                        "-DPROJECT_VERSION=1.2.3", "-DCMAKE_BUILD_TYPE=Release", "-P", str(SCRIPT)],
                       check=True, capture_output=True)
        return out.read_text()

    def test_an_edit_after_the_commit_is_dirty_and_a_commit_is_its_revision(self):
        with tempfile.TemporaryDirectory() as folder:
            repo = pathlib.Path(folder)
            git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
            subprocess.run(git + ["init", "-q"], check=True)
            (repo / "version.cpp.in").write_text("@PROJECT_VERSION@ @PTBENCH_GIT_REVISION@ @PTBENCH_GIT_DIRTY@\n")
            (repo / "source.cpp").write_text("int a;\n")
            subprocess.run(git + ["add", "."], check=True)
            subprocess.run(git + ["commit", "-qm", "first"], check=True)
            head = subprocess.run(git + ["rev-parse", "HEAD"], check=True, capture_output=True,
                                  text=True).stdout.strip()
            self.assertEqual(self.written(repo), f"1.2.3 {head} false\n")
            (repo / "source.cpp").write_text("int b;\n")
            self.assertEqual(self.written(repo), f"1.2.3 {head} true\n")
            (repo / "untracked.txt").write_text("not the build's\n")
            subprocess.run(git + ["commit", "-qam", "second"], check=True)
            second = subprocess.run(git + ["rev-parse", "HEAD"], check=True, capture_output=True,
                                    text=True).stdout.strip()
            self.assertEqual(self.written(repo), f"1.2.3 {second} false\n")

    def test_outside_a_checkout_the_revision_is_unknown(self):
        with tempfile.TemporaryDirectory() as folder:
            repo = pathlib.Path(folder)
            (repo / "version.cpp.in").write_text("@PTBENCH_GIT_REVISION@ @PTBENCH_GIT_DIRTY@\n")
            self.assertEqual(self.written(repo), "unknown false\n")


if __name__ == "__main__":
    sys.exit(unittest.main())
