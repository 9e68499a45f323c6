"""A TCP proxy on loopback that delays every byte by a fixed time each way:
the round trips of a distant server in front of a local one.

    latency_proxy.py UPSTREAM_PORT DELAY_MS --state FILE [--server-state FILE]

Each client connection gets its own upstream connection; what either side
sends reaches the other DELAY_MS later (order kept), so a request that waits
for an interim reply (Expect: 100-continue) pays the round trip twice. FILE
gets {"endpoint", "pid"} for s3_bench's --state: the proxy's address, and
the pid of --server-state's server (moto), whose CPU the bench reports.
"""
import argparse
import asyncio
import json
import os
from pathlib import Path


async def pipe(reader, writer, delay):
    queue = asyncio.Queue()

    async def deliver():
        while True:
            due, data = await queue.get()
            wait = due - asyncio.get_running_loop().time()
            if wait > 0:
                await asyncio.sleep(wait)
            if data is None:
                writer.close()
                return
            writer.write(data)
            await writer.drain()

    sender = asyncio.create_task(deliver())
    try:
        while True:
            data = await reader.read(1 << 16)
            queue.put_nowait((asyncio.get_running_loop().time() + delay, data or None))
            if not data:
                break
    except ConnectionError:
        queue.put_nowait((0, None))
    try:
        await sender
    except ConnectionError:
        pass


async def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("upstream_port", type=int)
    parser.add_argument("delay_ms", type=float)
    parser.add_argument("--state", required=True)
    parser.add_argument("--server-state")
    args = parser.parse_args()
    delay = args.delay_ms / 1000

    async def connected(client_reader, client_writer):
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1",
                                                                         args.upstream_port)
        await asyncio.gather(pipe(client_reader, upstream_writer, delay),
                             pipe(upstream_reader, client_writer, delay))

    server = await asyncio.start_server(connected, "127.0.0.1", 0, backlog=512)
    port = server.sockets[0].getsockname()[1]
    pid = os.getpid()
    if args.server_state:
        pid = json.loads(Path(args.server_state).read_text()).get("pid", pid)
    Path(args.state).write_text(json.dumps({"endpoint": f"http://127.0.0.1:{port}", "pid": pid}))
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
