"""Checks `tidal graph --format json`'s op-site argument ranges against the
source (test/pass/graph-json-op-sites.cu): each call range (begin, end) holds
the argument's text, each spelled range the same text when it has one;
lists the spelled text of arguments that have no range at the call (inside
a macro's argument list).  usage: site_ranges.py GRAPH.json SOURCE"""
import json
import sys

graph = json.load(open(sys.argv[1]))
src = open(sys.argv[2], "rb").read().decode()
calls = spelled = call_bad = spelled_bad = 0
only = []
for site in graph["sites"]:
    for a in site["args"] + site["config"]:
        if a["begin"] is not None:
            calls += 1
            call_bad += src[a["begin"]:a["end"]] != a["text"]
        if a["spelled"] is not None:
            spelled += 1
            text = src[a["spelled"][0]:a["spelled"][1]]
            if a["begin"] is None:
                only.append(text)
            else:
                spelled_bad += text != a["text"]
print(f"{calls} call ranges, {call_bad} differ; {spelled} spelled ranges, {spelled_bad} differ")
print("spelled only: " + " | ".join(only))
