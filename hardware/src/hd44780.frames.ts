/*
 * HD44780 character LCDs through a PCF8574 I2C backpack (the common 16x2 and 20x4 modules), as
 * pure byte sequences. The backpack's 8 outputs drive the LCD in its 4-bit mode:
 *   P0 = RS (0 instruction, 1 data), P1 = R/W (always 0: write), P2 = EN, P3 = backlight,
 *   P4..P7 = D4..D7.
 * A nibble is latched on EN's falling edge, so each nibble is written as two bytes: with EN high,
 * then with EN low. A byte is its high nibble, then its low one (HD44780U datasheet, "Interfacing
 * to a 4-bit bus" and figure 24, "4-bit interface initialization").
 */

export const LCD_RS = 0x01;
export const LCD_EN = 0x04;
export const LCD_BACKLIGHT = 0x08;

/** Instructions (datasheet table 6). */
export const LCD_CLEAR = 0x01;
export const LCD_ENTRY_INCREMENT = 0x06;
export const LCD_DISPLAY_OFF = 0x08;
export const LCD_DISPLAY_ON = 0x0c;
/** Function set: 4-bit bus, 2 lines (also for 4-row modules, whose rows are 2 lines split), 5x8 dots. */
export const LCD_FUNCTION_4BIT_2LINE = 0x28;
export const LCD_SET_DDRAM = 0x80;

/** One step of a write: bytes for the PCF8574, then how long the LCD needs before the next. */
export interface LcdStep {
  bytes: number[];
  delayMs: number;
}

/** One nibble (the low 4 bits of `nibble`) as the two bytes of an EN pulse. */
export function lcdNibble(nibble: number, rs: boolean, backlight: boolean): number[] {
  const base = ((nibble & 0x0f) << 4) | (rs ? LCD_RS : 0) | (backlight ? LCD_BACKLIGHT : 0);
  return [base | LCD_EN, base];
}

/** One byte (instruction or character) as four PCF8574 bytes: high nibble, then low. */
export function lcdByte(value: number, rs: boolean, backlight: boolean): number[] {
  return [...lcdNibble(value >> 4, rs, backlight), ...lcdNibble(value, rs, backlight)];
}

/**
 * Initialisation by instruction: the LCD may be in 8-bit mode or half way through a 4-bit byte
 * (after a restart of the agent without a power cycle), so three 0x3 nibbles put it in 8-bit mode
 * first, then 0x2 selects the 4-bit bus; then function set, display off, clear, entry mode,
 * display on. Delays are the datasheet's minimums with a margin.
 */
export function lcdInitSteps(backlight: boolean): LcdStep[] {
  const nibble = (n: number, delayMs: number): LcdStep => ({
    bytes: lcdNibble(n, false, backlight),
    delayMs,
  });
  const command = (c: number, delayMs = 1): LcdStep => ({ bytes: lcdByte(c, false, backlight), delayMs });
  return [
    { bytes: [backlight ? LCD_BACKLIGHT : 0], delayMs: 50 }, // > 40 ms after power on
    nibble(0x3, 5), // > 4.1 ms
    nibble(0x3, 1), // > 100 us
    nibble(0x3, 1),
    nibble(0x2, 1),
    command(LCD_FUNCTION_4BIT_2LINE),
    command(LCD_DISPLAY_OFF),
    command(LCD_CLEAR, 2), // clear takes 1.52 ms
    command(LCD_ENTRY_INCREMENT),
    command(LCD_DISPLAY_ON),
  ];
}

/**
 * The DDRAM address where a row starts: rows 0 and 1 at 0x00 and 0x40; on 4-row modules rows 2
 * and 3 continue rows 0 and 1 (0x14 and 0x54 on 20-column modules, 0x10 and 0x50 on 16-column).
 */
export function lcdRowAddress(row: number, columns: number): number {
  return [0x00, 0x40, columns, 0x40 + columns][row] ?? 0;
}

/**
 * Text as the codes of the LCD's character ROM (A00, the common one): printable ASCII stays,
 * accents are dropped (é -> e), ß becomes ss, anything else a '?'. ROM A00 has no lower-case
 * umlauts in ASCII positions and no €, so this keeps every module readable.
 */
export function lcdCharacters(text: string): number[] {
  return [...lcdPlainText(text)].map((char) => char.charCodeAt(0));
}

/** The text as the LCD will show it, one character per cell (see lcdCharacters). */
export function lcdPlainText(text: string): string {
  const plain = text
    .replaceAll('ß', 'ss')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '');
  let out = '';
  for (const char of plain) {
    const code = char.codePointAt(0) ?? 0x3f;
    // ROM A00 has ¥ at 0x5c and arrows at 0x7e and 0x7f: a backslash or tilde would show wrongly.
    out += code >= 0x20 && code <= 0x7d && code !== 0x5c ? char : '?';
  }
  return out;
}

/** One row: the address instruction, then exactly `columns` characters (cut or padded with spaces). */
export function lcdRowBytes(row: number, text: string, columns: number, backlight: boolean): number[] {
  const codes = lcdCharacters(text).slice(0, columns);
  while (codes.length < columns) codes.push(0x20);
  return [
    ...lcdByte(LCD_SET_DDRAM | lcdRowAddress(row, columns), false, backlight),
    ...codes.flatMap((code) => lcdByte(code, true, backlight)),
  ];
}

/**
 * Lines for a display of `columns` x `rows`: each line word-wrapped to the width; when that takes
 * more rows than there are, the lines are joined and wrapped as one text ("Ada" "Lovelace"
 * "Checked in" on 16x2: "Ada Lovelace" / "Checked in"); what still does not fit is cut.
 */
export function layoutLines(lines: readonly string[], columns: number, rows: number): string[] {
  const clean = lines.map((line) => lcdPlainText(line.replace(/\s+/g, ' ').trim())).filter(Boolean);
  let out = clean.flatMap((line) => wrap(line, columns));
  if (out.length > rows) out = wrap(clean.join(' '), columns);
  out = out.slice(0, rows);
  while (out.length < rows) out.push('');
  return out;
}

function wrap(text: string, columns: number): string[] {
  const rows: string[] = [];
  let current = '';
  for (const word of text.split(' ')) {
    if (!word) continue;
    if (!current) current = word;
    else if (current.length + 1 + word.length <= columns) current += ` ${word}`;
    else {
      rows.push(current);
      current = word;
    }
    while (current.length > columns) {
      rows.push(current.slice(0, columns));
      current = current.slice(columns);
    }
  }
  if (current) rows.push(current);
  return rows;
}
