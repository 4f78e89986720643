#!/usr/bin/env python3
"""Unit tests of cgref.py's logic that need no valgrind: input lines, the
cachegrind.out reader, own-file selection, the gap rule and compare()."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cgref  # noqa: E402


class InputLines(unittest.TestCase):
    def test_args_and_comments(self):
        self.assertIsNone(cgref.parse_input_line("# only a comment", "/d"))
        self.assertIsNone(cgref.parse_input_line("   \n", "/d"))
        self.assertEqual(cgref.parse_input_line("8 2  # stride, reps", "/d"),
                         (["8", "2"], None))
        self.assertEqual(cgref.parse_input_line("'a b' c", "/d"),
                         (["a b", "c"], None))

    def test_stdin(self):
        self.assertEqual(cgref.parse_input_line("< x.data", "/d"),
                         ([], "/d/x.data"))
        self.assertEqual(cgref.parse_input_line("1 <x.data 2", "/d"),
                         (["1", "2"], "/d/x.data"))
        self.assertEqual(cgref.parse_input_line("< /abs/f", "/d"),
                         ([], "/abs/f"))
        with self.assertRaises(cgref.CgrefError):
            cgref.parse_input_line("1 <", "/d")
        with self.assertRaises(cgref.CgrefError):
            cgref.parse_input_line("< a < b", "/d")
        with self.assertRaises(cgref.CgrefError):
            cgref.parse_input_line("'unterminated", "/d")

    def test_read_inputs(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "p.inputs")
            with open(p, "w") as f:
                f.write("# header\n1 2\n\n< in.txt\n3\n")
            self.assertEqual(cgref.read_inputs(p), [
                (1, ["1", "2"], None),
                (2, [], os.path.join(d, "in.txt")),
                (3, ["3"], None)])
            self.assertEqual(cgref.read_inputs(os.path.join(d, "none")),
                             [(1, [], None)])


class Geometry(unittest.TestCase):
    def test_args(self):
        self.assertEqual(cgref.geometry_args("32768,8,64", "1048576,16,64"),
                         ["--I1=32768,8,64", "--D1=32768,8,64",
                          "--LL=1048576,16,64"])
        g = cgref.geometry_args("32768,2,32")
        self.assertEqual(g[2], f"--LL={cgref.NEUTRAL_LL_SIZE},16,32")
        for bad in ("32768,8", "a,b,c", "0,8,64"):
            with self.assertRaises(cgref.CgrefError):
                cgref.geometry_args(bad)


CG_OUT = """desc: I1 cache: 32768 B, 64 B, 8-way associative
cmd: ./p
events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw
fl=/c/p.c
fn=main
3 10 0 0 4 2 1 2 1 1
0 1 0 0 1 1 1
fl=/c/p.h
fn=inl
5 2 0 0 2 2 0 0 0 0
fl=./string/memset.S
fn=memset
9 50 1 1 0 0 0 40 5 5
fl=/c/other/q.c
fn=f
1 1 0 0 1 1 1 0 0 0
summary: 64 1 1 8 6 3 42 6 6
"""


class CgOut(unittest.TestCase):
    def write(self, text):
        f = tempfile.NamedTemporaryFile("w", suffix=".out", delete=False)
        f.write(text)
        f.close()
        self.addCleanup(os.unlink, f.name)
        return f.name

    def test_parse_and_own(self):
        events, rows, summary = cgref.parse_cg_out(self.write(CG_OUT))
        self.assertEqual(events[0], "Ir")
        self.assertEqual(len(rows), 5)
        self.assertEqual(rows[1][3]["DLmr"], 1)
        self.assertEqual(rows[1][3]["Dw"], 0)  # omitted trailing counts
        for k in cgref.EVENTS:
            self.assertEqual(sum(r[3][k] for r in rows), summary[k], k)
        own = [r for r in rows if cgref.own_file(r[0], "/c", ["/c/p.c"])]
        self.assertEqual([r[0] for r in own], ["/c/p.c", "/c/p.c", "/c/p.h"])
        self.assertTrue(cgref.own_file("p.c", "/c", ["/c/p.c"]))
        self.assertFalse(cgref.own_file("/c/other/q.c", "/c", ["/c/p.c"]))

    def test_errors(self):
        with self.assertRaisesRegex(cgref.CgrefError, r":4: bad count"):
            cgref.parse_cg_out(self.write(
                "events: Ir Dr\nfl=a\nfn=f\n1 2 x\nsummary: 1 1\n"))
        with self.assertRaisesRegex(cgref.CgrefError, r":2: count line"):
            cgref.parse_cg_out(self.write("events: Ir\n1 2\n"))
        with self.assertRaisesRegex(cgref.CgrefError, "not a complete"):
            cgref.parse_cg_out(self.write("events: Ir\nfl=a\nfn=f\n1 2\n"))


def report(runs):
    return {"runs": [{
        "input": {"index": i, "args": [], "stdin": None},
        "status": "ok",
        "caches": [{"name": "ref", "levels": {"L1D": {}, "LL": {}},
                    "lines": [{"file": "p.c", "line": n, "function": "main",
                               "accesses": 0,
                               "misses": {"L1D": m, "LL": 0}}
                              for n, m in enumerate(ms)]}]}
        for i, ms in runs]}


def ref(index, d1mr, d1mw):
    return {"input": {"index": index, "args": ["x"], "stdin": None},
            "own": {"Dr": 0, "Dw": 0, "D1mr": d1mr, "D1mw": d1mw,
                    "DLmr": 0, "DLmw": 0, "Ir": 0}}


class Compare(unittest.TestCase):
    def test_gap_rule(self):
        self.assertTrue(cgref.gap_ok(120, 100))     # 20 misses
        self.assertFalse(cgref.gap_ok(121, 100))
        self.assertTrue(cgref.gap_ok(10100, 10000))  # 1%
        self.assertFalse(cgref.gap_ok(10101, 10000))
        self.assertTrue(cgref.gap_ok(9900, 10000))
        self.assertFalse(cgref.gap_ok(9899, 10000))

    def test_compare(self):
        rep = report([(1, [50, 50]), (2, [1000, 15])])
        self.assertEqual(cgref.compare(rep, [ref(1, 90, 10),
                                             ref(2, 1000, 0)]), [])
        fails = cgref.compare(rep, [ref(1, 90, 10), ref(2, 900, 0)])
        self.assertEqual(len(fails), 1)
        self.assertIn("input 2", fails[0])
        self.assertIn("1015", fails[0])
        fails = cgref.compare(rep, [ref(1, 100, 0)])
        self.assertEqual(len(fails), 1)
        self.assertIn("no cachegrind reference", fails[0])
        self.assertEqual(cgref.compare({"runs": []}, []),
                         ["report has no runs"])

    def test_levels_and_caches(self):
        rep = report([(1, [5])])
        run = rep["runs"][0]
        self.assertEqual(cgref.report_l1d_misses(run), 5)
        self.assertEqual(cgref.report_l1d_misses(run, "ref", "LL"), 0)
        with self.assertRaises(cgref.CgrefError):
            cgref.report_l1d_misses(run, "nope")
        run["caches"].append(dict(run["caches"][0], name="other"))
        with self.assertRaises(cgref.CgrefError):
            cgref.report_l1d_misses(run)
        self.assertEqual(cgref.report_l1d_misses(run, "other"), 5)


class FirstPrinciples(unittest.TestCase):
    def test_stride(self):
        # 1M doubles, stride 8 (one line per read), 2 passes
        self.assertEqual(cgref.stride_expected_read_misses(),
                         (2 * 131072, 131072))
        # stride 1: every line of the array, per pass
        self.assertEqual(cgref.stride_expected_read_misses(stride=1, reps=3),
                         (3 * 131072, 131072))
        # stride 16: every other line
        self.assertEqual(cgref.stride_expected_read_misses(stride=16,
                                                           reps=1)[0], 65536)


if __name__ == "__main__":
    unittest.main()
