import { request } from 'node:http';
import { HardwareError, type HardwareLogger } from './hardware.errors.js';
import {
  parseDigestChallenge,
  parseSwitchStatus,
  type ShellyChallenge,
  type ShellyRpcRequest,
  shellyAuth,
} from './shelly-rpc.js';
import {
  type PlugStatus,
  readPasswordFile,
  SmartPlugRelay,
  type SmartPlugTiming,
} from './smart-plug.relay.js';

export interface ShellyGen2Options extends SmartPlugTiming {
  /** Host name or address of the plug, with `:port` if not 80 (`[v6]:port` for IPv6). */
  host: string;
  /** The Switch component's id: 0 on single plugs. */
  switchId: number;
  /** File holding the plug's web password (set in the Shelly app or web page); none: no auth. */
  passwordFile?: string;
  logger?: HardwareLogger;
}

/**
 * A Shelly Gen2 or Gen3 plug (Plus Plug S, Plug S Gen3, ...) or relay over its local HTTP RPC:
 * `Switch.Set` (with `toggle_after` as the dead man's timer), `Switch.GetStatus` (output and
 * `apower`), the SHA-256 digest when the plug has a password. No cloud, no MQTT needed.
 */
export class ShellyGen2Relay extends SmartPlugRelay {
  readonly description: string;
  private password: string | null = null;
  private challenge: ShellyChallenge | null = null;
  private nextId = 1;

  constructor(private readonly options: ShellyGen2Options) {
    super(options, options.logger);
    this.description = `Shelly plug at ${options.host}, switch ${options.switchId}`;
  }

  protected async connect(): Promise<void> {
    if (this.options.passwordFile) {
      this.password = await readPasswordFile(this.options.passwordFile, this.description);
    }
    const info = (await this.call('Shelly.GetDeviceInfo')) as Record<string, unknown>;
    if (typeof info !== 'object' || info === null || typeof info.gen !== 'number' || info.gen < 2) {
      throw new HardwareError(
        'device-error',
        `${this.description}: not a Gen2 or newer Shelly (Shelly.GetDeviceInfo answered without gen >= 2)`,
      );
    }
    this.logger.info(
      { plug: this.description, model: info.model, gen: info.gen, firmware: info.ver ?? info.fw_id },
      'Shelly plug found',
    );
  }

  protected async disconnect(): Promise<void> {}

  protected async switchTo(on: boolean): Promise<void> {
    const params: Record<string, unknown> = { id: this.options.switchId, on };
    if (on && this.options.deadManSeconds > 0) params.toggle_after = this.options.deadManSeconds;
    await this.call('Switch.Set', params);
  }

  protected async readStatus(): Promise<PlugStatus> {
    const status = parseSwitchStatus(await this.call('Switch.GetStatus', { id: this.options.switchId }));
    if (!status)
      throw new HardwareError(
        'device-error',
        `${this.description}: Switch.GetStatus answered without output`,
      );
    return { on: status.output, watts: status.apower ?? null };
  }

  /** One RPC frame on `POST /rpc`; answers a 401 challenge once with the digest. */
  private async call(method: string, params?: Record<string, unknown>): Promise<unknown> {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const request: ShellyRpcRequest = { id: this.nextId++, src: 'makerspace-agent', method };
      if (params) request.params = params;
      if (this.challenge && this.password !== null) request.auth = shellyAuth(this.challenge, this.password);
      let response: HttpAnswer;
      try {
        response = await post(this.options.host, '/rpc', JSON.stringify(request), this.options.timeoutMs);
      } catch (err) {
        throw new HardwareError(
          'device-unreachable',
          `${this.description}: ${method}: ${(err as Error).message}`,
        );
      }
      const text = response.body;
      if (response.status === 401) {
        if (this.password === null) {
          throw new HardwareError(
            'device-auth',
            `${this.description}: the plug has a password; set passwordFile in the config`,
          );
        }
        const challenge = parseDigestChallenge(response.wwwAuthenticate);
        if (!challenge || attempt > 0) {
          throw new HardwareError('device-auth', `${this.description}: the plug refused the password`);
        }
        this.challenge = challenge;
        continue;
      }
      let body: { result?: unknown; error?: { code?: number; message?: string } };
      try {
        body = JSON.parse(text);
      } catch {
        throw new HardwareError(
          'device-error',
          `${this.description}: ${method}: HTTP ${response.status}, not JSON`,
        );
      }
      if (body.error || response.status < 200 || response.status > 299) {
        throw new HardwareError(
          'device-error',
          `${this.description}: ${method}: ${body.error?.message ?? `HTTP ${response.status}`}`,
        );
      }
      return body.result;
    }
    throw new HardwareError('device-auth', `${this.description}: the plug refused the password`);
  }
}

interface HttpAnswer {
  status: number;
  wwwAuthenticate: string | undefined;
  body: string;
}

/**
 * One HTTP POST with node:http rather than fetch: the agent's unit runs Node in lite mode, without
 * WebAssembly, which fetch's HTTP parser needs. Answers are small; more than 64 KiB is refused.
 */
function post(host: string, path: string, body: string, timeoutMs: number): Promise<HttpAnswer> {
  const url = new URL(`http://${host}${path}`);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || 80,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > 64 * 1024) req.destroy(new Error('answer larger than 64 KiB'));
          else chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            wwwAuthenticate: res.headers['www-authenticate'],
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}
