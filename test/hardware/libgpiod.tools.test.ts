import { spawnSync } from 'node:child_process';
import {
  findGpioLine,
  gpioinfoChipArgs,
  gpiosetHoldArgs,
  gpiosetOnceArgs,
  holderScript,
  parseGpioinfo,
  parseLibgpiodVersion,
} from '@makerspace/hardware';
import { describe, expect, it } from 'vitest';

// Verbatim output of gpioinfo 1.6.3 (Raspberry Pi OS Bookworm) and 2.1 (Trixie), Pi 4 header
// lines, with GPIO17 held by gpioset.
const V1_LISTING = [
  'gpiochip0 - 58 lines:',
  '\tline   0:     "ID_SDA"       unused   input  active-high ',
  '\tline  16:     "GPIO16"       unused   input  active-high ',
  '\tline  17:     "GPIO17"    "gpioset"  output  active-high [used]',
  '\tline  18:     "GPIO18"       unused   input  active-high ',
  'gpiochip1 - 8 lines:',
  '\tline   0:      "BT_ON"   "shutdown"  output  active-high [used]',
  '\tline   7:      unnamed       unused   input  active-high ',
  '',
].join('\n');

const V2_LISTING = [
  'gpiochip0 - 58 lines:',
  '\tline   0:\t"ID_SDA"        \tinput',
  '\tline  16:\t"GPIO16"        \tinput',
  '\tline  17:\t"GPIO17"        \toutput consumer="makerspace-agent"',
  '\tline  18:\t"GPIO18"        \tinput',
  'gpiochip1 - 8 lines:',
  '\tline   0:\t"BT_ON"         \toutput consumer="shutdown"',
  '\tline   7:\tunnamed         \tinput',
  '',
].join('\n');

describe('libgpiod tools: versions and listings', () => {
  it('reads the major version of both tool generations', () => {
    expect(
      parseLibgpiodVersion('gpioset (libgpiod) v1.6.3\nCopyright (C) 2017-2018 Bartosz Golaszewski\n'),
    ).toBe(1);
    expect(parseLibgpiodVersion('gpioset (libgpiod) v2.1.3\n')).toBe(2);
    expect(() => parseLibgpiodVersion('gpioset (libgpiod) v3.0\n')).toThrow(/1\.x and 2\.x are supported/);
    expect(() => parseLibgpiodVersion('sh: gpioset: not found')).toThrow(/cannot tell the libgpiod version/);
  });

  it.each([
    [1, V1_LISTING, 'gpioset'],
    [2, V2_LISTING, 'makerspace-agent'],
  ] as const)('parses the gpioinfo listing of libgpiod %i', (major, listing, consumer) => {
    expect(parseGpioinfo(listing, major)).toEqual([
      { chip: 'gpiochip0', offset: 0, name: 'ID_SDA', consumer: null, direction: 'input' },
      { chip: 'gpiochip0', offset: 16, name: 'GPIO16', consumer: null, direction: 'input' },
      { chip: 'gpiochip0', offset: 17, name: 'GPIO17', consumer, direction: 'output' },
      { chip: 'gpiochip0', offset: 18, name: 'GPIO18', consumer: null, direction: 'input' },
      { chip: 'gpiochip1', offset: 0, name: 'BT_ON', consumer: 'shutdown', direction: 'output' },
      { chip: 'gpiochip1', offset: 7, name: null, consumer: null, direction: 'input' },
    ]);
  });

  it('finds a line by name, and refuses a missing or ambiguous name', () => {
    const lines = parseGpioinfo(V1_LISTING, 1);
    expect(findGpioLine(lines, 'GPIO18')).toMatchObject({ chip: 'gpiochip0', offset: 18 });
    expect(() => findGpioLine(lines, 'GPIO27')).toThrow(
      'GPIO relay: no GPIO line named "GPIO27" (chips found: gpiochip0, gpiochip1; "gpioinfo" lists the lines)',
    );
    const twice = [...lines, { ...lines[1], chip: 'gpiochip4' }];
    expect(() => findGpioLine(twice, 'GPIO16')).toThrow(
      'GPIO relay: the line name "GPIO16" is on gpiochip0 and gpiochip4; set "gpioChip" to the chip that drives the relay pin',
    );
    expect(findGpioLine(twice, 'GPIO16', 'gpiochip4')).toMatchObject({ chip: 'gpiochip4', offset: 16 });
  });
});

describe('libgpiod tools: command lines', () => {
  const line = { chip: 'gpiochip0', offset: 17, name: 'GPIO17', consumer: null, direction: 'input' } as const;

  it('builds the v1 and v2 command lines byte for byte', () => {
    expect(gpiosetHoldArgs(1, line, 1)).toEqual(['--mode=signal', 'gpiochip0', '17=1']);
    expect(gpiosetOnceArgs(1, line, 0)).toEqual(['--mode=exit', 'gpiochip0', '17=0']);
    expect(gpiosetHoldArgs(2, line, 0)).toEqual([
      '--consumer',
      'makerspace-agent',
      '--chip',
      'gpiochip0',
      '17=0',
    ]);
    expect(gpiosetOnceArgs(2, line, 1)).toEqual([
      '--consumer',
      'makerspace-agent',
      '--toggle',
      '0',
      '--chip',
      'gpiochip0',
      '17=1',
    ]);
    expect(gpioinfoChipArgs(1, 'gpiochip0')).toEqual(['gpiochip0']);
    expect(gpioinfoChipArgs(2, 'gpiochip0')).toEqual(['--chip', 'gpiochip0']);
  });

  it('writes the holder script, and refuses words that would need shell quoting', () => {
    expect(holderScript('gpioset', gpiosetHoldArgs(1, line, 0), gpiosetOnceArgs(1, line, 1))).toBe(
      'exec 3<&0\n' +
        'gpioset --mode=signal gpiochip0 17=0 </dev/null & p=$!\n' +
        "trap 'kill $p 2>/dev/null; wait $p; gpioset --mode=exit gpiochip0 17=1; exit 0' TERM HUP\n" +
        '{ read -r _ <&3; kill $p 2>/dev/null; } & r=$!\n' +
        'wait $p\n' +
        'kill $r 2>/dev/null\n' +
        'gpioset --mode=exit gpiochip0 17=1',
    );
    expect(() => holderScript('gpioset', ['gpiochip0;reboot'], [])).toThrow(/unexpected character/);
  });
});

// Debian's gpiod where installed (apt-get install gpiod): its option parser must accept the
// command lines built for its version. Without a chip it then fails at the chip, not the options.
const installed = spawnSync('gpioset', ['--version'], { encoding: 'utf8' });
describe.skipIf(installed.status !== 0)('libgpiod tools: the installed gpioset and gpioinfo', () => {
  it('accept the command lines built for their version', () => {
    const major = parseLibgpiodVersion(installed.stdout);
    const line = {
      chip: 'gpiochip99',
      offset: 17,
      name: 'GPIO17',
      consumer: null,
      direction: 'input',
    } as const;
    for (const args of [gpiosetHoldArgs(major, line, 1), gpiosetOnceArgs(major, line, 0)]) {
      const result = spawnSync('gpioset', args, { encoding: 'utf8', timeout: 5000 });
      expect(result.stderr).not.toMatch(/unrecognized option|invalid option|try gpioset --help/);
      expect(result.status).toBe(1);
    }
    const info = spawnSync('gpioinfo', gpioinfoChipArgs(major, 'gpiochip99'), { encoding: 'utf8' });
    expect(info.stderr).not.toMatch(/unrecognized option/);
    expect(info.stderr).toMatch(/gpiochip99/);
  });
});
