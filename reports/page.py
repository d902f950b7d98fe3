"""index.html, read at a glance: a line on where and how the numbers were measured, the
headline (who is fastest per gate and circuit, both precisions) in the first screen, the
contents linking to every section, what is missing, every figure and table (tables
rendered from the same Markdown written next to the page), the backends' colours and
markers, and last the machine, versions, peers and settings.

Every h2 and h3 has an anchor the contents link to. Every table sits in a box that scrolls
sideways when the table is wider than the page, and long tables are folded."""

import html
import re

STYLE = """body{font-family:sans-serif;max-width:1320px;margin:0 auto;padding:0.4em 1em;
line-height:1.3}h1{font-size:1.5em;margin:0.2em 0}h2{font-size:1.3em;margin:1.2em 0 0.4em;
border-bottom:1px solid #ccc}h3{font-size:1.05em;margin:0.9em 0 0.3em}
p.summary{margin:0.2em 0;color:#333}.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:0.3em 0 1em}td,th{border:1px solid #ccc;
padding:2px 6px;text-align:right;vertical-align:top;overflow-wrap:break-word}
th{background:#eee}td:first-child,th:first-child{text-align:left}
.text,.prose,.headline td{text-align:left}td.prose{min-width:20em}
.headline{display:flex;flex-wrap:wrap;column-gap:2em}.headline>div{min-width:0;max-width:100%}
.headline h3{margin-top:0.2em}.headline table{margin-bottom:0.3em}
.headline p{font-size:0.9em;margin:0.2em 0}
nav ol{margin:0.2em 0;padding-left:1.4em}nav>ol{columns:3 22em;column-gap:2em}
nav>ol>li{break-inside:avoid;margin-bottom:0.3em}nav ol ol{font-size:0.9em}
img{max-width:100%;border:1px solid #ddd}.missing{color:#a00}figure{margin:0.5em 0 1em}
.key span.chip{display:inline-block;margin:0 1em 0.2em 0;white-space:nowrap}
.key .glyph{font-size:1.2em}summary{cursor:pointer;color:#036}"""

#: A table with more body rows than this is folded (the headline summarises it).
FOLD_ROWS = 30


def _cells(line):
    """The cells of a Markdown table row; ``\\|`` is a literal bar inside a cell."""
    return [c.strip().replace("\\|", "|")
            for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def markdown_html(text, fold=None):
    """The Markdown harness.tables writes (paragraphs and pipe tables) as HTML; each table
    in a sideways-scrolling box, folded in a <details> past ``fold`` body rows."""
    parts = []
    for block in text.strip().split("\n\n"):
        lines = block.strip().splitlines()
        if not lines[0].startswith("|"):
            parts.append(f"<p>{html.escape(' '.join(lines))}</p>")
            continue
        rows = [_cells(line) for line in lines if not line.startswith("|---")]
        parts.append(html_table(rows[0], rows[1:], fold=fold))
    return "\n".join(parts)


def html_table(header, rows, text=(), prose=(), fold=None):
    """A table in its scroll box. The columns numbered in ``text`` are left-aligned, those
    in ``prose`` also wrap at no less than 20em; past ``fold`` rows it is folded."""
    def cls(i):
        return ' class="prose"' if i in prose else ' class="text"' if i in text else ""

    head = "".join(f"<th{cls(i)}>{html.escape(str(c))}</th>" for i, c in enumerate(header))
    body = "".join("<tr>" + "".join(f"<td{cls(i)}>{html.escape(str(c))}</td>"
                                    for i, c in enumerate(row)) + "</tr>" for row in rows)
    table = (f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}'
             "</tbody></table></div>")
    if fold is not None and len(rows) > fold:
        return f"<details><summary>show all {len(rows)} rows</summary>{table}</details>"
    return table


class Outline:
    """The page's headings, each with a unique anchor, for the contents."""

    def __init__(self):
        self.entries = []  # (level, anchor, text)
        self._used = set()

    def heading(self, level, text, extra=""):
        base = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"
        anchor, i = base, 2
        while anchor in self._used:
            anchor, i = f"{base}-{i}", i + 1
        self._used.add(anchor)
        self.entries.append((level, anchor, text))
        return f'<h{level} id="{anchor}">{html.escape(text)}{extra}</h{level}>'

    def contents(self):
        """A nested list of every heading so far: the h2s, each with its h3s."""
        tree = []
        for level, anchor, text in self.entries:
            link = f'<a href="#{anchor}">{html.escape(text)}</a>'
            if level == 2 or not tree:
                tree.append((link, []))
            else:
                tree[-1][1].append(link)
        items = "".join(f"<li>{link}" + ("<ol>" + "".join(f"<li>{s}</li>" for s in subs)
                                        + "</ol>" if subs else "") + "</li>"
                        for link, subs in tree)
        return f"<nav><ol>{items}</ol></nav>"


def _summary(machines):
    """One line per machine: where and when it ran; the details are at the end."""
    lines = []
    for name, rows in machines:
        info = dict(rows)
        lines.append(f"{name}: {info.get('CPU', 'unknown CPU')}, {info.get('cores', '?')} "
                     f"cores; commit {info.get('commit', '?')}; benchmarks run "
                     f"{info.get('benchmarks run', 'unknown')}")
    return "".join(f'<p class="summary">{html.escape(line)}</p>' for line in lines)


def _machines_table(machines):
    """One column per machine, one row per field (the first machine's order)."""
    names = [name for name, _ in machines]
    values = [dict(rows) for _, rows in machines]
    fields = list(dict.fromkeys(f for _, rows in machines for f, _ in rows))
    return html_table(("field", *names) if len(names) > 1 else ("field", "value"),
                      [(f, *(v.get(f, "-") for v in values)) for f in fields],
                      text=range(1, len(names) + 1))


def _key(palette):
    """The colour and marker of every backend, a line per group."""
    out = ["<p>Every figure draws each backend in this colour and marker.</p>",
           '<div class="key">']
    for group, styles in palette:
        chips = "".join(f'<span class="chip"><span class="glyph" style="color:{s.colour}">'
                        f"{s.glyph}</span> {html.escape(name)}</span>" for name, s in styles)
        out.append(f"<p><b>{html.escape(group)}</b>: {chips}</p>")
    return "".join(out) + "</div>"


def render(machines, versions, peers, settings, missing, sections, headline=(), palette=()):
    """``machines``: [(name, [(field, value)])], side by side; ``peers``: [(backend,
    version, precisions, how it is driven)]; ``sections``: [(heading, [item])], item =
    ("figures", title, [(caption, png)]) or ("table", title, markdown file, markdown
    text); ``headline``: [(title, markdown)], shown first; ``palette``: [(group,
    [(backend, palette.Style)])]."""
    outline = Outline()
    top = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           "<title>qsim-ad-bench report</title>", f"<style>{STYLE}</style></head><body>",
           "<h1>qsim-ad-bench report</h1>", _summary(machines),
           '<p class="summary">Minimum time over asv\'s samples, one thread, warm caches, '
           'every result validated before it was timed; <code>a ~ b</code>: a tie, their '
           'spreads overlap (minimum to median of each one\'s samples, in the same run); '
           'details in <a href="#machine-versions-and-settings">Machine, versions and '
           'settings</a>.</p>',
           outline.heading(2, "Who is fastest"), '<div class="headline">']
    if not headline:
        top.append('<p class="missing">No gate or circuit results (see Missing results).</p>')
    for title, text in headline:
        top.append(f"<div>{outline.heading(3, title)}{markdown_html(text)}</div>")
    top.append("</div>")
    body = []
    if missing:
        body.append(outline.heading(2, "Missing results") + "<ul>")
        body += [f'<li class="missing">{html.escape(m)}</li>' for m in missing]
        body.append("</ul>")
    for heading, items in sections:
        body.append(outline.heading(2, heading))
        if not items:
            body.append('<p class="missing">No results for this section (see Missing results).'
                        "</p>")
        for item in items:
            if item[0] == "figures":
                _, title, figures = item
                body.append(outline.heading(3, title))
                body += [f'<figure><a href="{png}"><img src="{png}" alt="{html.escape(caption)}">'
                         f"</a><figcaption>{html.escape(caption)}</figcaption></figure>"
                         for caption, png in figures]
            else:
                _, title, md, text = item
                link = f' <small>(<a href="{md}">{md}</a>)</small>'
                body.append(f"{outline.heading(3, title, link)}\n"
                            f"{markdown_html(text, fold=FOLD_ROWS)}")
    if palette:
        body += [outline.heading(2, "Colours and markers"), _key(palette)]
    body += [outline.heading(2, "Machine, versions and settings"),
             outline.heading(3, "Machines" if len(machines) > 1 else "Machine"),
             _machines_table(machines), outline.heading(3, "Versions"),
             html_table(("package", "version", "from"), versions, text=(2,)),
             outline.heading(3, "Simulator peers"),
             html_table(("backend", "version", "precisions", "how it is driven"), peers,
                        text=(1, 2), prose=(3,)),
             outline.heading(3, "Settings measured"),
             html_table(("setting", "value"), settings, prose=(1,))]
    nav = outline.contents()  # before its own heading, which it does not list
    contents = [outline.heading(2, "Contents"), nav]
    return "\n".join([*top, *contents, *body, "</body></html>"]) + "\n"
