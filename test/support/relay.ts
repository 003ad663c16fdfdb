/**
 * A TCP relay for tests that need a database whose address stops answering
 * without a reset (a network stall, a failover that moved it): it forwards
 * both ways until made silent; silent, it accepts and keeps every
 * connection, new ones too, and holds what either side sends, like a network
 * that delivers nothing yet loses nothing. Made to speak again, it delivers
 * what it held, in order. Retargeted, it stands for an address that moved to
 * another server (a failover behind one DNS name or address).
 */
import net from 'node:net';

export interface Relay {
  port: number;
  silent: boolean;
  /**
   * Sends new connections to `target` from now on, and cuts the ones it
   * relays (an address moved to another server: what was connected to the
   * old one is gone with it).
   */
  retarget(target: { host: string; port: number }): void;
  close(): Promise<void>;
}

export async function startRelay(initial: { host: string; port: number }): Promise<Relay> {
  let target = initial;
  let silent = false;
  const held: Array<() => void> = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((downstream) => {
    const upstream = net.connect(target.port, target.host);
    sockets.add(downstream);
    sockets.add(upstream);
    const forward = (from: net.Socket, to: net.Socket) =>
      from.on('data', (chunk) => {
        if (silent) held.push(() => to.destroyed || to.write(chunk));
        else to.write(chunk);
      });
    forward(downstream, upstream);
    forward(upstream, downstream);
    const close = () => {
      downstream.destroy();
      upstream.destroy();
      sockets.delete(downstream);
      sockets.delete(upstream);
    };
    for (const socket of [downstream, upstream]) {
      socket.on('error', close);
      socket.on('close', close);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    get silent() {
      return silent;
    },
    set silent(value: boolean) {
      silent = value;
      if (!value) for (const deliver of held.splice(0)) deliver();
    },
    retarget(next) {
      target = next;
      for (const socket of sockets) socket.destroy();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * `url` with its host and port replaced by the relay's. A `host` parameter (the
 * embedded server's Unix socket directory, which pg prefers to the URL's host) is
 * dropped, so the connection goes over TCP through the relay.
 */
export function relayedUrl(url: string, relay: Relay): string {
  const relayed = new URL(url);
  relayed.hostname = '127.0.0.1';
  relayed.port = String(relay.port);
  relayed.searchParams.delete('host');
  return relayed.toString();
}

/** The host and port `url` names. */
export function targetOf(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port || 5432) };
}
