"""Every subcommand's --help lists exactly the options it takes (issue 22).

usage: help_options.py TIDAL

For each command, the options are read from `tidal CMD --help` (lines
"  -x ..." / "  --name ..."); every option any command lists is then given
to every command: a command must take each option its help lists - in both
spellings, "--opt value" and "--opt=value", for one with a value - and must
refuse each it does not list, naming it (and for a typo of one it takes,
suggesting it).  The --format line must name exactly the formats the
command accepts."""
import re
import subprocess
import sys

COMMANDS = ["graph", "kernels", "rewrite", "replay", "fit", "report"]
REFUSED = re.compile(r"unknown option|does not take|has no option")
# a value each option accepts, so a refusal can only be about the option
VALUES = {"--format": "text", "--bind": "N=4", "--loop": "x.cu:3", "-p": "/nonexistent",
          "--plan": "auto", "--budget": "8M", "--max-ops": "100", "--min-coverage": "50",
          "-o": "/dev/null", "--runtime-planner": "hints", "--iterations": "3", "--chunk": "4K",
          "--cost": "latency=10u", "--costs": "/nonexistent", "--profile": "/nonexistent",
          "--trace": "/tmp/tidal-help-test-trace.json", "--timeline": "/tmp/tidal-help-test.svg",
          "--break": "none", "--vary": "B=1..2", "--max-overhead": "25%", "--iteration": "0",
          "--title": "x"}


def run(tidal, args):
    p = subprocess.run([tidal, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=60)
    return p.returncode, p.stdout + p.stderr


def listed(tidal, cmd):
    rc, out = run(tidal, [cmd, "--help"])
    if rc != 0:
        sys.exit(f"tidal {cmd} --help exited {rc}")
    opts = {}
    for line in out.splitlines():
        m = re.match(r"^  (-[-\w]+)(?:,\s*(-[-\w]+))?(?:[ =]([A-Z][\w.=]*))?", line)
        if m:
            for name in (m.group(1), m.group(2)):
                if name:
                    opts[name] = m.group(3) is not None
    return opts, out


def main():
    tidal = sys.argv[1]
    errs = []
    helps = {c: listed(tidal, c) for c in COMMANDS}
    every = {}
    for c, (opts, _) in helps.items():
        every.update(opts)
    for c in COMMANDS:
        opts, text = helps[c]
        m = re.search(r"--format FMT\s+output format: ([^(]*?) \(default", text)
        if "--format" in opts:
            formats = set(re.findall(r"\w+", m.group(1)) if m else []) - {"or"}
            for f in ("text", "json", "dot"):
                rc, out = run(tidal, [c, "--format", f, "x.cu"])
                took = "does not support --format" not in out
                if took != (f in formats):
                    errs.append(f"{c}: --help lists formats {sorted(formats)}, --format {f} "
                                f"{'accepted' if took else 'refused'}")
        for name, has_value in sorted(every.items()):
            if name in ("-h", "--help", "--"):
                continue
            value = VALUES.get(name, "1")
            forms = [[name, value], [f"{name}={value}"]] if has_value else [[name]]
            for form in forms:
                rc, out = run(tidal, [c, *form, "x.cu"])
                refused = bool(REFUSED.search(out))
                if name in opts and refused:
                    errs.append(f"{c}: --help lists {name} but {' '.join(form)} is refused: "
                                f"{out.strip()[:200]}")
                if name not in opts and not refused:
                    errs.append(f"{c}: takes {' '.join(form)}, which its --help does not list")
        # a typo of an option it takes gets a suggestion
        for name in opts:
            if name.startswith("--") and len(name) > 6:
                typo = name[:3] + name[4] + name[3] + name[5:]  # two letters swapped
                rc, out = run(tidal, [c, typo, "x.cu"])
                if f"did you mean '{name}'?" not in out:
                    errs.append(f"{c}: {typo} gets no suggestion of {name}: {out.strip()[:200]}")
                break
    if errs:
        sys.exit("\n".join(errs))
    print("ok:", {c: sorted(helps[c][0]) for c in COMMANDS})


main()
