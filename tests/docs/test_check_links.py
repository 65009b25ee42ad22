"""Tests of check_links.py on small trees made for each case: each problem it exists to find is
found (and named), and a tree without problems passes."""
import os
import tempfile
import unittest

import check_links


class Tree:
    """A repository in a temporary folder: README.md, docs/, engine/<module>/, .ci/run."""

    def __init__(self, files):
        self.folder = tempfile.TemporaryDirectory()
        self.root = self.folder.name
        defaults = {
            "README.md": "# x\n\nRun `scripts/test.sh`. [Architecture](docs/architecture.md).\n",
            "docs/page.md": "# Page\n",
            "docs/architecture.md": "# Architecture\n\n## Modules (`engine/`)\n\nSee "
                                    "`engine/core/Error.h` and `core/Error.h`.\n\n"
                                    "| folder | owns |\n| --- | --- |\n| `core/` | errors |\n\n"
                                    "[A page](page.md).\n",
            "engine/core/Error.h": "",
            "scripts/test.sh": "",
            ".ci/run": "#!/bin/sh\nexec scripts/test.sh\n",
        }
        defaults.update(files)
        for relative, text in defaults.items():
            if text is None:
                continue
            path = os.path.join(self.root, relative)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)

    def check(self):
        checker = check_links.Checker(self.root)
        checker.run()
        return checker.problems

    def close(self):
        self.folder.cleanup()


class CheckLinksTest(unittest.TestCase):
    def problems(self, files):
        tree = Tree(files)
        try:
            return tree.check()
        finally:
            tree.close()

    def test_a_tree_without_problems_passes(self):
        self.assertEqual(self.problems({}), [])

    def test_a_link_to_a_missing_file_fails_naming_it(self):
        problems = self.problems({"docs/page.md": "# A\n\n[gone](missing.md)\n"})
        self.assertEqual(len(problems), 1)
        self.assertIn("docs/page.md:3: broken link 'missing.md'", problems[0])

    def test_a_link_to_a_missing_heading_fails(self):
        problems = self.problems({
            "README.md": "# x\n`scripts/test.sh`\n[a](docs/architecture.md#nowhere)\n"})
        self.assertEqual(len(problems), 1)
        self.assertIn("broken anchor 'docs/architecture.md#nowhere'", problems[0])

    def test_an_anchor_matches_the_heading_as_github_spells_it(self):
        self.assertEqual(check_links.slug("Modules (`engine/`)"), "modules-engine")
        self.assertEqual(check_links.slug("Frame capture (RenderDoc)"), "frame-capture-renderdoc")
        self.assertEqual(check_links.slug("tandem.rasterize"), "tandemrasterize")
        problems = self.problems({
            "README.md": "# x\n`scripts/test.sh`\n[a](docs/architecture.md#modules-engine)\n"})
        self.assertEqual(problems, [])

    def test_a_link_text_across_lines_is_still_checked(self):
        problems = self.problems({"docs/page.md": "# A\n\n[two\nlines](gone.md)\n"})
        self.assertEqual(len(problems), 1)
        self.assertIn("gone.md", problems[0])

    def test_a_missing_repository_path_in_code_fails(self):
        problems = self.problems({"docs/page.md": "# A\n\n`engine/core/Gone.h`, "
                                  "`core/Gone.h` and\n\n```sh\nscripts/gone.sh --flag\n```\n"})
        self.assertEqual(len(problems), 3, problems)
        self.assertIn("engine/core/Gone.h", problems[0])
        self.assertIn("engine/core/Gone.h", problems[1])
        self.assertIn("docs/page.md:6: 'scripts/gone.sh'", problems[2])

    def test_placeholders_and_paths_outside_the_repository_are_not_paths(self):
        problems = self.problems({"docs/page.md": "# A\n\n`tests/fuzz/<target>/`, "
                                  "`out/frame_00000.png`, `build/bin/`, `engine/*/`\n"})
        self.assertEqual(problems, [])

    def test_paths_into_ignored_build_folders_are_outputs_not_checked(self):
        problems = self.problems({".gitignore": "/build/\n/build-*/\n*.partial\n",
                                  "build/CMakeCache.txt": "", "build-nocuda/x": "",
                                  "docs/page.md": "# A\n\n`build/bin/tandem-viewer`, "
                                  "`build-nocuda/bin/`, `engine/core/Error.h`\n"})
        self.assertEqual(problems, [])

    def test_the_module_table_names_every_engine_folder_and_no_other(self):
        problems = self.problems({"engine/gl/Buffer.h": "",
                                  "docs/architecture.md": "# A\n\n| `core/` | x |\n| `web/` | y |\n\n"
                                                          "[p](page.md)\n"})
        self.assertEqual(problems, [
            "docs/architecture.md:1: the module table has no row for engine/gl/",
            "docs/architecture.md:4: the module table has a row for engine/web/, which does not "
            "exist"])

    def test_a_page_nothing_links_to_fails(self):
        problems = self.problems({"docs/orphan.md": "# Orphan\n"})
        self.assertEqual(problems, ["docs/orphan.md:1: no link leads here from README.md (nor "
                                    "from a page it links to)"])

    def test_a_page_reached_through_another_page_passes(self):
        problems = self.problems({
            "docs/page.md": "# A\n\n[deeper](deeper.md)\n",
            "docs/deeper.md": "# Deeper\n"})
        self.assertEqual(problems, [])

    def test_a_readme_over_150_lines_fails(self):
        long = "# x\n`scripts/test.sh` [a](docs/architecture.md)\n" + "line\n" * 149
        problems = self.problems({"README.md": long})
        self.assertEqual(len(problems), 1)
        self.assertIn("README.md:151: 151 lines", problems[0])

    def test_a_readme_of_150_lines_passes(self):
        exact = "# x\n`scripts/test.sh` [a](docs/architecture.md)\n" + "line\n" * 148
        self.assertEqual(self.problems({"README.md": exact}), [])

    def test_ci_must_run_the_readmes_test_command(self):
        problems = self.problems({".ci/run": "#!/bin/sh\nexec make check\n"})
        self.assertEqual(problems, [".ci/run:1: does not run scripts/test.sh, the README's test "
                                    "command"])

    def test_a_result_file_named_in_the_results_page_must_be_there(self):
        problems = self.problems({
            "README.md": "# x\n`scripts/test.sh` [a](docs/architecture.md) "
                         "[r](bench/results/README.md)\n",
            "bench/results/2026-01-01-gpu-a.json": "{}",
            "bench/results/README.md": "# R\n\n`2026-01-01-gpu-a.json`, `2026-01-01-gpu-*.json`, "
                                       "`2026-01-01-gpu-b.json`, `…-gpu-c.json`\n"})
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("'2026-01-01-gpu-b.json' is not in bench/results/", problems[0])


if __name__ == "__main__":
    unittest.main()
