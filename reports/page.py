"""index.html: the machine, versions and settings, what is missing, then every figure and
table (tables rendered from the same Markdown written next to the page)."""

import html

STYLE = """body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em}
table{border-collapse:collapse;margin:0.5em 0 1.5em}td,th{border:1px solid #ccc;
padding:2px 8px;text-align:right}th{background:#eee}td:first-child{text-align:left}
img{max-width:100%;border:1px solid #ddd}.missing{color:#a00}figure{margin:1em 0}"""


def markdown_html(text):
    """The Markdown harness.tables writes (paragraphs and pipe tables) as HTML."""
    parts = []
    for block in text.strip().split("\n\n"):
        lines = block.strip().splitlines()
        if not lines[0].startswith("|"):
            parts.append(f"<p>{html.escape(' '.join(lines))}</p>")
            continue
        rows = [[html.escape(c.strip()) for c in line.strip().strip("|").split("|")]
                for line in lines if not line.startswith("|---")]
        head = "".join(f"<th>{c}</th>" for c in rows[0])
        body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>"
                       for row in rows[1:])
        parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
    return "\n".join(parts)


def _pairs_table(rows, header):
    return markdown_html("\n".join(["| " + " | ".join(header) + " |", "|---" * len(header)]
                                   + ["| " + " | ".join(map(str, r)) + " |" for r in rows]))


def _machines_table(machines):
    """One column per machine, one row per field (the first machine's order)."""
    names = [name for name, _ in machines]
    values = [dict(rows) for _, rows in machines]
    fields = list(dict.fromkeys(f for _, rows in machines for f, _ in rows))
    return _pairs_table([(f, *(v.get(f, "-") for v in values)) for f in fields],
                        ("field", *names) if len(names) > 1 else ("field", "value"))


def render(machines, versions, peers, settings, missing, sections):
    """``machines``: [(name, [(field, value)])], side by side; ``peers``: [(backend,
    version, precisions, how it is driven)]; ``sections``: [(heading, [item])], item =
    ("figure", caption, png) or ("table", title, markdown file, markdown text)."""
    out = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
           "<title>qsim-ad-bench report</title>", f"<style>{STYLE}</style></head><body>",
           "<h1>qsim-ad-bench report</h1>",
           "<h2>Machines</h2>" if len(machines) > 1 else "<h2>Machine</h2>",
           _machines_table(machines), "<h2>Versions</h2>",
           _pairs_table(versions, ("package", "version", "from")),
           "<h2>Simulator peers</h2>",
           _pairs_table(peers, ("backend", "version", "precisions", "how it is driven")),
           "<h2>Settings measured</h2>", _pairs_table(settings, ("setting", "value"))]
    if missing:
        out.append("<h2>Missing results</h2><ul>")
        out += [f'<li class="missing">{html.escape(m)}</li>' for m in missing]
        out.append("</ul>")
    for heading, items in sections:
        out.append(f"<h2>{html.escape(heading)}</h2>")
        if not items:
            out.append('<p class="missing">No results for this section (see Missing results).</p>')
        for item in items:
            if item[0] == "figure":
                _, caption, png = item
                out.append(f'<figure><a href="{png}"><img src="{png}" alt="{html.escape(caption)}">'
                           f"</a><figcaption>{html.escape(caption)}</figcaption></figure>")
            else:
                _, title, md, text = item
                out.append(f'<h3>{html.escape(title)} <small>(<a href="{md}">{md}</a>)'
                           f"</small></h3>\n{markdown_html(text)}")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
