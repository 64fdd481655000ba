import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { SerialPort } from 'serialport';

/** True when socat can be run; pty tests skip with a message otherwise. */
export const hasSocat = spawnSync('socat', ['-V'], { stdio: 'ignore' }).status === 0;
if (!hasSocat) console.warn('socat is not installed: skipping the pseudo-terminal serial tests');

export interface PtyPair {
  /** The end the driver under test opens. */
  driverPath: string;
  /** The end the test opens to play the device. */
  devicePath: string;
  process: ChildProcess;
  close(): Promise<void>;
}

/** Starts `socat pty,raw,echo=0 pty,raw,echo=0` and waits until both ptys exist and bytes flow. */
export function openPtyPair(): Promise<PtyPair> {
  const child = spawn('socat', ['-d', '-d', 'pty,raw,echo=0', 'pty,raw,echo=0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const close = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => {
      void close();
      reject(new Error(`socat did not start in time:\n${stderr}`));
    }, 5000);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const paths = [...stderr.matchAll(/PTY is (\/dev\/pts\/\d+)/g)].map((m) => m[1]);
      if (paths.length === 2 && stderr.includes('starting data transfer loop')) {
        clearTimeout(timer);
        resolve({ driverPath: paths[0], devicePath: paths[1], process: child, close });
      }
    });
  });
}

/** The test's side of the pty: a port plus everything it has received. */
export interface DeviceEnd {
  port: SerialPort;
  received(): Buffer;
  /** Resolves once at least `count` bytes have arrived in total. */
  waitForBytes(count: number, timeoutMs?: number): Promise<Buffer>;
  write(data: Buffer | string): Promise<void>;
  close(): Promise<void>;
}

export async function openDeviceEnd(path: string): Promise<DeviceEnd> {
  const port = new SerialPort({ path, baudRate: 9600, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  let data = Buffer.alloc(0);
  const waiters: Array<() => void> = [];
  port.on('data', (chunk: Buffer) => {
    data = Buffer.concat([data, chunk]);
    for (const wake of waiters.splice(0)) wake();
  });
  port.on('error', () => {});
  const waitForBytes = async (count: number, timeoutMs = 3000) => {
    const deadline = Date.now() + timeoutMs;
    while (data.length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} bytes, got ${data.toString('hex')}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
    return data;
  };
  return {
    port,
    received: () => data,
    waitForBytes,
    write: (bytes) =>
      new Promise((resolve, reject) => {
        port.write(bytes, (err) => (err ? reject(err) : port.drain((e) => (e ? reject(e) : resolve()))));
      }),
    close: () => new Promise((resolve) => (port.isOpen ? port.close(() => resolve()) : resolve())),
  };
}
