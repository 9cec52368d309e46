"""A small OTLP/HTTP receiver for OTelExportTests: accepts protobuf
ExportTraceServiceRequest and ExportMetricsServiceRequest POSTs on
/v1/traces and /v1/metrics, decodes the fields the test reads with a
minimal protobuf reader, and appends one JSON line per request to the log.
Prints 'port N' once listening."""
import http.server, json, socketserver, sys


def fields(data):
    """(field number, wire type, value) of a protobuf message."""
    out, i = [], 0
    while i < len(data):
        key, i = varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = varint(data, i)
        elif wire == 1:
            value, i = data[i:i + 8], i + 8
        elif wire == 2:
            length, i = varint(data, i)
            value, i = data[i:i + length], i + length
        elif wire == 5:
            value, i = data[i:i + 4], i + 4
        else:
            raise ValueError(f"wire type {wire}")
        out.append((number, wire, value))
    return out


def varint(data, i):
    shift = result = 0
    while True:
        byte = data[i]
        i += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return result, i


def children(message, number):
    return [value for n, _, value in fields(message) if n == number]


def service_name(resource):
    for attribute in children(resource, 1):
        key = children(attribute, 1)
        value = children(attribute, 2)
        if key and key[0] == b"service.name" and value:
            strings = children(value[0], 1)
            return strings[0].decode() if strings else None
    return None


def string_attributes(span):
    """A span's attributes (field 9: KeyValue) whose values are strings (AnyValue field 1)."""
    attributes = {}
    for attribute in children(span, 9):
        key, value = children(attribute, 1), children(attribute, 2)
        strings = children(value[0], 1) if value else []
        if key and strings:
            attributes[key[0].decode()] = strings[0].decode(errors="replace")
    return attributes


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        record = {"path": self.path, "content_type": self.headers.get("Content-Type")}
        try:
            if self.path == "/v1/traces":
                spans, services = [], set()
                for resource_spans in children(body, 1):
                    for resource in children(resource_spans, 1):
                        services.add(service_name(resource))
                    for scope_spans in children(resource_spans, 2):
                        for span in children(scope_spans, 2):
                            get = lambda n: (children(span, n) or [b""])[0]
                            spans.append({"name": get(5).decode(), "trace": get(1).hex(), "id": get(2).hex(), "parent": get(4).hex(),
                                          "attributes": string_attributes(span)})
                record.update(spans=spans, services=sorted(s for s in services if s))
            elif self.path == "/v1/metrics":
                names = []
                for resource_metrics in children(body, 1):
                    for scope_metrics in children(resource_metrics, 2):
                        for metric in children(scope_metrics, 2):
                            names.append((children(metric, 1) or [b""])[0].decode())
                record.update(metrics=names)
        except Exception as error:
            record.update(error=str(error))
        with open(sys.argv[1], "a") as log:
            log.write(json.dumps(record) + "\n")
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *arguments):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


server = Server(("127.0.0.1", 0), Handler)
print("port", server.server_address[1], flush=True)
server.serve_forever()
