import { ConfigError } from '@makerspace/shared';
import {
  CardReaderConfig,
  createCardReader,
  createRelay,
  GpioRelay,
  Rdm6300Reader,
  RelayConfig,
  SerialLinesReader,
  SerialRelay,
  SimulatedCardReader,
  SimulatedRelay,
} from '@makerspace/hardware';
import { describe, expect, it } from 'vitest';

const problemsOf = (build: () => unknown): string[] => {
  try {
    build();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
};

describe('hardware config', () => {
  it('accepts the examples of the design and fills in defaults', () => {
    expect(RelayConfig.parse({ kind: 'gpio', relayPin: 17, activeLow: true })).toEqual({
      kind: 'gpio',
      relayPin: 17,
      activeLow: true,
      gpioInterface: 'auto',
      sysfsRoot: '/sys/class/gpio',
    });
    expect(RelayConfig.parse({ kind: 'serial-relay', path: '/dev/ttyUSB0', channel: 1 })).toEqual({
      kind: 'serial-relay',
      path: '/dev/ttyUSB0',
      channel: 1,
      baudRate: 9600,
    });
    expect(CardReaderConfig.parse({ kind: 'rdm6300', path: '/dev/serial0' })).toEqual({
      kind: 'rdm6300',
      path: '/dev/serial0',
      baudRate: 9600,
      debounceMs: 1000,
    });
    expect(CardReaderConfig.parse({ kind: 'serial-lines', path: '/dev/ttyACM0' })).toMatchObject({
      keyType: 'em4102',
      baudRate: 9600,
    });
  });

  it('builds the driver each kind names, without opening anything', () => {
    expect(createRelay({ kind: 'simulated', stateFile: '/tmp/never-written/relay.json' })).toBeInstanceOf(
      SimulatedRelay,
    );
    expect(createRelay({ kind: 'gpio', relayPin: 17, activeLow: true })).toBeInstanceOf(GpioRelay);
    expect(createRelay({ kind: 'serial-relay', path: '/dev/ttyUSB0', channel: 2 })).toBeInstanceOf(
      SerialRelay,
    );
    expect(createCardReader({ kind: 'simulated' })).toBeInstanceOf(SimulatedCardReader);
    expect(createCardReader({ kind: 'rdm6300', path: '/dev/serial0' })).toBeInstanceOf(Rdm6300Reader);
    expect(createCardReader({ kind: 'serial-lines', path: '/dev/ttyACM0', keyType: 'nfca' })).toBeInstanceOf(
      SerialLinesReader,
    );
    expect(createRelay({ kind: 'serial-relay', path: '/dev/ttyUSB0', channel: 2 }).description).toBe(
      'serial relay board on /dev/ttyUSB0, channel 2',
    );
  });

  it('reports every problem at once, each with its path', () => {
    const problems = problemsOf(() => createRelay({ kind: 'gpio', relayPin: 40, activeLow: 'yes' } as never));
    expect(problems).toHaveLength(2);
    expect(problems.some((p) => p.startsWith('hardware.relayPin:'))).toBe(true);
    expect(problems.some((p) => p.startsWith('hardware.activeLow:'))).toBe(true);
  });

  it('has no default idle level for a GPIO relay: leaving activeLow out is an error that says what to write', () => {
    const problems = problemsOf(() => createRelay({ kind: 'gpio', relayPin: 17 } as never));
    expect(problems).toEqual([
      expect.stringMatching(/^hardware\.activeLow: required: true for relay boards/),
    ]);
    // A misspelt key is no way round it either.
    expect(problemsOf(() => createRelay({ kind: 'gpio', relayPin: 17, activelow: true } as never))).toEqual([
      expect.stringMatching(/^hardware\.activeLow: required/),
      expect.stringMatching(/activelow/),
    ]);
  });

  it('checks the GPIO interface and chip of the character device', () => {
    expect(
      problemsOf(() =>
        createRelay({
          kind: 'gpio',
          relayPin: 17,
          activeLow: true,
          gpioInterface: 'gpiod',
          gpioChip: '0',
        } as never),
      ),
    ).toEqual([
      expect.stringMatching(/^hardware\.gpioInterface: .*"auto"\|"chardev"\|"sysfs"/),
      'hardware.gpioChip: a chip name such as gpiochip0',
    ]);
    expect(
      RelayConfig.parse({
        kind: 'gpio',
        relayPin: 17,
        activeLow: true,
        gpioInterface: 'chardev',
        gpioChip: 'gpiochip4',
      }),
    ).toMatchObject({ gpioInterface: 'chardev', gpioChip: 'gpiochip4' });
  });

  it('rejects unknown kinds, misspelt keys and impossible channels', () => {
    expect(problemsOf(() => createRelay({ kind: 'plc' } as never))[0]).toMatch(/^hardware\.kind:/);
    expect(
      problemsOf(() =>
        createRelay({ kind: 'gpio', relayPin: 17, activeLow: true, activelow: true } as never),
      )[0],
    ).toMatch(/activelow/);
    expect(
      problemsOf(() => createRelay({ kind: 'serial-relay', path: '/dev/ttyUSB0', channel: 0 }))[0],
    ).toMatch(/^hardware\.channel:/);
    expect(
      problemsOf(() => createCardReader({ kind: 'serial-lines', path: '', keyType: 'mifare' } as never)),
    ).toEqual([expect.stringMatching(/^cardReader\.path:/), expect.stringMatching(/^cardReader\.keyType:/)]);
  });
});
