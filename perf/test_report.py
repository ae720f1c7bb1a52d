"""Tests of perf/report.py on perf/testdata/report-sample.json (standard library only).

Run from the repo root: python3 -m unittest perf/test_report.py   (or python3 perf/test_report.py)
"""
import copy
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import report  # noqa: E402

REPORT = os.path.join(HERE, "report.py")
FIXTURE = os.path.join(HERE, "testdata", "report-sample.json")
SVG = "{http://www.w3.org/2000/svg}"


def load_fixture():
    with open(FIXTURE, encoding="utf-8") as f:
        return json.load(f)


def workload(results, name):
    return next(w for w in results["workloads"] if w["name"] == name)


def strip_derived(w):
    """The workload as a harness that wrote only the runs would leave it."""
    w = copy.deepcopy(w)
    for key in ("median", "ratios", "goal_met"):
        w.pop(key, None)
    return w


def run_report(*args):
    return subprocess.run([sys.executable, REPORT, *args], capture_output=True, text=True)


def synthetic(better, subject_values, peer_values, goal_ratio):
    """A two-system workload on one metric with the given run values and no derived numbers."""
    runs = [{"system": "brook", "repeat": i + 1, "ok": True, "values": {"m": v}}
            for i, v in enumerate(subject_values)]
    runs += [{"system": "kafka", "repeat": i + 1, "ok": True, "values": {"m": v}}
             for i, v in enumerate(peer_values)]
    return {"name": "w", "systems": ["brook", "kafka"], "peer": "kafka",
            "metrics": [{"key": "m", "label": "m", "better": better}],
            "goal": {"metric": "m", "ratio": goal_ratio, "text": "g"}, "runs": runs}


class TablesTest(unittest.TestCase):
    def setUp(self):
        self.results = load_fixture()

    def test_text_has_medians_ranges_ratios_and_goals(self):
        out = report.render_text(self.results)
        # the produce workload: medians with min–max, the ratio, the goal
        self.assertRegex(out, r"records/s +812 k \(790 k–830 k\) +262 k \(250 k–271 k\) +3\.1x")
        self.assertIn("goal: produce >= 3x Kafka: 3.1x, met", out)
        # a "lower" goal that is not met, and one that is
        self.assertIn("goal: e2e p99 <= 0.5x Kafka: 0.63x, not met", out)
        self.assertIn("goal: ready in <= half Kafka's time: 0.31x, met", out)
        # three systems: one ratio column per non-subject system
        self.assertRegex(out, r"metric +brook +brook-no-group-commit +kafka-flush +"
                              r"brook/brook-no-group-commit +brook/kafka-flush")
        self.assertRegex(out, r"records/s +5,400 \(5,210–5,630\) +7,024 \(6,890–7,150\) +"
                              r"3,120 \(2,980–3,305\) +0\.77x +1\.7x")
        self.assertRegex(out, r"RSS MiB +182 \(176–190\) +402 \(398–415\) +0\.45x")
        # the header block
        self.assertIn("AMD EPYC 7B13", out)
        self.assertIn("CPU steal: 0.4 %", out)
        self.assertIn("command:   bin/brook-perf --repeats 3", out)

    def test_text_lists_failed_runs_and_missing_systems(self):
        out = report.render_text(self.results)
        self.assertIn("failed: kafka repeat 2: share consumer: no assignment within 60 s", out)
        # kafka's median over its two ok runs (48,200 and 51,377), the failed one left out
        self.assertRegex(out, r"records/s +67\.0 k \(53\.3 k–83\.1 k\) +49\.8 k \(48\.2 k–51\.4 k\)")
        self.assertIn("goal: consume >= Kafka: no ratio, not judged", out)
        self.assertIn("kafka: no runs", out)

    def test_markdown_table(self):
        out = report.render_markdown(self.results)
        self.assertIn("| metric | brook | kafka | brook/kafka |", out)
        self.assertIn("|---|---:|---:|---:|", out)
        self.assertIn("| records/s | 812 k (790 k–830 k) | 262 k (250 k–271 k) | 3.1x |", out)
        self.assertIn("| start to ready ms | 1,910 (1,874–2,042) | 6,120 (5,870–6,400) | 0.31x |", out)
        self.assertIn("- goal: group commit >= 2x without: 0.77x, not met", out)
        self.assertIn("- **command**: `bin/brook-perf --repeats 3`", out)

    def test_markdown_escapes_pipes(self):
        w = workload(self.results, "rss-after-1M-100B")
        w["metrics"][0]["label"] = "RSS | MiB"
        self.assertIn("| RSS \\| MiB | 182 (176–190) |", report.render_markdown(self.results))

    def test_cli_prints_the_text_tables(self):
        done = run_report(FIXTURE)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("== Produce at max rate, 100 B records, 1 producer (produce-100B-1p)", done.stdout)


class RecomputeTest(unittest.TestCase):
    def test_median_of_three_runs(self):
        s = report.summarize(synthetic("higher", [3.0, 1.0, 2.0], [1.0, 1.0], 1.0))
        self.assertEqual(s["median"]["brook"]["m"], 2.0)
        self.assertEqual(s["ratios"]["kafka"]["m"], 2.0)
        self.assertEqual(report.value_range(s, "brook", "m"), (1.0, 3.0))

    def test_median_of_an_even_count_and_failed_runs_left_out(self):
        w = synthetic("higher", [1.0, 4.0], [2.0], 1.0)
        w["runs"].append({"system": "brook", "repeat": 3, "ok": False, "values": {"m": 100.0}})
        s = report.summarize(w)
        self.assertEqual(s["median"]["brook"]["m"], 2.5)
        self.assertAlmostEqual(s["ratios"]["kafka"]["m"], 1.25)
        self.assertIsNone(report.value_range(s, "kafka", "m"))  # one run: no range shown

    def test_fixture_recomputed_from_runs_matches_what_the_harness_wrote(self):
        for w in load_fixture()["workloads"]:
            with self.subTest(w["name"]):
                given, redone = report.summarize(w), report.summarize(strip_derived(w))
                self.assert_same_values(given["median"], redone["median"], w["systems"], w["metrics"], 6)
                self.assert_same_values(given["ratios"], redone["ratios"], w["systems"][1:], w["metrics"], 3)
                self.assertEqual(redone["goal_met"], w["goal_met"])

    def assert_same_values(self, given, redone, systems, metrics, places):
        for system in systems:
            for m in metrics:
                want = report.lookup(given, system, m["key"])
                got = report.lookup(redone, system, m["key"])
                if want is None:
                    self.assertIsNone(got)
                else:
                    self.assertAlmostEqual(got, want, places=places)

    def test_recomputed_produce_numbers(self):
        w = strip_derived(workload(load_fixture(), "produce-100B-1p"))
        s = report.summarize(w)
        self.assertEqual(s["median"]["brook"]["records_per_s"], 812345.0)
        self.assertEqual(s["median"]["kafka"]["records_per_s"], 262118.0)
        self.assertAlmostEqual(s["ratios"]["kafka"]["records_per_s"], 812345 / 262118)
        self.assertTrue(s["goal_met"])
        self.assertIn("| records/s | 812 k (790 k–830 k) | 262 k (250 k–271 k) | 3.1x |",
                      report.render_markdown({"workloads": [w]}))

    def test_given_numbers_are_used_as_given(self):
        w = synthetic("higher", [3.0, 1.0, 2.0], [1.0, 1.0], 1.0)
        w["median"] = {"brook": {"m": 7.0}, "kafka": {"m": 1.0}}
        w["ratios"] = {"kafka": {"m": 9.0}}
        w["goal_met"] = False
        s = report.summarize(w)
        self.assertEqual(s["median"]["brook"]["m"], 7.0)
        self.assertEqual(s["goal_ratio"], 9.0)
        self.assertFalse(s["goal_met"])

    def test_a_missing_median_entry_is_recomputed_the_given_ones_kept(self):
        w = synthetic("higher", [3.0, 1.0, 2.0], [4.0, 6.0], 1.0)
        w["median"] = {"brook": {"m": 8.0}}
        s = report.summarize(w)
        self.assertEqual(s["median"]["brook"]["m"], 8.0)
        self.assertEqual(s["median"]["kafka"]["m"], 5.0)
        self.assertEqual(s["ratios"]["kafka"]["m"], 1.6)

    def test_ratios_from_given_medians_when_only_ratios_are_missing(self):
        w = synthetic("higher", [3.0], [1.0], 1.0)
        w["median"] = {"brook": {"m": 6.0}, "kafka": {"m": 2.0}}
        self.assertEqual(report.summarize(w)["ratios"]["kafka"]["m"], 3.0)

    def test_tolerates_missing_optional_keys(self):
        w = {"runs": [{"system": "brook", "ok": True, "values": {"x": 1.0}},
                      {"system": "kafka", "ok": True, "values": {"x": 4.0}}]}
        s = report.summarize(w)
        self.assertEqual(s["systems"], ["brook", "kafka"])
        self.assertEqual(s["peer"], "kafka")
        self.assertEqual(s["ratios"]["kafka"]["x"], 0.25)
        self.assertIsNone(s["goal_met"])
        for render in (report.render_text, report.render_markdown, report.render_svg):
            render({"workloads": [w]})


class GoalTest(unittest.TestCase):
    def goal_met(self, better, subject, peer, goal_ratio):
        return report.summarize(synthetic(better, [subject], [peer], goal_ratio))["goal_met"]

    def test_higher_is_better(self):
        self.assertTrue(self.goal_met("higher", 310.0, 100.0, 3.0))
        self.assertTrue(self.goal_met("higher", 300.0, 100.0, 3.0))  # exactly at the goal
        self.assertFalse(self.goal_met("higher", 290.0, 100.0, 3.0))

    def test_lower_is_better(self):
        self.assertTrue(self.goal_met("lower", 4.0, 10.0, 0.5))
        self.assertTrue(self.goal_met("lower", 5.0, 10.0, 0.5))
        self.assertFalse(self.goal_met("lower", 6.0, 10.0, 0.5))

    def test_goal_is_taken_against_the_peer_not_the_first_other(self):
        w = workload(load_fixture(), "synced-16-producers")
        s = report.summarize(strip_derived(w))
        # brook/brook-no-group-commit 0.77 (the peer) misses 2x; brook/kafka-flush 1.7 is not it
        self.assertAlmostEqual(s["goal_ratio"], 5400 / 7024)
        self.assertFalse(s["goal_met"])

    def test_no_goal_and_no_peer_runs_are_not_judged(self):
        fixture = load_fixture()
        self.assertIsNone(report.summarize(strip_derived(workload(fixture, "rss-after-1M-100B")))["goal_met"])
        self.assertIsNone(report.summarize(strip_derived(workload(fixture, "consume-1KiB-backlog")))["goal_met"])

    def test_goal_lines(self):
        s = report.summarize(synthetic("lower", [4.0], [10.0], 0.5))
        self.assertEqual(report.goal_line(s), "goal: g: 0.40x, met")
        s = report.summarize(synthetic("higher", [4.0], [10.0], 0.5))
        self.assertEqual(report.goal_line(s), "goal: g: 0.40x, not met")


def two_goals(cpu_subject, cpu_peer, with_verdicts=None):
    """A Kafka-protocol workload as the harness writes it: brook-kafka against kafka, a throughput
    goal and a CPU-per-record goal; with_verdicts: the "met" of each goal as written, else none."""
    runs = [{"system": "brook-kafka", "repeat": 1, "ok": True,
             "values": {"records_per_s": 120.0, "broker_cpu_us_per_record": cpu_subject}},
            {"system": "kafka", "repeat": 1, "ok": True,
             "values": {"records_per_s": 100.0, "broker_cpu_us_per_record": cpu_peer}}]
    goals = [{"metric": "records_per_s", "ratio": 1.0, "text": "throughput >= 1x Kafka"},
             {"metric": "broker_cpu_us_per_record", "ratio": 0.5, "text": "CPU/record <= 0.5x Kafka"}]
    if with_verdicts is not None:
        for g, met in zip(goals, with_verdicts):
            g["met"] = met
    return {"name": "kafka-produce-100B", "systems": ["brook-kafka", "kafka"], "peer": "kafka",
            "metrics": [{"key": "records_per_s", "label": "records/s", "better": "higher"},
                        {"key": "broker_cpu_us_per_record", "label": "broker CPU µs/record", "better": "lower"}],
            "goal": goals[0], "goals": goals, "runs": runs}


class SeveralGoalsTest(unittest.TestCase):
    def test_each_goal_is_judged_on_its_own_metric(self):
        s = report.summarize(two_goals(4.0, 10.0))
        self.assertEqual([(g["goal"]["metric"], g["met"]) for g in s["goals"]],
                         [("records_per_s", True), ("broker_cpu_us_per_record", True)])
        self.assertAlmostEqual(s["goals"][1]["ratio"], 0.4)
        self.assertTrue(report.goals_met(s))
        s = report.summarize(two_goals(6.0, 10.0))
        self.assertEqual([g["met"] for g in s["goals"]], [True, False])
        self.assertFalse(report.goals_met(s))

    def test_verdicts_written_by_the_harness_are_used_as_given(self):
        s = report.summarize(two_goals(4.0, 10.0, with_verdicts=[False, None]))
        self.assertEqual([g["met"] for g in s["goals"]], [False, None])
        self.assertFalse(s["goal_met"])  # the first goal stands for the workload in older callers

    def test_a_line_per_goal_in_text_and_markdown(self):
        results = {"mode": "full", "workloads": [two_goals(6.0, 10.0)]}
        out = report.render_text(results)
        self.assertIn("goal: throughput >= 1x Kafka: 1.2x, met\n"
                      "goal: CPU/record <= 0.5x Kafka: 0.60x, not met\n", out)
        self.assertIn("goals:     1 met, 1 not met", out)
        self.assertRegex(out, r"metric +brook-kafka +kafka +brook-kafka/kafka")
        self.assertRegex(out, r"broker CPU µs/record +6\.00 +10\.0 +0\.60x")
        md = report.render_markdown(results)
        self.assertIn("- goal: throughput >= 1x Kafka: 1.2x, met\n- goal: CPU/record <= 0.5x Kafka: 0.60x, not met",
                      md)

    def test_the_plot_marks_the_goal_of_the_first_metric_in_the_colour_of_all_goals(self):
        root = ET.fromstring(report.render_svg({"workloads": [two_goals(6.0, 10.0)]}).encode("utf-8"))
        texts = [t for t in root.iter(SVG + "text")]
        self.assertIn("goal 1x kafka", [t.text for t in texts])  # the throughput goal's line on the bars
        line = next(t for t in texts if (t.text or "").startswith("goal: throughput"))
        self.assertIn("CPU/record <= 0.5x Kafka: 0.60x, not met", line.text)
        self.assertEqual(line.get("fill"), report.BAD)  # one goal missed
        self.assertIn(report.BROOK_KAFKA, {r.get("fill") for r in root.iter(SVG + "rect")})

    def test_a_single_goal_file_reads_as_one_goal(self):
        w = two_goals(4.0, 10.0)
        del w["goals"]
        s = report.summarize(w)
        self.assertEqual(len(s["goals"]), 1)
        self.assertEqual(report.goal_lines(s), ["goal: throughput >= 1x Kafka: 1.2x, met"])


class SvgTest(unittest.TestCase):
    def setUp(self):
        self.results = load_fixture()

    def parse(self, results):
        return ET.fromstring(report.render_svg(results).encode("utf-8"))

    def panels(self, root):
        return [g for g in root.iter(SVG + "g") if g.get("class") == "panel"]

    def test_one_panel_per_workload(self):
        root = self.parse(self.results)
        self.assertEqual(root.tag, SVG + "svg")
        self.assertEqual(root.get("width"), "1000")
        panels = self.panels(root)
        self.assertEqual(len(panels), 7)
        self.assertEqual([p.get("id") for p in panels],
                         ["panel-" + w["name"] for w in self.results["workloads"]])

    def test_latency_curves_only_where_there_are_percentiles(self):
        for panel in self.panels(self.parse(self.results)):
            lines = list(panel.iter(SVG + "polyline"))
            want = 2 if panel.get("id") == "panel-e2e-latency-100B-20k" else 0
            self.assertEqual(len(lines), want, panel.get("id"))

    def test_bars_values_ratios_and_goal_in_a_panel(self):
        panel = next(p for p in self.panels(self.parse(self.results))
                     if p.get("id") == "panel-produce-100B-1p")
        texts = [t.text for t in panel.iter(SVG + "text")]
        self.assertIn("812 k = 3.1x kafka", texts)
        self.assertIn("262 k", texts)
        self.assertIn("goal 3x kafka", texts)
        bars = [r for r in panel.iter(SVG + "rect") if r.get("fill") in (report.BROOK, report.KAFKA)]
        self.assertEqual(len(bars), 2)
        # the bars are in proportion to the medians
        widths = [float(b.get("width")) for b in bars]
        self.assertAlmostEqual(widths[0] / widths[1], 812345 / 262118, places=3)

    def test_a_system_without_runs_has_no_bar(self):
        panel = next(p for p in self.panels(self.parse(self.results))
                     if p.get("id") == "panel-consume-1KiB-backlog")
        self.assertIn("no runs", [t.text for t in panel.iter(SVG + "text")])
        self.assertNotIn(report.KAFKA, [r.get("fill") for r in panel.iter(SVG + "rect")])

    def test_colours_are_per_system(self):
        root = self.parse(self.results)
        fills = {r.get("fill") for r in root.iter(SVG + "rect")}
        self.assertTrue({report.BROOK, report.KAFKA} <= fills)
        styles = report.system_styles([report.summarize(w) for w in self.results["workloads"]])
        self.assertIn(styles["brook-no-group-commit"][0], report.GREYS)
        self.assertIn(styles["kafka-flush"][0], report.GREYS)
        self.assertNotEqual(styles["brook-no-group-commit"], styles["kafka-flush"])

    def test_text_is_escaped(self):
        workload(self.results, "rss-after-1M-100B")["title"] = 'RSS <of> "both" & more'
        root = self.parse(self.results)  # raises if the SVG is not well-formed
        self.assertIn('RSS <of> "both" & more (rss-after-1M-100B)',
                      [t.text for t in root.iter(SVG + "text")])

    def test_cli_writes_the_svg(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "plot.svg")
            done = run_report(FIXTURE, "--svg", out)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertEqual(len(self.panels(ET.parse(out).getroot())), 7)


class CheckTest(unittest.TestCase):
    def test_fails_on_a_workload_without_kafka_runs(self):
        done = run_report(FIXTURE, "--check")
        self.assertEqual(done.returncode, 1)
        self.assertIn("report: consume-1KiB-backlog: no ok run for kafka (no runs at all)", done.stderr)
        self.assertEqual(done.stderr.count("report:"), 1)  # the failed ack run still leaves two ok

    def test_passes_without_that_workload(self):
        results = load_fixture()
        results["workloads"] = [w for w in results["workloads"] if w["name"] != "consume-1KiB-backlog"]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "results.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(results, f)
            done = run_report(path, "--check")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout, "report: 6 workloads, 38 runs ok\n")

    def test_fails_when_every_run_of_a_system_failed(self):
        results = load_fixture()
        for r in workload(results, "rss-after-1M-100B")["runs"]:
            if r["system"] == "kafka":
                r["ok"] = False
        err = io.StringIO()
        self.assertEqual(report.check(results, io.StringIO(), err), 1)
        self.assertIn("report: rss-after-1M-100B: no ok run for kafka\n", err.getvalue())

    def test_unreadable_file(self):
        done = run_report(os.path.join(HERE, "testdata", "no-such-file.json"), "--check")
        self.assertEqual(done.returncode, 2)
        self.assertIn("cannot read", done.stderr)

    def test_check_prints_no_tables(self):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            self.assertEqual(report.main([FIXTURE, "--check"]), 1)
        self.assertEqual(out.getvalue(), "")
        self.assertIn("consume-1KiB-backlog", err.getvalue())


class FormatTest(unittest.TestCase):
    def test_numbers(self):
        cases = [(812345.0, "records_per_s", "812 k"), (1220000.0, "records_per_s", "1.22 M"),
                 (67012.0, "records_per_s", "67.0 k"), (5400.0, "records_per_s", "5,400"),
                 (81.2, "mb_per_s", "81.2"), (1910.0, "ready_ms", "1,910"), (4.1, "p99_ms", "4.10"),
                 (0.42, "p50_ms", "0.42"), (182.0, "rss_mib", "182"), (None, "p50_ms", "-")]
        for v, key, want in cases:
            self.assertEqual(report.fmt_metric(v, key), want, (v, key))

    def test_ratios(self):
        self.assertEqual(report.fmt_ratio(3.0992), "3.1x")
        self.assertEqual(report.fmt_ratio(0.6308), "0.63x")
        self.assertEqual(report.fmt_ratio(12.4), "12x")
        self.assertEqual(report.fmt_ratio(None), "-")


if __name__ == "__main__":
    unittest.main()
