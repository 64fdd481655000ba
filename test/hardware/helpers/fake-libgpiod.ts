import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A fake GPIO chip driven by stand-in `gpioset` and `gpioinfo` executables of libgpiod 1.6 or
 * 2.1, put first on PATH. They take the real tools' options (and refuse the other version's),
 * print the real tools' output formats, record every call, and behave like the kernel where it
 * matters: a held line is busy for others, and it is released when its gpioset process ends,
 * however it ends (a SIGKILL included), because "held" means "held by a live process id".
 */
export interface FakeLibgpiod {
  /** Environment for the driver under test: PATH starts with the fakes. */
  env: NodeJS.ProcessEnv;
  dir: string;
  /** Every tool invocation, e.g. "gpioset --mode=signal gpiochip0 17=1". */
  calls(): string[];
  /** Every level applied, e.g. "gpiochip0 17 1". */
  levels(): string[];
  /** Consumer holding the line, or null. */
  holder(chip: string, offset: number): string | null;
  cleanup(): void;
}

/** Line names of a Raspberry Pi 4 (pinctrl-bcm2711), as its device tree gives them. */
export const PI4_LINE_NAMES = [
  'ID_SDA',
  'ID_SCL',
  'SDA1',
  'SCL1',
  'GPIO_GCLK',
  'GPIO5',
  'GPIO6',
  'SPI_CE1_N',
  'SPI_CE0_N',
  'SPI_MISO',
  'SPI_MOSI',
  'SPI_SCLK',
  'GPIO12',
  'GPIO13',
  'TXD1',
  'RXD1',
  'GPIO16',
  'GPIO17',
  'GPIO18',
  'GPIO19',
  'GPIO20',
  'GPIO21',
  'GPIO22',
  'GPIO23',
  'GPIO24',
  'GPIO25',
  'GPIO26',
  'GPIO27',
  'RGMII_MDIO',
  'RGMIO_MDC',
  'CTS0',
  'RTS0',
  'TXD0',
  'RXD0',
  'SD1_CLK',
  'SD1_CMD',
  'SD1_DATA0',
  'SD1_DATA1',
  'SD1_DATA2',
  'SD1_DATA3',
  'PWM0_MISO',
  'PWM1_MOSI',
  'STATUS_LED_G_CLK',
  'SPIFLASH_CE_N',
  'SDA0',
  'SCL0',
  'RGMII_RXCLK',
  'RGMII_RXCTL',
  'RGMII_RXD0',
  'RGMII_RXD1',
  'RGMII_RXD2',
  'RGMII_RXD3',
  'RGMII_TXCLK',
  'RGMII_TXCTL',
  'RGMII_TXD0',
  'RGMII_TXD1',
  'RGMII_TXD2',
  'RGMII_TXD3',
];
const PI4_EXPANDER = [
  'BT_ON',
  'WL_ON',
  'PWR_LED_OFF',
  'GLOBAL_RESET',
  'VDD_SD_IO_SEL',
  'CAM_GPIO',
  'SD_PWR_ON',
  '',
];

const COMMON = `S="$FAKE_GPIO_STATE"
# Held = held by a live process (a zombie has released its lines, as the kernel does at exit).
alive() {
  [ -f "$1" ] || return 1
  st=$(sed 's/.*) //' "/proc/$(cut -d' ' -f1 "$1")/stat" 2>/dev/null | cut -c1)
  [ -n "$st" ] && [ "$st" != Z ]
}
`;

function gpiosetScript(major: 1 | 2): string {
  const version = major === 1 ? 'v1.6.3' : 'v2.1.3';
  const parse =
    major === 1
      ? `mode=exit
while [ $# -gt 0 ]; do
  case "$1" in
    --mode=*) mode="\${1#--mode=}"; shift ;;
    -m) mode="$2"; shift 2 ;;
    -*) echo "gpioset: unrecognized option '$1'" >&2; echo "gpioset: try gpioset --help" >&2; exit 1 ;;
    *) break ;;
  esac
done
case "$mode" in exit|signal) ;; *) echo "gpioset: invalid mode: $mode" >&2; exit 1 ;; esac
[ $# -ge 1 ] || { echo "gpioset: gpiochip must be specified" >&2; exit 1; }
chip="$1"; shift
[ $# -ge 1 ] || { echo "gpioset: at least one GPIO line offset to value mapping must be specified" >&2; exit 1; }
consumer=gpioset
[ "$mode" = exit ] && once=1 || once=0
busy="gpioset: error setting the GPIO line values: Device or resource busy"
nochip="gpioset: error setting the GPIO line values: No such file or directory"`
      : `consumer=gpioset; chip=""; once=0
while [ $# -gt 0 ]; do
  case "$1" in
    -C|--consumer) consumer="$2"; shift 2 ;;
    -c|--chip) chip="$2"; shift 2 ;;
    -t|--toggle) [ "$2" = 0 ] && once=1; shift 2 ;;
    -*) echo "gpioset: unrecognized option '$1'" >&2; echo "gpioset: try gpioset --help" >&2; exit 1 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "gpioset: at least one GPIO line value must be specified" >&2; exit 1; }
[ -n "$chip" ] || { echo "gpioset: cannot find line '\${1%%=*}'" >&2; exit 1; }
busy="gpioset: unable to request lines on chip '/dev/$chip': Device or resource busy"
nochip="gpioset: cannot find GPIO chip character device '$chip'"`;
  return `#!/bin/sh
${COMMON}echo "gpioset $*" >> "$S/calls.log"
case "$1" in -v|--version) echo "gpioset (libgpiod) ${version}"; echo "Copyright (C) 2017-2023 Bartosz Golaszewski"; exit 0 ;; esac
${parse}
[ -f "$S/chips/$chip" ] || { echo "$nochip" >&2; exit 1; }
offset="\${1%%=*}"; level="\${1#*=}"
n=$(wc -l < "$S/chips/$chip")
case "$offset" in ''|*[!0-9]*) echo "gpioset: invalid offset: $offset" >&2; exit 1 ;; esac
[ "$offset" -lt "$n" ] || { echo "gpioset: offset $offset out of range on chip $chip" >&2; exit 1; }
case "$level" in 0|1) ;; *) echo "gpioset: invalid value: $level" >&2; exit 1 ;; esac
held="$S/held/$chip-$offset"
t=0; until mkdir "$S/lock" 2>/dev/null; do t=$((t + 1)); [ $t -lt 200 ] || { echo "$busy" >&2; exit 1; }; sleep 0.01; done
if alive "$held"; then rmdir "$S/lock"; echo "$busy" >&2; exit 1; fi
# The level first, then the holder: a real gpioset requests the line with its value at once, so
# whoever sees the line held (gpioinfo) must also see the level.
echo "$chip $offset $level" >> "$S/levels.log"
echo "$$ $consumer" > "$held"
rmdir "$S/lock"
if [ "$once" = 1 ]; then rm -f "$held"; exit 0; fi
trap 'rm -f "$held"; exit 0' TERM INT
while :; do sleep 1 & wait $!; done
`;
}

function gpioinfoScript(major: 1 | 2): string {
  const version = major === 1 ? 'v1.6.3' : 'v2.1.3';
  const parse =
    major === 1
      ? `chips="$*"
for c in $chips; do case "$c" in -*) echo "gpioinfo: unrecognized option '$c'" >&2; exit 1 ;; esac; done`
      : `chips=""
while [ $# -gt 0 ]; do
  case "$1" in
    -c|--chip) chips="$2"; shift 2 ;;
    -*) echo "gpioinfo: unrecognized option '$1'" >&2; exit 1 ;;
    *) echo "gpioinfo: lines by name are not supported by this stand-in" >&2; exit 1 ;;
  esac
done`;
  const row =
    major === 1
      ? `if [ -n "$name" ]; then qn="\\"$name\\""; else qn=unnamed; fi
    if alive "$S/held/$c-$i"; then
      cons="\\"$(cut -d' ' -f2 "$S/held/$c-$i")\\""
      printf '\\tline %3u: %12s %12s %7s %12s%s\\n' "$i" "$qn" "$cons" output active-high ' [used]'
    else
      printf '\\tline %3u: %12s %12s %7s %12s%s\\n' "$i" "$qn" unused input active-high ' '
    fi`
      : `if [ -n "$name" ]; then qn="\\"$name\\""; else qn=unnamed; fi
    if alive "$S/held/$c-$i"; then
      printf '\\tline %3u:\\t%-16s\\toutput consumer="%s"\\n' "$i" "$qn" "$(cut -d' ' -f2 "$S/held/$c-$i")"
    else
      printf '\\tline %3u:\\t%-16s\\tinput\\n' "$i" "$qn"
    fi`;
  return `#!/bin/sh
${COMMON}echo "gpioinfo $*" >> "$S/calls.log"
case "$1" in -v|--version) echo "gpioinfo (libgpiod) ${version}"; exit 0 ;; esac
${parse}
[ -n "$chips" ] || chips=$(ls "$S/chips" | sort -V)
for c in $chips; do
  [ -f "$S/chips/$c" ] || { echo "gpioinfo: cannot find GPIO chip character device '$c'" >&2; exit 1; }
  echo "$c - $(wc -l < "$S/chips/$c") lines:"
  i=0
  while IFS= read -r name; do
    ${row}
    i=$((i + 1))
  done < "$S/chips/$c"
done
`;
}

/** Creates the fake tools of libgpiod `major` and a Pi 4's two chips. */
export function fakeLibgpiod(major: 1 | 2, chips: Record<string, string[]> = {}): FakeLibgpiod {
  const dir = mkdtempSync(join(tmpdir(), `makerspace-libgpiod${major}-`));
  const bin = join(dir, 'bin');
  for (const sub of ['bin', 'chips', 'held', 'dev']) mkdirSync(join(dir, sub));
  const all = { gpiochip0: PI4_LINE_NAMES, gpiochip1: PI4_EXPANDER, ...chips };
  for (const [chip, names] of Object.entries(all)) {
    writeFileSync(join(dir, 'chips', chip), `${names.join('\n')}\n`);
    writeFileSync(join(dir, 'dev', chip), '');
  }
  writeFileSync(join(bin, 'gpioset'), gpiosetScript(major));
  writeFileSync(join(bin, 'gpioinfo'), gpioinfoScript(major));
  chmodSync(join(bin, 'gpioset'), 0o755);
  chmodSync(join(bin, 'gpioinfo'), 0o755);
  const read = (file: string) =>
    existsSync(join(dir, file)) ? readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean) : [];
  return {
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, FAKE_GPIO_STATE: dir },
    dir,
    calls: () => read('calls.log'),
    levels: () => read('levels.log'),
    holder(chip, offset) {
      const file = join(dir, 'held', `${chip}-${offset}`);
      if (!existsSync(file)) return null;
      const [pid, consumer] = readFileSync(file, 'utf8').trim().split(' ');
      try {
        const state = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
        return state === 'Z' ? null : consumer;
      } catch {
        return null;
      }
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
