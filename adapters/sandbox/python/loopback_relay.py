"""
A relay from 127.0.0.1 to a Unix socket, run by a sandboxed worker for the code it runs.

Code in the bubblewrap sandbox has a network namespace of its own: its 127.0.0.1 is not the
host's, and it can reach nothing outside. The engine serves each job's loopback LLM endpoint on
a Unix socket too, in a folder bound read-only into the sandbox. This relay listens on the
sandbox's own 127.0.0.1 (an ephemeral port) and copies each connection, byte for byte, to the
socket it is pointed at, so an ordinary HTTP client (urllib, the openai package, LiteLLM) reaches
the job's endpoint at http://127.0.0.1:<port>/... and nothing else: the only destination is a
socket under the folder the engine bound, and the endpoint still asks for the job's secret.

A thread of the worker, not a process: the worker kills every process a candidate left after each
request, and the relay outlives them.
"""
from __future__ import annotations

import os
import select
import socket
import threading


class LoopbackRelay:
    def __init__(self, allowed_dir: str):
        # Only sockets directly in this folder are relayed to.
        self.allowed_dir = os.path.realpath(allowed_dir)
        self.target: str | None = None
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, name="loopback-relay", daemon=True).start()

    def point_at(self, socket_path: str) -> None:
        """Connections accepted from now on go to `socket_path` (a socket in the allowed folder)."""
        if os.path.dirname(os.path.realpath(socket_path)) != self.allowed_dir:
            raise ValueError(f"the relay reaches only sockets in {self.allowed_dir}, not {socket_path}")
        self.target = socket_path

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            target = self.target
            if target is None:
                client.close()
                continue
            try:
                upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                upstream.connect(target)
            except OSError:
                # The job's endpoint is gone (the job ended): the client sees the connection close.
                client.close()
                continue
            threading.Thread(target=_relay, args=(client, upstream), daemon=True).start()


def _relay(client: socket.socket, upstream: socket.socket) -> None:
    """Copies both directions until both have ended; an end is passed on as a half-close."""
    sinks = {client: upstream, upstream: client}
    try:
        while sinks:
            readable, _, _ = select.select(list(sinks), [], [])
            for source in readable:
                data = source.recv(65536)
                if data:
                    sinks[source].sendall(data)
                    continue
                sink = sinks.pop(source)
                try:
                    sink.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
    except OSError:
        pass
    finally:
        client.close()
        upstream.close()
