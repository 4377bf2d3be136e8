// What the test remotes share: the official TypeScript SDK loaded from testdata/clients/node_modules
// (these files live outside that package), and one streamable-HTTP endpoint on 127.0.0.1 (port 0)
// that asks every request for REMOTE_TOKEN as a Bearer token, starts a session (a fresh SDK Server
// from newServer) on initialize, answers 404 for an unknown session, and prints {"port": N} once it
// listens, which is what the Go tests wait for (startNodeRemote in cmd/workbench).
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';

// settings reads WORKBENCH_CLIENTS_DIR and REMOTE_TOKEN, or exits naming the script that needs them.
export function settings(script) {
  const clientsDir = process.env.WORKBENCH_CLIENTS_DIR;
  const token = process.env.REMOTE_TOKEN;
  if (!clientsDir || !token) {
    console.error(`${basename(script)}: set WORKBENCH_CLIENTS_DIR and REMOTE_TOKEN`);
    process.exit(2);
  }
  const require = createRequire(join(clientsDir, 'package.json'));
  return { token, load: (spec) => import(pathToFileURL(require.resolve(spec)).href) };
}

// serve listens. newServer() returns an SDK Server for one session; onClose(sessionId) runs when a
// session ends (its transport closes).
export async function serve({ token, load, newServer, onClose }) {
  const { StreamableHTTPServerTransport } = await load('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const transports = new Map();
  const http = createServer(async (req, res) => {
    try {
      if (req.headers.authorization !== `Bearer ${token}`) {
        res.writeHead(401, { 'Content-Type': 'text/plain' }).end('bad token');
        return;
      }
      let body;
      if (req.method === 'POST') {
        const chunks = [];
        for await (const c of req) chunks.push(c);
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          res.writeHead(400, { 'Content-Type': 'text/plain' }).end('not JSON');
          return;
        }
      }
      const sid = req.headers['mcp-session-id'];
      let t = sid ? transports.get(sid) : undefined;
      if (!t && !sid && req.method === 'POST' && body?.method === 'initialize') {
        t = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => transports.set(id, t),
        });
        t.onclose = () => {
          if (t.sessionId) {
            transports.delete(t.sessionId);
            onClose?.(t.sessionId);
          }
        };
        await newServer().connect(t);
      }
      if (!t) {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('no such session');
        return;
      }
      await t.handleRequest(req, res, body);
    } catch (err) {
      console.error(err);
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' }).end(String(err));
    }
  });
  http.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: http.address().port })));
}
