import { HardwareError, SerialRelay, type SerialPortFactory } from '@makerspace/hardware';
import { SerialPortMock } from 'serialport';
import { beforeEach, describe, expect, it } from 'vitest';
import { hasSocat, openDeviceEnd, openPtyPair } from './helpers/socat-pty.js';
import { useTeardown } from './helpers/teardown.js';

// The binding SerialPortMock really uses (importing @serialport/binding-mock directly can load a
// second copy of it under ESM, whose ports SerialPortMock would not see).
const MockBinding = SerialPortMock.binding;
const defer = useTeardown();
const ON_1 = [0xa0, 0x01, 0x01, 0xa2];
const OFF_1 = [0xa0, 0x01, 0x00, 0xa1];

describe.skipIf(!hasSocat)('serial relay board over a pseudo-terminal', () => {
  it('switches off on open, then on and off, and off again on close', async () => {
    const pty = await openPtyPair();
    defer(() => pty.close());
    const board = await openDeviceEnd(pty.devicePath);
    defer(() => board.close());
    const relay = new SerialRelay({ path: pty.driverPath, channel: 1, baudRate: 9600 });
    defer(() => relay.close());

    await relay.open();
    expect([...(await board.waitForBytes(4))]).toEqual(OFF_1);
    expect(relay.get()).toBe('off');

    await relay.set('on');
    expect(relay.get()).toBe('on');
    await relay.set('off');
    await relay.close();
    expect([...(await board.waitForBytes(16))]).toEqual([...OFF_1, ...ON_1, ...OFF_1, ...OFF_1]);
    expect(relay.get()).toBe('off');
  });

  it('sends rapid switches in call order on its channel', async () => {
    const pty = await openPtyPair();
    defer(() => pty.close());
    const board = await openDeviceEnd(pty.devicePath);
    defer(() => board.close());
    const relay = new SerialRelay({ path: pty.driverPath, channel: 3, baudRate: 9600 });
    defer(() => relay.close());
    await relay.open();
    await Promise.all([relay.set('on'), relay.set('off'), relay.set('on')]);
    const bytes = await board.waitForBytes(16);
    expect(bytes.toString('hex')).toBe('a00300a3' + 'a00301a4' + 'a00300a3' + 'a00301a4');
    expect(relay.get()).toBe('on');
  });
});

describe('serial relay board', () => {
  // Registered first, so it runs after the relay in each test is closed.
  beforeEach(() => defer(() => MockBinding.reset()));
  const mockPorts: SerialPortFactory = (settings) => new SerialPortMock(settings);

  it('writes the frames through serialport (mock binding)', async () => {
    MockBinding.createPort('/dev/ttyUSB0', { record: true });
    let opened: SerialPortMock | undefined;
    const relay = new SerialRelay({
      path: '/dev/ttyUSB0',
      channel: 2,
      baudRate: 9600,
      openPort: (settings) => {
        opened = new SerialPortMock(settings);
        return opened;
      },
    });
    defer(() => relay.close());
    await relay.open();
    await relay.set('on');
    expect(opened!.port!.recording.toString('hex')).toBe('a00200a2a00201a3');
  });

  it('reopens an unplugged board on the next switch, and says so when it is still gone', async () => {
    MockBinding.createPort('/dev/ttyUSB0', { record: true });
    const ports: SerialPortMock[] = [];
    const relay = new SerialRelay({
      path: '/dev/ttyUSB0',
      channel: 1,
      baudRate: 9600,
      openPort: (settings) => {
        const port = new SerialPortMock(settings);
        ports.push(port);
        return port;
      },
    });
    defer(() => relay.close());
    expect(relay.healthy()).toMatch(/not open/);
    await relay.open();
    expect(relay.healthy()).toBe(true);
    await new Promise<void>((resolve) => ports[0].close(() => resolve())); // unplugged
    // The watchdog's check sees it at once, before any switch.
    expect(relay.healthy()).toBe('serial relay board on /dev/ttyUSB0, channel 1: disconnected');
    await relay.set('on');
    expect(relay.healthy()).toBe(true);
    expect(ports).toHaveLength(2);
    expect(ports[1].port!.recording.toString('hex')).toBe('a00101a2');
    expect(relay.get()).toBe('on');

    await new Promise<void>((resolve) => ports[1].close(() => resolve()));
    MockBinding.reset(); // and this time it stays away
    await expect(relay.set('off')).rejects.toMatchObject({ code: 'port-not-found' });
  });

  it('says which port is missing and where to look', async () => {
    const relay = new SerialRelay({ path: '/dev/ttyUSB7', channel: 1, baudRate: 9600, openPort: mockPorts });
    const error = await relay.open().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(HardwareError);
    expect((error as HardwareError).code).toBe('port-not-found');
    expect((error as Error).message).toMatch(/\/dev\/ttyUSB7.*no such device.*\/dev\/serial\/by-id/);
  });

  it('reports a real missing device the same way', async () => {
    const relay = new SerialRelay({ path: '/dev/ttyUSB-makerspace-missing', channel: 1, baudRate: 9600 });
    await expect(relay.open()).rejects.toMatchObject({ code: 'port-not-found' });
  });

  it('refuses to switch when it was never opened or is closed', async () => {
    MockBinding.createPort('/dev/ttyUSB0');
    const relay = new SerialRelay({ path: '/dev/ttyUSB0', channel: 1, baudRate: 9600, openPort: mockPorts });
    await expect(relay.set('on')).rejects.toMatchObject({ code: 'port-closed' });
    await relay.open();
    await relay.close();
    await relay.close();
    await expect(relay.set('on')).rejects.toThrow(/not open/);
    expect(relay.get()).toBe('off');
  });

  it('rejects a channel the board cannot have when built', () => {
    expect(() => new SerialRelay({ path: '/dev/ttyUSB0', channel: 9, baudRate: 9600 })).toThrow(/1 to 8/);
  });
});
