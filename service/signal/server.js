'use strict';

const { WebSocketServer } = require('ws');
const { parseMessage, errorMessage, rateLimiter, RELAYED, CLOSE, LIMITS } = require('./protocol');

// WebSocket signaling on /signal (protocol: ./protocol.js), attached to the service's HTTP
// server. Rooms live in `registry` (./local-registry.js in one process, ./hub-client.js
// across workers and replicas). Each connection is one participant: bad input gets an error
// message or closes that connection only; a dead peer is closed by the heartbeat.
// metrics: the service's StatsD client; identity: { instance, worker } for peer ids.
function attachSignaling(server, { registry, metrics, identity, limits = LIMITS }) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.MAX_MESSAGE_BYTES, clientTracking: true });
  let seq = 0;
  let open = 0;
  const counts = { messagesIn: 0, messagesOut: 0 };

  server.on('upgrade', (req, socket, head) => {
    if (new URL(req.url, 'http://x').pathname !== '/signal') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  wss.on('connection', (ws) => {
    const id = `${identity.instance}.${identity.worker}.${++seq}`;
    let room = null;
    const allow = rateLimiter(limits.MESSAGES_PER_S, limits.CLOSE_FACTOR);
    open += 1;
    metrics.gauge('signal.connections', open);
    ws.isAlive = true;
    ws.on('pong', () => (ws.isAlive = true));

    const send = (msg) => {
      if (ws.readyState !== ws.OPEN) return;
      ws.send(JSON.stringify(msg));
      counts.messagesOut += 1;
      metrics.increment('signal.messages.out');
    };
    // Messages relayed from another peer carry the sender's clock (same host: one clock),
    // so the relay's latency is timed where it ends.
    const deliver = (msg) => {
      if (!msg.sentAt) return send(msg);
      metrics.timing('signal.relay', Date.now() - msg.sentAt);
      const rest = { ...msg };
      delete rest.sentAt;
      return send(rest);
    };

    ws.on('message', async (data, isBinary) => {
      counts.messagesIn += 1;
      metrics.increment('signal.messages.in');
      const verdict = allow();
      if (verdict === 'close') return ws.close(CLOSE.POLICY, 'message rate far above the limit');
      if (verdict === 'drop') return send(errorMessage('RATE_LIMITED'));
      const parsed = isBinary ? { ok: false, code: 'BAD_JSON' } : parseMessage(data.toString());
      if (!parsed.ok) return send(errorMessage(parsed.code));
      const { msg } = parsed;
      try {
        if (msg.type === 'join') {
          if (room) return send(errorMessage('ALREADY_JOINED'));
          room = msg.room;
          try {
            const peers = await registry.join(room, id, deliver);
            return send({ type: 'joined', id, peers });
          } catch (err) {
            room = null; // not joined: the participant may try again
            throw err;
          }
        }
        if (RELAYED.has(msg.type)) {
          if (!room) return send(errorMessage('NOT_JOINED'));
          const found = await registry.send(room, id, msg.to, { type: msg.type, data: msg.data, sentAt: Date.now() });
          if (!found) return send(errorMessage('NO_SUCH_PEER'));
        }
      } catch (err) {
        send({ type: 'error', code: 'UNAVAILABLE', message: err.message });
      }
      return undefined;
    });

    ws.on('close', () => {
      open -= 1;
      metrics.gauge('signal.connections', open);
      if (room) registry.leave(room, id);
    });
    ws.on('error', () => {});
  });

  // Heartbeats: a peer that did not answer the last ping is closed (its room is told).
  const beat = setInterval(() => {
    for (const ws of wss.clients) {
      if (!ws.isAlive) {
        ws.terminate();
        continue;
      }
      ws.isAlive = false;
      ws.ping();
    }
  }, limits.HEARTBEAT_MS);
  beat.unref();

  return {
    wss,
    connections: () => open,
    // For /stats: this process's figures since it started.
    stats: () => ({ connections: open, ...counts }),
    close() {
      clearInterval(beat);
      for (const ws of wss.clients) ws.close(CLOSE.GOING_AWAY, 'server stopping');
      registry.close();
    },
  };
}

module.exports = attachSignaling;
