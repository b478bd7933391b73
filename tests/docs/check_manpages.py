#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Keeps a program's --help, its getopt table, its man page and its docs/*.md page saying the same
# options (STYLE.md: "--help and the man page say the same"), and the man page free of warnings.
"""usage: check_manpages.py GROFF PROGRAM OPTS_C MANPAGE MARKDOWN

PROGRAM is the built zcs-send or zcs-recv, OPTS_C its option parser (sender/send_opts.c,
receiver/recv_opts.c), MANPAGE docs/zcs-*.1, MARKDOWN docs/sender.md or docs/receiver.md.
Exits 0 when everything agrees, 1 with one line per disagreement otherwise."""
import os
import re
import subprocess
import sys

LONG = r'--([a-z][a-z0-9-]*)'
# "--name" not inside a longer word or option ("--source" must not match "--sources")
ANY_LONG = re.compile(r'(?<![\w-])' + LONG + r'(?![a-z0-9])')
# an option's own line: "  -f, --format FMT" or "      --unpaced" (continuation lines are
# indented further and never start with "-x, --")
HELP_DEF = re.compile(r'^ {2,8}(?:-([A-Za-z0-9]), )?' + LONG)
MAN_TAG = re.compile(r'^(?:-([A-Za-z0-9]), )?' + LONG)
PUNCT = '()[],;:\'"`.'

problems = []


def problem(msg):
    problems.append(msg)
    print('FAIL: ' + msg)


def tokens(text):
    return {t.strip(PUNCT) for t in text.split()} - {''}


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)


def parse_help(text):
    """Returns ({long: short or None}, {long: the option's entry text})."""
    opts, entries, cur = {}, {}, None
    for line in text.splitlines():
        m = HELP_DEF.match(line)
        if m:
            cur = m.group(2)
            if cur in opts:
                problem('--help lists --%s twice' % cur)
            opts[cur] = m.group(1)
            entries[cur] = line
        elif cur and line.startswith(' ' * 10):
            entries[cur] += ' ' + line.strip()
        else:
            cur = None
    return opts, entries


def parse_source(path):
    """The getopt_long table: ({long: short or None}, the short option string's letters)."""
    src = open(path, encoding='utf-8').read()
    opts = {}
    for m in re.finditer(r'\{\s*"([a-z][a-z0-9-]*)",\s*(?:no|required|optional)_argument,'
                         r'\s*NULL,\s*(\'(.)\'|\w+)\s*\}', src):
        opts[m.group(1)] = m.group(3)
    g = re.search(r'(?:getopt_long|zcs_cli_getopt)\([^,]+,[^,]+,\s*"([^"]*)"', src)
    shorts = set(re.sub(r'[^A-Za-z0-9]', '', g.group(1))) if g else None
    return opts, shorts


def render(groff, page, *extra):
    r = run([groff, '-man', '-Tutf8', '-ww'] + list(extra) + [page])
    return r.returncode, r.stdout, r.stderr


def parse_man(text):
    """Sections of the rendered page, and the OPTIONS entries: ({long: short}, {long: text})."""
    text = re.sub(r'.\x08', '', text)  # overstrikes, should grotty still make any
    sections, cur = {}, None
    for line in text.splitlines():
        if re.match(r'^[A-Z][A-Z ]*$', line):
            cur = line.strip()
            sections[cur] = []
        elif cur:
            sections[cur].append(line)
    opts, entries, opt = {}, {}, None
    for line in sections.get('OPTIONS', []):
        if re.match(r'^ {7}\S', line):
            m = MAN_TAG.match(line[7:])
            if not m:
                problem('man OPTIONS: a tag that is not an option: %r' % line.strip())
                opt = None
                continue
            opt = m.group(2)
            if opt in opts:
                problem('man OPTIONS lists --%s twice' % opt)
            opts[opt] = m.group(1)
            entries[opt] = line.strip()
        elif re.match(r'^ {3}\S', line):
            opt = None  # a subsection heading
        elif opt and line.strip():
            entries[opt] += ' ' + line.strip()
    return sections, opts, entries


def pair(long, short):
    return '-%s, --%s' % (short, long) if short else '--%s' % long


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    groff, prog, opts_c, page, md = sys.argv[1:]
    name = os.path.basename(prog)

    # 1. --help against the getopt table in the source
    r = run([prog, '--help'])
    if r.returncode != 0:
        problem('%s --help: exit status %d' % (name, r.returncode))
    help_opts, help_entries = parse_help(r.stdout)
    if len(help_opts) < 5:
        problem('%s --help: found only %d options' % (name, len(help_opts)))
    src_opts, src_shorts = parse_source(opts_c)
    for o in sorted(set(src_opts) - set(help_opts)):
        problem('%s: --%s is in the getopt table but not in --help' % (opts_c, o))
    for o in sorted(set(help_opts) - set(src_opts)):
        problem('--help lists --%s, the getopt table in %s has no such option' % (o, opts_c))
    for o in sorted(set(help_opts) & set(src_opts)):
        if help_opts[o] != src_opts[o]:
            problem('--%s: short option %s in --help, %s in %s' %
                    (o, help_opts[o], src_opts[o], opts_c))
    want_shorts = {s for s in src_opts.values() if s}
    if src_shorts is None or src_shorts != want_shorts:
        problem('%s: getopt_long short options %s, long table has %s' %
                (opts_c, sorted(src_shorts or []), sorted(want_shorts)))
    for o in sorted(set(ANY_LONG.findall(r.stdout)) - set(help_opts)):
        problem('--help mentions --%s, which it does not define' % o)

    # 2. the man page renders without a warning, at the width man uses and at a narrow one
    if not os.path.exists(groff):
        problem('groff not found (%s): install groff-base' % groff)
        return
    for extra in ([], ['-rLL=65n']):
        rc, _, err = render(groff, page, *extra)
        if rc != 0 or err.strip():
            problem('groff -man -ww %s %s: status %d, warnings:\n%s' %
                    (' '.join(extra), page, rc, err.rstrip()))

    # 3. the man page's OPTIONS against --help: the same options, pairs and defaults
    rc, text, _ = render(groff, page, '-rLL=250n', '-rHY=0', '-rcR=1', '-P-cbou')
    sections, man_opts, man_entries = parse_man(text)
    # a program without statistics (zcs-ctl) has no STATISTICS section
    stats = ('STATISTICS',) if name in ('zcs-send', 'zcs-recv') else ()
    for s in ('NAME', 'SYNOPSIS', 'DESCRIPTION', 'OPTIONS') + stats + ('EXIT STATUS',
              'EXAMPLES', 'SEE ALSO'):
        if s not in sections:
            problem('%s: no %s section' % (page, s))
    for o in sorted(set(help_opts) - set(man_opts)):
        problem('%s: OPTIONS lacks %s (it is in --help)' % (page, pair(o, help_opts[o])))
    for o in sorted(set(man_opts) - set(help_opts)):
        problem('%s: OPTIONS documents --%s, which --help does not have' % (page, o))
    for o in sorted(set(man_opts) & set(help_opts)):
        if man_opts[o] != help_opts[o]:
            problem('%s: OPTIONS says %s, --help says %s' %
                    (page, pair(o, man_opts[o]), pair(o, help_opts[o])))
    for o in sorted(set(ANY_LONG.findall(text)) - set(help_opts)):
        problem('%s mentions --%s, which %s --help does not have' % (page, o, name))
    # every number and every default --help gives an option appears in the man page's entry
    for o in sorted(set(man_opts) & set(help_opts)):
        h = help_entries[o].split(None, 1)
        h = h[1] if len(h) > 1 else ''
        want = {t for t in tokens(h) if re.search(r'\d', t)}
        have = tokens(man_entries[o])
        for t in sorted(want - have):
            problem('%s: --%s: --help says "%s", the man page\'s entry does not' % (page, o, t))
        # and the default is given as a default: "default 1500", "auto (default)"
        for t in re.findall(r'\bdefault:? +([^\s,;)]+)', h):
            if not re.search(r'\bdefault:? +' + re.escape(t.strip(PUNCT)), man_entries[o], re.I):
                problem('%s: --%s: --help says "default %s", the man page\'s entry does not' %
                        (page, o, t))
        for t in re.findall(r'(\S+) \(default\)', h):
            if not re.search(re.escape(t.strip(PUNCT)) + r'\W+(?:\w+\W+)?default\b',
                             man_entries[o], re.I):
                problem('%s: --%s: --help says "%s (default)", the man page\'s entry does not' %
                        (page, o, t))

    # 4. the Markdown page: every option, with its short form, and no option --help lacks
    doc = open(md, encoding='utf-8').read()
    for o in sorted(help_opts):
        p = pair(o, help_opts[o])
        if not re.search(r'(?<![\w-])' + re.escape(p) + r'(?![a-z0-9-])', doc):
            problem('%s does not document %s' % (md, p))
    for line in doc.splitlines():
        m = re.match(r'^\| *`(-[^|]*)\|', line)
        if m:
            for o in ANY_LONG.findall(m.group(1)):
                if o not in help_opts:
                    problem('%s documents --%s, which %s --help does not have' % (md, o, name))

    if not problems:
        print('%s: %d options agree in --help, %s, %s and %s' %
              (name, len(help_opts), os.path.basename(opts_c), os.path.basename(page),
               os.path.basename(md)))


main()
if problems:
    print('%d problem(s)' % len(problems))
    sys.exit(1)
