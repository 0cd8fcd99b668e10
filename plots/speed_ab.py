#!/usr/bin/env python3
"""Two sets of speed reports of the same workload (build/bin/speed ... --set out=X), before and after a change,
as one markdown table: per shape, cell and thread count, each report's training and inference words/s, the
means and after/before. Several reports per side are sittings of the same binary (their spread is the noise).

  /usr/bin/python3 plots/speed_ab.py --before A.json [A2.json ...] --after B.json [B2.json ...] [--rss] [--out FILE]

--rss adds each side's peak RSS (MiB, the report's peak_rss_mb: the process's high-water mark after that
configuration, the configurations run in table order) and after / before of the means.

Standard library only. A configuration measured on one side only is listed with "–" on the other. Exit 2 on
a missing or unreadable report (named).
"""
import argparse
import json
import sys


def read(paths, side, rss=False):
    """{(shape, cell, threads): [(train words/s, inference words/s[, peak RSS MiB]), ...]} over the reports of
    one side."""
    out = {}
    for p in paths:
        try:
            with open(p, encoding="utf-8") as f:
                records = json.load(f)["records"]
            for r in records:
                out.setdefault((r["shape"], r["cell"], r["threads"]), []).append(
                    (float(r["train_words_s"]), float(r["infer_words_s"]))
                    + ((float(r["peak_rss_mb"]),) if rss else ()))
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"speed_ab.py: {side} report {p}: cannot read it as a speed report ({e})", file=sys.stderr)
            sys.exit(2)
    return out


def table(before, after, rss=False):
    def fmt(vals):
        return " / ".join(f"{v:,.0f}" for v in vals) if vals else "–"

    def ratio(b, a):
        return f"{(sum(a) / len(a)) / (sum(b) / len(b)):.2f}x" if a and b else "–"

    lines = ["| shape | cell | threads | train words/s before | after | after / before | "
             "inference words/s before | after | after / before |" + (
                 " peak RSS MiB before | after | after / before |" if rss else ""),
             "|---|---|---:|---:|---:|---:|---:|---:|---:|" + ("---:|---:|---:|" if rss else "")]
    for key in sorted(set(before) | set(after)):
        b, a = before.get(key, []), after.get(key, [])
        bt, at = [v[0] for v in b], [v[0] for v in a]
        bi, ai = [v[1] for v in b], [v[1] for v in a]
        row = (f"| {key[0]} | {key[1]} | {key[2]} | {fmt(bt)} | {fmt(at)} | {ratio(bt, at)} | "
               f"{fmt(bi)} | {fmt(ai)} | {ratio(bi, ai)} |")
        if rss:
            br, ar = [v[2] for v in b], [v[2] for v in a]
            row += f" {fmt(br)} | {fmt(ar)} | {ratio(br, ar)} |"
        lines.append(row)
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", nargs="+", required=True)
    ap.add_argument("--after", nargs="+", required=True)
    ap.add_argument("--rss", action="store_true", help="add the peak RSS columns")
    ap.add_argument("--out", help="write the table here (default: standard output)")
    a = ap.parse_args(argv)
    text = table(read(a.before, "--before", a.rss), read(a.after, "--after", a.rss), a.rss)
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
