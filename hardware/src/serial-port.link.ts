import { existsSync } from 'node:fs';
import type { EventEmitter } from 'node:events';
import { HardwareError, withTimeout } from './hardware.errors.js';

/**
 * The part of serialport's SerialPortStream the drivers use. Both `SerialPort` (real ports and
 * ptys) and `SerialPortMock` (MockBinding) fit, so tests inject either through `openPort`.
 */
export interface SerialPortLike extends EventEmitter {
  readonly isOpen: boolean;
  open(callback: (err: Error | null) => void): void;
  write(data: Buffer, callback?: (err: Error | null | undefined) => void): boolean;
  drain(callback: (err: Error | null) => void): void;
  close(callback?: (err: Error | null) => void): void;
}

export interface SerialPortSettings {
  path: string;
  baudRate: number;
}

/** Builds an unopened port; the link opens it. */
export type SerialPortFactory = (settings: SerialPortSettings & { autoOpen: false }) => SerialPortLike;

/**
 * The default factory loads serialport only when a port is opened, so the agent starts (and its
 * simulated mode works) on machines where the native binding cannot load.
 */
export const defaultSerialPortFactory = async (): Promise<SerialPortFactory> => {
  const { SerialPort } = await import('serialport');
  return (settings) => new SerialPort(settings) as unknown as SerialPortLike;
};

export interface OpenSerialPortOptions extends SerialPortSettings {
  /** Who is opening it, for error messages ("serial relay board", "RDM6300 card reader"). */
  device: string;
  openPort?: SerialPortFactory;
  timeoutMs?: number;
}

/** Opens a serial port, turning the usual failures into errors an operator can act on. */
export async function openSerialPort(options: OpenSerialPortOptions): Promise<SerialPortLike> {
  const factory = options.openPort ?? (await defaultSerialPortFactory());
  let port: SerialPortLike;
  try {
    port = factory({ path: options.path, baudRate: options.baudRate, autoOpen: false });
  } catch (err) {
    throw describeOpenError(options, err);
  }
  const opened = new Promise<void>((resolve, reject) => {
    port.open((err) => (err ? reject(err) : resolve()));
  });
  try {
    await withTimeout(opened, options.timeoutMs ?? 5000, `${options.device}: opening ${options.path}`);
  } catch (err) {
    // A port that opens after we gave up must not stay open (and locked) behind our back.
    opened.then(
      () => port.close(),
      () => {},
    );
    throw err instanceof HardwareError ? err : describeOpenError(options, err);
  }
  return port;
}

function describeOpenError(options: OpenSerialPortOptions, err: unknown): HardwareError {
  const detail = err instanceof Error ? err.message : String(err);
  const where = `${options.device}: cannot open serial port ${options.path}`;
  // The mock binding reports a missing port differently from the real one, so check the path too.
  if (
    /ENOENT|No such file|does not exist/i.test(detail) ||
    (!existsSync(options.path) && !options.openPort)
  ) {
    return new HardwareError(
      'port-not-found',
      `${where}: no such device. Check that it is plugged in and the path is right ` +
        '(stable names are listed in /dev/serial/by-id/).',
      { cause: err },
    );
  }
  if (/EACCES|Permission denied/i.test(detail)) {
    return new HardwareError(
      'port-permission',
      `${where}: permission denied. Add the agent's user to the "dialout" group.`,
      { cause: err },
    );
  }
  return new HardwareError('port-open', `${where}: ${detail}`, { cause: err });
}

/** Writes bytes and waits until the OS has sent them (tcdrain), so "switched" means sent. */
export async function writeAndDrain(
  port: SerialPortLike,
  data: Buffer,
  timeoutMs: number,
  what: string,
): Promise<void> {
  if (!port.isOpen) throw new HardwareError('port-closed', `${what}: the serial port is closed`);
  const written = new Promise<void>((resolve, reject) => {
    port.write(data, (err) => {
      if (err) return reject(err);
      port.drain((drainErr) => (drainErr ? reject(drainErr) : resolve()));
    });
  });
  try {
    await withTimeout(written, timeoutMs, what);
  } catch (err) {
    if (err instanceof HardwareError) throw err;
    throw new HardwareError('port-closed', `${what}: ${(err as Error).message}`, { cause: err });
  }
}

/** Closes a port if it is open; never rejects (closing is cleanup). */
export function closeSerialPort(port: SerialPortLike): Promise<void> {
  return new Promise((resolve) => {
    if (!port.isOpen) return resolve();
    port.close(() => resolve());
  });
}
