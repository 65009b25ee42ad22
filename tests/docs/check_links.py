#!/usr/bin/env python3
"""Checks the documentation against the tree it describes (the unit tier's docs.links):

- every relative link in README.md, docs/*.md, python/README.md and bench/results/README.md
  names a file or folder that exists, and an anchor (`page.md#section`) names a heading there;
- every repository path named in code (`engine/stream/Pack.h`, `scripts/fuzz.sh --seconds 60`,
  module paths such as `render/PointSplat.h` under engine/) exists, and in bench/results/README.md
  every result file named by its date (`2026-11-30-h200-export.json`, or a glob of them) exists;
- every page under docs/ is reachable from README.md through links, and docs/architecture.md's
  module table has a row for every folder of engine/ and none for a folder that is gone;
- README.md is at most 150 lines (the front door), and its test command, scripts/test.sh, is
  what .ci/run runs.

Usage: check_links.py [ROOT]   (default: the repository this file is in). Prints one line per
problem, `file:line: what`, and exits 1 if there is any.
"""
import fnmatch
import glob
import os
import re
import sys
import urllib.parse

README_MAX_LINES = 150
TOP_PAGES = ["README.md", "python/README.md", "bench/results/README.md"]
FENCE = re.compile(r"^\s*(```|~~~)")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
RESULT_FILE = re.compile(r"^\d{4}-\d\d-\d\d-[^/]+$")
# A token is not checked as a path when it holds a placeholder or a pattern.
PLACEHOLDER = re.compile(r"[<>{}%$…|\\]|\*\*|\.\.\.")


def slug(heading):
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\*\*|__", "", heading.strip()).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


class Page:
    """A markdown page: its text outside fenced code, its code (spans and blocks) and headings."""

    def __init__(self, root, relative):
        self.relative = relative
        self.path = os.path.join(root, relative)
        with open(self.path, encoding="utf-8") as f:
            self.text = f.read()
        self.lines = self.text.count("\n") + (0 if self.text.endswith("\n") else 1)
        prose, code = [], []  # (line number, text)
        inside = False
        for number, line in enumerate(self.text.split("\n"), 1):
            if FENCE.match(line):
                inside = not inside
                continue
            (code if inside else prose).append((number, line))
        self.code_blocks = code
        self.anchors = set()
        seen = {}
        for _, line in prose:
            if line.startswith("#"):
                base = slug(line.lstrip("#"))
                count = seen.get(base, 0)
                seen[base] = count + 1
                self.anchors.add(base if count == 0 else f"{base}-{count}")
        # Prose as one string (links and code spans may span lines), with a map back to lines.
        self.prose = "\n".join(line for _, line in prose)
        self.prose_lines = [number for number, _ in prose]

    def line_of(self, offset):
        return self.prose_lines[self.prose.count("\n", 0, offset)]

    def code_spans(self):
        """(line, text) of each inline code span in the prose."""
        for match in CODE_SPAN.finditer(self.prose):
            yield self.line_of(match.start()), match.group(2).replace("\n", " ")

    def links(self):
        """(line, target) of each inline link outside code."""
        blanked = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), self.prose)
        for match in LINK.finditer(blanked):
            yield self.line_of(match.start()), match.group(1)


class Checker:
    def __init__(self, root):
        self.root = os.path.abspath(root)
        self.problems = []
        self.pages = {}
        self.checked_links = 0
        self.checked_paths = 0
        # Top-level entries of the repository; ignored ones (build folders, out/) are outputs,
        # named in the pages as what a build or a run makes, not checked.
        ignored = self.ignored_top_level()
        self.top_dirs = {name for name in os.listdir(self.root)
                         if (not name.startswith(".") or name == ".ci")
                         and not any(fnmatch.fnmatch(name, pattern) for pattern in ignored)}
        engine = os.path.join(self.root, "engine")
        self.modules = {name for name in os.listdir(engine)
                        if os.path.isdir(os.path.join(engine, name))} if os.path.isdir(engine) else set()

    def ignored_top_level(self):
        """The root .gitignore's patterns for top-level entries (`/build/`, `/build-*/`)."""
        path = os.path.join(self.root, ".gitignore")
        if not os.path.isfile(path):
            return []
        with open(path, encoding="utf-8") as f:
            lines = [line.strip() for line in f]
        return [line.strip("/") for line in lines
                if line.startswith("/") and "/" not in line.strip("/")]

    def problem(self, page, line, message):
        self.problems.append(f"{page}:{line}: {message}")

    def page(self, relative):
        if relative not in self.pages:
            self.pages[relative] = Page(self.root, relative)
        return self.pages[relative]

    def page_files(self):
        found = [p for p in TOP_PAGES if os.path.isfile(os.path.join(self.root, p))]
        found += sorted(os.path.relpath(p, self.root)
                        for p in glob.glob(os.path.join(self.root, "docs", "**", "*.md"),
                                           recursive=True))
        return found

    def inside_root(self, path):
        return os.path.commonpath([self.root, os.path.abspath(path)]) == self.root

    # --- links --------------------------------------------------------------------------------
    def check_link(self, page, line, target):
        """Returns the page (relative to root) the link leads to, if it is a markdown page."""
        parsed = urllib.parse.urlsplit(target)
        if parsed.scheme or target.startswith("//"):
            return None  # http(s), mailto: not checked here
        self.checked_links += 1
        path = urllib.parse.unquote(parsed.path)
        folder = os.path.dirname(page.path)
        resolved = os.path.normpath(os.path.join(folder, path)) if path else page.path
        if not self.inside_root(resolved):
            self.problem(page.relative, line, f"link '{target}' leaves the repository")
            return None
        if not os.path.exists(resolved):
            self.problem(page.relative, line, f"broken link '{target}': "
                         f"{os.path.relpath(resolved, self.root)} does not exist")
            return None
        relative = os.path.relpath(resolved, self.root)
        if parsed.fragment:
            if not resolved.endswith(".md"):
                self.problem(page.relative, line, f"link '{target}': an anchor on a file that is "
                             "not a markdown page")
            elif parsed.fragment not in self.page(relative).anchors:
                self.problem(page.relative, line, f"broken anchor '{target}': no heading "
                             f"'#{parsed.fragment}' in {relative}")
        return relative if resolved.endswith(".md") else None

    # --- paths named in code ------------------------------------------------------------------
    def path_candidates(self, token):
        """Where a token that looks like a repository path should be, or None if it is not one."""
        token = token.strip("\"'(),;:").rstrip(".")
        if token.startswith("./"):
            token = token[2:]
        if "/" not in token or "=" in token or "://" in token or PLACEHOLDER.search(token):
            return None
        first = token.split("/", 1)[0]
        if first in self.top_dirs:
            return [token]
        if first in self.modules:
            return [os.path.join("engine", token)]
        return None

    def check_token(self, page, line, token):
        candidates = self.path_candidates(token)
        if candidates:
            self.checked_paths += 1
            if not any(self.exists(c) for c in candidates):
                self.problem(page.relative, line,
                             f"'{token.strip()}' names {candidates[0]}, which does not exist")
            return
        # Result files named by date beside bench/results/README.md.
        bare = token.strip("\"'(),;:")
        if page.relative == os.path.join("bench", "results", "README.md") and \
                RESULT_FILE.match(bare) and not re.search(r"[<>{}%$…]", bare):
            self.checked_paths += 1
            folder = os.path.dirname(page.path)
            if not glob.glob(os.path.join(folder, bare)):
                self.problem(page.relative, line, f"result file '{bare}' is not in bench/results/")

    def exists(self, relative):
        if "*" in relative:
            return bool(glob.glob(os.path.join(self.root, relative)))
        return os.path.exists(os.path.join(self.root, relative))

    def check_code(self, page):
        for line, span in page.code_spans():
            for token in span.split():
                self.check_token(page, line, token)
        for line, text in page.code_blocks:
            for token in re.split(r"\s+", text.split(" #", 1)[0]):
                if token:
                    self.check_token(page, line, token)

    # --- the whole tree -----------------------------------------------------------------------
    def run(self):
        files = self.page_files()
        graph = {}
        for relative in files:
            page = self.page(relative)
            graph[relative] = set()
            for line, target in page.links():
                linked = self.check_link(page, line, target)
                if linked:
                    graph[relative].add(linked)
            self.check_code(page)
        self.check_reachable(files, graph)
        self.check_modules()
        self.check_readme()
        return not self.problems

    def check_reachable(self, files, graph):
        if "README.md" not in graph:
            return
        reached, todo = {"README.md"}, ["README.md"]
        while todo:
            for linked in graph.get(todo.pop(), ()):
                if linked not in reached:
                    reached.add(linked)
                    todo.append(linked)
        for relative in files:
            if relative.startswith("docs" + os.sep) and relative not in reached:
                self.problem(relative, 1, "no link leads here from README.md (nor from a page "
                             "it links to)")

    def check_modules(self):
        relative = os.path.join("docs", "architecture.md")
        if not self.modules or not os.path.isfile(os.path.join(self.root, relative)):
            return
        rows = {}
        for number, line in enumerate(self.page(relative).text.split("\n"), 1):
            row = re.match(r"^\|\s*`([\w-]+)/`\s*\|", line)
            if row:
                rows[row.group(1)] = number
        for module in sorted(self.modules - set(rows)):
            self.problem(relative, 1, f"the module table has no row for engine/{module}/")
        for module in sorted(set(rows) - self.modules):
            self.problem(relative, rows[module], f"the module table has a row for engine/{module}/, "
                         "which does not exist")

    def check_readme(self):
        path = os.path.join(self.root, "README.md")
        if not os.path.isfile(path):
            self.problem("README.md", 1, "missing")
            return
        readme = self.page("README.md")
        if readme.lines > README_MAX_LINES:
            self.problem("README.md", README_MAX_LINES + 1, f"{readme.lines} lines: the README "
                         f"is a front door of at most {README_MAX_LINES}; move the rest to docs/")
        ci = os.path.join(self.root, ".ci", "run")
        if os.path.isfile(ci):
            with open(ci, encoding="utf-8") as f:
                runs_test = re.search(r"^\s*(exec\s+)?(\./)?scripts/test\.sh\b", f.read(), re.M)
            if not runs_test:
                self.problem(".ci/run", 1, "does not run scripts/test.sh, the README's test "
                             "command")
        if "scripts/test.sh" not in readme.text:
            self.problem("README.md", 1, "does not name scripts/test.sh, the test command")


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    checker = Checker(root)
    ok = checker.run()
    for problem in checker.problems:
        print(problem)
    print(f"docs: {len(checker.pages)} pages, {checker.checked_links} relative links, "
          f"{checker.checked_paths} paths in code checked: "
          f"{'ok' if ok else f'{len(checker.problems)} problems'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
