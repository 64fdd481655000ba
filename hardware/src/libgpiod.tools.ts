import { HardwareError } from './hardware.errors.js';

/**
 * Command lines and output parsers for Debian's libgpiod tools (package `gpiod`). Raspberry Pi OS
 * Bookworm ships libgpiod 1.6, Trixie 2.x; the two differ in options (v1 takes a chip and offsets
 * and needs `--mode=signal` to hold a line, v2 holds by default and takes `--chip`), so every
 * command line is built here from the major version, and tested byte for byte.
 */

export type LibgpiodMajor = 1 | 2;

/** Consumer name the v2 tools record on the line (v1's gpioset always records "gpioset"). */
export const GPIO_CONSUMER = 'makerspace-agent';

/** A line of a GPIO chip as `gpioinfo` lists it. */
export interface GpioLineInfo {
  chip: string;
  offset: number;
  /** Null for unnamed lines. */
  name: string | null;
  /** Null when no program holds the line. */
  consumer: string | null;
  direction: 'input' | 'output';
}

/** The major version from `gpioset --version`: "gpioset (libgpiod) v1.6.3" or "... v2.1.3". */
export function parseLibgpiodVersion(text: string): LibgpiodMajor {
  const match = /\(libgpiod\) v(\d+)\.\d+/.exec(text);
  const major = match ? Number(match[1]) : Number.NaN;
  if (major === 1 || major === 2) return major;
  throw new HardwareError(
    'gpio-unavailable',
    `GPIO relay: cannot tell the libgpiod version from "gpioset --version" ` +
      `(${JSON.stringify(text.split('\n')[0] ?? '')}); libgpiod 1.x and 2.x are supported`,
  );
}

const CHIP_HEADER = /^(\S+) - (\d+) lines:$/;
// v1: `\tline  17:     "GPIO17"       unused   input  active-high `
//     `\tline  17:     "GPIO17"    "gpioset"  output  active-high [used]`
// v2: `\tline  17:\t"GPIO17"        \tinput`
//     `\tline  17:\t"GPIO17"        \toutput consumer="makerspace-agent"`
const LINE_ROW = /^\s*line\s+(\d+):\s+(?:"([^"]*)"|unnamed)\s*(.*)$/;

/** Parses the listing `gpioinfo` prints (all chips, or one), v1 and v2 formats. */
export function parseGpioinfo(text: string, major: LibgpiodMajor): GpioLineInfo[] {
  const lines: GpioLineInfo[] = [];
  let chip: string | null = null;
  for (const row of text.split('\n')) {
    if (!row.trim()) continue;
    const header = CHIP_HEADER.exec(row.trim());
    if (header) {
      chip = header[1];
      continue;
    }
    const match = LINE_ROW.exec(row);
    if (!match || chip === null) continue;
    const rest = match[3].trim();
    const direction = /\boutput\b/.test(rest) ? 'output' : 'input';
    let consumer: string | null;
    if (major === 1) {
      // The consumer column comes first: a quoted name, or "unused".
      const quoted = /^"([^"]*)"/.exec(rest);
      consumer = quoted ? quoted[1] : null;
    } else {
      const attr = /\bconsumer=(?:"([^"]*)"|(\S+))/.exec(rest);
      consumer = attr ? (attr[1] ?? attr[2]) : null;
    }
    lines.push({ chip, offset: Number(match[1]), name: match[2] ?? null, consumer, direction });
  }
  return lines;
}

/**
 * Finds the line called `name` (e.g. "GPIO17", the names the Pi's device tree gives the header
 * pins on Pi 3, 4 and 5), on `chip` when given. A name on several chips is refused rather than
 * guessed: the wrong chip is the wrong pin.
 */
export function findGpioLine(lines: readonly GpioLineInfo[], name: string, chip?: string): GpioLineInfo {
  const found = lines.filter((line) => line.name === name && (chip === undefined || line.chip === chip));
  if (found.length === 1) return found[0];
  const chips = [...new Set(lines.map((line) => line.chip))];
  if (found.length === 0) {
    throw new HardwareError(
      'gpio-pin',
      `GPIO relay: no GPIO line named "${name}"${chip ? ` on ${chip}` : ''} ` +
        `(chips found: ${chips.length ? chips.join(', ') : 'none'}; "gpioinfo" lists the lines)`,
    );
  }
  throw new HardwareError(
    'gpio-pin',
    `GPIO relay: the line name "${name}" is on ${found.map((line) => line.chip).join(' and ')}; ` +
      'set "gpioChip" to the chip that drives the relay pin',
  );
}

/** `gpioinfo` arguments listing one chip's lines. */
export function gpioinfoChipArgs(major: LibgpiodMajor, chip: string): string[] {
  return major === 1 ? [chip] : ['--chip', chip];
}

/** `gpioset` arguments that drive the line to `level` and hold it until the process ends. */
export function gpiosetHoldArgs(major: LibgpiodMajor, line: GpioLineInfo, level: 0 | 1): string[] {
  return major === 1
    ? ['--mode=signal', line.chip, `${line.offset}=${level}`]
    : ['--consumer', GPIO_CONSUMER, '--chip', line.chip, `${line.offset}=${level}`];
}

/** `gpioset` arguments that drive the line to `level` and exit at once (releasing it). */
export function gpiosetOnceArgs(major: LibgpiodMajor, line: GpioLineInfo, level: 0 | 1): string[] {
  return major === 1
    ? ['--mode=exit', line.chip, `${line.offset}=${level}`]
    : ['--consumer', GPIO_CONSUMER, '--toggle', '0', '--chip', line.chip, `${line.offset}=${level}`];
}

const SHELL_SAFE = /^[A-Za-z0-9_./=:,+-]+$/;

function shellWord(word: string): string {
  // Chip names, offsets and option words only; anything else is refused, not quoted.
  if (!SHELL_SAFE.test(word)) {
    throw new HardwareError('gpio-pin', `GPIO relay: unexpected character in ${JSON.stringify(word)}`);
  }
  return word;
}

/**
 * The `sh -c` script that holds a level: it runs gpioset in the background and ends when either
 * gpioset ends or the script's standard input does. The agent keeps that pipe open while it wants
 * the level; when it closes the pipe, or dies (even by kill -9, since the kernel then closes the
 * pipe), or systemd sends SIGTERM, the script stops gpioset and drives the line to the off level
 * once before it exits. So does a gpioset that ends by itself, and the agent sees the holder gone.
 */
export function holderScript(gpioset: string, holdArgs: string[], offArgs: string[]): string {
  const hold = [gpioset, ...holdArgs].map(shellWord).join(' ');
  const off = [gpioset, ...offArgs].map(shellWord).join(' ');
  return [
    // An asynchronous list reads /dev/null unless told otherwise: hand the pipe on as fd 3.
    'exec 3<&0',
    `${hold} </dev/null & p=$!`,
    `trap 'kill $p 2>/dev/null; wait $p; ${off}; exit 0' TERM HUP`,
    '{ read -r _ <&3; kill $p 2>/dev/null; } & r=$!',
    'wait $p',
    'kill $r 2>/dev/null',
    off,
  ].join('\n');
}
