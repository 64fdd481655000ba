import {
  type CardRead,
  encodeRdm6300Frame,
  type HardwareLogger,
  Rdm6300Reader,
  type SerialPortFactory,
  SerialLinesReader,
} from '@makerspace/hardware';
import { SerialPortMock } from 'serialport';
import { beforeEach, describe, expect, it } from 'vitest';
import { hasSocat, openDeviceEnd, openPtyPair } from './helpers/socat-pty.js';
import { useTeardown } from './helpers/teardown.js';

const MockBinding = SerialPortMock.binding;
const defer = useTeardown();

function recordingLogger() {
  const warnings: string[] = [];
  const logger: HardwareLogger = {
    debug: () => {},
    info: () => {},
    warn: (_obj, msg) => warnings.push(msg ?? ''),
    error: () => {},
  };
  return { logger, warnings };
}

/** Collects taps and lets a test wait for the n-th one. */
function tapRecorder() {
  const taps: CardRead[] = [];
  return {
    taps,
    onCard: (card: CardRead) => taps.push(card),
    async waitFor(count: number, timeoutMs = 3000) {
      const deadline = Date.now() + timeoutMs;
      while (taps.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} taps, got ${JSON.stringify(taps)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return taps;
    },
  };
}

const bytesWithBadChecksum = Buffer.concat([
  Buffer.from([0x02]),
  Buffer.from('62E3086CED09'),
  Buffer.from([0x03]),
]);

describe.skipIf(!hasSocat)('card readers over a pseudo-terminal', () => {
  it('RDM6300: reads real frame bytes, drops a bad checksum, and counts a held card once', async () => {
    const pty = await openPtyPair();
    defer(() => pty.close());
    const reader = new Rdm6300Reader({ path: pty.driverPath, baudRate: 9600, debounceMs: 1000 });
    defer(() => reader.stop());
    const recorder = tapRecorder();
    await reader.start(recorder.onCard);
    const device = await openDeviceEnd(pty.devicePath);
    defer(() => device.close());

    const held = encodeRdm6300Frame('62E3086CED');
    // Line noise, a corrupted frame, then a card held in the field (the reader repeats it).
    await device.write(
      Buffer.concat([Buffer.from([0x00, 0xff, 0x03]), bytesWithBadChecksum, held, held, held]),
    );
    // A different card, split across writes the way a UART delivers it.
    const other = encodeRdm6300Frame('0A0B0C0D0E');
    await device.write(other.subarray(0, 5));
    await device.write(other.subarray(5));

    const taps = await recorder.waitFor(2);
    expect(taps).toEqual([
      { type: 'em4102', token: '62E3086CED' },
      { type: 'em4102', token: '0A0B0C0D0E' },
    ]);
    expect(reader.rejectedReads).toBe(1);
    expect(reader.description).toContain(pty.driverPath);
  });

  it('line reader: reads hex ids per line, skipping garbage', async () => {
    const pty = await openPtyPair();
    defer(() => pty.close());
    const { logger, warnings } = recordingLogger();
    const reader = new SerialLinesReader({ path: pty.driverPath, baudRate: 9600, keyType: 'nfca', logger });
    defer(() => reader.stop());
    const recorder = tapRecorder();
    await reader.start(recorder.onCard);
    const device = await openDeviceEnd(pty.devicePath);
    defer(() => device.close());

    await device.write('READY v1.2\r\n\r\n04a1b2c3d4e5f6\r\n04A1B2C3D4E5F6\r\nbeef');
    await device.write('\r\n');
    const taps = await recorder.waitFor(2);
    expect(taps).toEqual([
      { type: 'nfca', token: '04A1B2C3D4E5F6' },
      { type: 'nfca', token: 'BEEF' },
    ]);
    expect(reader.rejectedReads).toBe(1);
    expect(warnings).toEqual(['line card reader: dropped unreadable input']);
  });
});

describe('serial card readers', () => {
  beforeEach(() => defer(() => MockBinding.reset()));

  it('counts a card again after it was away for the debounce window (injected clock)', async () => {
    MockBinding.createPort('/dev/ttyS0');
    let port: SerialPortMock | undefined;
    const openPort: SerialPortFactory = (settings) => {
      port = new SerialPortMock(settings);
      return port;
    };
    let now = 0;
    const reader = new Rdm6300Reader({
      path: '/dev/ttyS0',
      baudRate: 9600,
      debounceMs: 500,
      now: () => now,
      openPort,
    });
    defer(() => reader.stop());
    const recorder = tapRecorder();
    await reader.start(recorder.onCard);
    const frame = encodeRdm6300Frame('1122334455');

    port!.port!.emitData(frame);
    await recorder.waitFor(1);
    now = 400;
    port!.port!.emitData(frame);
    now = 1000;
    port!.port!.emitData(frame);
    await recorder.waitFor(2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(recorder.taps).toHaveLength(2);
  });

  it('reopens the port after it goes away and keeps reading', async () => {
    MockBinding.createPort('/dev/ttyS0');
    const ports: SerialPortMock[] = [];
    const openPort: SerialPortFactory = (settings) => {
      const port = new SerialPortMock(settings);
      ports.push(port);
      return port;
    };
    const { logger, warnings } = recordingLogger();
    const reader = new SerialLinesReader({
      path: '/dev/ttyS0',
      baudRate: 9600,
      keyType: 'em4102',
      openPort,
      logger,
      reconnectMs: 20,
    });
    defer(() => reader.stop());
    const recorder = tapRecorder();
    await reader.start(recorder.onCard);
    ports[0].port!.emitData('AA\n');
    await recorder.waitFor(1);

    ports[0].close(); // as if the USB reader was unplugged
    const deadline = Date.now() + 2000;
    while (!ports[1]?.isOpen && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    ports[1].port!.emitData('BB\n');
    await recorder.waitFor(2);
    expect(recorder.taps.map((t) => t.token)).toEqual(['AA', 'BB']);
    expect(warnings.some((w) => /closed unexpectedly/.test(w))).toBe(true);
  });

  it('keeps reading when the tap handler throws', async () => {
    MockBinding.createPort('/dev/ttyS0');
    let port: SerialPortMock | undefined;
    const reader = new SerialLinesReader({
      path: '/dev/ttyS0',
      baudRate: 9600,
      keyType: 'em4102',
      openPort: (settings) => {
        port = new SerialPortMock(settings);
        return port;
      },
    });
    defer(() => reader.stop());
    const seen: string[] = [];
    await reader.start((card) => {
      seen.push(card.token);
      if (seen.length === 1) throw new Error('consumer bug');
    });
    port!.port!.emitData('01\n02\n');
    const deadline = Date.now() + 2000;
    while (seen.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen).toEqual(['01', '02']);
  });

  it('fails to start with a clear error when the reader is not there', async () => {
    const reader = new Rdm6300Reader({ path: '/dev/serial-makerspace-missing', baudRate: 9600 });
    await expect(reader.start(() => {})).rejects.toThrow(
      /RDM6300 card reader: cannot open serial port \/dev\/serial-makerspace-missing: no such device/,
    );
    await reader.stop();
  });
});
