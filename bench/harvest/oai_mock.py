#!/usr/bin/env python3
"""A loopback OAI-PMH server for the harvest benchmark: serves the records of
a snapshot-format JSON Lines file (the synthetic generator's) as ListRecords
pages in arXiv's metadata format, joined by resumption tokens.

    oai_mock.py RECORDS.jsonl PORT [PAGE_SIZE]
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse
from xml.sax.saxutils import escape

HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">\n'
    "<responseDate>2999-01-06T00:00:00Z</responseDate>\n"
    '<request verb="ListRecords">http://127.0.0.1/oai</request>\n'
)


def record(line):
    r = json.loads(line)
    authors = "".join(
        f"<author><keyname>{escape(a[0])}</keyname><forenames>{escape(a[1])}</forenames></author>"
        for a in r.get("authors_parsed", [])
    )
    optional = "".join(
        f"<{tag}>{escape(r[key])}</{tag}>"
        for tag, key in (("journal-ref", "journal-ref"), ("doi", "doi"), ("comments", "comments"))
        if r.get(key)
    )
    return (
        f"<record><header><identifier>oai:arXiv.org:{r['id']}</identifier>"
        f"<datestamp>{r['update_date']}</datestamp><setSpec>cs</setSpec></header>"
        f'<metadata><arXiv xmlns="http://arxiv.org/OAI/arXiv/"><id>{r["id"]}</id>'
        f"<created>2999-01-01</created><authors>{authors}</authors>"
        f"<title>{escape(r['title'])}</title><categories>{escape(r['categories'])}</categories>"
        f"{optional}<abstract>{escape(r['abstract'])}</abstract></arXiv></metadata></record>\n"
    )


def main():
    path, port = sys.argv[1], int(sys.argv[2])
    size = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    with open(path, encoding="utf-8") as f:
        records = [record(line) for line in f if line.strip()]
    pages = [records[i : i + size] for i in range(0, len(records), size)]

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            query = parse_qs(urlparse(self.path).query)
            token = query.get("resumptionToken", ["page-0"])[0]
            n = int(token.removeprefix("page-"))
            more = f"page-{n + 1}" if n + 1 < len(pages) else ""
            body = (
                HEAD
                + "<ListRecords>\n"
                + "".join(pages[n])
                + f'<resumptionToken cursor="{n * size}" completeListSize="{len(records)}">{more}</resumptionToken>\n'
                + "</ListRecords>\n</OAI-PMH>\n"
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/xml")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
