#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# tests/registry_server.py DIR TOKEN: the upload API of GitLab's generic
# package registry, as tests/pipeline.sh's registry test needs it, on
# 127.0.0.1 (a port of the system's choosing, written to DIR/port).
# PUT /api/v4/projects/ID/packages/generic/NAME/VERSION/FILE with the
# header JOB-TOKEN: TOKEN stores the body as DIR/ID/NAME/VERSION/FILE and
# answers 201; a wrong token 401; any other request 404.  Ends on SIGTERM.

import http.server
import os
import re
import sys

PATH = re.compile(r"^/api/v4/projects/([0-9]+)/packages/generic/([A-Za-z0-9._+-]+)/"
                  r"([A-Za-z0-9._+-]+)/([A-Za-z0-9._+-]+)$")


class Registry(http.server.BaseHTTPRequestHandler):
    def answer(self, code, text):
        body = ('{"message":"%s"}\n' % text).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_PUT(self):
        m = PATH.match(self.path)
        n = int(self.headers.get("Content-Length", "0"))
        data = self.rfile.read(n)
        if not m:
            return self.answer(404, "404 Not Found")
        if self.headers.get("JOB-TOKEN") != TOKEN:
            return self.answer(401, "401 Unauthorized")
        dest = os.path.join(DIR, *m.groups())
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "wb") as f:
            f.write(data)
        return self.answer(201, "201 Created")

    def log_message(self, fmt, *args):
        sys.stderr.write("registry_server: " + fmt % args + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.stderr.write("usage: tests/registry_server.py DIR TOKEN\n")
        sys.exit(2)
    DIR, TOKEN = sys.argv[1], sys.argv[2]
    srv = http.server.HTTPServer(("127.0.0.1", 0), Registry)
    with open(os.path.join(DIR, "port.tmp"), "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(os.path.join(DIR, "port.tmp"), os.path.join(DIR, "port"))
    srv.serve_forever()
