#!/usr/bin/env python3
"""Reports a brook-perf results file (Brook against Apache Kafka): tables, ratios, goals, a plot.

Usage:
  python3 perf/report.py RESULTS.json                 plain text tables to stdout
  python3 perf/report.py RESULTS.json --markdown      markdown tables (for docs/PERFORMANCE.md)
  python3 perf/report.py RESULTS.json --svg OUT.svg   also writes the plot
  python3 perf/report.py RESULTS.json --check         exit 1 (a message per problem) unless every
                                                      workload has an ok run for each of its systems;
                                                      prints "report: N workloads, M runs ok" (no tables)

Medians, ratios and goal verdicts are used as the harness wrote them; any that are missing are
recomputed from the ok runs. A ratio is always median(subject) / median(other), subject = systems[0], whatever
the metric's "better" says; a goal is met when ratio >= goal.ratio ("higher") or <= ("lower").
A workload has a list of goals ("goals", each with its "met"), or one ("goal" and "goal_met", as
files written before several goals were possible).
Standard library only.
"""
import argparse
import json
import math
import statistics
import sys
from xml.sax.saxutils import escape, quoteattr


# ---------------------------------------------------------------- derived numbers

def unique(items):
    """Items in first-seen order, without repeats or None."""
    seen = []
    for i in items:
        if i is not None and i not in seen:
            seen.append(i)
    return seen


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def metric_values(runs, key):
    return [r["values"][key] for r in runs if is_number((r.get("values") or {}).get(key))]


def median_of(values):
    return statistics.median(values) if values else None


def ratio_of(a, b):
    return a / b if is_number(a) and is_number(b) and b != 0 else None


def lookup(table, system, key):
    """table[system][key], or None when any level is missing (the harness may write nulls)."""
    v = ((table or {}).get(system) or {}).get(key)
    return v if is_number(v) else None


def judge(goal, ratio, better):
    """True/False for a goal on a ratio; None when there is no goal or no ratio to judge."""
    if not goal or ratio is None or not is_number(goal.get("ratio")):
        return None
    return ratio <= goal["ratio"] if better == "lower" else ratio >= goal["ratio"]


def summarize(w):
    """The workload with defaults filled in and everything the tables and the plot need."""
    runs = w.get("runs") or []
    systems = w.get("systems") or unique(r.get("system") for r in runs)
    metrics = w.get("metrics") or [
        {"key": k, "label": k} for k in unique(k for r in runs for k in (r.get("values") or {}))]
    keys = [m["key"] for m in metrics]
    ok = {s: [r for r in runs if r.get("system") == s and r.get("ok")] for s in systems}
    subject, others = (systems[0], systems[1:]) if systems else (None, [])

    median = overlay({s: {k: median_of(metric_values(ok[s], k)) for k in keys} for s in systems},
                     w.get("median"))
    ratios = overlay({o: {k: ratio_of(lookup(median, subject, k), lookup(median, o, k))
                          for k in keys} for o in others}, w.get("ratios"))

    peer = w.get("peer") or (others[0] if others else None)
    goals = []
    for i, goal in enumerate(w.get("goals") or ([w["goal"]] if w.get("goal") else [])):
        ratio = lookup(ratios, peer, goal.get("metric"))
        # a verdict may legitimately be null (nothing to judge): only a missing key means recompute.
        if "met" in goal:
            met = goal["met"]
        elif i == 0 and "goal_met" in w:
            met = w["goal_met"]
        else:
            met = judge(goal, ratio, better_of(metrics, goal.get("metric")))
        goals.append({"goal": goal, "ratio": ratio, "met": met})
    first = goals[0] if goals else {"goal": None, "ratio": None, "met": None}

    return {
        "name": w.get("name", "?"), "title": w.get("title") or w.get("name", "?"),
        "params": w.get("params") or {}, "systems": systems, "subject": subject, "others": others,
        "peer": peer, "metrics": metrics, "runs": runs, "ok": ok, "median": median,
        "ratios": ratios, "goals": goals,
        # the first goal, as the plot's goal line and older callers use it
        "goal": first["goal"], "goal_ratio": first["ratio"], "goal_met": first["met"],
        "percentiles": w.get("latency_percentiles") or {},
    }


def overlay(computed, given):
    """computed[system][key], replaced by the harness's number wherever it wrote one."""
    for system, values in computed.items():
        for key in values:
            v = lookup(given, system, key)
            if v is not None:
                values[key] = v
    return computed


def better_of(metrics, key):
    for m in metrics:
        if m.get("key") == key:
            return m.get("better", "higher")
    return "higher"


def value_range(s, system, key):
    """(min, max) over the ok runs, or None with fewer than two values (nothing to show)."""
    values = metric_values(s["ok"].get(system, []), key)
    return (min(values), max(values)) if len(values) >= 2 else None


# ---------------------------------------------------------------- number formatting

def fmt_number(v, scale=False):
    """About three significant digits; scale=True writes large rates as k / M."""
    if not is_number(v):
        return "-"
    a = abs(v)
    if scale and a >= 1e6:
        return fmt_number(v / 1e6) + " M"
    if scale and a >= 1e4:
        return fmt_number(v / 1e3) + " k"
    if a >= 100:
        return f"{v:,.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}" if a else "0"


def fmt_metric(v, key):
    # Rates (records/s) read best as k / M; milliseconds and MiB keep their unit's digits.
    return fmt_number(v, scale="per_s" in key)


def fmt_ratio(r):
    if r is None:
        return "-"
    if r >= 10:
        return f"{r:.0f}x"
    return f"{r:.1f}x" if r >= 1 else f"{r:.2f}x"


def fmt_cell(s, system, key):
    med = lookup(s["median"], system, key)
    if med is None:
        return "-"
    rng = value_range(s, system, key)
    text = fmt_metric(med, key)
    if rng:
        text += f" ({fmt_metric(rng[0], key)}–{fmt_metric(rng[1], key)})"
    return text


def fmt_param(v):
    return f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else str(v)


def params_line(s):
    return " · ".join(f"{k} {fmt_param(v)}" for k, v in s["params"].items())


def goal_lines(s):
    """One line per goal: its text, the ratio, the verdict."""
    lines = []
    for g in s["goals"]:
        text = g["goal"].get("text") or default_goal_text(s, g["goal"])
        verdict = {True: "met", False: "not met"}.get(g["met"], "not judged")
        ratio = "no ratio" if g["ratio"] is None else fmt_ratio(g["ratio"])
        lines.append(f"goal: {text}: {ratio}, {verdict}")
    return lines


def goal_line(s):
    """The goals on one line (None without any)."""
    return "; ".join(goal_lines(s)) or None


def goals_met(s):
    """True when every goal is met, False when one is not, None when none was judged."""
    verdicts = [g["met"] for g in s["goals"]]
    return False if False in verdicts else (True if True in verdicts else None)


def default_goal_text(s, goal):
    op = "<=" if better_of(s["metrics"], goal.get("metric")) == "lower" else ">="
    return f"{goal.get('metric')} {s['subject']}/{s['peer']} {op} {goal.get('ratio')}x"


def problem_lines(s):
    """Failed runs with their notes, and systems that have nothing to show."""
    lines = []
    for r in s["runs"]:
        if not r.get("ok"):
            note = r.get("note") or "no note"
            lines.append(f"failed: {r.get('system')} repeat {r.get('repeat', '?')}: {note}")
    for system in s["systems"]:
        if not s["ok"][system]:
            has_runs = any(r.get("system") == system for r in s["runs"])
            lines.append(f"{system}: {'no ok runs' if has_runs else 'no runs'}")
    return lines


# ---------------------------------------------------------------- tables

def heading(s):
    return s["title"] if s["title"] == s["name"] else f"{s['title']} ({s['name']})"


def table(s):
    """Header and rows: one row per metric, a median column per system, a ratio column per other."""
    header = ["metric"] + s["systems"] + [f"{s['subject']}/{o}" for o in s["others"]]
    rows = []
    for m in s["metrics"]:
        key = m["key"]
        row = [m.get("label", key)]
        row += [fmt_cell(s, system, key) for system in s["systems"]]
        row += [fmt_ratio(lookup(s["ratios"], o, key)) for o in s["others"]]
        rows.append(row)
    return header, rows


def machine_line(m):
    parts = [
        f"{m['cores']} cores" if m.get("cores") else None, m.get("cpu"),
        f"{m['memory_gib']} GiB" if m.get("memory_gib") else None, m.get("os"),
        f"Java {m['java']}" if m.get("java") else None,
        f"Kafka {m['kafka_version']}" if m.get("kafka_version") else None,
        f"Brook {m['brook_version']}" if m.get("brook_version") else None,
    ]
    return ", ".join(p for p in parts if p) or "-"


def header_fields(results, summaries):
    mode = results.get("mode", "?")
    if mode == "smoke":
        mode += " (short runs that prove the harness works: not measurements)"
    if results.get("repeats"):
        mode += f", {results['repeats']} repeats"
    steal = results.get("cpu_steal_percent")
    verdicts = [g["met"] for s in summaries for g in s["goals"]]
    goals = (f"{verdicts.count(True)} met, {verdicts.count(False)} not met"
             + (f", {verdicts.count(None)} not judged" if None in verdicts else ""))
    return [
        ("machine", machine_line(results.get("machine") or {})),
        ("mode", mode),
        ("when", f"{results.get('started', '?')} to {results.get('finished', '?')}"),
        ("CPU steal", f"{steal:g} %" if is_number(steal) else "-"),
        ("command", results.get("command", "-")),
        ("goals", goals if verdicts else "none"),
    ]


def render_text(results):
    summaries = [summarize(w) for w in results.get("workloads") or []]
    out = [f"Brook performance report ({results.get('tool', 'brook-perf')}, "
           f"schema {results.get('schema', '?')})"]
    out += [f"{k + ':':<11}{v}" for k, v in header_fields(results, summaries)]
    for s in summaries:
        out += ["", f"== {heading(s)}"]
        if s["params"]:
            out.append(params_line(s))
        header, rows = table(s)
        widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
        for r in [header] + rows:
            cells = [r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:])]
            out.append("  ".join(cells).rstrip())
        for line in goal_lines(s) + problem_lines(s):
            out.append(line)
    return "\n".join(out) + "\n"


def md_escape(text):
    return str(text).replace("\\", "\\\\").replace("|", "\\|")


def render_markdown(results):
    summaries = [summarize(w) for w in results.get("workloads") or []]
    out = [f"Results of `{results.get('tool', 'brook-perf')}` (schema {results.get('schema', '?')}):", ""]
    for k, v in header_fields(results, summaries):
        out.append(f"- **{k}**: `{v}`" if k == "command" else f"- **{k}**: {md_escape(v)}")
    for s in summaries:
        out += ["", f"### {md_escape(s['title'])} (`{s['name']}`)", ""]
        if s["params"]:
            out += [md_escape(params_line(s)), ""]
        header, rows = table(s)
        out.append("| " + " | ".join(md_escape(h) for h in header) + " |")
        out.append("|---|" + "---:|" * (len(header) - 1))
        for r in rows:
            out.append("| " + " | ".join(md_escape(c) for c in r) + " |")
        notes = goal_lines(s) + problem_lines(s)
        if notes:
            out.append("")
            out += [f"- {md_escape(n)}" for n in notes]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- SVG plot

WIDTH = 1000
MARGIN = 20
BROOK, KAFKA = "#1f6fb4", "#e8731a"
BROOK_KAFKA = "#5a9bd5"
GREYS = ["#6e6e6e", "#a8a8a8", "#3c3c3c", "#c8c8c8"]
DASHES = ["6 3", "2 2", "8 3 2 3", "1 3"]
GOOD, BAD = "#2a8a3a", "#c0392b"


def system_styles(summaries):
    """Colour (and a dash for the latency lines) per system name, the same in every panel."""
    styles, grey = {}, 0
    for s in summaries:
        for system in s["systems"]:
            if system in styles:
                continue
            if system == "brook":
                styles[system] = (BROOK, None)
            elif system == "brook-kafka":  # Brook's broker through its Kafka listener
                styles[system] = (BROOK_KAFKA, None)
            elif system == "kafka":
                styles[system] = (KAFKA, None)
            else:  # baselines: greys, told apart by dashes where lines cross
                styles[system] = (GREYS[grey % len(GREYS)], DASHES[grey % len(DASHES)])
                grey += 1
    return styles


def text(x, y, content, size=12, anchor="start", fill="#222", weight=None):
    extra = f' font-weight="{weight}"' if weight else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
            f'fill="{fill}"{extra}>{escape(str(content))}</text>')


def line(x1, y1, x2, y2, stroke="#222", width=1, dash=None):
    extra = f' stroke-dasharray="{dash}"' if dash else ""
    return (f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{stroke}" '
            f'stroke-width="{width}"{extra}/>')


def clip(content, chars):
    # SVG text does not wrap: long lines are cut rather than run off the panel.
    return content if len(content) <= chars else content[:chars - 1] + "…"


def goal_of(s, key):
    """The first goal on `key` ({"goal", "ratio", "met"}), or None."""
    return next((g for g in s["goals"] if g["goal"].get("metric") == key), None)


def goal_value(s, key):
    """Where the goal on `key` sits on its bars: goal.ratio x the peer's median, or None."""
    g = goal_of(s, key)
    if not g or not is_number(g["goal"].get("ratio")):
        return None
    peer_median = lookup(s["median"], s["peer"], key)
    return g["goal"]["ratio"] * peer_median if peer_median is not None else None


def bar_row(s, system, key, px, cy, colour):
    """One system's bar, whisker and value: (shapes, labels), labels drawn last to stay on top."""
    bar_h = 16
    med = lookup(s["median"], system, key)
    if med is None:
        has_runs = any(r.get("system") == system for r in s["runs"])
        return [], [text(px(0) + 6, cy + 4, "no ok runs" if has_runs else "no runs", fill=BAD)]
    shapes = [f'<rect x="{px(0):.1f}" y="{cy - bar_h / 2:.1f}" width="{px(med) - px(0):.1f}" '
              f'height="{bar_h}" fill="{colour}"/>']
    end = px(med)
    rng = value_range(s, system, key)
    if rng:
        lo, hi = px(rng[0]), px(rng[1])
        shapes += [line(lo, cy, hi, cy, width=1.5), line(lo, cy - 5, lo, cy + 5, width=1.5),
                   line(hi, cy - 5, hi, cy + 5, width=1.5)]
        end = max(end, hi)
    value = fmt_metric(med, key)
    ratio = lookup(s["ratios"], s["peer"], key) if system == s["subject"] else None
    if ratio is not None:
        value += f" = {fmt_ratio(ratio)} {s['peer']}"
    # A white backdrop (width estimated from the length) keeps the value readable where the
    # goal line crosses it.
    backdrop = (f'<rect x="{end + 4:.1f}" y="{cy - 8:.1f}" width="{7.2 * len(value) + 4:.1f}" '
                f'height="16" fill="white" opacity="0.9"/>')
    subject = system == s["subject"]
    return shapes, [backdrop, text(end + 6, cy + 4, value, weight="bold" if subject else None)]


def bar_chart(s, styles, x, y, width):
    """Horizontal bars of the first metric (median per system), whiskers min–max, goal line.
    Returns (svg elements, height)."""
    metric = s["metrics"][0] if s["metrics"] else {"key": "?", "label": "?"}
    key, label = metric["key"], metric.get("label", metric["key"])
    row_h, label_w, text_w = 28, 150, 210
    x0, plot_w = x + label_w, width - label_w - text_w
    bottom = y + row_h * len(s["systems"])

    goal_v = goal_value(s, key)
    highest = [goal_v or 0]
    for system in s["systems"]:
        rng = value_range(s, system, key)
        highest += [lookup(s["median"], system, key) or 0, rng[1] if rng else 0]
    top = max(highest) or 1

    def px(v):
        return x0 + max(v, 0) / top * plot_w

    shapes, labels = [line(x0, y, x0, bottom, "#888")], []
    for i, system in enumerate(s["systems"]):
        cy = y + i * row_h + row_h / 2
        labels.append(text(x0 - 8, cy + 4, clip(system, 22), anchor="end"))
        more_shapes, more_labels = bar_row(s, system, key, px, cy, styles[system][0])
        shapes += more_shapes
        labels += more_labels
    if goal_v is not None:
        g = goal_of(s, key)
        gx, colour = px(goal_v), (GOOD if g["met"] else BAD)
        shapes.append(line(gx, y - 4, gx, bottom + 2, colour, 1.5, "5 3"))
        labels.append(text(gx, bottom + 14, f"goal {g['goal']['ratio']:g}x {s['peer']}",
                           10, "middle", colour))
    labels.append(text(x0, bottom + 30, f"{label}: median, whisker min–max of ok runs "
                                        f"({metric.get('better', 'higher')} is better)",
                       10, fill="#555"))
    return shapes + labels, bottom - y + 36


def nines(p):
    """Percentile to a "nines" position: 90 -> 1, 99 -> 2, 99.9 -> 3; 100 is placed by the caller."""
    return -math.log10(1 - p / 100)


def latency_chart(s, styles, x, y, width, height):
    """Latency (ms, log y) against percentile on a nines x axis, one polyline per system."""
    series = {sys_: [(p, v) for p, v in (s["percentiles"].get(sys_) or [])
                     if is_number(p) and is_number(v) and v > 0 and 0 <= p <= 100]
              for sys_ in s["systems"]}
    series = {k: v for k, v in series.items() if v}
    if not series:
        return []
    finite = [nines(p) for pts in series.values() for p, _ in pts if p < 100]
    x_max = max([4.0] + finite) + 1  # p100 (the max) one step past the last finite nines
    x_min = min([nines(50)] + finite)
    values = [v for pts in series.values() for _, v in pts]
    y_lo, y_hi = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    if y_hi == y_lo:
        y_hi += 1

    legend_h, left, bottom = 20, 46, 30
    px0, px1 = x + left, x + width - 10
    py0, py1 = y + legend_h + 8, y + height - bottom

    def pos(p, v):
        n = x_max if p >= 100 else nines(p)
        return (px0 + (n - x_min) / (x_max - x_min) * (px1 - px0),
                py1 - (math.log10(v) - y_lo) / (y_hi - y_lo) * (py1 - py0))

    els = [f'<rect x="{px0:.1f}" y="{py0:.1f}" width="{px1 - px0:.1f}" height="{py1 - py0:.1f}" '
           f'fill="none" stroke="#888"/>']
    for e in range(y_lo, y_hi + 1):
        _, gy = pos(100, 10 ** e)
        els.append(line(px0, gy, px1, gy, "#ddd"))
        els.append(text(px0 - 4, gy + 4, f"{10 ** e:g}", 10, "end", "#555"))
    for p in (50, 90, 99, 99.9, 99.99, 99.999, 100):
        if p == 100 or nines(p) <= x_max - 0.9:  # not so close to p100 that the labels overlap
            gx, _ = pos(p, 1)
            els.append(line(gx, py0, gx, py1, "#eee"))
            els.append(text(gx, py1 + 14, f"{p:g}", 10, "middle", "#555"))
    els.append(text((px0 + px1) / 2, py1 + 27, "percentile", 10, "middle", "#555"))
    els.append(text(x, y + 12, "latency ms (log)", 10, fill="#555"))

    lx = x + 110
    for system, pts in series.items():
        colour, dash = styles[system]
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        xy = [pos(p, v) for p, v in sorted(pts)]
        points = " ".join(f"{a:.1f},{b:.1f}" for a, b in xy)
        els.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"'
                   f'{dash_attr}/>')
        els += [f'<circle cx="{a:.1f}" cy="{b:.1f}" r="2.5" fill="{colour}"/>' for a, b in xy]
        els.append(line(lx, y + 8, lx + 18, y + 8, colour, 2, dash))
        els.append(text(lx + 22, y + 12, clip(system, 24), 10))
        lx += 30 + 6.5 * min(len(system), 24)
    return els


def svg_panel(s, styles, y):
    """One workload: title, params, goal, the bars, and the latency chart beside them if any."""
    inner = WIDTH - 2 * MARGIN
    els = [text(MARGIN, y + 18, clip(heading(s), 120), 14, weight="bold"),
           text(MARGIN, y + 34, clip(params_line(s), 160), 10, fill="#555")]
    goal = goal_line(s)
    if goal:
        colour = {True: GOOD, False: BAD}.get(goals_met(s), "#555")
        els.append(text(MARGIN, y + 50, clip(goal, 160), 11, fill=colour, weight="bold"))
    top = y + 64
    has_latency = any(s["percentiles"].get(sys_) for sys_ in s["systems"])
    bars_w = inner * 0.58 if has_latency else inner
    bars, bars_h = bar_chart(s, styles, MARGIN, top, bars_w)
    els += bars
    height = bars_h
    if has_latency:
        height = max(height, 200)
        els += latency_chart(s, styles, MARGIN + bars_w + 20, top - 6, inner - bars_w - 20, height)
    panel_h = top - y + height + 14
    els.append(line(MARGIN, y + panel_h - 4, WIDTH - MARGIN, y + panel_h - 4, "#ccc"))
    body = "\n  ".join(els)
    return (f'<g class="panel" id={quoteattr("panel-" + s["name"])}>\n  {body}\n</g>', panel_h)


def render_svg(results):
    summaries = [summarize(w) for w in results.get("workloads") or []]
    styles = system_styles(summaries)
    head = [text(MARGIN, 26, f"Brook vs Kafka: {results.get('tool', 'brook-perf')}, mode "
                             f"{results.get('mode', '?')}, {results.get('repeats', '?')} repeats, "
                             f"{results.get('started', '')}", 16, weight="bold"),
            text(MARGIN, 44, clip(machine_line(results.get("machine") or {}), 160), 11, fill="#555")]
    panels, y = [], 60
    for s in summaries:
        panel, h = svg_panel(s, styles, y)
        panels.append(panel)
        y += h
    height = y + MARGIN
    return "\n".join([
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0f}" '
        f'viewBox="0 0 {WIDTH} {height:.0f}" font-family="sans-serif">',
        f'<rect width="{WIDTH}" height="{height:.0f}" fill="white"/>',
        *head, *panels, "</svg>", ""])


# ---------------------------------------------------------------- check and main

def check(results, out=None, err=None):
    """0 when every workload has an ok run for each of its systems, else 1 (a line per problem)."""
    out, err = out or sys.stdout, err or sys.stderr
    workloads = results.get("workloads") or []
    problems = [] if workloads else ["no workloads"]
    ok_runs = 0
    for w in workloads:
        s = summarize(w)
        if not s["systems"]:
            problems.append(f"{s['name']}: no systems and no runs")
        for system in s["systems"]:
            ok_runs += len(s["ok"][system])
            if not s["ok"][system]:
                has_runs = any(r.get("system") == system for r in s["runs"])
                problems.append(f"{s['name']}: no ok run for {system}"
                                + ("" if has_runs else " (no runs at all)"))
    for p in problems:
        print(f"report: {p}", file=err)
    if problems:
        return 1
    print(f"report: {len(workloads)} workloads, {ok_runs} runs ok", file=out)
    return 0


def main(argv):
    parser = argparse.ArgumentParser(
        prog="report.py", description="Tables and a plot from a brook-perf results file.")
    parser.add_argument("results", help="the JSON written by the harness")
    parser.add_argument("--markdown", action="store_true", help="markdown tables instead of text")
    parser.add_argument("--svg", metavar="OUT.svg", help="also write the plot there")
    parser.add_argument("--check", action="store_true",
                        help="only check that every system of every workload has an ok run")
    args = parser.parse_args(argv)
    try:
        with open(args.results, encoding="utf-8") as f:
            results = json.load(f)
    except (OSError, ValueError) as e:
        print(f"report: cannot read {args.results}: {e}", file=sys.stderr)
        return 2
    if args.svg:
        with open(args.svg, "w", encoding="utf-8") as f:
            f.write(render_svg(results))
    if args.check:
        return check(results)
    sys.stdout.write(render_markdown(results) if args.markdown else render_text(results))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
