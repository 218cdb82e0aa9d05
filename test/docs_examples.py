#!/usr/bin/env python3
"""Run the examples of one Markdown page and compare their output with the page.

    docs_examples.py --page FILE --name NAME --db DB --dir DIR --psql PSQL

test/t_docs.sh calls it once per page, with a fresh empty database DB and
a scratch folder DIR (holding links to the repository's examples/ and
bin/); the rules a page is written to are at the top of test/t_docs.sh.
Prints one line per page ("NAME: N blocks run ..."), and for each block
that fails its page, first line, line number and a unified diff or the
error; exits 1 if any block failed.
"""

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

# an opening fence: its indentation, its backticks, its language tag
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<ticks>`{3,})(?P<info>[^`]*)$")
NOT_RUN = re.compile(r"^\s*<!--\s*not run:\s*(?P<reason>.*?)\s*-->\s*$")
# the lines psql echoes between the blocks of a session
MARKER = "--8<-- calltree docs example {} --8<--"
MARKER_LINE = re.compile(re.escape(MARKER).replace(r"\{\}", r"(\d+)"))
END_MARKER = MARKER.format("end")
TIMEOUT = 600  # seconds, for one psql session or one sh block


class Block:
    """A fenced block of the page."""

    def __init__(self, lang, line, body, end_line, skip, stderr=False):
        self.lang = lang        # "sql", "sh", "" (bare) or another tag
        self.stderr = stderr    # sh: its stderr and NOTICEs shown with its stdout
        self.line = line        # the line number of its opening fence
        self.body = body        # its text, without the fences
        self.end_line = end_line  # the line number of its closing fence
        self.skip = skip        # the reason it is not run, or None
        self.expected = None    # the bare block shown as its output

    def first_line(self):
        for text in self.body.splitlines():
            if text.strip():
                return text.strip()
        return "(empty)"


def parse(lines):
    """The page's fenced blocks, in order."""
    blocks = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, ticks = m.group("indent"), m.group("ticks")
        words = m.group("info").split()
        lang = words[0].lower() if words else ""
        skip = None
        before = i - 1
        while before >= 0 and not lines[before].strip():
            before -= 1
        if before >= 0:
            mark = NOT_RUN.match(lines[before])
            if mark:
                skip = mark.group("reason") or "no reason given"
        closing = re.compile(r"^[ \t]*" + ticks + r"`*[ \t]*$")
        j = i + 1
        body = []
        while j < len(lines) and not closing.match(lines[j]):
            text = lines[j]
            body.append(text[len(indent):] if text.startswith(indent) else text.lstrip())
            j += 1
        blocks.append(Block(lang, i + 1, "\n".join(body) + "\n", j + 1, skip,
                            stderr=lang == "sh" and words[1:] == ["stderr"]))
        i = j + 1
    return blocks


def pair_outputs(blocks, lines):
    """Give each sql and sh block the bare block right after it, if any."""
    for block, after in zip(blocks, blocks[1:]):
        if block.lang not in ("sql", "sh") or after.lang != "":
            continue
        between = lines[block.end_line:after.line - 1]
        if all(not text.strip() for text in between):
            block.expected = after


def normalize(text):
    """Lines without trailing white space, without empty lines around them."""
    out = [line.rstrip() for line in text.splitlines()]
    while out and not out[0]:
        out.pop(0)
    while out and not out[-1]:
        out.pop()
    return out


def last_statement_ended(body):
    """False when the block's SQL ends inside a statement (no ';' nor '\\g')."""
    for text in reversed(body.splitlines()):
        text = re.sub(r"--.*$", "", text).strip()
        if not text:
            continue
        return text.endswith(";") or text.startswith("\\") or re.search(r"\\[a-z]", text) is not None
    return True


class Page:
    def __init__(self, args):
        self.args = args
        self.name = args.name
        self.failures = 0
        self.ran = {"sql": 0, "sh": 0}
        self.skipped = 0
        self.tmp = tempfile.mkdtemp(prefix="docs_examples_")
        self.env = dict(os.environ)
        self.env["PGDATABASE"] = args.db
        self.env["PGTZ"] = "UTC"  # timestamps print the same on every machine
        bindir = os.path.dirname(args.psql)
        self.env["PATH"] = bindir + os.pathsep + self.env.get("PATH", "")
        self.env.setdefault("PG_CONFIG", os.path.join(bindir, "pg_config"))

    def fail(self, block, what, detail=""):
        self.failures += 1
        print(f"{self.name}:{block.line}: {block.lang} block \"{block.first_line()}\": {what}")
        if detail:
            print(detail.rstrip("\n"))

    def check(self, block, stdout):
        """Compare a block's stdout with the output block shown after it."""
        if block.expected is None:
            return
        want = normalize(block.expected.body)
        got = normalize(stdout)
        if want != got:
            diff = difflib.unified_diff(
                want, got, lineterm="",
                fromfile=f"{self.name}:{block.expected.line + 1} (shown)",
                tofile="actual output")
            self.fail(block, "output differs from the page", "\n".join(diff))

    def run_sql(self, session):
        """Runs consecutive sql blocks in one psql session; False on an error."""
        script = []
        offsets = []  # (first line of the block in the script, block)
        for k, block in enumerate(session):
            if not last_statement_ended(block.body):
                self.fail(block, "the block ends inside a statement (no ';' at its end)")
                return False
            script.append("\\echo '" + MARKER.format(k) + "'\n")
            offsets.append((sum(part.count("\n") for part in script) + 1, block))
            script.append(block.body)
        script.append("\\echo '" + END_MARKER + "'\n")
        path = os.path.join(self.tmp, "session.sql")
        with open(path, "w") as f:
            f.write("".join(script))
        cmd = [self.args.psql, "-X", "-q", "-v", "ON_ERROR_STOP=1",
               "-P", "footer=off", "-P", "pager=off", "-d", self.args.db, "-f", path]
        try:
            proc = subprocess.run(cmd, cwd=self.args.dir, env=self.env, text=True,
                                  capture_output=True, timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.fail(session[0], f"psql did not finish within {TIMEOUT} s")
            return False
        outputs = {}
        current = None
        ended = False
        for text in proc.stdout.splitlines(keepends=True):
            stripped = text.rstrip("\n")
            if stripped == END_MARKER:
                ended = True
                current = None
                continue
            m = MARKER_LINE.fullmatch(stripped)
            if m:
                current = int(m.group(1))
                outputs[current] = ""
                continue
            if current is not None:
                outputs[current] += text
        for k, block in enumerate(session):
            self.ran["sql"] += 1
            finished = ended or (k + 1) in outputs
            if finished:
                self.check(block, outputs.get(k, ""))
                continue
            if k in outputs:
                self.fail(block, f"psql failed (exit status {proc.returncode})",
                          self.where(proc.stderr, path, offsets))
            else:
                self.ran["sql"] -= 1
                self.fail(block, "not run: psql stopped before it", proc.stderr)
            return False
        if proc.returncode != 0:
            self.fail(session[-1], f"psql failed (exit status {proc.returncode})", proc.stderr)
            return False
        return True

    @staticmethod
    def where(stderr, path, offsets):
        """psql's errors, with the script's line numbers turned into the block's."""
        def relative(m):
            line = int(m.group(1))
            start = max((first for first, _ in offsets if first <= line), default=1)
            return f"line {line - start + 1} of the block:"
        return re.sub(re.escape("psql:" + path) + r":(\d+):", relative, stderr)

    def run_sh(self, block):
        """Runs an sh block with bash -e; False on an error."""
        path = os.path.join(self.tmp, "block.sh")
        with open(path, "w") as f:
            f.write(block.body)
        self.ran["sh"] += 1
        env = self.env
        if block.stderr:
            # what the user sees: NOTICEs at the default client_min_messages
            env = {k: v for k, v in self.env.items() if k != "PGOPTIONS"}
        try:
            proc = subprocess.run(["bash", "-e", path], cwd=self.args.dir, env=env, text=True,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT if block.stderr else subprocess.PIPE,
                                  timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.fail(block, f"did not finish within {TIMEOUT} s")
            return False
        if proc.returncode != 0:
            self.fail(block, f"exit status {proc.returncode}", proc.stdout if block.stderr else proc.stderr)
            return False
        self.check(block, proc.stdout)
        return True

    def run(self, blocks):
        """Runs the page top to bottom; stops at the first block that errs."""
        session = []
        for block in blocks:
            if block.lang not in ("sql", "sh"):
                continue
            if block.skip is not None:
                self.skipped += 1
                continue
            if block.lang == "sql":
                session.append(block)
                continue
            if session and not self.run_sql(session):
                return
            session = []
            if not self.run_sh(block):
                return
        if session:
            self.run_sql(session)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--page", required=True, help="the Markdown file")
    p.add_argument("--name", help="the page's name in messages (default: --page)")
    p.add_argument("--db", required=True, help="a fresh empty database")
    p.add_argument("--dir", required=True, help="the working directory of the examples")
    p.add_argument("--psql", required=True, help="the psql program")
    args = p.parse_args(argv)
    args.name = args.name or args.page
    with open(args.page, encoding="utf-8") as f:
        lines = f.read().splitlines()
    blocks = parse(lines)
    pair_outputs(blocks, lines)
    page = Page(args)
    try:
        page.run(blocks)
    finally:
        shutil.rmtree(page.tmp, ignore_errors=True)
    ran = page.ran["sql"] + page.ran["sh"]
    print(f"{page.name}: {ran} blocks run ({page.ran['sql']} sql, {page.ran['sh']} sh), "
          f"{page.skipped} not run by the page's choice, {page.failures} failed")
    return 1 if page.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
