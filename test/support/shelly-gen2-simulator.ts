import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/*
 * A SIMULATOR of a Shelly Gen2+ plug (Plus Plug S / Plug S Gen3), written from Shelly's published
 * "Gen2+ Device API" documents (RPC over HTTP, the Switch component, Authentication). It is not
 * Shelly's firmware: it answers the calls the driver makes the way those documents describe them,
 * on 127.0.0.1 port 0, and lets a test press the button, change the load or pull the plug.
 */

export interface ShellySimulatorOptions {
  /** Set a password: every call but Shelly.GetDeviceInfo then needs the SHA-256 digest. */
  password?: string;
  gen?: number;
  model?: string;
}

export interface RecordedCall {
  method: string;
  params: Record<string, unknown>;
  at: number;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export class ShellyGen2Simulator {
  /** Every authorised RPC call, oldest first. */
  readonly calls: RecordedCall[] = [];
  output = false;
  /** Watts the load draws while on (apower is 0 while off). */
  load = 0;
  /** When the running toggle_after timer flips the output back (ms since epoch), if any. */
  timerEndsAt: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private silent = false;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly realm = 'shellyplusplugs-d4d4da7e1f2c';
  private nonce = Math.floor(Date.now() / 1000);

  constructor(private readonly options: ShellySimulatorOptions = {}) {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The plug loses Wi-Fi or power: requests get no answer (and the output stays as it is). */
  stopAnswering(): void {
    this.silent = true;
  }

  answerAgain(): void {
    this.silent = false;
  }

  /** The plug's own button: toggles the output, as the device does. */
  pressButton(): void {
    this.setOutput(!this.output, undefined);
  }

  /** The toggle_after seconds of the last Switch.Set that set one. */
  lastToggleAfter(): number | undefined {
    return [...this.calls].reverse().find((c) => c.method === 'Switch.Set' && 'toggle_after' in c.params)
      ?.params.toggle_after as number | undefined;
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (this.silent) return; // no answer at all: the client's timeout decides
    const url = new URL(req.url ?? '/', 'http://plug');
    let frame: {
      id?: number;
      method?: string;
      params?: Record<string, unknown>;
      auth?: Record<string, unknown>;
    };
    if (req.method === 'POST' && url.pathname === '/rpc') {
      try {
        frame = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return this.send(res, 400, { id: null, error: { code: -32700, message: 'parse error' } });
      }
    } else if (req.method === 'GET' && url.pathname.startsWith('/rpc/')) {
      // GET /rpc/Switch.Set?id=0&on=true: parameters as query values (JSON where they parse).
      const params: Record<string, unknown> = {};
      for (const [key, value] of url.searchParams) {
        try {
          params[key] = JSON.parse(value);
        } catch {
          params[key] = value;
        }
      }
      frame = { id: 1, method: url.pathname.slice('/rpc/'.length), params };
    } else {
      return this.send(res, 404, { error: 'not found' });
    }
    const method = frame.method ?? '';
    const params = frame.params ?? {};
    if (
      this.options.password !== undefined &&
      method !== 'Shelly.GetDeviceInfo' &&
      !this.authorised(frame.auth)
    ) {
      this.nonce += 1;
      res.setHeader(
        'WWW-Authenticate',
        `Digest qop="auth", realm="${this.realm}", nonce="${this.nonce}", algorithm=SHA-256`,
      );
      return this.send(res, 401, {
        id: frame.id,
        src: this.realm,
        error: {
          code: 401,
          message: JSON.stringify({
            auth_type: 'digest',
            nonce: this.nonce,
            nc: 1,
            realm: this.realm,
            algorithm: 'SHA-256',
          }),
        },
      });
    }
    this.calls.push({ method, params, at: Date.now() });
    const reply = (result: unknown) => this.send(res, 200, { id: frame.id, src: this.realm, result });
    const fail = (code: number, message: string) =>
      this.send(res, 200, { id: frame.id, src: this.realm, error: { code, message } });
    switch (method) {
      case 'Shelly.GetDeviceInfo':
        return reply({
          name: null,
          id: this.realm,
          mac: 'D4D4DA7E1F2C',
          model: this.options.model ?? 'SNPL-00112EU',
          gen: this.options.gen ?? 2,
          fw_id: '20241011-114455/1.4.4-g6d2a586',
          ver: '1.4.4',
          app: 'PlusPlugS',
          auth_en: this.options.password !== undefined,
          auth_domain: this.options.password !== undefined ? this.realm : null,
        });
      case 'Switch.Set': {
        if (params.id !== 0) return fail(-105, `Argument 'id', value ${String(params.id)} not found!`);
        if (typeof params.on !== 'boolean') return fail(-103, "Missing required argument 'on'!");
        const toggleAfter = params.toggle_after;
        if (toggleAfter !== undefined && (typeof toggleAfter !== 'number' || toggleAfter <= 0))
          return fail(-103, "Invalid argument 'toggle_after'!");
        const wasOn = this.output;
        this.setOutput(params.on, toggleAfter as number | undefined);
        return reply({ was_on: wasOn });
      }
      case 'Switch.GetStatus': {
        if (params.id !== 0) return fail(-105, `Argument 'id', value ${String(params.id)} not found!`);
        return reply({
          id: 0,
          source: 'HTTP_in',
          output: this.output,
          apower: this.output ? this.load : 0,
          voltage: 231.2,
          current: this.output ? Math.round((this.load / 231.2) * 1000) / 1000 : 0,
          aenergy: { total: 1234.5, by_minute: [0, 0, 0], minute_ts: Math.floor(Date.now() / 1000) },
          temperature: { tC: 31.4, tF: 88.5 },
          ...(this.timerEndsAt !== null
            ? { timer_started_at: Date.now() / 1000, timer_duration: (this.timerEndsAt - Date.now()) / 1000 }
            : {}),
        });
      }
      default:
        return fail(404, `No handler for ${method}`);
    }
  }

  /** A set output with toggle_after flips back when the timer runs out; any set replaces the timer. */
  private setOutput(on: boolean, toggleAfter: number | undefined): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timerEndsAt = null;
    this.output = on;
    if (toggleAfter !== undefined) {
      this.timerEndsAt = Date.now() + toggleAfter * 1000;
      this.timer = setTimeout(() => {
        this.timer = null;
        this.timerEndsAt = null;
        this.output = !on;
      }, toggleAfter * 1000);
    }
  }

  private authorised(auth: Record<string, unknown> | undefined): boolean {
    if (auth?.username !== 'admin' || auth.realm !== this.realm) return false;
    if (String(auth.nonce) !== String(this.nonce)) return false;
    const ha1 = sha256(`admin:${this.realm}:${this.options.password}`);
    const ha2 = sha256('dummy_method:dummy_uri');
    const expected = sha256(`${ha1}:${auth.nonce}:1:${auth.cnonce}:auth:${ha2}`);
    return auth.response === expected;
  }

  private send(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }
}
