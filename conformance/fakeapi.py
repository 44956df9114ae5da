"""A model API on loopback that records what an agent sends and replies from a script.

One `FakeApi` serves the Anthropic Messages API (streaming or not), the OpenAI Responses API and
the Gemini API on one port. Each agent run sets a script first: a list of replies, each
`{"text": ...}` or `{"tool": {"name": ..., "input": {...}}}`. A reply is used only by a request
that can take it (one that declares tools: an agent-loop turn, not a side query such as a title);
every other request gets the default text. Every request body is kept, parsed, in `requests`.

Standard library only, so the harness runs wherever Python 3.9+ does.
"""

from __future__ import annotations

import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_TEXT = "OK."
MAX_BODY = 64 * 1024 * 1024


class FakeApi:
    """A recording, scripted model API on 127.0.0.1 (an ephemeral port unless one is given)."""

    def __init__(self, port: int = 0) -> None:
        self._lock = threading.Lock()
        self._script: list[dict] = []
        self.requests: list[dict] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            timeout = 60

            def log_message(self, *args) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 (the standard library's name)
                body = self._read()
                try:
                    parsed = json.loads(body or b"{}")
                except ValueError:
                    parsed = {}
                headers = {k.lower(): v for k, v in self.headers.items()}
                with api._lock:
                    api.requests.append({"path": self.path, "headers": headers, "body": parsed})
                path = self.path.split("?")[0]
                if path.endswith("/count_tokens"):
                    return self._json({"input_tokens": 10})
                if path.endswith(":countTokens"):
                    return self._json({"totalTokens": 10})
                if path.endswith("/messages"):
                    reply = api._take(bool(parsed.get("tools")))
                    return self._anthropic(parsed, reply)
                if path.endswith("/responses"):
                    reply = api._take(bool(parsed.get("tools")))
                    return self._sse(_responses_events(parsed, reply))
                if ":streamGenerateContent" in path or ":generateContent" in path:
                    reply = api._take(bool(parsed.get("tools")))
                    answer = _gemini_answer(reply)
                    if ":stream" in path:
                        return self._sse([(None, answer)])
                    return self._json(answer)
                return self._json({})

            def do_GET(self) -> None:  # noqa: N802
                self._json({})

            def _read(self) -> bytes:
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    data = bytearray()
                    while True:
                        size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                        if size == 0:
                            self.rfile.readline()
                            return bytes(data)
                        if len(data) + size > MAX_BODY:
                            raise ValueError("request body too large")
                        data += self.rfile.read(size)
                        self.rfile.readline()
                length = int(self.headers.get("Content-Length") or 0)
                if length > MAX_BODY:
                    raise ValueError("request body too large")
                return self.rfile.read(length)

            def _json(self, value: object) -> None:
                data = json.dumps(value).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _sse(self, events: list) -> None:
                out = bytearray()
                for name, data in events:
                    if name:
                        out += f"event: {name}\n".encode()
                    out += f"data: {json.dumps(data)}\n\n".encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(bytes(out))

            def _anthropic(self, body: dict, reply: dict) -> None:
                model = body.get("model", "claude")
                message_id = "msg_" + uuid.uuid4().hex[:24]
                if "tool" in reply:
                    block = {
                        "type": "tool_use",
                        "id": "toolu_" + uuid.uuid4().hex[:24],
                        "name": reply["tool"]["name"],
                        "input": reply["tool"]["input"],
                    }
                    stop = "tool_use"
                else:
                    block = {"type": "text", "text": reply["text"]}
                    stop = "end_turn"
                usage = {"input_tokens": 10, "output_tokens": 5}
                if not body.get("stream"):
                    return self._json({
                        "id": message_id, "type": "message", "role": "assistant", "model": model,
                        "content": [block], "stop_reason": stop, "stop_sequence": None,
                        "usage": usage,
                    })
                start = dict(block)
                if block["type"] == "tool_use":
                    start["input"] = {}
                    delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
                else:
                    start["text"] = ""
                    delta = {"type": "text_delta", "text": block["text"]}
                self._sse([
                    ("message_start", {"type": "message_start", "message": {
                        "id": message_id, "type": "message", "role": "assistant", "model": model,
                        "content": [], "stop_reason": None, "stop_sequence": None,
                        "usage": {"input_tokens": 10, "output_tokens": 1}}}),
                    ("content_block_start", {"type": "content_block_start", "index": 0,
                                             "content_block": start}),
                    ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                             "delta": delta}),
                    ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                    ("message_delta", {"type": "message_delta",
                                       "delta": {"stop_reason": stop, "stop_sequence": None},
                                       "usage": {"output_tokens": 5}}),
                    ("message_stop", {"type": "message_stop"}),
                ])

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def reset(self, script: list[dict] | None = None) -> None:
        """Forget what was recorded and take a new script."""
        with self._lock:
            self._script = list(script or [])
            self.requests = []

    def recorded(self) -> list[dict]:
        with self._lock:
            return list(self.requests)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _take(self, agent_turn: bool) -> dict:
        with self._lock:
            if agent_turn and self._script:
                return self._script.pop(0)
        return {"text": DEFAULT_TEXT}


def _responses_events(body: dict, reply: dict) -> list:
    model = body.get("model", "gpt")
    response_id = "resp_" + uuid.uuid4().hex[:24]
    if "tool" in reply:
        item = {
            "type": "function_call", "id": "fc_" + uuid.uuid4().hex[:16],
            "call_id": "call_" + uuid.uuid4().hex[:16], "name": reply["tool"]["name"],
            "arguments": json.dumps(reply["tool"]["input"]), "status": "completed",
        }
    else:
        item = {
            "type": "message", "id": "msg_" + uuid.uuid4().hex[:16], "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": reply["text"], "annotations": []}],
        }
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": 15}
    events = [
        ("response.created", {"type": "response.created", "response": {
            "id": response_id, "object": "response", "model": model, "status": "in_progress",
            "output": []}}),
        ("response.output_item.added", {"type": "response.output_item.added",
                                        "output_index": 0, "item": item}),
    ]
    if item["type"] == "message":
        events.append(("response.output_text.delta", {
            "type": "response.output_text.delta", "item_id": item["id"], "output_index": 0,
            "content_index": 0, "delta": reply["text"]}))
    events += [
        ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0,
                                       "item": item}),
        ("response.completed", {"type": "response.completed", "response": {
            "id": response_id, "object": "response", "model": model, "status": "completed",
            "output": [item], "usage": usage}}),
    ]
    return events


def _gemini_answer(reply: dict) -> dict:
    if "tool" in reply:
        part = {"functionCall": {"name": reply["tool"]["name"], "args": reply["tool"]["input"]}}
    else:
        part = {"text": reply["text"]}
    return {
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP",
                        "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                          "totalTokenCount": 15},
        "modelVersion": "gemini-2.5-flash",
    }
